// The HDF5 trace writer (PCOLL_WITH_HDF5=ON). Every rank writes its own rows of each table into
// one shared dataset (rows of rank r follow those of rank r-1), with parallel HDF5 and
// independent data transfers; file creation, datasets and attributes are collective, with the
// attribute values taken from rank 0. Strings are fixed-length (parallel HDF5 cannot write
// variable-length data), NUL-padded. Layout: docs/trace-format.md.
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <vector>

#include <pcoll/pcoll.h>

#include "config.hpp"
#include "trace/recorder.hpp"
#include "trace/writer.hpp"

#ifndef PCOLL_GIT_REVISION
#define PCOLL_GIT_REVISION "unknown"
#endif

namespace pcoll::trace {

namespace {

constexpr int kFormatVersion = 1;
constexpr std::size_t kChunkRows = 1 << 16;  // rows converted and written at a time

// The names that did not fit their column in the file being written (said once, on stderr).
std::vector<std::string> g_cut;

template <std::size_t N>
void put(char (&dst)[N], const std::string &s) {
  std::memset(dst, 0, N);
  std::memcpy(dst, s.data(), std::min(N - 1, s.size()));
  if (s.size() > N - 1 && std::find(g_cut.begin(), g_cut.end(), s) == g_cut.end())
    g_cut.push_back(s);
}

// Rows as stored in the file (see docs/trace-format.md).
struct CallRow {
  std::int32_t rank;
  std::uint64_t seq, comm_seq;
  std::int64_t iteration;
  char collective[kCollectiveField], algorithm[96], params[kParamsField];
  std::int32_t comm_size, comm_root;
  std::uint64_t count;
  std::uint32_t type_size;
  std::uint64_t bytes;
  double t_enter, t_exit, seconds;
  std::uint64_t phase_first;
  std::uint32_t nphases;
};
struct PhaseRow {
  std::uint64_t call;  // row in /calls
  std::int32_t rank;
  char name[32];
  double seconds;
};
struct AppRow {
  std::int32_t rank;
  std::int64_t iteration;
  char name[32];
  double t_begin, seconds;
};
struct SummaryRow {
  std::int32_t rank;
  char collective[kCollectiveField], algorithm[96], params[kParamsField];
  std::uint64_t bytes;
  char metric[32];
  std::uint64_t n;
  double min, median_est, max, mean;
};
struct ClockRow {
  std::int32_t rank;
  double offset, rtt;
  char measured_at[16];
  double offset_end, rtt_end;
};

hid_t str_type(std::size_t n) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, n);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  return t;
}

// A compound type built field by field; closes the string types it made.
class Compound {
 public:
  explicit Compound(std::size_t size) : id_(H5Tcreate(H5T_COMPOUND, size)) {}
  ~Compound() {
    for (hid_t t : owned_) H5Tclose(t);
    H5Tclose(id_);
  }
  Compound &field(const char *name, std::size_t off, hid_t type) {
    H5Tinsert(id_, name, off, type);
    return *this;
  }
  Compound &text(const char *name, std::size_t off, std::size_t n) {
    owned_.push_back(str_type(n));
    return field(name, off, owned_.back());
  }
  hid_t id() const { return id_; }

 private:
  hid_t id_;
  std::vector<hid_t> owned_;
};

#define PCOLL_F(S, m) #m, HOFFSET(S, m)
#define PCOLL_T(S, m) #m, HOFFSET(S, m), sizeof(S::m)

// Creates dataset `name` of `total` rows (collective) and writes this rank's `n` rows starting at
// `first`, produced by fill(i, row) in chunks. Returns false on an HDF5 error.
template <class Row>
bool write_table(hid_t file, const char *name, const Compound &type, std::uint64_t first,
                 std::uint64_t n, std::uint64_t total,
                 const std::function<void(std::uint64_t, Row &)> &fill) {
  hsize_t dims[1] = {total};
  hid_t space = H5Screate_simple(1, dims, nullptr);
  hid_t packed = H5Tcopy(type.id());
  H5Tpack(packed);
  hid_t dset = H5Dcreate2(file, name, packed, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Tclose(packed);
  bool ok = dset >= 0;
  std::vector<Row> buf;
  for (std::uint64_t done = 0; ok && done < n;) {
    const std::uint64_t m = std::min<std::uint64_t>(kChunkRows, n - done);
    buf.resize(m);
    for (std::uint64_t i = 0; i < m; ++i) fill(done + i, buf[i]);
    hsize_t start[1] = {first + done}, cnt[1] = {m};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, cnt, nullptr);
    hid_t mem = H5Screate_simple(1, cnt, nullptr);
    ok = H5Dwrite(dset, type.id(), mem, space, H5P_DEFAULT, buf.data()) >= 0;
    H5Sclose(mem);
    done += m;
  }
  if (dset >= 0) H5Dclose(dset);
  H5Sclose(space);
  return ok;
}

void attr_text(hid_t obj, const char *name, const std::string &value) {
  hid_t t = str_type(std::max<std::size_t>(1, value.size()));
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  std::string v = value.empty() ? std::string(1, '\0') : value;
  H5Awrite(a, t, v.data());
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

template <class T>
void attr_num(hid_t obj, const char *name, hid_t type, T value) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, &value);
  H5Aclose(a);
  H5Sclose(s);
}

std::string bcast_string(std::string s, MPI_Comm comm) {
  int n = static_cast<int>(s.size());
  PMPI_Bcast(&n, 1, MPI_INT, 0, comm);
  s.resize(static_cast<std::size_t>(n));
  PMPI_Bcast(s.data(), n, MPI_CHAR, 0, comm);
  return s;
}

std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw;
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string mpi_library() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(v, &n);
  std::string s(v, static_cast<std::size_t>(n));
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// Per-rank counts, gathered so every rank knows where its rows go.
enum Count { kCalls, kPhases, kApp, kSummary, kSeen, kSummarized, kAppSummarized, kNCounts };

}  // namespace

bool writer_available() {
  return true;
}

std::string write_file(const std::string &path, const Recorder &rec, MPI_Comm comm,
                       const WriteInfo &info) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  std::uint64_t mine[kNCounts] = {
      rec.calls().size(), rec.phases().size(),    rec.app().size(),    rec.summaries().size(),
      rec.calls_seen(),   rec.calls_summarized(), rec.app_summarized()};
  std::vector<std::uint64_t> all(static_cast<std::size_t>(kNCounts) * size);
  PMPI_Allgather(mine, kNCounts, MPI_UINT64_T, all.data(), kNCounts, MPI_UINT64_T, comm);
  std::uint64_t first[kNCounts] = {}, total[kNCounts] = {};
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < kNCounts; ++k) {
      if (r < rank) first[k] += all[static_cast<std::size_t>(r * kNCounts + k)];
      total[k] += all[static_cast<std::size_t>(r * kNCounts + k)];
    }

  // Clocks: this rank's time on the reference clock is local - offset - t0, where t0 is the
  // reference rank's time at trace start (rank 0's offset is 0).
  const ClockOffset &off = rec.start_offset.measured ? rec.start_offset : rec.end_offset;
  double t0 = rec.t_start() - off.offset;
  PMPI_Bcast(&t0, 1, MPI_DOUBLE, 0, comm);
  auto aligned = [&](double t) { return t - off.offset - t0; };
  const auto &names = rec.names();

  int ranks_per_node = 1;
  {
    MPI_Comm node = MPI_COMM_NULL;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local = 1;
    PMPI_Comm_size(node, &local);
    PMPI_Comm_free(&node);
    PMPI_Allreduce(&local, &ranks_per_node, 1, MPI_INT, MPI_MAX, comm);
  }

  const std::string tmp = path + ".tmp";
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // we report failures ourselves
  hid_t file = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (file < 0) return "cannot create '" + tmp + "' (does the directory exist and is writable?)";

  bool ok = true;
  // /calls
  {
    Compound t(sizeof(CallRow));
    t.field(PCOLL_F(CallRow, rank), H5T_NATIVE_INT32)
        .field(PCOLL_F(CallRow, seq), H5T_NATIVE_UINT64)
        .field(PCOLL_F(CallRow, comm_seq), H5T_NATIVE_UINT64)
        .field(PCOLL_F(CallRow, iteration), H5T_NATIVE_INT64)
        .text(PCOLL_T(CallRow, collective))
        .text(PCOLL_T(CallRow, algorithm))
        .text(PCOLL_T(CallRow, params))
        .field(PCOLL_F(CallRow, comm_size), H5T_NATIVE_INT32)
        .field(PCOLL_F(CallRow, comm_root), H5T_NATIVE_INT32)
        .field(PCOLL_F(CallRow, count), H5T_NATIVE_UINT64)
        .field(PCOLL_F(CallRow, type_size), H5T_NATIVE_UINT32)
        .field(PCOLL_F(CallRow, bytes), H5T_NATIVE_UINT64)
        .field(PCOLL_F(CallRow, t_enter), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(CallRow, t_exit), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(CallRow, seconds), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(CallRow, phase_first), H5T_NATIVE_UINT64)
        .field(PCOLL_F(CallRow, nphases), H5T_NATIVE_UINT32);
    ok &= write_table<CallRow>(file, "calls", t, first[kCalls], mine[kCalls], total[kCalls],
                               [&](std::uint64_t i, CallRow &row) {
                                 const CallRecord &c = rec.calls()[i];
                                 row.rank = rank;
                                 row.seq = c.seq;
                                 row.comm_seq = c.comm_seq;
                                 row.iteration = c.iteration;
                                 put(row.collective, names[c.coll]);
                                 put(row.algorithm, names[c.algo]);
                                 put(row.params, names[c.params]);
                                 row.comm_size = c.comm_size;
                                 row.comm_root = c.comm_root;
                                 row.count = c.count;
                                 row.type_size = c.type_size;
                                 row.bytes = c.bytes;
                                 row.t_enter = aligned(c.t_enter);
                                 row.t_exit = aligned(c.t_exit);
                                 row.seconds = c.t_exit - c.t_enter;
                                 row.phase_first = c.phase_first + first[kPhases];
                                 row.nphases = c.nphases;
                               });
  }
  // /phases: which call a phase row belongs to, by walking the calls in order.
  {
    std::vector<std::uint64_t> owner(rec.phases().size());
    for (std::size_t i = 0; i < rec.calls().size(); ++i)
      for (std::uint32_t k = 0; k < rec.calls()[i].nphases; ++k)
        owner[rec.calls()[i].phase_first + k] = first[kCalls] + i;
    Compound t(sizeof(PhaseRow));
    t.field(PCOLL_F(PhaseRow, call), H5T_NATIVE_UINT64)
        .field(PCOLL_F(PhaseRow, rank), H5T_NATIVE_INT32)
        .text(PCOLL_T(PhaseRow, name))
        .field(PCOLL_F(PhaseRow, seconds), H5T_NATIVE_DOUBLE);
    ok &= write_table<PhaseRow>(file, "phases", t, first[kPhases], mine[kPhases], total[kPhases],
                                [&](std::uint64_t i, PhaseRow &row) {
                                  row.call = owner[i];
                                  row.rank = rank;
                                  put(row.name, names[rec.phases()[i].name]);
                                  row.seconds = rec.phases()[i].seconds;
                                });
  }
  // /app
  {
    Compound t(sizeof(AppRow));
    t.field(PCOLL_F(AppRow, rank), H5T_NATIVE_INT32)
        .field(PCOLL_F(AppRow, iteration), H5T_NATIVE_INT64)
        .text(PCOLL_T(AppRow, name))
        .field(PCOLL_F(AppRow, t_begin), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(AppRow, seconds), H5T_NATIVE_DOUBLE);
    ok &= write_table<AppRow>(
        file, "app", t, first[kApp], mine[kApp], total[kApp], [&](std::uint64_t i, AppRow &row) {
          const AppRecord &a = rec.app()[i];
          row.rank = rank;
          row.iteration = a.iteration;
          put(row.name, names[a.name]);
          row.t_begin = std::isnan(a.t_begin) ? a.t_begin : aligned(a.t_begin);
          row.seconds = a.seconds;
        });
  }
  // /summary
  {
    std::vector<const std::pair<const SummaryKey, LogHistogram> *> rows;
    for (const auto &kv : rec.summaries()) rows.push_back(&kv);
    Compound t(sizeof(SummaryRow));
    t.field(PCOLL_F(SummaryRow, rank), H5T_NATIVE_INT32)
        .text(PCOLL_T(SummaryRow, collective))
        .text(PCOLL_T(SummaryRow, algorithm))
        .text(PCOLL_T(SummaryRow, params))
        .field(PCOLL_F(SummaryRow, bytes), H5T_NATIVE_UINT64)
        .text(PCOLL_T(SummaryRow, metric))
        .field(PCOLL_F(SummaryRow, n), H5T_NATIVE_UINT64)
        .field(PCOLL_F(SummaryRow, min), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(SummaryRow, median_est), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(SummaryRow, max), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(SummaryRow, mean), H5T_NATIVE_DOUBLE);
    ok &= write_table<SummaryRow>(file, "summary", t, first[kSummary], mine[kSummary],
                                  total[kSummary], [&](std::uint64_t i, SummaryRow &row) {
                                    const SummaryKey &k = rows[i]->first;
                                    const LogHistogram &h = rows[i]->second;
                                    row.rank = rank;
                                    put(row.collective, names[std::get<0>(k)]);
                                    put(row.algorithm, names[std::get<1>(k)]);
                                    put(row.params, names[std::get<2>(k)]);
                                    row.bytes = std::get<3>(k);
                                    put(row.metric, names[std::get<4>(k)]);
                                    row.n = h.n();
                                    row.min = h.min();
                                    row.median_est = h.quantile(0.5);
                                    row.max = h.max();
                                    row.mean = h.n() ? h.sum() / double(h.n()) : 0;
                                  });
  }
  // /clock
  {
    Compound t(sizeof(ClockRow));
    t.field(PCOLL_F(ClockRow, rank), H5T_NATIVE_INT32)
        .field(PCOLL_F(ClockRow, offset), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(ClockRow, rtt), H5T_NATIVE_DOUBLE)
        .text(PCOLL_T(ClockRow, measured_at))
        .field(PCOLL_F(ClockRow, offset_end), H5T_NATIVE_DOUBLE)
        .field(PCOLL_F(ClockRow, rtt_end), H5T_NATIVE_DOUBLE);
    ok &=
        write_table<ClockRow>(file, "clock", t, static_cast<std::uint64_t>(rank), 1,
                              static_cast<std::uint64_t>(size), [&](std::uint64_t, ClockRow &row) {
                                row.rank = rank;
                                row.offset = off.offset;
                                row.rtt = off.rtt;
                                put(row.measured_at, rec.start_offset.measured ? "start" : "end");
                                row.offset_end = rec.end_offset.offset;
                                row.rtt_end = rec.end_offset.rtt;
                              });
  }
  // /run: attributes describing the run (values from rank 0).
  {
    const std::uint64_t summarized = total[kSummarized] + total[kAppSummarized];
    const Config cfg = load_config();
    hid_t run = H5Gcreate2(file, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t gcfg = H5Gcreate2(run, "config", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (std::size_t i = 0; i < param_table().size(); ++i)
      attr_text(gcfg, env_name(param_table()[i]).c_str(), bcast_string(cfg.values[i], comm));
    H5Gclose(gcfg);
    attr_text(run, "format", "pcoll-trace");
    attr_num(run, "format_version", H5T_NATIVE_INT, kFormatVersion);
    attr_text(run, "pcoll_version", PCOLL_Version());
    attr_text(run, "git_revision", PCOLL_GIT_REVISION);
    attr_text(run, "mpi_library", bcast_string(mpi_library(), comm));
    attr_num(run, "nranks", H5T_NATIVE_INT, size);
    attr_num(run, "ranks_per_node", H5T_NATIVE_INT, ranks_per_node);
    attr_text(run, "command_line", bcast_string(command_line(), comm));
    attr_text(run, "date_utc", bcast_string(utc_now(), comm));
    attr_num(run, "complete", H5T_NATIVE_INT, info.final ? 1 : 0);
    attr_num(run, "max_calls_per_rank", H5T_NATIVE_UINT64, rec.max_calls());
    attr_num(run, "calls_total", H5T_NATIVE_UINT64, total[kSeen]);
    attr_num(run, "calls_recorded", H5T_NATIVE_UINT64, total[kCalls]);
    attr_num(run, "calls_summarized", H5T_NATIVE_UINT64, total[kSummarized]);
    attr_num(run, "app_summarized", H5T_NATIVE_UINT64, total[kAppSummarized]);
    attr_num(run, "per_call_records_complete", H5T_NATIVE_INT, summarized == 0 ? 1 : 0);
    attr_text(run, "note",
              summarized == 0
                  ? "every call and application phase is in /calls and /app"
                  : "PCOLL_TRACE_MAX_CALLS reached on some ranks: /calls and /app hold the first "
                    "records per rank, the rest are only in /summary (calls_summarized, "
                    "app_summarized say how many)");
    attr_text(run, "time_unit", "seconds");
    attr_text(run, "clock",
              "t_enter, t_exit, t_begin: seconds on rank 0's MPI_Wtime clock since rank 0 "
              "started tracing (local time - /clock offset)");
    H5Gclose(run);
  }
  ok &= H5Fclose(file) >= 0;
  for (const std::string &cut : g_cut)
    std::fprintf(stderr, "pcoll: trace: '%s' is longer than its column in %s and was cut\n",
                 cut.c_str(), path.c_str());
  g_cut.clear();
  int bad = ok ? 0 : 1, any_bad = 0;
  PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (any_bad) return "HDF5 error while writing '" + tmp + "'";
  int renamed = 0;
  if (rank == 0) renamed = std::rename(tmp.c_str(), path.c_str()) == 0 ? 1 : 0;
  PMPI_Bcast(&renamed, 1, MPI_INT, 0, comm);
  if (!renamed) return "cannot rename '" + tmp + "' to '" + path + "'";
  return {};
}

}  // namespace pcoll::trace

#include "h5log.hpp"

#ifdef COLLBENCH_WITH_HDF5
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace collbench {

namespace {

struct ResultRow {
  char algorithm[32];
  std::uint64_t bytes, per_rank_bytes, count, n;
  double median, mad, p10, p90, min, max, algbw, busbw, rounds, messages;
  std::uint64_t max_bytes_sent;
  double model_seconds, vs_vendor;
  std::int64_t wrong;
};
struct SampleRow {
  char algorithm[32];
  std::uint64_t bytes;
  std::int32_t trial;
  double seconds;
};
struct SkewRow {
  char algorithm[32];
  std::uint64_t bytes;
  std::int32_t rank;
  double inside_median, total_median;
};
struct PingRow {
  std::uint64_t bytes;
  double median, mad, p10, p90;
};

template <std::size_t N>
void put(char (&dst)[N], const std::string &s) {
  std::memset(dst, 0, N);
  std::memcpy(dst, s.data(), std::min(N - 1, s.size()));
}

hid_t name_type() {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, 32);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  return t;
}

template <class Row>
void table(hid_t g, const char *name, hid_t type, const std::vector<Row> &rows) {
  hsize_t dims[1] = {rows.size()};
  hid_t space = H5Screate_simple(1, dims, nullptr);
  hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!rows.empty()) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data());
  H5Dclose(d);
  H5Sclose(space);
}

void attr_d(hid_t o, const char *n, double v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(o, n, H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  H5Sclose(s);
}
void attr_i(hid_t o, const char *n, long long v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(o, n, H5T_NATIVE_LLONG, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_LLONG, &v);
  H5Aclose(a);
  H5Sclose(s);
}
void attr_s(hid_t o, const char *n, const std::string &v) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, std::max<std::size_t>(1, v.size()));
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(o, n, t, s, H5P_DEFAULT, H5P_DEFAULT);
  std::string x = v.empty() ? std::string(1, '\0') : v;
  H5Awrite(a, t, x.data());
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

#define F(S, m) #m, HOFFSET(S, m)

}  // namespace

bool log_available() {
  return true;
}

std::string append_log(const std::string &path, const LogContent &c) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) return "cannot open or create '" + path + "'";
  const Options &o = *c.opts;
  hid_t g = H5Gcreate2(file, "collbench", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) {
    H5Fclose(file);
    return "'" + path + "' already has a /collbench group";
  }
  attr_s(g, "collective", o.coll);
  attr_s(g, "type", o.type);
  attr_s(g, "layout", o.layout);
  attr_i(g, "nranks", c.P);
  attr_i(g, "trials", o.trials);
  attr_i(g, "warmup", o.warmup);
  attr_i(g, "seed", o.seed);
  attr_i(g, "in_place", o.in_place);
  attr_i(g, "cold", o.cold);
  attr_i(g, "skew_rank", o.skew_rank);
  attr_d(g, "skew_us", o.skew_us);
  attr_d(g, "model_alpha", c.alpha);
  attr_d(g, "model_beta", c.beta);
  attr_s(g, "model_source", c.model_source);
  attr_s(g, "time", "seconds per call, maximum over ranks");

  hid_t nt = name_type();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    std::vector<ResultRow> rows;
    for (const auto &r : *c.results) {
      ResultRow x{};
      put(x.algorithm, r.algo);
      x.bytes = r.bytes;
      x.per_rank_bytes = r.bytes / std::size_t(c.P);
      x.count = r.count;
      x.n = r.stats.n;
      x.median = r.stats.median, x.mad = r.stats.mad, x.p10 = r.stats.p10, x.p90 = r.stats.p90;
      x.min = r.stats.min, x.max = r.stats.max, x.algbw = r.algbw, x.busbw = r.busbw;
      x.rounds = r.pred.valid ? r.pred.rounds : nan;
      x.messages = r.pred.valid ? r.pred.messages : nan;
      x.max_bytes_sent = r.pred.valid ? r.pred.max_bytes_sent : 0;
      x.model_seconds = r.pred.valid ? r.pred.model_seconds : nan;
      x.vs_vendor = r.vs_vendor > 0 ? r.vs_vendor : nan;
      x.wrong = r.wrong;
      rows.push_back(x);
    }
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ResultRow));
    H5Tinsert(t, F(ResultRow, algorithm), nt);
    for (auto [n, off] : {std::pair{"bytes", HOFFSET(ResultRow, bytes)},
                          {"per_rank_bytes", HOFFSET(ResultRow, per_rank_bytes)},
                          {"count", HOFFSET(ResultRow, count)},
                          {"n", HOFFSET(ResultRow, n)}})
      H5Tinsert(t, n, off, H5T_NATIVE_UINT64);
    for (auto [n, off] : {std::pair{"median", HOFFSET(ResultRow, median)},
                          {"mad", HOFFSET(ResultRow, mad)},
                          {"p10", HOFFSET(ResultRow, p10)},
                          {"p90", HOFFSET(ResultRow, p90)},
                          {"min", HOFFSET(ResultRow, min)},
                          {"max", HOFFSET(ResultRow, max)},
                          {"algbw", HOFFSET(ResultRow, algbw)},
                          {"busbw", HOFFSET(ResultRow, busbw)},
                          {"rounds", HOFFSET(ResultRow, rounds)},
                          {"messages", HOFFSET(ResultRow, messages)}})
      H5Tinsert(t, n, off, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(ResultRow, max_bytes_sent), H5T_NATIVE_UINT64);
    H5Tinsert(t, F(ResultRow, model_seconds), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(ResultRow, vs_vendor), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(ResultRow, wrong), H5T_NATIVE_INT64);
    table(g, "results", t, rows);
    H5Tclose(t);
  }
  {
    std::vector<SampleRow> rows;
    std::vector<SkewRow> skew;
    for (const auto &r : *c.results) {
      for (std::size_t k = 0; k < r.times.size(); ++k) {
        SampleRow x{};
        put(x.algorithm, r.algo);
        x.bytes = r.bytes;
        x.trial = static_cast<std::int32_t>(k);
        x.seconds = r.times[k];
        rows.push_back(x);
      }
      for (std::size_t q = 0; q < r.skew_inside.size(); ++q) {
        SkewRow x{};
        put(x.algorithm, r.algo);
        x.bytes = r.bytes;
        x.rank = static_cast<std::int32_t>(q);
        x.inside_median = r.skew_inside[q];
        x.total_median = r.skew_total[q];
        skew.push_back(x);
      }
    }
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(SampleRow));
    H5Tinsert(t, F(SampleRow, algorithm), nt);
    H5Tinsert(t, F(SampleRow, bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, F(SampleRow, trial), H5T_NATIVE_INT32);
    H5Tinsert(t, F(SampleRow, seconds), H5T_NATIVE_DOUBLE);
    table(g, "samples", t, rows);
    H5Tclose(t);
    t = H5Tcreate(H5T_COMPOUND, sizeof(SkewRow));
    H5Tinsert(t, F(SkewRow, algorithm), nt);
    H5Tinsert(t, F(SkewRow, bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, F(SkewRow, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, F(SkewRow, inside_median), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(SkewRow, total_median), H5T_NATIVE_DOUBLE);
    table(g, "skew", t, skew);
    H5Tclose(t);
  }
  if (c.pingpong && c.pingpong->valid) {
    std::vector<PingRow> rows;
    for (const auto &r : c.pingpong->rows)
      rows.push_back({r.bytes, r.one_way.median, r.one_way.mad, r.one_way.p10, r.one_way.p90});
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(PingRow));
    H5Tinsert(t, F(PingRow, bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, F(PingRow, median), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(PingRow, mad), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(PingRow, p10), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, F(PingRow, p90), H5T_NATIVE_DOUBLE);
    hsize_t dims[1] = {rows.size()};
    hid_t space = H5Screate_simple(1, dims, nullptr);
    hid_t d = H5Dcreate2(g, "pingpong", t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data());
    attr_d(d, "alpha", c.pingpong->alpha);
    attr_d(d, "beta", c.pingpong->beta);
    attr_s(d, "method",
           "ranks 0-1 one-way = round trip / 2; alpha = 0-byte median, beta = "
           "least-squares slope over the 3 largest sizes");
    H5Dclose(d);
    H5Sclose(space);
    H5Tclose(t);
  }
  if (c.overhead) {
    hid_t og = H5Gcreate2(g, "overhead", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    attr_s(og, "what", "8-byte calls with tracing off: PMPI direct vs PCOLL with vendor");
    attr_d(og, "direct_median", c.overhead->direct.median);
    attr_d(og, "direct_mad", c.overhead->direct.mad);
    attr_d(og, "pcoll_vendor_median", c.overhead->through_pcoll.median);
    attr_d(og, "pcoll_vendor_mad", c.overhead->through_pcoll.mad);
    attr_i(og, "blocks", c.overhead->reps);
    attr_i(og, "calls_per_block", c.overhead->calls_per_rep);
    H5Gclose(og);
  }
  H5Tclose(nt);
  H5Gclose(g);
  return H5Fclose(file) < 0 ? "HDF5 error closing '" + path + "'" : "";
}

}  // namespace collbench

#else  // no HDF5

namespace collbench {
bool log_available() {
  return false;
}
std::string append_log(const std::string &, const LogContent &) {
  return "collbench was built without HDF5 (PCOLL_WITH_HDF5=OFF): --log is unavailable";
}
}  // namespace collbench

#endif

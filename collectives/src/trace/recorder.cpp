#include "trace/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "config.hpp"
#include "context.hpp"
#include "trace/writer.hpp"

namespace pcoll::trace {

namespace detail {
bool g_active = false;
bool g_writing = false;
}  // namespace detail

namespace {
constexpr int kClockTag = 0x7c7c;  // on pcoll's private communicators only
constexpr int kClockRounds = 8;
}  // namespace

Recorder &recorder() {
  static Recorder r;
  return r;
}

void Recorder::start(const std::string &path, std::uint64_t max_calls) {
  path_ = path;
  max_calls_ = max_calls;
  if (active_) return;
  t_start_ = MPI_Wtime();
  // Reserving does not touch the pages: resident memory grows with use, and the vectors never
  // reallocate (which would briefly need twice the memory) before the cap is reached.
  calls_.reserve(static_cast<std::size_t>(max_calls_));
  app_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(max_calls_, 1u << 16)));
  active_ = detail::g_active = true;
}

void Recorder::stop() {
  *this = Recorder();
  detail::g_active = false;
}

ClockOffset Recorder::measure_offset(MPI_Comm comm, int ref) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  ClockOffset out;
  out.measured = true;
  if (rank == ref) {
    // Cristian's method against each rank in turn; the sample with the smallest round trip
    // bounds the error by half of it.
    for (int p = 0; p < size; ++p) {
      if (p == ref) continue;
      double best_rtt = std::numeric_limits<double>::infinity(), best_off = 0;
      for (int k = 0; k < kClockRounds; ++k) {
        double tp = 0;
        const double t0 = MPI_Wtime();
        PMPI_Send(nullptr, 0, MPI_BYTE, p, kClockTag, comm);
        PMPI_Recv(&tp, 1, MPI_DOUBLE, p, kClockTag, comm, MPI_STATUS_IGNORE);
        const double t1 = MPI_Wtime();
        if (t1 - t0 < best_rtt) best_rtt = t1 - t0, best_off = tp - 0.5 * (t0 + t1);
      }
      const double res[2] = {best_off, best_rtt};
      PMPI_Send(res, 2, MPI_DOUBLE, p, kClockTag, comm);
    }
  } else {
    for (int k = 0; k < kClockRounds; ++k) {
      PMPI_Recv(nullptr, 0, MPI_BYTE, ref, kClockTag, comm, MPI_STATUS_IGNORE);
      const double tp = MPI_Wtime();
      PMPI_Send(&tp, 1, MPI_DOUBLE, ref, kClockTag, comm);
    }
    double res[2] = {0, 0};
    PMPI_Recv(res, 2, MPI_DOUBLE, ref, kClockTag, comm, MPI_STATUS_IGNORE);
    out.offset = res[0];
    out.rtt = res[1];
  }
  return out;
}

std::uint32_t Recorder::intern(const std::string &name) {
  auto it = name_ids_.find(name);
  if (it != name_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.push_back(name);
  name_ids_.emplace(name, id);
  return id;
}

std::pair<std::uint64_t, int> Recorder::next_on_comm(MPI_Comm comm) {
  auto it = comms_.find(comm);
  if (it == comms_.end()) {
    CommInfo info;
    MPI_Group g = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int zero = 0;
    PMPI_Group_translate_ranks(g, 1, &zero, world, &info.root);
    PMPI_Group_free(&g);
    PMPI_Group_free(&world);
    it = comms_.emplace(comm, info).first;
  }
  return {it->second.seq++, it->second.root};
}

void Recorder::add_call(CallRecord rec, const std::vector<std::uint32_t> &phase_names,
                        const std::vector<double> &phase_seconds) {
  rec.seq = seq_++;
  const std::size_t np = std::min(phase_names.size(), phase_seconds.size());
  if (calls_.size() < max_calls_) {
    rec.phase_first = phases_.size();
    rec.nphases = static_cast<std::uint32_t>(np);
    for (std::size_t i = 0; i < np; ++i) phases_.push_back({phase_names[i], phase_seconds[i]});
    calls_.push_back(rec);
    return;
  }
  ++calls_summarized_;
  const std::uint32_t call = intern("call");
  summaries_[{rec.coll, rec.algo, rec.params, rec.bytes, call}].add(rec.t_exit - rec.t_enter);
  for (std::size_t i = 0; i < np; ++i)
    summaries_[{rec.coll, rec.algo, rec.params, rec.bytes, phase_names[i]}].add(phase_seconds[i]);
}

void Recorder::add_app(std::uint32_t name, double t_begin, double seconds) {
  if (app_.size() < max_calls_) {
    app_.push_back({iteration_, name, t_begin, seconds});
    return;
  }
  ++app_summarized_;
  const std::uint32_t app = intern("app");
  summaries_[{app, name, intern(""), 0, name}].add(seconds);
}

void Recorder::iteration_begin(std::int64_t it) {
  iteration_ = it;
  iteration_t0_ = MPI_Wtime();
}

int Recorder::iteration_end() {
  if (iteration_ < 0) return MPI_ERR_OTHER;
  add_app(intern("iteration"), iteration_t0_, MPI_Wtime() - iteration_t0_);
  iteration_ = -1;
  return MPI_SUCCESS;
}

void Recorder::phase_begin(const std::string &name) {
  open_phases_.emplace_back(intern(name), MPI_Wtime());
}

int Recorder::phase_end(const std::string &name) {
  const std::uint32_t id = intern(name);
  if (open_phases_.empty() || open_phases_.back().first != id) return MPI_ERR_ARG;
  const double t0 = open_phases_.back().second;
  open_phases_.pop_back();
  add_app(id, t0, MPI_Wtime() - t0);
  return MPI_SUCCESS;
}

void Recorder::record(const std::string &name, double seconds) {
  add_app(intern(name), std::numeric_limits<double>::quiet_NaN(), seconds);
}

// --- CallScope ---------------------------------------------------------------------------------

void CallScope::begin() {
  Recorder &r = recorder();
  if (r.busy()) return;  // a pcoll call made from inside another is part of the outer one
  r.set_busy(true);
  armed_ = true;
  r.current_described = false;
  r.phase_scratch().clear();
  r.phase_name_scratch().clear();
  r.current.t_enter = MPI_Wtime();
}

namespace {

// What a record says of its call: communicator (its call number, size, root), collective,
// algorithm, count and datatype size; no parameters.
void describe_record(Recorder &r, CallRecord &c, MPI_Comm comm, const char *coll,
                     const char *algo, std::size_t count, std::size_t type_size) {
  const auto on_comm = r.next_on_comm(comm);
  c.comm_seq = on_comm.first;
  c.comm_root = on_comm.second;
  int size = 1;
  PMPI_Comm_size(comm, &size);
  c.comm_size = size;
  c.coll = r.intern(coll);
  c.algo = r.intern(algo);
  c.params = r.intern("");
  c.count = count;
  c.type_size = static_cast<std::uint32_t>(type_size);
  c.bytes = count * type_size;
}

// "name=value,..." of an algorithm's resolved parameters.
std::string params_text(const std::vector<std::pair<std::string, long long>> &params) {
  std::string p;
  for (const auto &kv : params)
    p += (p.empty() ? "" : ",") + kv.first + "=" + param_text(kv.first, kv.second);
  return p;
}

}  // namespace

void CallScope::describe_impl(MPI_Comm comm, const char *coll, const char *algo, std::size_t count,
                              std::size_t type_size) {
  Recorder &r = recorder();
  describe_record(r, r.current, comm, coll, algo, count, type_size);
  r.current_described = true;
}

void CallScope::plan_impl(const std::vector<std::pair<std::string, long long>> &params,
                          const std::vector<std::string> &phase_names) {
  Recorder &r = recorder();
  r.current.params = r.intern(params_text(params));
  auto &ids = r.phase_name_scratch();
  ids.clear();
  for (const auto &n : phase_names) ids.push_back(r.intern(n));
}

void CallScope::add_phase_impl(const char *name, double seconds) {
  Recorder &r = recorder();
  auto &ids = r.phase_name_scratch();
  auto &sec = r.phase_scratch();
  sec.resize(ids.size());  // the plan's phases (zero where execute() did not reach them)
  ids.push_back(r.intern(name));
  sec.push_back(seconds);
}

void CallScope::end() {
  Recorder &r = recorder();
  r.current.t_exit = MPI_Wtime();
  r.set_busy(false);
  if (!r.current_described || !r.active()) return;
  r.current.iteration = r.iteration();
  r.add_call(r.current, r.phase_name_scratch(), r.phase_scratch());
}

// --- nonblocking and persistent operations -----------------------------------------------------

namespace {
// Seconds spent in pcoll's completion calls so far (WaitClock), and since when the one in
// progress has been waiting (nesting counted, the outermost one timed).
double g_waited = 0, g_wait_since = 0;
int g_wait_depth = 0;
// `now`: MPI_Wtime() as the caller read it (one reading serves a record's end and its wait, so
// the wait cannot outlast the record when the process is descheduled between two readings).
double waited_at(double now) {
  return g_waited + (g_wait_depth > 0 ? now - g_wait_since : 0.0);
}
}  // namespace

bool waiting() { return g_wait_depth > 0; }

void WaitClock::begin() {
  armed_ = true;
  if (g_wait_depth++ == 0) g_wait_since = MPI_Wtime();
}

void WaitClock::end() {
  if (--g_wait_depth == 0) g_waited += MPI_Wtime() - g_wait_since;
}

void OpRecord::open(MPI_Comm comm, const std::string &coll, const std::string &algo,
                    std::size_t count, std::size_t type_size,
                    const std::vector<std::pair<std::string, long long>> &params,
                    const std::vector<std::string> &phase_names) {
  on_ = false;
  if (!active() || writing()) return;
  Recorder &r = recorder();
  on_ = true;
  rec_ = CallRecord{};
  rec_.t_enter = MPI_Wtime();
  describe_record(r, rec_, comm, coll.c_str(), algo.c_str(), count, type_size);
  rec_.params = r.intern(params_text(params));
  rec_.iteration = r.iteration();
  names_.clear();
  for (const auto &n : phase_names) names_.push_back(r.intern(n));
  seconds_.assign(names_.size(), 0.0);
  wait_mark_ = waited_at(rec_.t_enter);
  in_wait_ = 0;
}

void OpRecord::close() {
  if (!on_) return;
  on_ = false;
  Recorder &r = recorder();
  if (!r.active()) return;
  rec_.t_exit = MPI_Wtime();
  seconds_.resize(names_.size());
  names_.push_back(r.intern("wait"));
  seconds_.push_back(std::max(0.0, waited_at(rec_.t_exit) - wait_mark_ - in_wait_));
  r.add_call(rec_, names_, seconds_);
}

// --- hooks ---------------------------------------------------------------------------------------

void on_new_communicator(MPI_Comm comm, const Config &cfg) {
  Recorder &r = recorder();
  const std::string &path = cfg.get("trace");
  if (!r.active()) {
    if (path.empty()) return;
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (!writer_available()) {
      if (rank == 0)
        report("PCOLL_TRACE='" + path +
               "' ignored: this pcoll was built with PCOLL_WITH_HDF5=OFF (no trace writer)");
      return;
    }
    r.start(path, static_cast<std::uint64_t>(cfg.integer("trace_max_calls")));
  }
  int size = 1, world = 1;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_size(MPI_COMM_WORLD, &world);
  if (size != world || r.start_offset.measured) return;
  // comm spans MPI_COMM_WORLD: measure against the rank that is rank 0 of MPI_COMM_WORLD.
  MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Comm_group(comm, &g);
  int zero = 0, ref = 0;
  PMPI_Group_translate_ranks(wg, 1, &zero, g, &ref);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  r.start_offset = Recorder::measure_offset(comm, ref);
}

void on_finalize() {
  if (!recorder().active()) return;
  write_now(true);
  recorder().stop();
}

}  // namespace pcoll::trace

// The trace recorder: per collective call and per rank, the enter and exit time, each phase's
// duration (the phase names the algorithm's plan declares), the collective, algorithm,
// parameters, count, datatype size and bytes; application phases and iterations; clock offsets
// between ranks. Written to HDF5 by writer.hpp at MPI_Finalize, on PCOLL_Trace_flush and on
// PCOLL_Trace_stop. The file layout is documented in docs/trace-format.md.
//
// Cost when off: CallScope's constructor tests one process-wide flag (a plain load and a branch
// the predictor always gets right); everything else is skipped. Memory when on is bounded: the
// first `trace_max_calls` calls are kept as records, later ones only update per (collective,
// algorithm, parameters, bytes) summaries (summary.hpp), and the file says so.
//
// All of it is process-level state (MPI calls are made from one thread at a time in pcoll), kept
// in the one Recorder object returned by recorder().
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/summary.hpp"

namespace pcoll {
struct Config;
}

namespace pcoll::trace {

namespace detail {
extern bool g_active;   // Recorder::active_, kept as a plain global so the off path is one load
extern bool g_writing;  // write_now() is running
}  // namespace detail

// True while this process writes its trace file. HDF5 and MPI-IO make their own MPI collectives
// then (MPI_Allreduce, MPI_Bcast, ...); the PMPI interposer (src/pmpi) hands those straight to
// the vendor, so the writer never re-enters pcoll or records into the tables it is writing.
inline bool writing() {
  return detail::g_writing;
}

inline bool active() {
  return __builtin_expect(detail::g_active, 0);
}

struct CallRecord {
  std::uint64_t seq = 0;           // this rank's call number, over all communicators
  std::uint64_t comm_seq = 0;      // call number on its communicator: matches calls across ranks
  std::int64_t iteration = -1;     // application iteration (PCOLL_Trace_iteration_begin), or -1
  double t_enter = 0, t_exit = 0;  // local MPI_Wtime
  std::uint64_t count = 0, bytes = 0;
  std::uint32_t type_size = 0;
  std::int32_t comm_size = 0;
  std::int32_t comm_root = 0;  // rank in MPI_COMM_WORLD of the communicator's rank 0
  std::uint32_t coll = 0, algo = 0, params = 0;  // ids in Recorder::names()
  std::uint32_t nphases = 0;
  std::uint64_t phase_first = 0;  // index into Recorder::phases()
};

struct PhaseRecord {
  std::uint32_t name = 0;  // id in names()
  double seconds = 0;
};

struct AppRecord {
  std::int64_t iteration = -1;
  std::uint32_t name = 0;  // "iteration" for PCOLL_Trace_iteration_begin/end
  double t_begin = 0;      // local MPI_Wtime; NaN for PCOLL_Trace_record
  double seconds = 0;
};

// One clock-offset estimate of this rank against the reference rank (rank 0 of MPI_COMM_WORLD):
// local clock - reference clock, from the ping-pong with the smallest round trip.
struct ClockOffset {
  bool measured = false;
  double offset = 0, rtt = 0;
};

class Recorder {
 public:
  bool active() const { return active_; }
  // Starts recording into `path` (keeps what was recorded so far if already active).
  void start(const std::string &path, std::uint64_t max_calls);
  void stop();  // forgets everything
  const std::string &path() const { return path_; }
  std::uint64_t max_calls() const { return max_calls_; }

  // Measures the offset of this rank's clock against `ref` of `comm` (collective over comm).
  static ClockOffset measure_offset(MPI_Comm comm, int ref);
  ClockOffset start_offset, end_offset;

  // --- calls (CallScope) ---------------------------------------------------------------------
  bool busy() const { return busy_; }
  std::uint32_t intern(const std::string &name);
  const std::vector<std::string> &names() const { return names_; }
  // Per-communicator sequence number and world rank of the communicator's rank 0.
  std::pair<std::uint64_t, int> next_on_comm(MPI_Comm comm);
  void add_call(CallRecord rec, const std::vector<std::uint32_t> &phase_names,
                const std::vector<double> &phase_seconds);

  // --- application phases ----------------------------------------------------------------------
  void iteration_begin(std::int64_t it);
  int iteration_end();  // MPI error code
  void phase_begin(const std::string &name);
  int phase_end(const std::string &name);
  void record(const std::string &name, double seconds);

  const std::vector<CallRecord> &calls() const { return calls_; }
  const std::vector<PhaseRecord> &phases() const { return phases_; }
  const std::vector<AppRecord> &app() const { return app_; }
  const SummaryTable &summaries() const { return summaries_; }
  std::uint64_t calls_seen() const { return seq_; }
  std::uint64_t calls_summarized() const { return calls_summarized_; }
  std::uint64_t app_summarized() const { return app_summarized_; }
  double t_start() const { return t_start_; }
  std::int64_t iteration() const { return iteration_; }

  // Scratch the current call's phases accumulate into (CallScope).
  std::vector<double> &phase_scratch() { return phase_scratch_; }
  std::vector<std::uint32_t> &phase_name_scratch() { return phase_name_scratch_; }
  void set_busy(bool b) { busy_ = b; }
  CallRecord current;  // the call in flight (calls do not nest: busy())
  bool current_described = false;

 private:
  void add_app(std::uint32_t name, double t_begin, double seconds);

  bool active_ = false, busy_ = false;
  std::string path_;
  std::uint64_t max_calls_ = 0;
  double t_start_ = 0;
  std::uint64_t seq_ = 0, calls_summarized_ = 0, app_summarized_ = 0;
  std::int64_t iteration_ = -1;
  double iteration_t0_ = 0;
  std::vector<std::pair<std::uint32_t, double>> open_phases_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  struct CommInfo {
    std::uint64_t seq = 0;
    int root = 0;
  };
  std::unordered_map<MPI_Comm, CommInfo> comms_;
  std::vector<CallRecord> calls_;
  std::vector<PhaseRecord> phases_;
  std::vector<AppRecord> app_;
  SummaryTable summaries_;
  std::vector<double> phase_scratch_;
  std::vector<std::uint32_t> phase_name_scratch_;
};

Recorder &recorder();

// Called once per new pcoll communicator context (collective over `comm`, the context's private
// duplicate): arms the recorder from PCOLL_TRACE, and measures the clock offsets at start when
// `comm` spans MPI_COMM_WORLD.
void on_new_communicator(MPI_Comm comm, const Config &cfg);
// Called by MPI_Finalize (through pcoll's MPI_COMM_SELF attribute callback, context.cpp): writes
// the file collectively over MPI_COMM_WORLD when tracing is on.
void on_finalize();
// Writes the file now (collective over MPI_COMM_WORLD); returns an MPI error code. `final`:
// the run is complete (finalize/stop) rather than a snapshot (flush).
int write_now(bool final);

// Records one collective call when tracing is on. Declare it first in the API function so the
// enter time includes argument checking and selection; describe the call once it is known; hand
// phase_seconds() to execute(). A call that fails before describe() is not recorded.
class CallScope {
 public:
  CallScope() {
    if (active()) begin();
  }
  ~CallScope() {
    if (armed_) end();
  }
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;

  // Whether this call is being recorded (arguments of describe() need not be computed if not).
  bool on() const { return armed_; }
  // `comm`: the context's communicator; `coll`, `algo`: the names users type.
  void describe(MPI_Comm comm, const char *coll, const char *algo, std::size_t count,
                std::size_t type_size) {
    if (armed_) describe_impl(comm, coll, algo, count, type_size);
  }
  // The plan's parameters and phase names (copied: they may die before the scope does).
  template <class Params>
  void plan(const Params &params, const std::vector<std::string> &phase_names) {
    if (armed_) plan_impl(params, phase_names);
  }
  // Where execute() accumulates per-phase seconds; nullptr when off.
  std::vector<double> *phase_seconds() { return armed_ ? &recorder().phase_scratch() : nullptr; }
  // One more phase after the plan's (the packing of non-contiguous buffers: "pack", "unpack").
  void add_phase(const char *name, double seconds) {
    if (armed_) add_phase_impl(name, seconds);
  }

 private:
  void begin();
  void end();
  void describe_impl(MPI_Comm comm, const char *coll, const char *algo, std::size_t count,
                     std::size_t type_size);
  void plan_impl(const std::vector<std::pair<std::string, long long>> &params,
                 const std::vector<std::string> &phase_names);
  void add_phase_impl(const char *name, double seconds);

  bool armed_ = false;  // the only member: constructing a scope when off is one store
};

// The record of a nonblocking or persistent operation, opened at its start and added at its
// completion (by the engine, in request.cpp), so one record spans the time the collective was in
// flight: t_enter = the start, t_exit = when pcoll saw its last round complete. Its phases are
// the plan's, each the time spent inside pcoll advancing that phase's rounds (posting, testing,
// reducing), then "wait": the time the program spent blocked in pcoll's completion calls
// (PCOLL_Wait & co., MPI_Wait & co. under libpcoll_mpi.so) while the operation was in flight.
// What the program overlapped is the span minus "wait". The collective's name is the MPI call's
// ("iallreduce"; a persistent start "allreduce_init").
class OpRecord {
 public:
  bool on() const { return on_; }
  // Opens the record when tracing is on (`comm`: the context's communicator).
  void open(MPI_Comm comm, const std::string &coll, const std::string &algo, std::size_t count,
            std::size_t type_size, const std::vector<std::pair<std::string, long long>> &params,
            const std::vector<std::string> &phase_names);
  // Where the cursor adds the time spent per plan phase; nullptr when not recording.
  std::vector<double> *phase_seconds() { return on_ ? &seconds_ : nullptr; }
  // Time spent advancing this operation inside a completion call: counted in its phase, so
  // taken out of "wait".
  void advanced_in_wait(double seconds) { in_wait_ += seconds; }
  void close();  // adds the record (nothing when not open)

 private:
  bool on_ = false;
  CallRecord rec_;
  std::vector<std::uint32_t> names_;
  std::vector<double> seconds_;
  double wait_mark_ = 0, in_wait_ = 0;
};

// Whether the program is inside a pcoll completion call (a WaitClock is armed).
bool waiting();

// Marks the time the program spends blocked in a pcoll completion call (OpRecord's "wait").
// Constructing one when tracing is off is one branch.
class WaitClock {
 public:
  WaitClock() {
    if (active()) begin();
  }
  ~WaitClock() {
    if (armed_) end();
  }
  WaitClock(const WaitClock &) = delete;
  WaitClock &operator=(const WaitClock &) = delete;

 private:
  void begin();
  void end();
  bool armed_ = false;
};

}  // namespace pcoll::trace

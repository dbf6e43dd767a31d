// The public tracing API (pcoll/trace.h) and the collective write shared by flush, stop and
// MPI_Finalize.
#include <pcoll/trace.h>

#include <mpi.h>

#include <new>
#include <string>

#include "config.hpp"
#include "context.hpp"
#include "engine.hpp"
#include "trace/recorder.hpp"
#include "trace/writer.hpp"

namespace pcoll::trace {

int write_now(bool final) {
  Recorder &r = recorder();
  struct Writing {  // writing() for the duration, whichever way this returns
    Writing() { detail::g_writing = true; }
    ~Writing() { detail::g_writing = false; }
  } writing_now;
  // A private duplicate: our clock ping-pong can never match an application receive.
  MPI_Comm comm = MPI_COMM_NULL;
  int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rc != MPI_SUCCESS) return rc;
  r.end_offset = Recorder::measure_offset(comm, 0);
  const std::string err = write_file(r.path(), r, comm, WriteInfo{final});
  PMPI_Comm_free(&comm);
  if (!err.empty()) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) report("trace: " + err);
    return MPI_ERR_FILE;
  }
  return MPI_SUCCESS;
}

}  // namespace pcoll::trace

using namespace pcoll;

namespace {

// No C++ exception crosses the C API (these calls have no communicator: the code is returned).
template <class Body>
int guarded(Body body) noexcept {
  try {
    const EngineLock lock;  // (engine.hpp: only with PCOLL_PROGRESS=thread)
    return body();
  } catch (const std::bad_alloc &) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

}  // namespace

extern "C" {

int PCOLL_Trace_start(const char *path) {
  return guarded([&]() -> int {
    if (path == nullptr || *path == '\0') return MPI_ERR_ARG;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!trace::writer_available()) {
      if (rank == 0) report("PCOLL_Trace_start: this pcoll was built with PCOLL_WITH_HDF5=OFF");
      return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    // The context of MPI_COMM_WORLD registers the MPI_Finalize hook (and arms PCOLL_TRACE).
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(MPI_COMM_WORLD, &err);
    if (ctx == nullptr) return err;
    trace::Recorder &r = trace::recorder();
    r.start(path, static_cast<std::uint64_t>(ctx->config().integer("trace_max_calls")));
    if (!r.start_offset.measured) r.start_offset = trace::Recorder::measure_offset(ctx->comm(), 0);
    return MPI_SUCCESS;
  });
}

int PCOLL_Trace_flush(void) {
  return guarded(
      [&]() -> int { return trace::recorder().active() ? trace::write_now(false) : MPI_SUCCESS; });
}

int PCOLL_Trace_stop(void) {
  return guarded([&]() -> int {
    if (!trace::recorder().active()) return MPI_SUCCESS;
    const int rc = trace::write_now(true);
    trace::recorder().stop();
    return rc;
  });
}

int PCOLL_Trace_active(void) {
  return guarded([&]() -> int { return trace::active() ? 1 : 0; });
}

int PCOLL_Trace_iteration_begin(long long iteration) {
  return guarded([&]() -> int {
    if (trace::active()) trace::recorder().iteration_begin(iteration);
    return MPI_SUCCESS;
  });
}

int PCOLL_Trace_iteration_end(void) {
  return guarded(
      [&]() -> int { return trace::active() ? trace::recorder().iteration_end() : MPI_SUCCESS; });
}

int PCOLL_Trace_phase_begin(const char *name) {
  return guarded([&]() -> int {
    if (name == nullptr) return MPI_ERR_ARG;
    if (trace::active()) trace::recorder().phase_begin(name);
    return MPI_SUCCESS;
  });
}

int PCOLL_Trace_phase_end(const char *name) {
  return guarded([&]() -> int {
    if (name == nullptr) return MPI_ERR_ARG;
    return trace::active() ? trace::recorder().phase_end(name) : MPI_SUCCESS;
  });
}

int PCOLL_Trace_record(const char *name, double seconds) {
  return guarded([&]() -> int {
    if (name == nullptr) return MPI_ERR_ARG;
    if (trace::active()) trace::recorder().record(name, seconds);
    return MPI_SUCCESS;
  });
}

}  // extern "C"

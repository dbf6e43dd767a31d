#include "pmpi/interpose.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "config.hpp"
#include "context.hpp"
#include "engine.hpp"
#include "trace/recorder.hpp"

namespace pcoll::pmpi {

namespace {

// Calls of this thread now inside pcoll (its own PMPI_ calls see 1 and go to the vendor).
thread_local int t_depth = 0;
// Some thread is inside pcoll: a second one entering is two threads at once (MPI_THREAD_MULTIPLE).
std::atomic<bool> g_inside{false};

struct Settings {
  bool disabled = false;
  bool multiple_to_vendor = false;
};

// PCOLL_DISABLE and PCOLL_THREAD_MULTIPLE, read once from the parameter table (config.cpp). A
// bad value counts as the default here; pcoll's configuration check then fails the call with a
// message naming the variable, the value and the allowed values.
const Settings &settings() {
  static const Settings s = [] {
    const Config c = load_config();
    Settings r;
    r.disabled = c.get("disable") == "1";
    r.multiple_to_vendor = c.get("thread_multiple") == "vendor";
    return r;
  }();
  return s;
}

int world_rank() {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// MPI_THREAD_MULTIPLE or not; -1 while MPI is not usable (before MPI_Init, after MPI_Finalize).
int thread_multiple() {
  static std::atomic<int> known{-1};
  int v = known.load(std::memory_order_relaxed);
  if (v >= 0) return v;
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized) return -1;
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  v = level == MPI_THREAD_MULTIPLE ? 1 : 0;
  int unknown = -1;  // the thread that records the level says it, once
  if (known.compare_exchange_strong(unknown, v) && v == 1 && settings().multiple_to_vendor &&
      world_rank() == 0)
    report(
        "MPI_THREAD_MULTIPLE with PCOLL_THREAD_MULTIPLE=vendor: libpcoll_mpi.so hands every "
        "collective to the vendor MPI (untraced)");
  return v;
}

}  // namespace

bool disabled() { return settings().disabled; }

void *vendor_symbol(const char *name, void *self) {
  void *f = dlsym(RTLD_NEXT, name);
  if (f == nullptr || f == self) f = dlsym(RTLD_DEFAULT, name);
  if (f == nullptr || f == self) {
    std::fprintf(stderr,
                 "pcoll: libpcoll_mpi.so cannot find the MPI library's %s: load it before the "
                 "MPI library (LD_PRELOAD, or link -lpcoll_mpi before -lmpi)\n",
                 name);
    std::fflush(stderr);
    std::abort();
  }
  return f;
}

Gate::Gate() {
  if (t_depth > 0 || on_progress_thread() || trace::writing() || settings().disabled) return;
  const int multiple = thread_multiple();
  if (multiple < 0 || (multiple == 1 && settings().multiple_to_vendor)) return;
  if (g_inside.exchange(true, std::memory_order_acquire)) {
    report(
        "two threads are inside MPI collectives at once (MPI_THREAD_MULTIPLE), and pcoll is "
        "not thread-safe; stopping. Run with PCOLL_THREAD_MULTIPLE=vendor (every collective "
        "to the vendor MPI) or PCOLL_DISABLE=1, or without libpcoll_mpi.so");
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  ++t_depth;
  serve_ = true;
}

Gate::~Gate() {
  if (!serve_) return;
  --t_depth;
  g_inside.store(false, std::memory_order_release);
}

}  // namespace pcoll::pmpi

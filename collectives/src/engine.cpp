#include "engine.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "config.hpp"
#include "context.hpp"
#include "request.hpp"

namespace pcoll {

namespace {

struct Settings {
  bool thread = false;
  long long interval_us = 0;
};

// PCOLL_PROGRESS and PCOLL_PROGRESS_INTERVAL, read once. A bad value counts as the default here;
// pcoll's configuration check fails the first call with a message naming the variable.
const Settings &settings() {
  static const Settings s = [] {
    const Config c = load_config();
    Settings r;
    r.thread = c.get("progress") == "thread";
    try {
      r.interval_us = std::max(0LL, c.integer("progress_interval"));
    } catch (...) {
      r.interval_us = 0;
    }
    return r;
  }();
  return s;
}

std::recursive_mutex g_mu;
thread_local int t_held = 0;  // this thread's holds of g_mu
thread_local bool t_progress_thread = false;

// The thread's sleep while nothing is outstanding: g_work says something may be (set by each
// start, under g_mu; cleared by the thread when it finds nothing, also under g_mu, so a start
// is never missed), g_sleep_mu and g_cv put the thread to sleep on it.
std::atomic<bool> g_work{false};
std::atomic<bool> g_stop{false};
std::mutex g_sleep_mu;
std::condition_variable g_cv;
std::thread g_thread;
bool g_started = false;  // a start was attempted (under g_mu)
std::atomic<bool> g_running{false};

// The thread never blocks on the engine lock: when the program holds it, the program is inside
// pcoll, advancing the same operations, and the thread skips that pass. So the program never
// has to wake the thread when it releases the lock, and never waits for a thread that the
// scheduler has not run yet; it only waits out the thread's pass in progress (lock_engine).
void loop() {
  t_progress_thread = true;
  const long long interval = settings().interval_us;
  while (!g_stop.load(std::memory_order_acquire)) {
    {
      std::unique_lock<std::mutex> nap(g_sleep_mu);
      g_cv.wait(nap, [] { return g_work.load(std::memory_order_acquire) || g_stop.load(); });
    }
    if (g_stop.load(std::memory_order_acquire)) break;
    if (g_mu.try_lock()) {
      t_held = 1;
      if (operations_outstanding())
        progress();
      else
        g_work.store(false, std::memory_order_release);
      t_held = 0;
      g_mu.unlock();
    }
    if (interval > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(interval));
    else
      std::this_thread::yield();
  }
}

// The program's side of the engine lock: a pass of the thread is short, so spin for it a while
// (a futex sleep and wake-up costs tens of microseconds on a virtual machine) before blocking.
void lock_engine() {
  for (int i = 0; i < 4096; ++i) {
    if (g_mu.try_lock()) return;
    if ((i & 63) == 63) std::this_thread::yield();
  }
  g_mu.lock();
}

const char *level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

void say_once(const std::string &msg) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) report(msg);
}

}  // namespace

bool progress_thread_requested() { return settings().thread; }

EngineLock::EngineLock() {
  if (!settings().thread) return;
  lock_engine();
  ++t_held;
  held_ = true;
}

EngineLock::~EngineLock() {
  if (!held_) return;
  --t_held;
  g_mu.unlock();
}

EngineUnlocked::EngineUnlocked() {
  if (t_held != 1 || !g_running.load(std::memory_order_acquire)) return;
  t_held = 0;
  g_mu.unlock();
  released_ = true;
}

EngineUnlocked::~EngineUnlocked() {
  if (!released_) return;
  lock_engine();
  t_held = 1;
}

bool on_progress_thread() { return t_progress_thread; }

void progress_thread_wake() {
  if (!settings().thread) return;
  if (!g_started) {
    g_started = true;
#ifdef PCOLL_SMPI
    say_once(
        "PCOLL_PROGRESS=thread: no progress thread in a simulation (SMPI ranks are SimGrid "
        "actors); progress stays inside pcoll's and MPI's calls");
    return;
#else
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE) {
      say_once(std::string("PCOLL_PROGRESS=thread needs MPI_THREAD_MULTIPLE, and MPI was "
                           "initialised with ") +
               level_name(level) +
               ": no progress thread, progress stays inside pcoll's and MPI's calls (ask for "
               "the level PCOLL_Required_thread_level gives, or run under libpcoll_mpi.so)");
      return;
    }
    g_thread = std::thread(loop);
    g_running.store(true, std::memory_order_release);
#endif
  }
  if (!g_running.load(std::memory_order_relaxed)) return;
  if (!g_work.exchange(true, std::memory_order_acq_rel)) {
    { const std::lock_guard<std::mutex> nap(g_sleep_mu); }  // (no wake-up lost between the
    g_cv.notify_one();                                        //  thread's check and its wait)
  }
}

void progress_thread_stop() {
  if (!g_running.load(std::memory_order_acquire)) return;
  g_stop.store(true, std::memory_order_release);
  { const std::lock_guard<std::mutex> nap(g_sleep_mu); }
  g_cv.notify_all();
  g_thread.join();
  g_running.store(false, std::memory_order_release);
}

}  // namespace pcoll

extern "C" int PCOLL_Required_thread_level(int level) {
  return pcoll::progress_thread_requested() ? MPI_THREAD_MULTIPLE : level;
}

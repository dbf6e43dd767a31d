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

std::condition_variable_any g_cv;
std::thread g_thread;
bool g_started = false;  // a start was attempted (under g_mu)
bool g_stop = false;     // (under g_mu)
std::atomic<bool> g_running{false};

void loop() {
  t_progress_thread = true;
  std::unique_lock<std::recursive_mutex> lock(g_mu);
  t_held = 1;
  const long long interval = settings().interval_us;
  while (!g_stop) {
    if (!operations_outstanding()) {
      t_held = 0;
      g_cv.wait(lock);
      t_held = 1;
      continue;
    }
    progress();
    t_held = 0;
    lock.unlock();
    if (interval > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(interval));
    else
      std::this_thread::yield();
    lock.lock();
    t_held = 1;
  }
  t_held = 0;
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
  g_mu.lock();
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
  g_mu.lock();
  t_held = 1;
}

bool on_progress_thread() { return t_progress_thread; }

bool progress_thread_running() { return g_running.load(std::memory_order_acquire); }

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
  if (g_running.load(std::memory_order_relaxed)) g_cv.notify_one();
}

void progress_thread_stop() {
  if (!g_running.load(std::memory_order_acquire)) return;
  {
    const std::lock_guard<std::recursive_mutex> lock(g_mu);
    g_stop = true;
  }
  g_cv.notify_all();
  g_thread.join();
  g_running.store(false, std::memory_order_release);
}

}  // namespace pcoll

extern "C" int PCOLL_Required_thread_level(int level) {
  return pcoll::progress_thread_requested() ? MPI_THREAD_MULTIPLE : level;
}

// The progress thread (PCOLL_PROGRESS=thread) and the engine lock that lets it share pcoll with
// the program's thread.
//
// By default (PCOLL_PROGRESS=calls) pcoll's outstanding nonblocking and persistent collectives
// move on only while the program is inside pcoll or one of MPI's completion calls (request.hpp):
// a multi-round schedule started before a computation overlaps only its first round with it.
// With PCOLL_PROGRESS=thread each process runs one progress thread that advances every
// outstanding operation while the program computes, the design of MPICH's asynchronous progress
// (MPIR_CVAR_ASYNC_PROGRESS) applied to pcoll's own plans:
// - it needs MPI_THREAD_MULTIPLE (it posts and tests transfers while the program makes MPI
//   calls of its own). pcoll's applications ask for it through PCOLL_Required_thread_level, and
//   libpcoll_mpi.so turns an unmodified program's MPI_Init / MPI_Init_thread into
//   MPI_Init_thread(MPI_THREAD_MULTIPLE) when the variable is set. At a lower level the thread
//   is not started, and rank 0 says so once: progress stays inside the calls;
// - it is started at the first nonblocking or persistent start, sleeps while nothing is
//   outstanding (a condition variable, woken by each start), and polls while something is:
//   a pass over the outstanding operations, then a yield of the core, or with
//   PCOLL_PROGRESS_INTERVAL a sleep of that many microseconds (10 is about 60 with Linux's timer
//   slack; measured, a sleep makes back-to-back start + wait cost more). It pays only where a
//   core is idle while the ranks compute, not where every core computes;
// - one engine lock (a recursive mutex) serialises it with the program: every PCOLL_ entry
//   holds it for the call, and the thread holds it for one pass. The thread only ever tries the
//   lock (a program inside pcoll advances the same operations itself), and the program spins a
//   while before it blocks on it, so neither waits for the other to be woken by the kernel. A blocking vendor collective
//   releases it while it waits inside the vendor, so the thread keeps every outstanding pcoll
//   operation moving meanwhile (without the thread those on other communicators wait, see
//   complete_outstanding_on in request.hpp);
// - it is stopped and joined at MPI_Finalize (pcoll's MPI_COMM_SELF attribute callback), before
//   the trace is written;
// - not in SMPI builds: a simulated rank is a SimGrid actor, not a process with threads.
//
// With PCOLL_PROGRESS=calls the lock is never taken: the blocking path pays one predictable
// branch per call.
#pragma once

namespace pcoll {

// PCOLL_PROGRESS=thread in this process (read once from the environment).
bool progress_thread_requested();

// Holds the engine lock for its scope when the progress thread is requested (recursively: a
// thread already holding it only counts one more).
class EngineLock {
 public:
  EngineLock();
  ~EngineLock();
  EngineLock(const EngineLock &) = delete;
  EngineLock &operator=(const EngineLock &) = delete;

 private:
  bool held_ = false;
};

// Releases the engine lock for its scope when this thread holds it exactly once (the outermost
// pcoll call): around a blocking vendor collective. Nothing otherwise.
class EngineUnlocked {
 public:
  EngineUnlocked();
  ~EngineUnlocked();
  EngineUnlocked(const EngineUnlocked &) = delete;
  EngineUnlocked &operator=(const EngineUnlocked &) = delete;

 private:
  bool released_ = false;
};

// Whether the calling thread is pcoll's progress thread (libpcoll_mpi.so sends its MPI calls
// straight to the vendor, as it does those pcoll makes on the program's thread).
bool on_progress_thread();

// An operation was started: starts the progress thread on first use (when requested and MPI is
// at MPI_THREAD_MULTIPLE) and wakes it. Called with the engine lock held.
void progress_thread_wake();

// Stops and joins the progress thread (MPI_Finalize). Called without the engine lock.
void progress_thread_stop();

}  // namespace pcoll

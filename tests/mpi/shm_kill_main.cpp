// A rank killed in the middle of the shared-memory collectives: the job must abort, not hang.
//
// Every rank loops over shm allreduces, bcasts and barriers, `iterations` of them (argv[1],
// default 400000: seconds here; the same count on every rank, so that without a kill they would
// all finish); the last rank has a thread that kills its own process (SIGKILL: no handler, no
// cleanup, like the OOM killer or a node's watchdog) after `delay_ms` (argv[2], default 300), at
// whatever point of a call it is then. The others are left waiting on that rank's flags in the
// node segment. The launcher must notice the death and terminate them: the test
// (tests/mpi/CMakeLists.txt) passes when the job ends with a failure before its timeout, and
// fails if it times out (a rank spinning forever on a dead peer's flag) or exits 0 (nobody was
// killed: the loop was too short).
#include <mpi.h>
#include <pcoll/pcoll.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long iterations = argc > 1 ? std::atol(argv[1]) : 400000;
  const int delay_ms = argc > 2 ? std::atoi(argv[2]) : 300;
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (const char *coll : {"allreduce", "bcast", "barrier"})
    if (PCOLL_Config_push(comm, coll, "shm") != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
  std::vector<double> in(1 << 17, 1.0), out(in.size());  // 1 MiB: most of the time in a call
  // The first call maps the node segment; every rank must have it before the victim's clock runs.
  PCOLL_Allreduce(in.data(), out.data(), 1, MPI_DOUBLE, MPI_SUM, comm);
  const char *served = "";
  PCOLL_Get_last_algorithm(comm, &served);
  if (rank == 0) std::printf("shm_kill: P = %d, served by %s\n", P, served);
  std::fflush(stdout);
  if (rank == P - 1)
    std::thread([delay_ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      std::raise(SIGKILL);
    }).detach();
  for (long i = 0; i < iterations; ++i) {
    const int n = i % 3 == 0 ? static_cast<int>(in.size()) : 1 + static_cast<int>(i % 7);
    PCOLL_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    PCOLL_Bcast(out.data(), n, MPI_DOUBLE, static_cast<int>(i % P), comm);
    if (i % 5 == 0) PCOLL_Barrier(comm);
  }
  // Not reached by a correct run of this test: the last rank is dead long before.
  std::printf("shm_kill: rank %d finished %ld iterations: nobody was killed\n", rank, iterations);
  MPI_Finalize();
  return 0;
}

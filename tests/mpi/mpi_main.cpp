// Catch2 main for tests run under mpiexec: every rank runs every test case in the same order
// (collectives inside must match up), and the exit code is the worst over ranks.
#include <mpi.h>
#include <pcoll/pcoll.h>

#include "../common/catch_session.hpp"

int main(int argc, char **argv) {
  int provided = 0;  // MPI_THREAD_MULTIPLE when PCOLL_PROGRESS=thread (pcoll's progress thread)
  MPI_Init_thread(&argc, &argv, PCOLL_Required_thread_level(MPI_THREAD_SINGLE), &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Rank 0 reports in full; the others only their failures (compact), so P-fold output stays
  // readable while no rank's failure is hidden.
  int rc = pcoll_test::run_catch(argc, argv, rank != 0);
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

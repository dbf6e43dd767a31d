// Catch2 main for tests run under mpiexec: every rank runs every test case in the same order
// (collectives inside must match up), and the exit code is the worst over ranks.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Catch::Session session;
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) {
    MPI_Finalize();
    return rc;
  }
  // Rank 0 reports in full; the others only their failures (compact), so P-fold output stays
  // readable while no rank's failure is hidden.
  if (rank != 0) session.configData().reporterName = "compact";
  int rc = session.run();
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

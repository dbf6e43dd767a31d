// Catch2 main for the k-means MPI tests: MPI, then Kokkos (OMP_NUM_THREADS threads per rank),
// every rank runs every test case in the same order; the exit code is the worst over ranks.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "../common/catch_session.hpp"

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Kokkos::initialize(argc, argv);
  const int rc = pcoll_test::run_catch(argc, argv, rank != 0);
  Kokkos::finalize();
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

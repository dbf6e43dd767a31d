// Catch2 main for tests of the Kokkos kernels (no MPI): Kokkos lives for the whole session, with
// the thread count of OMP_NUM_THREADS (ctest registers the same tests at several counts).
#include <Kokkos_Core.hpp>

#include "../common/catch_session.hpp"

int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  const int rc = pcoll_test::run_catch(argc, argv);
  Kokkos::finalize();
  return rc;
}

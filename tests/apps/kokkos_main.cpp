// Catch2 main for tests of the Kokkos kernels (no MPI): Kokkos lives for the whole session, with
// the thread count of OMP_NUM_THREADS (ctest registers the same tests at several counts).
#define CATCH_CONFIG_RUNNER
#include <Kokkos_Core.hpp>

#include <catch2/catch.hpp>

int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  {
    Catch::Session session;
    rc = session.applyCommandLine(argc, argv);
    if (rc == 0) rc = session.run();
  }
  Kokkos::finalize();
  return rc;
}

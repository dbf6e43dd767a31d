// Catch2 main for the test programs without MPI or Kokkos.
#include "../common/catch_session.hpp"

int main(int argc, char **argv) {
  return pcoll_test::run_catch(argc, argv);
}

// cg: the Krylov case study on pcoll. Thin main (apps/common/app_main.hpp): MPI, then Kokkos
// (OpenMP, OMP_NUM_THREADS threads per rank), then the driver (driver.cpp, solver.cpp). A
// ConfigError is detected alike on every rank before any solve: one message, a clean exit.
#include "../common/app_main.hpp"
#include "driver.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  return pcoll::apps::app_main<pcoll::cg::Options, pcoll::cg::ConfigError>(
      argc, argv, "cg", pcoll::cg::parse_options, pcoll::cg::run_driver);
}

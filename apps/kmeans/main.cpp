// kmeans: the CHiArA paper's k-means case study (Section VI) on pcoll. Thin main
// (apps/common/app_main.hpp): MPI, then Kokkos (OpenMP, OMP_NUM_THREADS threads per rank), then
// the driver (driver.cpp, solver.cpp).
#include "../common/app_main.hpp"
#include "driver.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  return pcoll::apps::app_main<pcoll::kmeans::Options, pcoll::apps::NoCleanError>(
      argc, argv, "kmeans", pcoll::kmeans::parse_options, pcoll::kmeans::run_driver);
}

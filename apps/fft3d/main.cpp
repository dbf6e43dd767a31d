// fft3d: the 3-D FFT case study on pcoll (the all-to-all bandwidth workload). Thin main
// (apps/common/app_main.hpp): MPI, then Kokkos (OpenMP, OMP_NUM_THREADS threads per rank, which
// FFTW's planner also uses), then the driver (driver.cpp, transform.cpp). Bad input
// (std::invalid_argument) is found identically on every rank before any transform: a clean exit.
#include <stdexcept>

#include "../common/app_main.hpp"
#include "driver.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  return pcoll::apps::app_main<pcoll::fft3d::Options, std::invalid_argument>(
      argc, argv, "fft3d", pcoll::fft3d::parse_options, pcoll::fft3d::run_driver);
}

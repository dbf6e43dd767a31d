// fft3d: the 3-D FFT case study on pcoll (the all-to-all bandwidth workload). Thin main: MPI,
// then Kokkos (OpenMP, OMP_NUM_THREADS threads per rank, which FFTW's planner also uses), then
// the driver (driver.cpp, transform.cpp).
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <iostream>
#include <stdexcept>

#include "driver.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  int provided = 0;
  // Only the main thread calls MPI; OpenMP threads live inside FFTW and the Kokkos kernels.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  {
    pcoll::fft3d::Options opt;
    try {
      if (!pcoll::fft3d::parse_options(argc, argv, opt, code, rank == 0)) {
        MPI_Finalize();
        return code;
      }
    } catch (const std::exception &e) {
      if (rank == 0) std::cerr << "fft3d: " << e.what() << "\n";
      MPI_Finalize();
      return 2;
    }
    Kokkos::initialize(argc, argv);
    // A private communicator whose errors come back as codes (then exceptions with a message).
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    try {
      code = pcoll::fft3d::run_driver(comm, opt);
    } catch (const std::invalid_argument &e) {
      // Bad input, found identically on every rank before any transform: a clean exit.
      if (rank == 0) std::cerr << "fft3d: " << e.what() << "\n";
      code = 2;
    } catch (const std::exception &e) {
      std::cerr << "fft3d: rank " << rank << ": " << e.what() << "\n";
      MPI_Abort(MPI_COMM_WORLD, 2);  // other ranks may be inside a collective
    }
    MPI_Comm_free(&comm);
    Kokkos::finalize();
  }
  MPI_Finalize();
  return code;
}

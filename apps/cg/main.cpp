// cg: the Krylov case study on pcoll. Thin main: MPI, then Kokkos (OpenMP, OMP_NUM_THREADS
// threads per rank), then the driver (driver.cpp, solver.cpp).
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <iostream>

#include "driver.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  int provided = 0;
  // Only the main thread calls MPI; OpenMP threads live inside the Kokkos kernels.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  {
    pcoll::cg::Options opt;
    try {
      if (!pcoll::cg::parse_options(argc, argv, opt, code, rank == 0)) {
        MPI_Finalize();
        return code;
      }
    } catch (const std::exception &e) {
      if (rank == 0) std::cerr << "cg: " << e.what() << "\n";
      MPI_Finalize();
      return 2;
    }
    Kokkos::initialize(argc, argv);
    // A private communicator whose errors come back as codes, so they become exceptions with a
    // message instead of an abort deep inside MPI.
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    try {
      code = pcoll::cg::run_driver(comm, opt);
    } catch (const pcoll::cg::ConfigError &e) {
      // Detected alike on every rank before any solve: one message, a clean exit.
      if (rank == 0) std::cerr << "cg: " << e.what() << "\n";
      code = 2;
    } catch (const std::exception &e) {
      std::cerr << "cg: rank " << rank << ": " << e.what() << "\n";
      MPI_Abort(MPI_COMM_WORLD, 2);  // other ranks may be inside a collective
    }
    MPI_Comm_free(&comm);
    Kokkos::finalize();
  }
  MPI_Finalize();
  return code;
}

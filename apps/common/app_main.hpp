// The case studies' main(), once: MPI (FUNNELED: only the main thread calls MPI; OpenMP threads
// live inside the Kokkos kernels and FFTW), the options (rank 0 speaks), Kokkos, a private
// communicator whose errors come back as codes (so they become exceptions with a message instead
// of an abort deep inside MPI), then the driver. Bad input that every rank finds alike before
// any collective (CleanError) ends with one message and exit code 2; any other error aborts,
// since other ranks may be inside a collective.
#pragma once

#include <mpi.h>
#include <pcoll/pcoll.h>

#include <Kokkos_Core.hpp>

#include <exception>
#include <iostream>

namespace pcoll::apps {

// For drivers without a clean-exit error type.
struct NoCleanError : std::exception {};

// parse(argc, argv, options, exit_code, speak) -> false: exit with exit_code (help, bad flags);
// run(comm, options) -> exit code.
template <class Options, class CleanError, class Parse, class Run>
int app_main(int argc, char **argv, const char *name, Parse parse, Run run) {
  int provided = 0;
  // FUNNELED for OpenMP; MULTIPLE when PCOLL_PROGRESS=thread asks for pcoll's progress thread.
  MPI_Init_thread(&argc, &argv, PCOLL_Required_thread_level(MPI_THREAD_FUNNELED), &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  {
    Options opt;
    try {
      if (!parse(argc, argv, opt, code, rank == 0)) {
        MPI_Finalize();
        return code;
      }
    } catch (const std::exception &e) {
      if (rank == 0) std::cerr << name << ": " << e.what() << "\n";
      MPI_Finalize();
      return 2;
    }
    Kokkos::initialize(argc, argv);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    try {
      code = run(comm, opt);
    } catch (const CleanError &e) {
      if (rank == 0) std::cerr << name << ": " << e.what() << "\n";
      code = 2;
    } catch (const std::exception &e) {
      std::cerr << name << ": rank " << rank << ": " << e.what() << "\n";
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_free(&comm);
    Kokkos::finalize();
  }
  MPI_Finalize();
  return code;
}

}  // namespace pcoll::apps

// The CG driver: builds the decomposition and the manufactured problem, runs warm-ups and timed
// solves with every requested allreduce algorithm, gathers the critical-path phase times and
// reports them (rank 0); optionally the refinement study.
#pragma once

#include <mpi.h>

#include <stdexcept>

#include "options.hpp"

namespace pcoll::cg {

// A configuration every rank rejects alike (a grid too small for the process grid, ...): main
// reports it once and exits 2 instead of aborting.
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Collective over comm; returns the process exit code (0, or 3 if runs that must be bitwise
// identical differ). Kokkos must be initialised.
int run_driver(MPI_Comm comm, const Options &opt);

}  // namespace pcoll::cg

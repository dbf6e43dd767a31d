// The k-means driver: builds the problem, runs warm-ups and timed runs of every requested
// allreduce algorithm, gathers the critical-path times and reports them (rank 0).
#pragma once

#include <mpi.h>

#include "options.hpp"

namespace pcoll::kmeans {

// Collective over comm; returns the process exit code (0, or 3 if results that must be bitwise
// identical differ). Kokkos must be initialised.
int run_driver(MPI_Comm comm, const Options &opt);

}  // namespace pcoll::kmeans

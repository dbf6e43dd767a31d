// The fft3d driver: builds the transform, verifies it (plane-wave spikes, round trip, FFTW-MPI on
// the same grid, bitwise identity across all-to-all algorithms), times every algorithm and
// FFTW-MPI in rotating order and reports. Collective over comm; returns the process exit code
// (0, or 3 when a result is wrong). Throws std::runtime_error / std::invalid_argument with a
// message naming the flag for bad input.
#pragma once

#include <mpi.h>

#include "options.hpp"

namespace pcoll::fft3d {

int run_driver(MPI_Comm comm, const Options &opt);

}  // namespace pcoll::fft3d

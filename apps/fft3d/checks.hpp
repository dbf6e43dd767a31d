// The field operations the driver applies alike to our transform and to the FFTW-MPI anchor, for
// complex (c2c) and real (r2c) data: fill the input, check the spectrum and the round trip,
// digest the bits, rescale after a round trip, assemble the spectrum on rank 0. T is
// DistributedFft or FftwMpi (data(), real_data(), input(), real_input(), output()).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "field.hpp"
#include "transform.hpp"

namespace pcoll::fft3d {

template <class T>
class FieldOps {
 public:
  FieldOps(MPI_Comm comm, T &t, Kind kind, const std::array<int, 3> &grid, FieldKind field,
           const std::vector<Wave> &waves)
      : comm_(comm), t_(t), real_(kind == Kind::r2c), grid_(grid), field_(field), waves_(waves) {
    cgrid_ = grid;
    if (real_) cgrid_[2] = grid[2] / 2 + 1;
  }

  void fill_input() {
    if (real_)
      fill_real(t_.real_data(), t_.real_input(), grid_, field_, waves_);
    else
      fill(t_.data(), t_.input(), grid_, field_, waves_);
  }
  // Relative errors after forward() (spikes: the waves field only) and after backward().
  double spectrum_error() {
    return real_ ? pcoll::fft3d::real_spectrum_error(comm_, t_.data(), t_.output(), grid_, waves_)
                 : pcoll::fft3d::spectrum_error(comm_, t_.data(), t_.output(), grid_, waves_);
  }
  double roundtrip_error() {
    return real_
               ? real_roundtrip_error(comm_, t_.real_data(), t_.real_input(), grid_, field_, waves_)
               : pcoll::fft3d::roundtrip_error(comm_, t_.data(), t_.input(), grid_, field_, waves_);
  }
  std::uint64_t output_digest() {
    return digest(comm_, t_.data(), t_.output().volume() * std::int64_t(sizeof(Complex)));
  }
  std::uint64_t input_digest() {
    return real_ ? digest(comm_, t_.real_data(), t_.real_input().volume() * 8)
                 : digest(comm_, t_.data(), t_.input().volume() * std::int64_t(sizeof(Complex)));
  }
  // After backward(): divide by N so that the next forward sees the input again.
  void rescale() {
    const double s = 1.0 / (double(grid_[0]) * grid_[1] * grid_[2]);
    if (real_) {
      double *d = t_.real_data();
      for (std::int64_t i = 0; i < t_.real_input().volume(); ++i) d[i] *= s;
    } else {
      Complex *d = t_.data();
      for (std::int64_t i = 0; i < t_.input().volume(); ++i) d[i] *= s;
    }
  }
  std::vector<Complex> gather_spectrum() {
    return gather_global(comm_, t_.data(), t_.output(), cgrid_);
  }

 private:
  MPI_Comm comm_;
  T &t_;
  bool real_;
  std::array<int, 3> grid_, cgrid_;
  FieldKind field_;
  const std::vector<Wave> &waves_;
};

}  // namespace pcoll::fft3d

// The anchor users compare with: FFTW-MPI's own parallel 3-D transform (fftw_mpi_plan_dft_3d) on
// the same grid, communicator and planner flags, in the same run. Forward with
// FFTW_MPI_TRANSPOSED_OUT and backward with FFTW_MPI_TRANSPOSED_IN, so it, like our transform,
// does no transpose back (a fair comparison). FFTW-MPI distributes axis 0 (then axis 1 of the
// transposed output) in blocks of ceil(N/P), so its layouts differ from ours on uneven grids;
// results are compared on the assembled global array (field.hpp gather_global).
// Not in SMPI builds (FFTW-MPI is linked to the host's MPI, not to SimGrid's).
#pragma once

#include <mpi.h>

#include <array>
#include <memory>

#include "layout.hpp"
#include "transform.hpp"

namespace pcoll::fft3d {

// False in builds without FFTW-MPI (SMPI).
bool have_fftw_mpi();

// Call once after fftw_use_threads and before any FftwMpi (fftw_mpi_init).
void fftw_mpi_setup();

class FftwMpi {
 public:
  // r2c: fftw_mpi_plan_dft_r2c_3d / c2r_3d in place; the real input rows are padded to
  // 2 (N2/2+1) doubles (FFTW-MPI's format), which real_input() shows as a wider axis 2.
  FftwMpi(MPI_Comm comm, const std::array<int, 3> &grid, Planner planner, Kind kind = Kind::c2c);
  ~FftwMpi();
  FftwMpi(const FftwMpi &) = delete;
  FftwMpi &operator=(const FftwMpi &) = delete;

  Complex *data() { return data_; }
  double *real_data() { return reinterpret_cast<double *>(data_); }
  const Layout &input() const { return in_; }
  const Layout &real_input() const { return real_in_; }
  const Layout &output() const { return out_; }
  void forward();
  void backward();

 private:
  struct Plans;
  Complex *data_ = nullptr;
  Layout in_, real_in_, out_;
  std::unique_ptr<Plans> plans_;
};

}  // namespace pcoll::fft3d

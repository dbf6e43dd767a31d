// FFTW-MPI anchor; see fftw_anchor.hpp.
#include "fftw_anchor.hpp"

#include <stdexcept>

#ifdef PCOLL_FFT3D_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

namespace pcoll::fft3d {

#ifdef PCOLL_FFT3D_HAVE_FFTW_MPI

bool have_fftw_mpi() {
  return true;
}

void fftw_mpi_setup() {
  static bool done = false;
  if (!done) fftw_mpi_init();
  done = true;
}

struct FftwMpi::Plans {
  fftw_plan fwd = nullptr, bwd = nullptr;
  ~Plans() {
    if (fwd) fftw_destroy_plan(fwd);
    if (bwd) fftw_destroy_plan(bwd);
  }
};

FftwMpi::FftwMpi(MPI_Comm comm, const std::array<int, 3> &grid, Planner planner, Kind kind)
    : plans_(std::make_unique<Plans>()) {
  const int n2c = kind == Kind::r2c ? grid[2] / 2 + 1 : grid[2];
  ptrdiff_t n0 = 0, s0 = 0, n1 = 0, s1 = 0;
  const ptrdiff_t alloc =
      fftw_mpi_local_size_3d_transposed(grid[0], grid[1], n2c, comm, &n0, &s0, &n1, &s1);
  data_ = reinterpret_cast<Complex *>(fftw_alloc_complex(std::max<ptrdiff_t>(alloc, 1)));
  if (data_ == nullptr) throw std::runtime_error("out of memory for FFTW-MPI's buffer");
  in_.lo = {int(s0), 0, 0};
  in_.n = {int(n0), grid[1], n2c};
  in_.order = {0, 1, 2};
  real_in_ = in_;
  real_in_.n[2] = 2 * n2c;  // padded rows
  out_.lo = {0, int(s1), 0};
  out_.n = {grid[0], int(n1), n2c};
  out_.order = {1, 0, 2};
  auto *p = reinterpret_cast<fftw_complex *>(data_);
  auto *r = reinterpret_cast<double *>(data_);
  const unsigned flags = planner_flags(planner);
  if (kind == Kind::r2c) {
    plans_->fwd = fftw_mpi_plan_dft_r2c_3d(grid[0], grid[1], grid[2], r, p, comm,
                                           flags | FFTW_MPI_TRANSPOSED_OUT);
    plans_->bwd = fftw_mpi_plan_dft_c2r_3d(grid[0], grid[1], grid[2], p, r, comm,
                                           flags | FFTW_MPI_TRANSPOSED_IN);
  } else {
    plans_->fwd = fftw_mpi_plan_dft_3d(grid[0], grid[1], grid[2], p, p, comm, FFTW_FORWARD,
                                       flags | FFTW_MPI_TRANSPOSED_OUT);
    plans_->bwd = fftw_mpi_plan_dft_3d(grid[0], grid[1], grid[2], p, p, comm, FFTW_BACKWARD,
                                       flags | FFTW_MPI_TRANSPOSED_IN);
  }
  if (!plans_->fwd || !plans_->bwd) throw std::runtime_error("FFTW-MPI could not plan the grid");
}

FftwMpi::~FftwMpi() {
  plans_.reset();
  fftw_free(data_);
}

void FftwMpi::forward() {
  fftw_execute(plans_->fwd);
}

void FftwMpi::backward() {
  fftw_execute(plans_->bwd);
}

#else

bool have_fftw_mpi() {
  return false;
}
void fftw_mpi_setup() {}
struct FftwMpi::Plans {};
FftwMpi::FftwMpi(MPI_Comm, const std::array<int, 3> &, Planner, Kind) {
  throw std::runtime_error("this build has no FFTW-MPI (SMPI builds never do)");
}
FftwMpi::~FftwMpi() = default;
void FftwMpi::forward() {}
void FftwMpi::backward() {}

#endif

}  // namespace pcoll::fft3d

// FFTW plumbing of the distributed FFT; see fftw_plans.hpp.
#include "fftw_plans.hpp"

#include <algorithm>
#include <stdexcept>

namespace pcoll::fft3d {

const char *planner_name(Planner p) {
  switch (p) {
    case Planner::estimate:
      return "estimate";
    case Planner::measure:
      return "measure";
    case Planner::patient:
      return "patient";
  }
  return "?";
}

const char *kind_name(Kind k) {
  return k == Kind::c2c ? "c2c" : "r2c";
}

unsigned planner_flags(Planner p) {
  switch (p) {
    case Planner::estimate:
      return FFTW_ESTIMATE;
    case Planner::measure:
      return FFTW_MEASURE;
    case Planner::patient:
      return FFTW_PATIENT;
  }
  return FFTW_ESTIMATE;
}

void fftw_use_threads(int threads) {
  static bool initialised = false;
  if (!initialised) {
    if (fftw_init_threads() == 0) throw std::runtime_error("fftw_init_threads failed");
    initialised = true;
  }
  fftw_plan_with_nthreads(std::max(1, threads));
}

fftw_plan plan_axes(const Layout &l, const std::vector<int> &axes, Complex *buf, int sign,
                    unsigned flags) {
  return plan_box(l, l.n, axes, buf, sign, flags);
}

fftw_plan plan_box(const Layout &l, const std::array<int, 3> &extent, const std::vector<int> &axes,
                   Complex *buf, int sign, unsigned flags) {
  std::vector<fftw_iodim64> dims, loops;
  for (int a : axes) dims.push_back({extent[a], l.stride(a), l.stride(a)});
  for (int a : l.order)  // the other axes, slowest first
    if (std::find(axes.begin(), axes.end(), a) == axes.end())
      loops.push_back({extent[a], l.stride(a), l.stride(a)});
  if (extent != l.n) flags |= FFTW_UNALIGNED;
  auto *p = reinterpret_cast<fftw_complex *>(buf);
  fftw_plan plan =
      fftw_plan_guru64_dft(static_cast<int>(dims.size()), dims.data(),
                           static_cast<int>(loops.size()), loops.data(), p, p, sign, flags);
  if (plan == nullptr) throw std::runtime_error("FFTW could not plan a stage transform");
  return plan;
}

fftw_plan plan_real(const Layout &r, const Layout &c, const std::vector<int> &axes, double *real,
                    Complex *cplx, bool forward, unsigned flags) {
  std::vector<fftw_iodim64> dims, loops;
  for (int a : axes)
    dims.push_back(
        {r.n[a], forward ? r.stride(a) : c.stride(a), forward ? c.stride(a) : r.stride(a)});
  for (int a : r.order)
    if (std::find(axes.begin(), axes.end(), a) == axes.end())
      loops.push_back(
          {r.n[a], forward ? r.stride(a) : c.stride(a), forward ? c.stride(a) : r.stride(a)});
  auto *z = reinterpret_cast<fftw_complex *>(cplx);
  const int rank = static_cast<int>(dims.size()), howmany = static_cast<int>(loops.size());
  fftw_plan plan =
      forward ? fftw_plan_guru64_dft_r2c(rank, dims.data(), howmany, loops.data(), real, z, flags)
              : fftw_plan_guru64_dft_c2r(rank, dims.data(), howmany, loops.data(), z, real, flags);
  if (plan == nullptr) throw std::runtime_error("FFTW could not plan the real-data stage");
  return plan;
}

}  // namespace pcoll::fft3d

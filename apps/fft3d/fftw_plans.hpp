// FFTW plumbing of the distributed FFT: planner settings, threads, and the guru plans of one
// stage (complex in place, or real-to-complex out of place), each made once per shape.
#pragma once

#include <fftw3.h>

#include <array>
#include <vector>

#include "layout.hpp"
#include "transform.hpp"

namespace pcoll::fft3d {

// A guru plan for the transforms along `axes` of every line of layout l, in place on buf.
fftw_plan plan_axes(const Layout &l, const std::vector<int> &axes, Complex *buf, int sign,
                    unsigned flags);

// The same for the sub-box of l that spans `extent` (extent[a] <= l.n[a]) with l's strides:
// execute it on the box's first element (a piece of a stage, set_overlap). Planned with
// FFTW_UNALIGNED: the pieces start at any element.
fftw_plan plan_box(const Layout &l, const std::array<int, 3> &extent, const std::vector<int> &axes,
                   Complex *buf, int sign, unsigned flags);

// The r2c (forward) or c2r (backward) transform along `axes` from the real layout r to the
// complex layout c (the same box but for axis 2: N2 real points, N2/2+1 complex). FFTW halves
// the last of the transformed axes, which is axis 2 here.
fftw_plan plan_real(const Layout &r, const Layout &c, const std::vector<int> &axes, double *real,
                    Complex *cplx, bool forward, unsigned flags);

}  // namespace pcoll::fft3d

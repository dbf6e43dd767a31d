// Input fields whose transforms are known, and the checks the driver and the tests make.
//  - waves: a sum of a few plane waves a_m exp(+2 pi i k_m . g / N). Its forward transform
//    (FFTW's sign -1) is N0 N1 N2 a_m at k = k_m mod N and zero elsewhere: exactly known spikes.
//  - random: values from a hash of the global index (independent of P and of the layout), for
//    the round trip and the comparison with FFTW-MPI on a field with every frequency present.
// Every value is a function of the global index alone, so any rank fills any layout.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "layout.hpp"
#include "transform.hpp"

namespace pcoll::fft3d {

enum class FieldKind { waves, random };
const char *field_name(FieldKind f);

struct Wave {
  std::array<int, 3> k;  // any integers; the spike is at k mod N
  Complex amplitude;
};
// A few waves for `grid`: the zero frequency, negative and Nyquist-range wave numbers, and two
// waves that alias to the same spike on small grids are avoided (the spikes stay distinct).
std::vector<Wave> default_waves(const std::array<int, 3> &grid);

Complex field_value(const std::array<int, 3> &g, const std::array<int, 3> &grid, FieldKind kind,
                    const std::vector<Wave> &waves);
// The exact forward transform of the waves field at frequency k (0 <= k[a] < N[a]).
Complex spectrum_value(const std::array<int, 3> &k, const std::array<int, 3> &grid,
                       const std::vector<Wave> &waves);

// Fills `data` (laid out as l) with the field.
void fill(Complex *data, const Layout &l, const std::array<int, 3> &grid, FieldKind kind,
          const std::vector<Wave> &waves);

// Collective. max over every rank's elements of |data - expected| / scale, where expected is
// the exact spectrum (spectrum_error, scale = N max|a_m|) or the input field times `factor`
// (roundtrip_error after backward: factor N, scale = N max|field|).
double spectrum_error(MPI_Comm comm, const Complex *data, const Layout &l,
                      const std::array<int, 3> &grid, const std::vector<Wave> &waves);
double roundtrip_error(MPI_Comm comm, const Complex *data, const Layout &l,
                       const std::array<int, 3> &grid, FieldKind kind,
                       const std::vector<Wave> &waves);

// Real data (r2c): the field's real part. Its spectrum is (S(k) + conj(S(-k))) / 2 with S the
// waves' spectrum, stored for 0 <= k2 <= N2/2 (the half grid). A layout may be wider than the
// grid along axis 2 (FFTW-MPI's padded rows): those elements are padding, filled with 0 and not
// checked.
double real_field_value(const std::array<int, 3> &g, const std::array<int, 3> &grid, FieldKind kind,
                        const std::vector<Wave> &waves);
Complex real_spectrum_value(const std::array<int, 3> &k, const std::array<int, 3> &grid,
                            const std::vector<Wave> &waves);
void fill_real(double *data, const Layout &l, const std::array<int, 3> &grid, FieldKind kind,
               const std::vector<Wave> &waves);
// Collective, as spectrum_error / roundtrip_error; `l` of real_spectrum_error is on the half
// grid, `grid` is always the real grid.
double real_spectrum_error(MPI_Comm comm, const Complex *data, const Layout &l,
                           const std::array<int, 3> &grid, const std::vector<Wave> &waves);
double real_roundtrip_error(MPI_Comm comm, const double *data, const Layout &l,
                            const std::array<int, 3> &grid, FieldKind kind,
                            const std::vector<Wave> &waves);

// Collective. The whole field assembled on `root` as a row-major N0 x N1 x N2 array (empty on the
// other ranks), from every rank's box in any layout. For verification only: O(N) memory on root.
std::vector<Complex> gather_global(MPI_Comm comm, const Complex *data, const Layout &l,
                                   const std::array<int, 3> &grid, int root = 0);

// max |a - b| / max |b| (0 for two empty arrays).
double relative_difference(const std::vector<Complex> &a, const std::vector<Complex> &b);

// Collective. A digest of every rank's local bytes in rank order (the same value on every rank):
// equal digests = bitwise-equal distributed fields (up to a 64-bit hash collision).
std::uint64_t digest(MPI_Comm comm, const void *data, std::int64_t bytes);

}  // namespace pcoll::fft3d

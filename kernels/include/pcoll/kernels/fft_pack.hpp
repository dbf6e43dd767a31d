// Pack and unpack kernels of the distributed FFT's global transposes (apps/fft3d), on Kokkos'
// host execution space. No MPI here: the application packs, calls PCOLL_Alltoall(v), unpacks.
//
// Both are one operation, a copy of a 3-D block between two strided arrays: element (a, b, c)
// of the block, 0 <= a < extent[0] etc., goes from src[src.offset + a*src.stride[0] +
// b*src.stride[1] + c*src.stride[2]] to the same expression over dst. A pack reads a block of the
// local field (its strides) into a contiguous message; an unpack writes a contiguous message into
// the local field of the next layout, whose axis order differs (the strides do the transposition).
// They are separate functions only so that profilers and the labels of Kokkos tools tell them
// apart. The copy moves bits: results are bitwise independent of the thread count.
#pragma once

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pcoll::kernels {

using Complex = Kokkos::complex<double>;  // same layout as fftw_complex and std::complex<double>

// Where element (a, b, c) of a block lives in a flat array.
struct Strided3 {
  std::int64_t offset = 0;
  std::int64_t stride[3] = {0, 0, 1};
};

// A contiguous row-major block of extents (e0, e1, e2) starting at `offset`.
inline Strided3 contiguous3(std::int64_t offset, const std::int64_t extent[3]) {
  return Strided3{offset, {extent[1] * extent[2], extent[2], 1}};
}

// Copies the block of `extent` from src (laid out as `s`) to dst (laid out as `d`). The two must
// not overlap. A zero extent copies nothing.
void fft_pack(const Complex *src, const Strided3 &s, Complex *dst, const Strided3 &d,
              const std::int64_t extent[3]);
void fft_unpack(const Complex *src, const Strided3 &s, Complex *dst, const Strided3 &d,
                const std::int64_t extent[3]);

}  // namespace pcoll::kernels

// Pack/unpack of the FFT transposes; see fft_pack.hpp.
#include <pcoll/kernels/fft_pack.hpp>

namespace pcoll::kernels {

namespace {

// One labelled launch per block. Parallel over the two outer block indices; the innermost index
// runs sequentially in each work item so that the contiguous side of the copy (the message, or a
// field row) is walked with unit stride.
void copy_block(const char *label, const Complex *src, const Strided3 &s, Complex *dst,
                const Strided3 &d, const std::int64_t extent[3]) {
  if (extent[0] <= 0 || extent[1] <= 0 || extent[2] <= 0) return;
  const std::int64_t e2 = extent[2];
  const std::int64_t s0 = s.stride[0], s1 = s.stride[1], s2 = s.stride[2];
  const std::int64_t d0 = d.stride[0], d1 = d.stride[1], d2 = d.stride[2];
  const Complex *sp = src + s.offset;
  Complex *dp = dst + d.offset;
  using Policy = Kokkos::MDRangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Rank<2>,
                                       Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      label, Policy({0, 0}, {extent[0], extent[1]}), KOKKOS_LAMBDA(std::int64_t a, std::int64_t b) {
        const Complex *from = sp + a * s0 + b * s1;
        Complex *to = dp + a * d0 + b * d1;
        if (s2 == 1 && d2 == 1) {
          for (std::int64_t c = 0; c < e2; ++c) to[c] = from[c];
        } else {
          for (std::int64_t c = 0; c < e2; ++c) to[c * d2] = from[c * s2];
        }
      });
  Kokkos::fence();
}

}  // namespace

void fft_pack(const Complex *src, const Strided3 &s, Complex *dst, const Strided3 &d,
              const std::int64_t extent[3]) {
  copy_block("pcoll::fft_pack", src, s, dst, d, extent);
}

void fft_unpack(const Complex *src, const Strided3 &s, Complex *dst, const Strided3 &d,
                const std::int64_t extent[3]) {
  copy_block("pcoll::fft_unpack", src, s, dst, d, extent);
}

}  // namespace pcoll::kernels

// The vector deposit kernels (binned_kernels.hpp), AVX2 (four addends a step) and AVX-512F
// (eight): compiled for those instruction sets with target attributes, so the library itself
// still runs on any x86-64 (the CPU is asked at run time), and elsewhere this file holds only the
// "not available" answers. Per block of at most kBlock addends:
//   1. one pass for the flags (NaN, infinities, signed zeros) and the largest finite magnitude,
//      whose leading bit sets the block's top bin; the window is raised to it once;
//   2. one pass that places each addend's 53-bit integer significand in the window's 192 bits
//      (shifted left or right by its distance from the bottom bin, so bits below the window
//      fall off: the truncation the portable kernel does bin by bin), cuts the three 64-bit
//      pieces it has there into six 32-bit halves, and adds each half, negated for a negative
//      addend, to its own 64-bit accumulator lane;
//   3. the six accumulators (each below kBlock/4 x 2^32 in magnitude) added into the window's
//      three 128-bit bins, two 32-bit pieces per bin.
// Every step is exact integer arithmetic on the same pieces the portable kernel adds, so the
// state is the same bits. Products (dot_n) are formed with a vector multiply (no fused
// multiply-add: neither target enables FMA), each rounded once as x[i] * y[i] is.
#include "binned_kernels.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 headers build their "undefined" vectors from themselves (__Y = __Y), which its
// own uninitialised-use warnings flag at every inlined use: a known false positive, off here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>

namespace pcoll::binned::detail {

namespace {

constexpr std::size_t kBlock = 1024;  // addends per block (a stack buffer of products: 8 KiB)

#define PCOLL_AVX2 __attribute__((target("avx2")))

PCOLL_AVX2 std::int64_t lane_sum(__m256i v) {
  alignas(32) std::int64_t l[4];
  _mm256_store_si256(reinterpret_cast<__m256i *>(l), v);
  return l[0] + l[1] + l[2] + l[3];
}
PCOLL_AVX2 std::uint64_t lane_max(__m256i v) {
  alignas(32) std::uint64_t l[4];
  _mm256_store_si256(reinterpret_cast<__m256i *>(l), v);
  return std::max(std::max(l[0], l[1]), std::max(l[2], l[3]));
}

// The scalar end of a scan: x[i..n) into the largest (best) and smallest non-zero (low) finite
// magnitudes and the flags, then, if a non-finite addend was seen anywhere in x[0..n), which.
void scan_rest(const double *x, std::size_t i, std::size_t n, bool any_nonfinite, Window &w,
               std::uint64_t &best, std::uint64_t &low) {
  for (; i < n; ++i) {
    std::uint64_t u;
    __builtin_memcpy(&u, x + i, sizeof u);
    const std::uint64_t a = u & 0x7fffffffffffffff;
    if (a >= 0x7ff0000000000000) {
      any_nonfinite = true;
    } else {
      best = std::max(best, a);
      if (a != 0) low = std::min(low, a);
    }
    if (u != 0x8000000000000000ull) w.flags |= kNotNegZero;
  }
  if (any_nonfinite)  // rare: which ones, element by element
    for (std::size_t j = 0; j < n; ++j) {
      std::uint64_t u;
      __builtin_memcpy(&u, x + j, sizeof u);
      if ((u & 0x7ff0000000000000) == 0x7ff0000000000000) w.flags |= nonfinite_flag(u);
    }
}

// Pass 1 over x[0..n): the flags into w, and the largest finite magnitude's bits (0 if none).
PCOLL_AVX2 std::uint64_t scan(const double *x, std::size_t n, Window &w) {
  const __m256i abs_mask = _mm256_set1_epi64x(0x7fffffffffffffff);
  const __m256i inf_bits = _mm256_set1_epi64x(0x7ff0000000000000);
  const __m256i neg_zero = _mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ull));
  __m256i vmax = _mm256_setzero_si256(), nonfinite = vmax, not_neg_zero = vmax;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256i u = _mm256_castpd_si256(_mm256_loadu_pd(x + i));
    const __m256i a = _mm256_and_si256(u, abs_mask);
    const __m256i finite = _mm256_cmpgt_epi64(inf_bits, a);  // a < inf (a < 2^63: signed is fine)
    const __m256i af = _mm256_and_si256(a, finite);
    vmax = _mm256_blendv_epi8(vmax, af, _mm256_cmpgt_epi64(af, vmax));
    nonfinite = _mm256_or_si256(nonfinite, _mm256_andnot_si256(finite, _mm256_set1_epi64x(-1)));
    not_neg_zero = _mm256_or_si256(
        not_neg_zero, _mm256_andnot_si256(_mm256_cmpeq_epi64(u, neg_zero), _mm256_set1_epi64x(-1)));
  }
  std::uint64_t best = lane_max(vmax);
  bool any_nonfinite = !_mm256_testz_si256(nonfinite, nonfinite);
  if (!_mm256_testz_si256(not_neg_zero, not_neg_zero)) w.flags |= kNotNegZero;
  std::uint64_t low = ~std::uint64_t(0);
  scan_rest(x, i, n, any_nonfinite, w, best, low);
  return best;
}

// Pass 2: adds every finite addend's pieces on the window (bottom bin at bit `base` of the grid).
PCOLL_AVX2 void accumulate(const double *x, std::size_t n, Window &w) {
  const __m256i exp_mask = _mm256_set1_epi64x(0x7ff), frac_mask = _mm256_set1_epi64x(0xfffffffffffff);
  const __m256i hidden = _mm256_set1_epi64x(0x10000000000000), low32 = _mm256_set1_epi64x(0xffffffff);
  const __m256i zero = _mm256_setzero_si256();
  const std::int64_t base = 64 * static_cast<std::int64_t>(w.top - 2);
  const __m256i vbase = _mm256_set1_epi64x(base);
  __m256i acc[6] = {zero, zero, zero, zero, zero, zero};
  std::int64_t tail[6] = {0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256i u = _mm256_castpd_si256(_mm256_loadu_pd(x + i));
    const __m256i e = _mm256_and_si256(_mm256_srli_epi64(u, 52), exp_mask);
    const __m256i normal = _mm256_cmpgt_epi64(e, zero);                 // e >= 1: -1
    const __m256i finite = _mm256_cmpgt_epi64(exp_mask, e);             // e < 0x7ff
    __m256i m = _mm256_or_si256(_mm256_and_si256(u, frac_mask), _mm256_and_si256(normal, hidden));
    m = _mm256_and_si256(m, finite);
    // The position of the significand's bit 0: e - 1 for normal numbers, 0 for subnormals,
    // counted from the window's bottom.
    const __m256i d = _mm256_sub_epi64(_mm256_add_epi64(e, normal), vbase);
    const __m256i sign = _mm256_cmpgt_epi64(zero, u);  // -1 for a negative addend
    for (int j = 0; j < 3; ++j) {
      // Bits [64 j, 64 j + 64) of the window: a count out of 0..63 (negative counts are huge
      // unsigned ones) shifts to 0, so one of the two shifts is the piece and the other 0
      // (both m at s = 0).
      const __m256i s = _mm256_sub_epi64(d, _mm256_set1_epi64x(64 * j));
      const __m256i piece = _mm256_or_si256(_mm256_sllv_epi64(m, s), _mm256_srlv_epi64(m, _mm256_sub_epi64(zero, s)));
      // Its two 32-bit halves, negated for a negative addend, each into its own accumulator.
      const __m256i lo = _mm256_and_si256(piece, low32), hi = _mm256_srli_epi64(piece, 32);
      acc[2 * j] = _mm256_add_epi64(acc[2 * j], _mm256_sub_epi64(_mm256_xor_si256(lo, sign), sign));
      acc[2 * j + 1] = _mm256_add_epi64(acc[2 * j + 1], _mm256_sub_epi64(_mm256_xor_si256(hi, sign), sign));
    }
  }
  for (; i < n; ++i) {
    std::uint64_t u;
    __builtin_memcpy(&u, x + i, sizeof u);
    const auto e = static_cast<std::int64_t>((u >> 52) & 0x7ff);
    if (e == 0x7ff) continue;
    const std::uint64_t m = (u & 0xfffffffffffff) | (e != 0 ? std::uint64_t(1) << 52 : 0);
    const std::int64_t d = (e != 0 ? e - 1 : 0) - base;
    const bool neg = (u >> 63) != 0;
    for (int k = 0; k < 6; ++k) {
      const std::int64_t s = d - 32 * k;
      const std::uint64_t c = (s >= 64 || s <= -64) ? 0 : s >= 0 ? (m << s) & 0xffffffff : (m >> -s) & 0xffffffff;
      tail[k] += neg ? -static_cast<std::int64_t>(c) : static_cast<std::int64_t>(c);
    }
  }
  i128 piece[6];
  for (int k = 0; k < 6; ++k) piece[k] = static_cast<i128>(lane_sum(acc[k])) + tail[k];
  w.a2 += piece[0] + piece[1] * (static_cast<i128>(1) << 32);
  w.a1 += piece[2] + piece[3] * (static_cast<i128>(1) << 32);
  w.a0 += piece[4] + piece[5] * (static_cast<i128>(1) << 32);
}

// The AVX-512F forms of the two passes: eight addends a step, comparisons into mask registers.
#define PCOLL_AVX512 __attribute__((target("avx512f")))

// Also the smallest finite non-zero magnitude's bits into *least (all ones if none).
PCOLL_AVX512 std::uint64_t scan512(const double *x, std::size_t n, Window &w, std::uint64_t *least) {
  const __m512i abs_mask = _mm512_set1_epi64(0x7fffffffffffffff);
  const __m512i inf_bits = _mm512_set1_epi64(0x7ff0000000000000);
  const __m512i neg_zero = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ull));
  __m512i vmax = _mm512_setzero_si512(), vmin = _mm512_set1_epi64(-1);
  __mmask8 nonfinite = 0, not_neg_zero = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i u = _mm512_castpd_si512(_mm512_loadu_pd(x + i));
    const __m512i a = _mm512_and_si512(u, abs_mask);
    const __mmask8 finite = _mm512_cmplt_epi64_mask(a, inf_bits);
    vmax = _mm512_mask_max_epu64(vmax, finite, vmax, a);
    vmin = _mm512_mask_min_epu64(vmin, finite & _mm512_test_epi64_mask(a, a), vmin, a);
    nonfinite |= static_cast<__mmask8>(~finite);
    not_neg_zero |= _mm512_cmpneq_epi64_mask(u, neg_zero);
  }
  std::uint64_t best = _mm512_reduce_max_epu64(vmax);
  std::uint64_t low = _mm512_reduce_min_epu64(vmin);
  bool any_nonfinite = nonfinite != 0;
  if (not_neg_zero != 0) w.flags |= kNotNegZero;
  scan_rest(x, i, n, any_nonfinite, w, best, low);
  *least = low;
  return best;
}

// First: the window's lowest 64-bit bin that any addend reaches (1 when every addend's bits lie
// at or above the middle bin: the bottom bin's pieces are all zero and are not computed).
template <int First>
PCOLL_AVX512 void accumulate512(const double *x, std::size_t n, Window &w) {
  const __m512i exp_mask = _mm512_set1_epi64(0x7ff), frac_mask = _mm512_set1_epi64(0xfffffffffffff);
  const __m512i hidden = _mm512_set1_epi64(0x10000000000000), low32 = _mm512_set1_epi64(0xffffffff);
  const __m512i zero = _mm512_setzero_si512();
  const std::int64_t base = 64 * static_cast<std::int64_t>(w.top - 2);
  const __m512i vbase = _mm512_set1_epi64(base);
  __m512i acc[6] = {zero, zero, zero, zero, zero, zero};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i u = _mm512_castpd_si512(_mm512_loadu_pd(x + i));
    const __m512i e = _mm512_and_si512(_mm512_srli_epi64(u, 52), exp_mask);
    const __mmask8 normal = _mm512_cmpneq_epi64_mask(e, zero);
    const __mmask8 finite = _mm512_cmplt_epi64_mask(e, exp_mask);
    const __m512i m = _mm512_maskz_or_epi64(finite, _mm512_and_si512(u, frac_mask),
                                            _mm512_maskz_mov_epi64(normal, hidden));
    const __m512i d = _mm512_sub_epi64(_mm512_mask_sub_epi64(e, normal, e, _mm512_set1_epi64(1)), vbase);
    const __mmask8 neg = _mm512_cmplt_epi64_mask(u, zero);
    for (int j = First; j < 3; ++j) {
      const __m512i s = _mm512_sub_epi64(d, _mm512_set1_epi64(64 * j));
      const __m512i piece = _mm512_or_si512(_mm512_sllv_epi64(m, s), _mm512_srlv_epi64(m, _mm512_sub_epi64(zero, s)));
      const __m512i lo = _mm512_and_si512(piece, low32), hi = _mm512_srli_epi64(piece, 32);
      acc[2 * j] = _mm512_mask_sub_epi64(_mm512_add_epi64(acc[2 * j], lo), neg, acc[2 * j], lo);
      acc[2 * j + 1] = _mm512_mask_sub_epi64(_mm512_add_epi64(acc[2 * j + 1], hi), neg, acc[2 * j + 1], hi);
    }
  }
  i128 piece[6];
  for (int k = 0; k < 6; ++k) piece[k] = static_cast<i128>(_mm512_reduce_add_epi64(acc[k]));
  w.a2 += piece[0] + piece[1] * (static_cast<i128>(1) << 32);
  w.a1 += piece[2] + piece[3] * (static_cast<i128>(1) << 32);
  w.a0 += piece[4] + piece[5] * (static_cast<i128>(1) << 32);
  if (i < n) accumulate(x + i, n - i, w);  // the tail: AVX2's scalar loop
}

PCOLL_AVX512 void products512(const double *x, const double *y, std::size_t n, double *out) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm512_storeu_pd(out + i, _mm512_mul_pd(_mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i)));
  for (; i < n; ++i) out[i] = x[i] * y[i];
}

PCOLL_AVX2 void products(const double *x, const double *y, std::size_t n, double *out) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(out + i, _mm256_mul_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  for (; i < n; ++i) out[i] = x[i] * y[i];
}

}  // namespace

bool avx2_available() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
bool avx512_available() {
  static const bool yes = __builtin_cpu_supports("avx512f") && avx2_available();
  return yes;
}

namespace {
template <bool Wide>
void deposit_blocks(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  Window w(b);
  if (n > 0) w.flags |= kAny;
  alignas(64) double prod[kBlock];
  for (std::size_t at = 0; at < n; at += kBlock) {
    const std::size_t len = std::min(kBlock, n - at);
    const double *v = x + at;
    if (y != nullptr) {
      if (Wide)
        products512(x + at, y + at, len, prod);
      else
        products(x + at, y + at, len, prod);
      v = prod;
    }
    std::uint64_t least = 0;
    const std::uint64_t best = Wide ? scan512(v, len, w, &least) : scan(v, len, w);
    if (best == 0) continue;  // nothing finite and non-zero
    const std::int32_t t = top_bin(best);
    if (t > w.top) w.raise(t);
    if (Wide) {
      // The smallest addend's bit 0 at or above the middle bin: no piece in the bottom one.
      const auto e = static_cast<std::int64_t>(least >> 52);
      const std::int64_t p = e != 0 ? e - 1 : 0;
      if (p - 64 * static_cast<std::int64_t>(w.top - 2) >= 64)
        accumulate512<1>(v, len, w);
      else
        accumulate512<0>(v, len, w);
    } else {
      accumulate(v, len, w);
    }
  }
  w.put(b);
}
}  // namespace

void deposit_avx2(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  deposit_blocks<false>(b, x, y, n);
}
void deposit_avx512(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  deposit_blocks<true>(b, x, y, n);
}

}  // namespace pcoll::binned::detail

#else  // not x86-64 with GCC or Clang: the portable kernel only

namespace pcoll::binned::detail {
bool avx2_available() { return false; }
bool avx512_available() { return false; }
void deposit_avx2(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  deposit_portable(b, x, y, n);
}
void deposit_avx512(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  deposit_portable(b, x, y, n);
}
}  // namespace pcoll::binned::detail

#endif

// The deposit kernels behind binned::add_n and binned::dot_n (binned.hpp has the encoding): the
// portable one (binned.cpp: element by element, the window moved as addends arrive) and the AVX2
// and AVX-512 ones (binned_simd.cpp: per block of addends, the window set once from the block's
// largest magnitude, then every addend cut into 32-bit pieces accumulated in 64-bit lanes, no
// branch per addend). All leave the same state, bit for bit: a bin holds the sum of the signed
// pieces its addends have in it, whatever the order in which they arrive or the width of the
// pieces.
#pragma once

#include <cstddef>
#include <cstdint>

#include "binned.hpp"

namespace pcoll::binned::detail {

// GCC's and Clang's 128-bit integers (__extension__: not ISO C++, said once here).
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

constexpr std::uint32_t kNan = 1, kPosInf = 2, kNegInf = 4;
constexpr std::uint32_t kAny = 8;         // something was added
constexpr std::uint32_t kNotNegZero = 16;  // an addend other than -0.0 was added
constexpr std::int32_t kEmpty = -1;        // top of a sum without finite non-zero addends

inline i128 load(const PCOLL_Binned &b, int j) {
  const u128 v = (static_cast<u128>(b.bins[2 * j + 1]) << 64) | b.bins[2 * j];
  return static_cast<i128>(v);
}
inline void store(PCOLL_Binned &b, int j, i128 v) {
  const auto u = static_cast<u128>(v);
  b.bins[2 * j] = static_cast<std::uint64_t>(u);
  b.bins[2 * j + 1] = static_cast<std::uint64_t>(u >> 64);
}

// The flags one non-finite addend (bits u, exponent field 0x7ff) sets.
inline std::uint32_t nonfinite_flag(std::uint64_t u) {
  return (u << 12) != 0 ? kNan : (u >> 63) != 0 ? kNegInf : kPosInf;
}

// The window's top bin for a finite non-zero addend of bits u: the bin of its leading bit on
// the grid of 2^-1074.
inline std::int32_t top_bin(std::uint64_t u) {
  const auto e = static_cast<std::uint32_t>((u >> 52) & 0x7ff);
  const int lead = e != 0 ? static_cast<int>(e) + 51 : 63 - __builtin_clzll(u & ((std::uint64_t(1) << 52) - 1));
  return lead >> 6;
}

// The window of a sum being deposited into: its three bins (top first) and top in locals.
struct Window {
  i128 a0, a1, a2;
  std::int32_t top;
  std::uint32_t flags;
  explicit Window(const PCOLL_Binned &b)
      : a0(load(b, 0)), a1(load(b, 1)), a2(load(b, 2)), top(b.top), flags(b.flags) {}
  void put(PCOLL_Binned &b) const {
    store(b, 0, a0);
    store(b, 1, a1);
    store(b, 2, a2);
    b.top = top;
    b.flags = flags;
  }
  // Moves the window up to top t (> top): bins that fall off the bottom hold pieces every
  // addend of the set loses anyway.
  void raise(std::int32_t t) {
    const std::int32_t shift = t - top;
    a2 = shift == 1 ? a1 : shift == 2 ? a0 : 0;
    a1 = shift == 1 ? a0 : 0;
    a0 = 0;
    top = t;
  }
};

// b += x[0..n) (y null) or the products x[i] * y[i], each rounded once as a double product is.
void deposit_portable(PCOLL_Binned &b, const double *x, const double *y, std::size_t n);
// The same state as deposit_portable; only where avx2_available().
bool avx2_available();
void deposit_avx2(PCOLL_Binned &b, const double *x, const double *y, std::size_t n);
// The same with AVX-512F (eight addends a step); only where avx512_available().
bool avx512_available();
void deposit_avx512(PCOLL_Binned &b, const double *x, const double *y, std::size_t n);

}  // namespace pcoll::binned::detail

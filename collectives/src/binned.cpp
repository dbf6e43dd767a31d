// Binned sums (binned.hpp has the encoding, the error bound and the sources).
#include "binned.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "binned_kernels.hpp"
#include "config.hpp"

namespace pcoll::binned {

namespace {

using detail::i128;
using detail::u128;
using detail::kAny;
using detail::kEmpty;
using detail::kNan;
using detail::kNegInf;
using detail::kNotNegZero;
using detail::kPosInf;
using detail::load;
using detail::store;

// Moves the window up so that its top bin is `top` (> b.top): bins that fall off the bottom
// hold pieces every addend of the set loses anyway.
void raise(PCOLL_Binned &b, std::int32_t top) {
  const std::int32_t shift = top - b.top;
  for (int j = kBins - 1; j >= 0; --j) store(b, j, j >= shift ? load(b, j - shift) : 0);
  b.top = top;
}

// Adds `v` to absolute bin `a` if the window holds it.
void add_to_bin(PCOLL_Binned &b, std::int32_t a, i128 v) {
  const std::int32_t j = b.top - a;
  if (j >= 0 && j < kBins) store(b, j, load(b, j) + v);
}

// A signed 320-bit integer, little-endian limbs: the exact sum of the kept bins.
struct Wide {
  std::uint64_t limb[5] = {0, 0, 0, 0, 0};
  bool negative() const { return (limb[4] >> 63) != 0; }
  bool zero() const { return (limb[0] | limb[1] | limb[2] | limb[3] | limb[4]) == 0; }
  void negate() {
    unsigned carry = 1;
    for (auto &l : limb) {
      const u128 s = static_cast<u128>(~l) + carry;
      l = static_cast<std::uint64_t>(s);
      carry = static_cast<unsigned>(s >> 64);
    }
  }
  int top_bit() const {  // of a non-zero, non-negative value
    for (int i = 4; i >= 0; --i)
      if (limb[i] != 0) return 64 * i + 63 - __builtin_clzll(limb[i]);
    return -1;
  }
  bool bit(int i) const { return i >= 0 && i < 320 && ((limb[i / 64] >> (i % 64)) & 1) != 0; }
  bool any_below(int i) const {  // a set bit in [0, i)
    for (int w = 0; w < 5 && 64 * w < i; ++w) {
      const int n = i - 64 * w;
      const std::uint64_t mask = n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1;
      if (limb[w] & mask) return true;
    }
    return false;
  }
  std::uint64_t bits_from(int s) const {  // bits [s, s + 64) (s >= 0)
    const int w = s / 64, o = s % 64;
    std::uint64_t v = w < 5 ? limb[w] >> o : 0;
    if (o != 0 && w + 1 < 5) v |= limb[w + 1] << (64 - o);
    return v;
  }
};

inline double assemble(bool neg, std::uint64_t mant, int exp, int max_exp);
[[gnu::noinline]] double rounded_wide(const PCOLL_Binned &b, int digits, int min_exp, int max_exp);

// An exact zero sum: -0.0 when every addend was -0.0 (and there was one), else +0.0 (IEEE's rule).
double exact_zero(std::uint32_t f) { return (f & kAny) && !(f & kNotNegZero) ? -0.0 : 0.0; }

// The sum rounded to nearest even into a format of `digits` significant bits whose smallest
// bit is 2^min_exp and whose values stay below 2^max_exp; returned as a double (exact for both
// formats: the caller narrows a float result, already representable).
// The common sums here, inline where their loops call it (to_doubles); the rest out of line.
inline double rounded(const PCOLL_Binned &b, int digits, int min_exp, int max_exp) {
  const std::uint32_t f = b.flags;
  if ((f & (kNan | kPosInf | kNegInf)) != 0) {  // one test for the common sums
    if ((f & kNan) || ((f & kPosInf) && (f & kNegInf)))
      return std::numeric_limits<double>::quiet_NaN();
    return (f & kPosInf) ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
  }
  if (b.top == kEmpty) return exact_zero(f);
  // The common case: nothing in the bottom bin and a top bin of at most 62 bits, so the exact
  // sum B0 2^64 + B1 (units of the middle bin) fits a signed 128-bit integer.
  {
    const i128 b0 = load(b, 0), b2 = load(b, 2);
    const i128 lim = static_cast<i128>(1) << 62;
    if (b2 == 0 && b0 < lim && b0 > -lim) {
      const i128 t = static_cast<i128>(static_cast<u128>(b0) << 64) + load(b, 1);
      if (t == 0) return exact_zero(f);
      const bool neg = t < 0;
      const u128 sign = static_cast<u128>(t >> 127);  // all ones when negative: no branch
      const u128 mag = (static_cast<u128>(t) ^ sign) - sign;
      const int base = kWidth * (b.top - 1) - 1074;
      const auto mhi = static_cast<std::uint64_t>(mag >> 64);
      const int h = mhi != 0 ? 127 - __builtin_clzll(mhi)
                             : 63 - __builtin_clzll(static_cast<std::uint64_t>(mag));
      if (h + base >= min_exp + digits - 1) {
        // A normal result of the format: `digits` bits from the leading one, rounded to
        // nearest even by one addition (half an ulp less one, plus the ulp's own bit: a tie
        // rounds up exactly when that bit is odd; mag < 2^126, so it cannot overflow). Its
        // double's bits are built directly: the significand's leading bit lands on the
        // exponent field's lowest, so a rounding carry to 2^digits ripples into the next
        // binade (and, for a double, past the largest into infinity).
        const int sh = h - (digits - 1);
        const std::uint64_t mant =
            sh <= 0 ? static_cast<std::uint64_t>(mag) << -sh
                    : static_cast<std::uint64_t>(
                          (mag + ((static_cast<u128>(1) << (sh - 1)) - 1) + ((mag >> sh) & 1)) >> sh);
        const int lead = h + base + static_cast<int>(mant >> digits);
        if (lead >= max_exp) return neg ? -std::numeric_limits<double>::infinity()
                                        : std::numeric_limits<double>::infinity();
        const std::uint64_t bits = (static_cast<std::uint64_t>(h + base + 1022) << 52) +
                                   (mant << (53 - digits)) +
                                   (static_cast<std::uint64_t>(sign) & (std::uint64_t(1) << 63));
        double r;
        std::memcpy(&r, &bits, sizeof r);
        return r;
      }
      // A subnormal result, or none (below half the smallest subnormal).
      const int lsb = std::max(h + base - (digits - 1), min_exp);
      const int sh = lsb - base;
      std::uint64_t mant;
      int exp;
      if (sh <= 0) {
        mant = static_cast<std::uint64_t>(mag);
        exp = base;
      } else if (sh >= 128) {  // below half the smallest subnormal of a float result
        mant = sh == 128 && mag > static_cast<u128>(1) << 127 ? 1 : 0;
        exp = lsb;
      } else {
        mant = static_cast<std::uint64_t>(mag >> sh);
        const u128 rest = mag & ((static_cast<u128>(1) << sh) - 1);
        const u128 half = static_cast<u128>(1) << (sh - 1);
        if (rest > half || (rest == half && (mant & 1))) ++mant;
        exp = lsb;
      }
      return assemble(neg, mant, exp, max_exp);
    }
  }
  return rounded_wide(b, digits, min_exp, max_exp);
}

// rounded() for every other finite non-empty sum: the exact sum of all three bins in 320 bits.
double rounded_wide(const PCOLL_Binned &b, int digits, int min_exp, int max_exp) {
  const std::uint32_t f = b.flags;
  Wide w;
  {
    // w = B0 2^128 + B1 2^64 + B2, limb by limb with signed carries.
    const i128 b0 = load(b, 0), b1 = load(b, 1), b2 = load(b, 2);
    auto hi = [](i128 v) { return static_cast<i128>(static_cast<std::int64_t>(static_cast<u128>(v) >> 64)); };
    auto lo = [](i128 v) { return static_cast<i128>(static_cast<std::uint64_t>(static_cast<u128>(v))); };
    w.limb[0] = static_cast<std::uint64_t>(static_cast<u128>(b2));
    const i128 s1 = hi(b2) + lo(b1);
    const i128 s2 = (s1 >> 64) + hi(b1) + lo(b0);
    const i128 s3 = (s2 >> 64) + hi(b0);
    w.limb[1] = static_cast<std::uint64_t>(static_cast<u128>(s1));
    w.limb[2] = static_cast<std::uint64_t>(static_cast<u128>(s2));
    w.limb[3] = static_cast<std::uint64_t>(static_cast<u128>(s3));
    w.limb[4] = static_cast<std::uint64_t>(static_cast<u128>(s3 >> 64));
  }
  if (w.zero()) return exact_zero(f);
  const bool neg = w.negative();
  if (neg) w.negate();
  // w x 2^base is the exact sum of the kept pieces.
  const int base = kWidth * (b.top - (kBins - 1)) - 1074;
  const int h = w.top_bit();
  const int lead = h + base;  // exponent of the leading bit
  const int lsb = std::max(lead - (digits - 1), min_exp);
  const int s = lsb - base;  // bits of w below the result's last bit
  std::uint64_t mant;
  int exp;
  if (s <= 0) {  // h < digits: w fits, exactly
    mant = w.limb[0];
    exp = base;
  } else {
    mant = w.bits_from(s) & ((std::uint64_t(1) << digits) - 1);
    const bool half = w.bit(s - 1);
    if (half && (mant & 1 || w.any_below(s - 1))) ++mant;
    exp = lsb;
  }
  return assemble(neg, mant, exp, max_exp);
}

// mant x 2^exp (mant <= 2^digits, already rounded) as a double, or +-inf where its leading bit
// reaches max_exp.
inline double assemble(bool neg, std::uint64_t mant, int exp, int max_exp) {
  if (mant == 0) return neg ? -0.0 : 0.0;  // rounded to zero (a float result of tiny values)
  const int t = 63 - __builtin_clzll(mant);
  const int top = exp + t;
  const double inf = std::numeric_limits<double>::infinity();
  if (top >= max_exp) return neg ? -inf : inf;
  // mant x 2^exp is a double exactly (both formats): its bits, built directly.
  std::uint64_t u;
  if (top >= -1022) {
    const std::uint64_t frac = (t <= 52 ? mant << (52 - t) : mant >> (t - 52)) &
                               ((std::uint64_t(1) << 52) - 1);
    u = (static_cast<std::uint64_t>(top + 1023) << 52) | frac;
  } else {
    u = mant << (exp + 1074);  // subnormal: exp >= -1074
  }
  if (neg) u |= std::uint64_t(1) << 63;
  double r;
  std::memcpy(&r, &u, sizeof r);
  return r;
}

void binned_op_fn(void *in, void *inout, int *len, MPI_Datatype *) {
  reduce(in, inout, static_cast<std::size_t>(*len), true);
}

MPI_Datatype type_handle = MPI_DATATYPE_NULL;
MPI_Op op_handle = MPI_OP_NULL;

}  // namespace

void clear(PCOLL_Binned &b) {
  std::memset(&b, 0, sizeof b);
  b.top = kEmpty;
}

namespace {
// Deposits value(0..n-1) into b element by element (add() is n = 1), the window in locals and
// raised as larger addends arrive.
template <class Value>
void deposit_n(PCOLL_Binned &b, std::size_t n, Value value) {
  detail::Window w(b);
  if (n > 0) w.flags |= kAny;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = value(i);
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    const auto e = static_cast<std::uint32_t>((u >> 52) & 0x7ff);
    if (e == 0x7ff) {
      w.flags |= detail::nonfinite_flag(u);
      continue;
    }
    if (u != std::uint64_t(1) << 63) w.flags |= kNotNegZero;
    if ((u << 1) == 0) continue;  // +-0
    const std::uint64_t frac = u & ((std::uint64_t(1) << 52) - 1);
    const std::uint64_t m = e == 0 ? frac : frac | (std::uint64_t(1) << 52);
    const std::uint32_t p = e == 0 ? 0 : e - 1;
    const auto bin = static_cast<std::int32_t>(p >> 6);
    const unsigned o = p & 63;
    const std::uint64_t lo = m << o, hi = o != 0 ? m >> (64 - o) : 0;
    const std::int32_t t = hi != 0 ? bin + 1 : bin;
    if (t > w.top) w.raise(t);
    // Conditional negation without a branch: (v ^ mask) - mask.
    const i128 mask = -static_cast<i128>(u >> 63);
    const i128 slo = (static_cast<i128>(lo) ^ mask) - mask;
    const i128 shi = (static_cast<i128>(hi) ^ mask) - mask;
    switch (w.top - bin) {  // lo's bin in the window; hi's is one above (0 when absent)
      case 0: w.a0 += slo; break;
      case 1: w.a1 += slo; w.a0 += shi; break;
      case 2: w.a2 += slo; w.a1 += shi; break;
      case 3: w.a2 += shi; break;
      default: break;  // below the window
    }
  }
  w.put(b);
}
}  // namespace

namespace detail {
void deposit_portable(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  if (y == nullptr)
    deposit_n(b, n, [x](std::size_t i) { return x[i]; });
  else
    deposit_n(b, n, [x, y](std::size_t i) { return x[i] * y[i]; });
}
}  // namespace detail

namespace {
// Below this many addends the AVX2 kernel's two passes and fold cost more than they save.
constexpr std::size_t kVectorFrom = 8;
// PCOLL_BINNED_KERNEL (config.cpp declares it, so that it is listed and its value checked): the
// widest kernel the CPU has (auto), or one named; a kernel the CPU lacks gives the next narrower.
using Deposit = void (*)(PCOLL_Binned &, const double *, const double *, std::size_t);
struct Chosen {
  const char *name;
  Deposit deposit;
};
const Chosen &chosen() {
  static const Chosen c = [] {
    // Read once, from the parameter table like every PCOLL_ variable (engine.cpp's progress
    // settings likewise). Any other value is auto here: pcoll's configuration check reports
    // it at the first collective.
    const std::string want = load_config().get("binned_kernel");
    const bool wide = want != "portable" && want != "avx2";
    if (wide && detail::avx512_available()) return Chosen{"avx512", &detail::deposit_avx512};
    if (want != "portable" && detail::avx2_available()) return Chosen{"avx2", &detail::deposit_avx2};
    return Chosen{"portable", &detail::deposit_portable};
  }();
  return c;
}
}  // namespace

void add(PCOLL_Binned &b, double x) {
  deposit_n(b, 1, [x](std::size_t) { return x; });
}
namespace {
// Runs of kVectorFrom addends or more go to the chosen kernel, shorter ones element by element.
void deposit(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  if (n >= kVectorFrom)
    chosen().deposit(b, x, y, n);
  else
    detail::deposit_portable(b, x, y, n);
}
}  // namespace

void add_n(PCOLL_Binned &b, const double *x, std::size_t n) { deposit(b, x, nullptr, n); }
void dot_n(PCOLL_Binned &b, const double *x, const double *y, std::size_t n) {
  deposit(b, x, y, n);
}

void merge(const PCOLL_Binned &src, PCOLL_Binned &dst) {
  dst.flags |= src.flags;
  if (src.top == dst.top) {  // the common case: the same window
    for (int j = 0; j < kBins; ++j) store(dst, j, load(dst, j) + load(src, j));
    return;
  }
  if (src.top == kEmpty) return;
  if (src.top > dst.top) raise(dst, src.top);
  for (int j = 0; j < kBins; ++j) add_to_bin(dst, src.top - j, load(src, j));
}

double value(const PCOLL_Binned &b) { return rounded(b, 53, -1074, 1024); }
float value_float(const PCOLL_Binned &b) {
  return static_cast<float>(rounded(b, 24, -149, 128));
}

// The sum of the one value x, built directly (what clear() then add() give, without the
// window's moves); the sign by masks, so that mixed signs cost no mispredicted branch.
void set_one(PCOLL_Binned &b, double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  const auto e = static_cast<std::uint32_t>((u >> 52) & 0x7ff);
  const std::uint64_t frac = u & ((std::uint64_t(1) << 52) - 1);
  if (e == 0x7ff) {
    for (auto &w : b.bins) w = 0;
    b.top = kEmpty;
    b.flags = kAny | detail::nonfinite_flag(u);
    return;
  }
  const std::uint64_t normal = e != 0 ? 1 : 0;
  const std::uint64_t m = frac | (normal << 52);
  const std::uint32_t p = e - static_cast<std::uint32_t>(normal);  // e - 1, or 0 for subnormals
  const unsigned o = p & 63;
  const std::uint64_t lo = m << o, hi = (m >> 1) >> (63 - o);  // hi: 0 at o = 0
  const std::uint64_t neg = 0 - (u >> 63);  // all ones for a negative x
  // -v as a signed 128-bit integer: low word -v, high word all ones unless v = 0.
  auto low = [neg](std::uint64_t v) { return (v ^ neg) - neg; };
  auto high = [neg](std::uint64_t v) { return neg & (0 - static_cast<std::uint64_t>(v != 0)); };
  const bool two = hi != 0;  // the significand crosses into the bin above
  const std::uint64_t top_piece = two ? hi : lo, next_piece = two ? lo : 0;
  b.bins[0] = low(top_piece);
  b.bins[1] = high(top_piece);
  b.bins[2] = low(next_piece);
  b.bins[3] = high(next_piece);
  b.bins[4] = 0;
  b.bins[5] = 0;
  b.top = m == 0 ? kEmpty : static_cast<std::int32_t>(p >> 6) + (two ? 1 : 0);
  b.flags = kAny | ((u != (std::uint64_t(1) << 63)) ? kNotNegZero : 0);
}

void from_doubles(const double *x, std::size_t n, PCOLL_Binned *out) {
  for (std::size_t i = 0; i < n; ++i) set_one(out[i], x[i]);
}
void from_floats(const float *x, std::size_t n, PCOLL_Binned *out) {
  for (std::size_t i = 0; i < n; ++i) set_one(out[i], static_cast<double>(x[i]));
}
void to_doubles(const PCOLL_Binned *b, std::size_t n, double *x) {
  for (std::size_t i = 0; i < n; ++i) x[i] = value(b[i]);
}
void to_floats(const PCOLL_Binned *b, std::size_t n, float *x) {
  for (std::size_t i = 0; i < n; ++i) x[i] = value_float(b[i]);
}

void reduce(const void *src, void *dst, std::size_t n, bool) {
  if ((reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst)) %
          alignof(PCOLL_Binned) ==
      0) {
    const auto *a = static_cast<const PCOLL_Binned *>(src);
    auto *r = static_cast<PCOLL_Binned *>(dst);
    for (std::size_t i = 0; i < n; ++i) merge(a[i], r[i]);
    return;
  }
  // Element by element through copies where a buffer is not aligned for the struct.
  const auto *s = static_cast<const unsigned char *>(src);
  auto *d = static_cast<unsigned char *>(dst);
  for (std::size_t i = 0; i < n; ++i, s += sizeof(PCOLL_Binned), d += sizeof(PCOLL_Binned)) {
    PCOLL_Binned a, r;
    std::memcpy(&a, s, sizeof a);
    std::memcpy(&r, d, sizeof r);
    merge(a, r);
    std::memcpy(d, &r, sizeof r);
  }
}

MPI_Datatype mpi_type() {
  if (type_handle == MPI_DATATYPE_NULL) {
    MPI_Datatype t;
    PMPI_Type_contiguous(static_cast<int>(sizeof(PCOLL_Binned)), MPI_BYTE, &t);
    PMPI_Type_commit(&t);
    type_handle = t;
  }
  return type_handle;
}

MPI_Op mpi_op() {
  if (op_handle == MPI_OP_NULL) {
    MPI_Op op;
    PMPI_Op_create(&binned_op_fn, 1, &op);
    op_handle = op;
  }
  return op_handle;
}

const char *kernel_name() { return chosen().name; }

bool is_op(MPI_Op op) { return op_handle != MPI_OP_NULL && op == op_handle; }

MPI_Datatype scalar_of(MPI_Datatype base, int *parts) {
  *parts = 1;
  if (base == MPI_DOUBLE) return MPI_DOUBLE;
  if (base == MPI_FLOAT) return MPI_FLOAT;
  *parts = 2;
  if (base == MPI_C_DOUBLE_COMPLEX || base == MPI_DOUBLE_COMPLEX) return MPI_DOUBLE;
  if (base == MPI_C_FLOAT_COMPLEX || base == MPI_COMPLEX) return MPI_FLOAT;
#ifndef PCOLL_SMPI  // SimGrid 3.32's SMPI has no MPI_CXX_* types
  if (base == MPI_CXX_DOUBLE_COMPLEX) return MPI_DOUBLE;
  if (base == MPI_CXX_FLOAT_COMPLEX) return MPI_FLOAT;
#endif
  *parts = 1;
  return MPI_DATATYPE_NULL;
}

}  // namespace pcoll::binned

// --- the C API (pcoll.h) ----------------------------------------------------------------------

extern "C" {

void PCOLL_Binned_clear(PCOLL_Binned *b) { pcoll::binned::clear(*b); }
void PCOLL_Binned_add(PCOLL_Binned *b, double x) { pcoll::binned::add(*b, x); }
void PCOLL_Binned_add_n(PCOLL_Binned *b, const double *x, size_t n) {
  pcoll::binned::add_n(*b, x, n);
}
void PCOLL_Binned_dot_n(PCOLL_Binned *b, const double *x, const double *y, size_t n) {
  pcoll::binned::dot_n(*b, x, y, n);
}
void PCOLL_Binned_merge(PCOLL_Binned *dst, const PCOLL_Binned *src) {
  pcoll::binned::merge(*src, *dst);
}
double PCOLL_Binned_value(const PCOLL_Binned *b) { return pcoll::binned::value(*b); }
float PCOLL_Binned_value_float(const PCOLL_Binned *b) { return pcoll::binned::value_float(*b); }
MPI_Datatype PCOLL_Binned_type(void) { return pcoll::binned::mpi_type(); }
MPI_Op PCOLL_Binned_op(void) { return pcoll::binned::mpi_op(); }
}

// Binned sums (collectives/src/binned.cpp), without MPI: the same bits for every order and
// every grouping of the same addends, adversarial sets (cancellation, 1e-300..1e300, signed
// zeros, subnormals, inf and NaN), and the error bound checked against an exact sum computed
// by an independent long accumulator (a 2560-bit fixed-point integer, below).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "binned.hpp"
#include "binned_kernels.hpp"

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC's and Clang's 128-bit integers

using pcoll::binned::add;
using pcoll::binned::clear;
using pcoll::binned::merge;

// --- the reference: a signed fixed-point integer with the unit 2^-1075 -----------------------
struct Exact {
  static constexpr int kLimbs = 40;  // 2560 bits: 2^1024 x 2^300 addends still fit
  std::uint64_t w[kLimbs] = {};

  void add_shifted(std::uint64_t m, int shift, bool negative) {
    std::uint64_t word[kLimbs] = {};
    const int at = shift / 64, o = shift % 64;
    word[at] = m << o;
    if (o != 0 && at + 1 < kLimbs) word[at + 1] = m >> (64 - o);
    if (negative) {  // two's complement of word
      unsigned carry = 1;
      for (auto &x : word) {
        const u128 s = static_cast<u128>(~x) + carry;
        x = static_cast<std::uint64_t>(s);
        carry = static_cast<unsigned>(s >> 64);
      }
    }
    unsigned carry = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const u128 s = static_cast<u128>(w[i]) + word[i] + carry;
      w[i] = static_cast<std::uint64_t>(s);
      carry = static_cast<unsigned>(s >> 64);
    }
  }
  void add(double x) {  // finite x
    if (x == 0) return;
    int e;
    const double f = std::frexp(std::fabs(x), &e);  // |x| = f 2^e, f in [0.5, 1)
    // |x| = m 2^(e - 53) with m < 2^53 an integer; on the grid of 2^-1075: shift e - 53 + 1075.
    int q = e - 53;
    auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));
    while (q < -1074) {  // subnormals: m has trailing zeros there
      m >>= 1;
      ++q;
    }
    add_shifted(m, q + 1075, x < 0);
  }
  bool negative() const { return (w[kLimbs - 1] >> 63) != 0; }
  Exact minus(const Exact &o) const {
    Exact r;
    unsigned borrow = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const u128 a = w[i], b = static_cast<u128>(o.w[i]) + borrow;
      r.w[i] = static_cast<std::uint64_t>(a - b);
      borrow = a < b ? 1 : 0;
    }
    return r;
  }
  Exact abs() const {
    if (!negative()) return *this;
    Exact z;
    return z.minus(*this);
  }
  bool less_equal(const Exact &o) const {  // both non-negative
    for (int i = kLimbs - 1; i >= 0; --i)
      if (w[i] != o.w[i]) return w[i] < o.w[i];
    return true;
  }
  // n x 2^k on the grid (k >= 0).
  static Exact power(std::uint64_t n, int k) {
    Exact r;
    if (k >= 0) r.add_shifted(n, k, false);
    return r;
  }
};

Exact exact_sum(const std::vector<double> &xs) {
  Exact e;
  for (double x : xs) e.add(x);
  return e;
}
Exact exact_of(double x) {
  Exact e;
  e.add(x);
  return e;
}

double binned_sum(const std::vector<double> &xs) {
  PCOLL_Binned b;
  clear(b);
  for (double x : xs) add(b, x);
  return pcoll::binned::value(b);
}

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// |exact - r| <= n 2^-128 max|x| + ulp(r) / 2, the bound binned.hpp states (finite sets).
void check_bound(const std::vector<double> &xs, double r) {
  REQUIRE(std::isfinite(r));
  double mx = 0;
  for (double x : xs) mx = std::max(mx, std::fabs(x));
  const Exact diff = exact_sum(xs).minus(exact_of(r)).abs();
  Exact bound;
  if (mx > 0) {
    const int lead = std::ilogb(mx);
    bound = Exact::power(xs.size(), lead - 128 + 1075);
  }
  const int ulp_exp = std::max(r == 0 ? -1022 : std::ilogb(r), -1022) - 52;
  const Exact half_ulp = Exact::power(1, ulp_exp - 1 + 1075);
  for (int i = 0; i < Exact::kLimbs; ++i) {  // bound += half_ulp (no overflow at these sizes)
    const u128 s = static_cast<u128>(bound.w[i]) + half_ulp.w[i];
    bound.w[i] = static_cast<std::uint64_t>(s);
    if (i + 1 < Exact::kLimbs) bound.w[i + 1] += static_cast<std::uint64_t>(s >> 64);
  }
  CHECK(diff.less_equal(bound));
}

// r is the double nearest to the exact sum (ties to even): neither neighbour is nearer.
void check_correctly_rounded(const std::vector<double> &xs, double r) {
  const Exact e = exact_sum(xs);
  const Exact d = e.minus(exact_of(r)).abs();
  for (double nb : {std::nextafter(r, -INFINITY), std::nextafter(r, INFINITY)}) {
    if (!std::isfinite(nb)) continue;
    const Exact dn = e.minus(exact_of(nb)).abs();
    CHECK(d.less_equal(dn));
    if (dn.less_equal(d)) CHECK((bits(r) & 1) == 0);  // a tie goes to the even one
  }
}

// Every non-zero addend's lowest bit is at most 128 bits below the largest addend's leading one
// (finite sets): the window keeps all of them, and the sum is exact before its rounding.
bool within_128_bits(const std::vector<double> &xs) {
  double mx = 0;
  for (double x : xs) mx = std::max(mx, std::fabs(x));
  if (mx == 0) return true;
  for (double x : xs)
    if (x != 0 && std::max(std::ilogb(x) - 52, -1074) < std::ilogb(mx) - 128) return false;
  return true;
}

// Every permutation and grouping gives the same bits: orders, and random trees of merges.
void check_order_independent(std::vector<double> xs, std::mt19937_64 &rng, int trials = 20) {
  const double ref = binned_sum(xs);
  for (int t = 0; t < trials; ++t) {
    std::shuffle(xs.begin(), xs.end(), rng);
    REQUIRE(bits(binned_sum(xs)) == bits(ref));
    // Random groups, each summed on its own, merged in a random order.
    const std::size_t groups = 1 + rng() % std::max<std::size_t>(1, xs.size());
    std::vector<PCOLL_Binned> part(groups);
    for (auto &p : part) clear(p);
    for (double x : xs) add(part[rng() % groups], x);
    while (part.size() > 1) {
      const std::size_t i = rng() % part.size(), j = (i + 1 + rng() % (part.size() - 1)) % part.size();
      merge(part[j], part[i]);
      part.erase(part.begin() + static_cast<long>(j));
    }
    REQUIRE(bits(pcoll::binned::value(part[0])) == bits(ref));
  }
}

double random_magnitude(std::mt19937_64 &rng, int lo_exp, int hi_exp) {
  std::uniform_real_distribution<double> frac(1.0, 2.0);
  std::uniform_int_distribution<int> ex(lo_exp, hi_exp);
  const double v = std::ldexp(frac(rng), ex(rng));
  return rng() & 1 ? -v : v;
}

}  // namespace

TEST_CASE("binned: a few sums with known values", "[binned]") {
  CHECK(binned_sum({}) == 0.0);
  CHECK(!std::signbit(binned_sum({})));
  CHECK(binned_sum({1.0, 2.0, 3.0}) == 6.0);
  // Ten copies of 0.1 sum exactly to 1 + 5.55e-17, which rounds to 1 (a left-to-right sum
  // gives 0.9999999999999999).
  CHECK(binned_sum(std::vector<double>(10, 0.1)) == 1.0);
  CHECK(binned_sum({1e16, 1.0, -1e16}) == 1.0);  // within the window: exact
  CHECK(binned_sum({0x1p-1074, 0x1p-1074, 0x1p-1074}) == 0x3p-1074);
  // 2^-1074 lies ~2100 bits below DBL_MAX, outside the 128-bit window the set's largest addend
  // sets: dropped (within the bound), in every order.
  CHECK(binned_sum({DBL_MAX, -DBL_MAX, 0x1p-1074}) == 0.0);
  CHECK(binned_sum({0x1p-1000, -0x1p-1000, 0x1p-1074}) == 0x1p-1074);  // inside it: exact
  // Exact partial sums never overflow: DBL_MAX + DBL_MAX - DBL_MAX is DBL_MAX in every order.
  CHECK(binned_sum({DBL_MAX, DBL_MAX, -DBL_MAX}) == DBL_MAX);
  CHECK(binned_sum({-DBL_MAX, -DBL_MAX}) == -INFINITY);
  CHECK(binned_sum({DBL_MAX, 0x1p970}) == INFINITY);  // exactly halfway: ties to even = 2^1024
  CHECK(binned_sum({DBL_MAX, 0x1p969}) == DBL_MAX);
  CHECK(binned_sum({-3.5, 1.25}) == -2.25);
}

TEST_CASE("binned: signed zeros, infinities and NaN as IEEE addition gives them", "[binned]") {
  CHECK(std::signbit(binned_sum({-0.0})));
  CHECK(std::signbit(binned_sum({-0.0, -0.0, -0.0})));
  CHECK(!std::signbit(binned_sum({-0.0, 0.0})));
  CHECK(!std::signbit(binned_sum({1.5, -1.5})));
  CHECK(!std::signbit(binned_sum({-1.5, 1.5, -0.0})));
  CHECK(binned_sum({INFINITY, 1.0, -DBL_MAX}) == INFINITY);
  CHECK(binned_sum({-INFINITY, -INFINITY, 3.0}) == -INFINITY);
  CHECK(std::isnan(binned_sum({INFINITY, -INFINITY})));
  CHECK(std::isnan(binned_sum({1.0, std::numeric_limits<double>::quiet_NaN(), 2.0})));
  CHECK(std::isnan(binned_sum({INFINITY, std::nan("7")})));
  // The NaN has one bit pattern whatever the inputs' payloads and signs.
  CHECK(bits(binned_sum({-std::nan("5")})) == bits(binned_sum({INFINITY, -INFINITY})));
}

TEST_CASE("binned: floats are rounded once from the exact sum", "[binned][float]") {
  std::mt19937_64 rng(11);
  for (int t = 0; t < 300; ++t) {
    std::vector<double> xs;
    std::vector<float> fs;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const auto f = static_cast<float>(random_magnitude(rng, -30, 30));
      fs.push_back(f);
      xs.push_back(f);
    }
    PCOLL_Binned b;
    clear(b);
    for (float f : fs) add(b, f);
    const float r = pcoll::binned::value_float(b);
    // The float nearest to the exact sum: neither float neighbour is nearer.
    const Exact e = exact_sum(xs);
    const Exact d = e.minus(exact_of(r)).abs();
    for (float nb : {std::nextafter(r, -INFINITY), std::nextafter(r, INFINITY)}) {
      const Exact dn = e.minus(exact_of(nb)).abs();
      CHECK(d.less_equal(dn));
      if (dn.less_equal(d)) {
        std::uint32_t u;
        std::memcpy(&u, &r, sizeof u);
        CHECK((u & 1) == 0);
      }
    }
  }
  PCOLL_Binned b;
  clear(b);
  add(b, FLT_MAX);
  add(b, FLT_MAX);
  CHECK(pcoll::binned::value_float(b) == INFINITY);
  clear(b);
  add(b, 0x1p-149);
  add(b, 0x1p-151);  // a quarter of the smallest subnormal float: rounds away
  CHECK(pcoll::binned::value_float(b) == 0x1p-149f);
  // Doubles far below the smallest float round to a zero of their sign; half of it to even (0).
  for (double tiny : {1e-300, -1e-300, 0x1p-151, -0x1p-150, 0x1p-1074}) {
    clear(b);
    add(b, tiny);
    const float r = pcoll::binned::value_float(b);
    CHECK(r == 0.0f);
    CHECK(std::signbit(r) == std::signbit(tiny));
  }
  clear(b);
  add(b, 0x1.8p-150);  // above half the smallest float: rounds up to it
  CHECK(pcoll::binned::value_float(b) == 0x1p-149f);
}

TEST_CASE("binned: order and grouping never change the bits", "[binned]") {
  std::mt19937_64 rng(2026);
  SECTION("mixed magnitudes 1e-300 .. 1e300") {
    for (int t = 0; t < 40; ++t) {
      std::vector<double> xs;
      for (int i = 0; i < 60; ++i) xs.push_back(random_magnitude(rng, -996, 996));
      check_order_independent(xs, rng, 5);
      check_bound(xs, binned_sum(xs));
    }
  }
  SECTION("huge cancellation") {
    for (int t = 0; t < 40; ++t) {
      std::vector<double> xs;
      for (int i = 0; i < 30; ++i) {
        const double v = random_magnitude(rng, 200, 300);
        xs.push_back(v);
        xs.push_back(-v);
      }
      for (int i = 0; i < 5; ++i) xs.push_back(random_magnitude(rng, 0, 180));
      check_order_independent(xs, rng, 5);
      check_bound(xs, binned_sum(xs));
    }
  }
  SECTION("within the window the sum is exact, then correctly rounded") {
    for (int t = 0; t < 200; ++t) {
      std::vector<double> xs;
      const int n = 1 + static_cast<int>(rng() % 200);
      const int at = static_cast<int>(rng() % 1800) - 950;  // spans of 60 bits anywhere
      for (int i = 0; i < n; ++i) xs.push_back(random_magnitude(rng, at, at + 60));
      check_order_independent(xs, rng, 3);
      check_correctly_rounded(xs, binned_sum(xs));
    }
  }
  SECTION("subnormals and the smallest numbers") {
    for (int t = 0; t < 50; ++t) {
      std::vector<double> xs;
      for (int i = 0; i < 50; ++i) {
        const double v = std::ldexp(static_cast<double>(rng() % (1ull << 52)), -1074);
        xs.push_back(rng() & 1 ? -v : v);
      }
      xs.push_back(random_magnitude(rng, -1022, -1000));
      check_order_independent(xs, rng, 5);
      check_correctly_rounded(xs, binned_sum(xs));
    }
  }
  SECTION("signed zeros, infinities and NaN among finite values") {
    const double specials[] = {0.0, -0.0, INFINITY, -INFINITY,
                               std::numeric_limits<double>::quiet_NaN(), DBL_MAX, -DBL_MAX,
                               0x1p-1074, DBL_MIN};
    for (int t = 0; t < 200; ++t) {
      std::vector<double> xs;
      const int n = 1 + static_cast<int>(rng() % 12);
      for (int i = 0; i < n; ++i)
        xs.push_back(rng() % 3 == 0 ? random_magnitude(rng, -50, 50) : specials[rng() % 9]);
      check_order_independent(xs, rng, 5);
      const double r = binned_sum(xs);
      bool nan = false, pinf = false, ninf = false;
      for (double x : xs) {
        nan |= std::isnan(x);
        pinf |= x == INFINITY;
        ninf |= x == -INFINITY;
      }
      if (nan || (pinf && ninf))
        CHECK(std::isnan(r));
      else if (pinf || ninf)
        CHECK(r == (pinf ? INFINITY : -INFINITY));
      else if (std::isfinite(r))
        check_bound(xs, r);
    }
  }
  SECTION("many addends") {
    std::vector<double> xs;
    for (int i = 0; i < 100000; ++i) xs.push_back(random_magnitude(rng, -20, 20));
    check_order_independent(xs, rng, 2);
    check_correctly_rounded(xs, binned_sum(xs));
  }
}

TEST_CASE("binned: one value converted directly is the empty sum plus that value", "[binned]") {
  // from_doubles builds each sum directly; it must be the state clear() + add() gives, bit for
  // bit (merges compare windows by their top index).
  std::mt19937_64 rng(17);
  std::vector<double> xs = {0.0, -0.0, INFINITY, -INFINITY, std::nan(""), DBL_MAX, -DBL_MAX,
                            DBL_MIN, 0x1p-1074, -0x1p-1074, 0x1p-1022 - 0x1p-1074, 1.0, -1.0};
  for (int i = 0; i < 2000; ++i) xs.push_back(random_magnitude(rng, -1074, 1023));
  std::vector<PCOLL_Binned> direct(xs.size());
  pcoll::binned::from_doubles(xs.data(), xs.size(), direct.data());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    PCOLL_Binned b;
    clear(b);
    add(b, xs[i]);
    CAPTURE(xs[i]);
    CHECK(std::memcmp(&b, &direct[i], sizeof b) == 0);
  }
}

TEST_CASE("binned: add_n and dot_n are n calls of add", "[binned]") {
  std::mt19937_64 rng(23);
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, std::nan(""), DBL_MAX, 0x1p-1074};
  for (int t = 0; t < 200; ++t) {
    const std::size_t n = rng() % 300;
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = rng() % 17 == 0 ? specials[rng() % 7] : random_magnitude(rng, -1074, 1023);
      y[i] = random_magnitude(rng, -200, 200);
    }
    PCOLL_Binned one, many, prod, prods;
    clear(one);
    clear(prod);
    // A start that is not empty, so the window moves from somewhere.
    add(one, random_magnitude(rng, -100, 100));
    prod = one;
    many = one;
    prods = one;
    for (std::size_t i = 0; i < n; ++i) add(one, x[i]);
    for (std::size_t i = 0; i < n; ++i) add(prod, x[i] * y[i]);
    pcoll::binned::add_n(many, x.data(), n);
    pcoll::binned::dot_n(prods, x.data(), y.data(), n);
    CHECK(std::memcmp(&one, &many, sizeof one) == 0);
    CHECK(std::memcmp(&prod, &prods, sizeof prod) == 0);
  }
}

TEST_CASE("binned: the array helpers and the reducer kernel", "[binned]") {
  std::mt19937_64 rng(5);
  const std::size_t n = 257;
  std::vector<double> a(n), b(n);
  for (auto &x : a) x = random_magnitude(rng, -40, 40);
  for (auto &x : b) x = random_magnitude(rng, -40, 40);
  std::vector<PCOLL_Binned> ba(n), bb(n);
  pcoll::binned::from_doubles(a.data(), n, ba.data());
  pcoll::binned::from_doubles(b.data(), n, bb.data());
  // The kernel works on unaligned bytes (MPI buffers): shift one array by 3 bytes.
  std::vector<unsigned char> raw(n * sizeof(PCOLL_Binned) + 3);
  std::memcpy(raw.data() + 3, bb.data(), n * sizeof(PCOLL_Binned));
  pcoll::binned::reduce(ba.data(), raw.data() + 3, n, false);
  std::memcpy(bb.data(), raw.data() + 3, n * sizeof(PCOLL_Binned));
  std::vector<double> out(n);
  pcoll::binned::to_doubles(bb.data(), n, out.data());
  for (std::size_t i = 0; i < n; ++i) CHECK(bits(out[i]) == bits(binned_sum({a[i], b[i]})));
}

// The deposit kernels (binned_kernels.hpp) against n calls of add: long inputs that cross the
// vector kernels' blocks, windows that start above, at and below the inputs, magnitudes from
// subnormals to DBL_MAX and within a few binades (the AVX-512 kernel skips the bottom bin there), every special value, all-(-0.0) inputs and lengths 0..9 (the vector
// loop's tails).
TEST_CASE("binned: the portable, AVX2 and AVX-512 deposit kernels give n adds' bits", "[binned][kernels]") {
  namespace detail = pcoll::binned::detail;
  using Deposit = void (*)(PCOLL_Binned &, const double *, const double *, std::size_t);
  std::vector<std::pair<const char *, Deposit>> kernels = {{"portable", &detail::deposit_portable}};
  if (detail::avx2_available())
    kernels.emplace_back("avx2", &detail::deposit_avx2);
  else
    WARN("this CPU has no AVX2: only the portable deposit kernel is checked");
  if (detail::avx512_available())
    kernels.emplace_back("avx512", &detail::deposit_avx512);
  else
    WARN("this CPU has no AVX-512F: the avx512 deposit kernel is not checked");
  std::mt19937_64 rng(41);
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, std::nan(""), DBL_MAX, -DBL_MAX,
                             0x1p-1074, -0x1p-1074, 0x1p-1022, DBL_MIN / 3};
  const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 1023, 1024, 1025, 3001, 5000};
  for (int t = 0; t < 120; ++t) {
    const std::size_t n = lengths[t % 15];
    const int mode = t / 15;  // how the addends and the start are drawn
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      switch (mode % 5) {
        case 0: x[i] = random_magnitude(rng, -1074, 1023); break;  // every exponent
        case 1: x[i] = random_magnitude(rng, -30, 30); break;       // one window
        case 2: x[i] = random_magnitude(rng, -1074, -1000); break;  // subnormals and tiny
        case 4: x[i] = random_magnitude(rng, 0, 8); break;  // narrow: no piece in the bottom bin
        default: x[i] = rng() % 5 == 0 ? specials[rng() % 11] : random_magnitude(rng, -60, 60);
      }
      y[i] = random_magnitude(rng, -100, 100);
    }
    if (mode == 7)
      for (auto &v : x) v = -0.0;
    PCOLL_Binned start;
    clear(start);
    if (mode >= 4) add(start, random_magnitude(rng, mode == 4 ? 200 : -300, mode == 4 ? 300 : 300));
    PCOLL_Binned sum = start, dot = start;
    for (std::size_t i = 0; i < n; ++i) add(sum, x[i]);
    for (std::size_t i = 0; i < n; ++i) add(dot, x[i] * y[i]);
    for (const auto &[name, deposit] : kernels) {
      CAPTURE(name, n, mode);
      PCOLL_Binned s = start, d = start;
      deposit(s, x.data(), nullptr, n);
      deposit(d, x.data(), y.data(), n);
      CHECK(std::memcmp(&s, &sum, sizeof s) == 0);
      CHECK(std::memcmp(&d, &dot, sizeof d) == 0);
    }
  }
}

// The rounding's fast path for a normal result (binned.cpp, rounded()) and its other paths, through
// to_doubles, against the exact sum: few addends, cancellation to zero and near it, ties,
// results near DBL_MAX (rounding up into infinity), subnormal results, infinities and NaN. Every
// set here lies within 128 bits of its largest addend, so the result is the exact sum rounded
// to nearest even.
TEST_CASE("binned: to_doubles rounds every kind of sum correctly", "[binned]") {
  std::mt19937_64 rng(77);
  const std::size_t n = 6000;
  std::vector<PCOLL_Binned> sums(n);
  std::vector<std::vector<double>> sets(n);
  for (std::size_t i = 0; i < n; ++i) {
    PCOLL_Binned &b = sums[i];
    clear(b);
    std::vector<double> &xs = sets[i];
    auto add = [&](PCOLL_Binned &s, double x) {
      pcoll::binned::add(s, x);
      xs.push_back(x);
    };
    const int kind = static_cast<int>(i % 8);
    const int terms = 1 + static_cast<int>(rng() % 6);
    for (int t = 0; t < terms; ++t) {
      switch (kind) {
        case 0: add(b, random_magnitude(rng, -40, 40) * ((i / 8) % 2 ? 0x1p900 : 0x1p-900)); break;
        case 1: add(b, random_magnitude(rng, -20, 20)); break;
        case 2: add(b, random_magnitude(rng, -1074, -1020)); break;  // subnormal results
        case 3: add(b, rng() % 2 ? DBL_MAX : random_magnitude(rng, 960, 1023)); break;
        case 4: {  // cancellation: x and -x plus a small remainder
          const double v = random_magnitude(rng, -100, 100);
          add(b, v);
          add(b, -v);
          add(b, random_magnitude(rng, -300, -100));
          break;
        }
        case 5: {  // ties: 1 + 2^-53 (x) k, exactly halfway cases
          add(b, 1.0);
          add(b, std::ldexp(rng() % 2 ? 1.0 : 3.0, -53));
          break;
        }
        case 6: add(b, rng() % 9 == 0 ? INFINITY : random_magnitude(rng, -50, 50)); break;
        default: add(b, rng() % 9 == 0 ? std::nan("") : std::ldexp(static_cast<double>(rng() % 1000), static_cast<int>(rng() % 200) - 100));
      }
    }
  }
  std::vector<double> out(n);
  pcoll::binned::to_doubles(sums.data(), n, out.data());
  const Exact dbl_max = exact_of(DBL_MAX), half_ulp_max = Exact::power(1, 970 + 1075);
  for (std::size_t i = 0; i < n; ++i) {
    CAPTURE(i, sets[i]);
    const std::vector<double> &xs = sets[i];
    const bool nan = std::any_of(xs.begin(), xs.end(), [](double x) { return std::isnan(x); });
    const bool inf = std::any_of(xs.begin(), xs.end(), [](double x) { return std::isinf(x); });
    if (nan) {
      CHECK(std::isnan(out[i]));
    } else if (inf) {
      CHECK(out[i] == INFINITY);  // only +inf occurs here
    } else if (std::isinf(out[i])) {  // rounded past DBL_MAX: the exact sum is >= DBL_MAX + 2^970
      const Exact e = exact_sum(xs);
      REQUIRE(!e.negative());
      CHECK(half_ulp_max.less_equal(e.minus(dbl_max)));
      CHECK(!e.minus(dbl_max).negative());
    } else if (within_128_bits(xs)) {
      check_correctly_rounded(xs, out[i]);
    } else {  // the cancellation and wide sets: what lies below the window is lost
      check_bound(xs, out[i]);
    }
  }
}

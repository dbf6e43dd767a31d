// apps/common/speedup.hpp: the bootstrap interval of a ratio of medians and its verdict, on
// cases whose answer is known exactly (constant samples, disjoint supports, identical sets, too
// few runs), and on its statistical promise (coverage of the true ratio over many simulated
// experiments). Agreement with scripts/lib/speedup.py is tests/scripts/speedup_agree.py.
#include "common/speedup.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using pcoll::apps::format_speedup;
using pcoll::apps::median;
using pcoll::apps::speedup_ci;

namespace {

std::vector<double> lognormal(std::size_t n, double med, double sigma, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0.0, sigma);
  std::vector<double> v(n);
  for (auto &x : v) x = med * std::exp(z(g));
  return v;
}

}  // namespace

TEST_CASE("median: odd and even counts, as numpy") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({7}) == 7);
  CHECK(std::isnan(median({})));
}

TEST_CASE("spread: median, MAD, p10, p90 as speedup.py's spread()") {
  const auto s = pcoll::apps::spread({4, 1, 10, 3, 2, 0, std::nan("")});
  CHECK(s.n == 5);
  CHECK(s.median == 3);
  CHECK(s.mad == 1);  // |x - 3| = 1, 2, 7, 0, 1
  CHECK(s.p10 == Approx(1.4));
  CHECK(s.p90 == Approx(7.6));
}

TEST_CASE("constant samples: the interval is the ratio itself") {
  const auto s = speedup_ci({2, 2, 2, 2}, {1, 1, 1, 1});
  CHECK(s.ratio == 2.0);
  CHECK(s.lo == 2.0);
  CHECK(s.hi == 2.0);
  CHECK(s.verdict == "faster");
  CHECK(format_speedup(s) == "2.00x [2.00, 2.00]");
  const auto slow = speedup_ci({1, 1, 1}, {4, 4, 4});
  CHECK(slow.ratio == 0.25);
  CHECK(slow.verdict == "slower");
  // An interval that is exactly {1.0} contains 1.0: no claim either way.
  const auto tie = speedup_ci({3, 3, 3}, {3, 3, 3});
  CHECK(tie.verdict == "within noise");
  CHECK(format_speedup(tie) == "1.00x [1.00, 1.00] within noise");
}

TEST_CASE("disjoint supports: the bounds lie between the extreme ratios") {
  // Every resampled median of the baseline is in [2, 3], of the candidate in [1, 1.1].
  const std::vector<double> base{2.0, 2.9, 2.2, 3.0, 2.5, 2.1, 2.7};
  const std::vector<double> cand{1.0, 1.05, 1.1, 1.02, 1.08};
  const auto s = speedup_ci(base, cand);
  CHECK(s.ratio == Approx(2.5 / 1.05).epsilon(1e-15));
  CHECK(s.lo >= 2.0 / 1.1);
  CHECK(s.hi <= 3.0 / 1.0);
  CHECK(s.lo <= s.ratio);
  CHECK(s.hi >= s.ratio);
  CHECK(s.verdict == "faster");
  CHECK(s.n_base == 7);
  CHECK(s.n_cand == 5);
}

TEST_CASE("the same samples on both sides are within noise") {
  const auto v = lognormal(31, 1e-3, 0.2, 7);
  const auto s = speedup_ci(v, v);
  CHECK(s.ratio == 1.0);
  CHECK(s.lo < 1.0);
  CHECK(s.hi > 1.0);
  CHECK(s.verdict == "within noise");
  CHECK(format_speedup(s).find("within noise") != std::string::npos);
  // Two independent draws of one distribution: also within noise.
  const auto t = speedup_ci(lognormal(31, 1e-3, 0.2, 8), lognormal(31, 1e-3, 0.2, 9));
  CHECK(t.verdict == "within noise");
}

TEST_CASE("too few runs: a ratio but no interval and no claim") {
  const auto s = speedup_ci({1.0, 1.1}, {0.5, 0.6, 0.7});
  CHECK(s.ratio == Approx(1.05 / 0.6));
  CHECK_FALSE(s.has_interval());
  CHECK(std::isnan(s.width()));
  CHECK(s.verdict == "too few runs");
  CHECK(format_speedup(s) == "1.75x (too few runs for an interval)");
  const auto none = speedup_ci({}, {1.0, 2.0, 3.0});
  CHECK(std::isnan(none.ratio));
  CHECK(format_speedup(none) == "-");
}

TEST_CASE("zero, negative and non-finite times are dropped, as in speedup.py") {
  const double inf = std::numeric_limits<double>::infinity();
  const auto s = speedup_ci({2, 0, 2, -1, 2, std::nan("")}, {1, 1, inf, 1});
  CHECK(s.n_base == 3);
  CHECK(s.n_cand == 3);
  CHECK(s.ratio == 2.0);
  CHECK(s.verdict == "faster");
}

TEST_CASE("reproducible with the fixed seed; another seed moves the bounds by bootstrap error") {
  const auto a = lognormal(15, 2.0, 0.3, 1), b = lognormal(15, 1.0, 0.3, 2);
  const auto s1 = speedup_ci(a, b), s2 = speedup_ci(a, b);
  CHECK(s1.lo == s2.lo);
  CHECK(s1.hi == s2.hi);
  const auto s3 = speedup_ci(a, b, 0.95, 4000, 12345);
  CHECK(s3.ratio == s1.ratio);
  CHECK(s3.lo == Approx(s1.lo).epsilon(0.05));
  CHECK(s3.hi == Approx(s1.hi).epsilon(0.05));
}

TEST_CASE("SpeedupBaseline: one baseline against many candidates gives speedup_ci's bits") {
  const auto base = lognormal(21, 1.0, 0.2, 11);
  const pcoll::apps::SpeedupBaseline b(base);
  for (std::uint64_t seed : {12, 13, 14}) {
    const auto cand = lognormal(17 + seed, 0.9, 0.2, seed);
    const auto once = speedup_ci(base, cand), shared = b.against(cand);
    CHECK(shared.ratio == once.ratio);
    CHECK(shared.lo == once.lo);
    CHECK(shared.hi == once.hi);
    CHECK(shared.verdict == once.verdict);
  }
  CHECK(b.against({1.0, 2.0}).verdict == "too few runs");
}

TEST_CASE("the interval narrows as 1/sqrt(runs)") {
  const auto w10 = speedup_ci(lognormal(10, 1, 0.2, 3), lognormal(10, 1, 0.2, 4)).width();
  const auto w160 = speedup_ci(lognormal(160, 1, 0.2, 5), lognormal(160, 1, 0.2, 6)).width();
  // 16 times the runs: about a quarter of the width (bootstrap and sampling error allowed).
  CHECK(w160 / w10 > 0.15);
  CHECK(w160 / w10 < 0.4);
}

TEST_CASE("coverage: the 95% interval holds the true ratio in about 95% of experiments") {
  // True medians 1.3 and 1.0 (lognormal: the median is exp(mu)); 200 experiments of 15 runs each.
  int covered = 0, faster = 0, slower = 0, false_claims = 0;
  const int experiments = 200;
  for (int e = 0; e < experiments; ++e) {
    const auto s = speedup_ci(lognormal(15, 1.3, 0.25, 1000 + 4 * e),
                              lognormal(15, 1.0, 0.25, 1001 + 4 * e), 0.95, 1000);
    covered += s.lo <= 1.3 && 1.3 <= s.hi;
    faster += s.verdict == "faster";
    slower += s.verdict == "slower";
    // No difference at all: a claim either way is a false positive (about 5% expected).
    const auto n = speedup_ci(lognormal(15, 1.0, 0.25, 1002 + 4 * e),
                              lognormal(15, 1.0, 0.25, 1003 + 4 * e), 0.95, 1000);
    false_claims += n.verdict != "within noise";
  }
  INFO("covered " << covered << ", faster " << faster << ", false claims " << false_claims);
  // The percentile bootstrap of a median undercovers a little at 15 runs; far below 85% would
  // be a broken interval, 100% a uselessly wide one.
  CHECK(covered >= 170);
  CHECK(covered <= 199);
  // Power: the log-ratio's standard error is about 1.25 * 0.25 * sqrt(2 / 15) = 0.11, so a 30%
  // speedup (log 0.26) is detected about 60% of the time; never called a slowdown.
  CHECK(faster >= 100);
  CHECK(slower == 0);
  CHECK(false_claims <= 25);
}

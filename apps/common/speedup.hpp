// Speedups stated honestly, in C++: the same statistic as scripts/lib/speedup.py, for the reports
// the apps print themselves (collbench's vs_vendor column and CSV, the k-means summary).
//
//   const Speedup s = speedup_ci(vendor_times, algo_times);  // > 1: the candidate is faster
//   std::puts(format_speedup(s).c_str());   // "1.23x [1.10, 1.35]" or "... within noise"
//
// ratio = median(baseline) / median(candidate). The interval is a percentile bootstrap over runs:
// each set is resampled with replacement, independently, kSpeedupResamples times, and the
// (1 - level)/2 and (1 + level)/2 quantiles of the ratio of the resampled medians are the bounds.
// The verdict is "faster" when the whole interval is above 1.0, "slower" when it is below, and
// "within noise" when it contains 1.0; with fewer than 3 samples on either side no interval is
// claimed ("too few runs"). The seed is fixed, so a report is reproducible.
//
// The generator differs from numpy's (std::mt19937_64 here, PCG64 there), so the bounds agree
// with the Python ones within bootstrap (Monte Carlo) error, not bit for bit; the ratio itself
// is the same number. tests/apps/speedup_test.cpp and tests/scripts/speedup_agree.py check both.
// Header-only and MPI-free, so every app (and the SMPI build) can use it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace pcoll::apps {

inline constexpr double kSpeedupLevel = 0.95;
inline constexpr int kSpeedupResamples = 4000;
inline constexpr std::uint64_t kSpeedupSeed = 20261130;  // speedup.py's SEED
inline constexpr std::size_t kSpeedupMinRuns = 3;

struct Speedup {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  double ratio = nan;                    // median(baseline) / median(candidate)
  double lo = nan, hi = nan;             // bootstrap interval; NaN with too few runs
  std::string verdict = "too few runs";  // "faster" | "slower" | "within noise" | "too few runs"
  std::size_t n_base = 0, n_cand = 0;
  double level = kSpeedupLevel;

  bool has_interval() const { return !std::isnan(lo); }
  // Relative half-width of the interval (0.05 = +-5%); NaN without one.
  double width() const { return has_interval() && ratio > 0 ? (hi - lo) / (2 * ratio) : nan; }
};

namespace speedup_detail {

// Finite, positive times only (a zero or NaN time is a missing measurement, as in speedup.py).
inline std::vector<double> clean(const std::vector<double> &v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v)
    if (std::isfinite(x) && x > 0) out.push_back(x);
  return out;
}

// Quantile of sorted data with linear interpolation between order statistics (numpy's default).
inline double quantile_sorted(const std::vector<double> &s, double q) {
  if (s.empty()) return Speedup::nan;
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

// Median in O(n), reordering v.
inline double median_inplace(std::vector<double> &v) {
  const std::size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;  // as numpy.median
}

// `resamples` medians of x resampled with replacement. The index is rng() % n: mt19937_64's
// output is fixed by the standard (std::uniform_int_distribution's mapping is not), so every
// platform draws the same resamples; the modulo bias, n / 2^64, is far below bootstrap error.
inline std::vector<double> bootstrap_medians(const std::vector<double> &x, int resamples,
                                             std::mt19937_64 &rng) {
  std::vector<double> medians(static_cast<std::size_t>(resamples)), draw(x.size());
  for (auto &m : medians) {
    for (auto &d : draw) d = x[rng() % x.size()];
    m = median_inplace(draw);
  }
  return medians;
}

}  // namespace speedup_detail

inline double median(std::vector<double> v) {
  return v.empty() ? Speedup::nan : speedup_detail::median_inplace(v);
}

// The run-to-run spread a report prints beside a median (speedup.py's spread()): median, median
// absolute deviation, p10, p90 (numpy's linear quantiles) of the finite positive times.
struct Spread {
  double median = Speedup::nan, mad = Speedup::nan, p10 = Speedup::nan, p90 = Speedup::nan;
  std::size_t n = 0;
};

inline Spread spread(const std::vector<double> &times) {
  using namespace speedup_detail;
  std::vector<double> v = clean(times);
  Spread s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = quantile_sorted(v, 0.5);
  s.p10 = quantile_sorted(v, 0.1);
  s.p90 = quantile_sorted(v, 0.9);
  for (double &x : v) x = std::fabs(x - s.median);
  std::sort(v.begin(), v.end());
  s.mad = quantile_sorted(v, 0.5);
  return s;
}

// The baseline's half of the bootstrap, drawn once, for reports that compare one baseline with
// many candidates (collbench: the vendor against every algorithm of a size). against() continues
// from the generator's state after the baseline's draws, so it gives exactly speedup_ci's result.
class SpeedupBaseline {
 public:
  explicit SpeedupBaseline(const std::vector<double> &baseline, double level = kSpeedupLevel,
                           int resamples = kSpeedupResamples, std::uint64_t seed = kSpeedupSeed)
      : b_(speedup_detail::clean(baseline)), level_(level), resamples_(resamples), rng_(seed) {
    if (b_.size() >= kSpeedupMinRuns && resamples_ >= 1)
      medians_ = speedup_detail::bootstrap_medians(b_, resamples_, rng_);
  }

  // Speedup of `candidate` (per-run times in seconds, any order) over the baseline.
  Speedup against(const std::vector<double> &candidate) const {
    using namespace speedup_detail;
    const std::vector<double> c = clean(candidate);
    Speedup s;
    s.level = level_;
    s.n_base = b_.size();
    s.n_cand = c.size();
    if (b_.empty() || c.empty()) return s;
    s.ratio = median(b_) / median(c);
    if (medians_.empty() || c.size() < kSpeedupMinRuns) return s;
    std::mt19937_64 rng = rng_;  // baseline first, then candidate, as speedup.py draws them
    const std::vector<double> mc = bootstrap_medians(c, resamples_, rng);
    std::vector<double> r(medians_.size());
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = medians_[k] / mc[k];
    std::sort(r.begin(), r.end());
    const double alpha = (1.0 - level_) / 2;
    s.lo = quantile_sorted(r, alpha);
    s.hi = quantile_sorted(r, 1.0 - alpha);
    s.verdict = s.lo > 1.0 ? "faster" : s.hi < 1.0 ? "slower" : "within noise";
    return s;
  }

 private:
  std::vector<double> b_, medians_;
  double level_;
  int resamples_;
  std::mt19937_64 rng_;  // state after the baseline's draws
};

// Speedup of `candidate` over `baseline` (both: per-run times in seconds, any order).
inline Speedup speedup_ci(const std::vector<double> &baseline, const std::vector<double> &candidate,
                          double level = kSpeedupLevel, int resamples = kSpeedupResamples,
                          std::uint64_t seed = kSpeedupSeed) {
  return SpeedupBaseline(baseline, level, resamples, seed).against(candidate);
}

// "[1.10, 1.35]", or "-" without an interval.
inline std::string format_interval(const Speedup &s) {
  if (!s.has_interval()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%.2f, %.2f]", s.lo, s.hi);
  return buf;
}

// "1.23x [1.10, 1.35]", with " within noise" appended where it applies (as format_speedup in
// speedup.py); "1.23x (too few runs for an interval)"; "-" without a ratio.
inline std::string format_speedup(const Speedup &s, bool verdict = true) {
  if (std::isnan(s.ratio)) return "-";
  char buf[96];
  if (!s.has_interval()) {
    std::snprintf(buf, sizeof buf, "%.2fx (too few runs for an interval)", s.ratio);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.2fx %s%s", s.ratio, format_interval(s).c_str(),
                verdict && s.verdict == "within noise" ? " within noise" : "");
  return buf;
}

}  // namespace pcoll::apps

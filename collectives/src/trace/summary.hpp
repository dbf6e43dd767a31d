// Bounded-memory summaries for calls beyond PCOLL_TRACE_MAX_CALLS: per (collective, algorithm,
// parameters, bytes) and metric (the call time, each phase), the number of samples, minimum,
// maximum, sum and a median estimate from a log-scale histogram (16 bins per factor of two from
// 1 ns to about 1000 s: the estimate is within 2.2% of a sample near the true median).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <tuple>

namespace pcoll::trace {

class LogHistogram {
 public:
  static constexpr int kBinsPerOctave = 16;
  static constexpr int kOctaves = 40;                          // 1e-9 s * 2^40 ~ 1100 s
  static constexpr int kBins = kBinsPerOctave * kOctaves + 2;  // + underflow, overflow

  void add(double seconds);
  std::uint64_t n() const { return n_; }
  double min() const { return min_; }
  double max() const { return max_; }
  double sum() const { return sum_; }
  // Estimate of the q-quantile (0 <= q <= 1): geometric centre of the bin holding it, clamped
  // to [min, max].
  double quantile(double q) const;

 private:
  static int bin(double seconds);
  static double bin_centre(int b);
  std::array<std::uint32_t, kBins> bins_{};
  std::uint64_t n_ = 0;
  double min_ = 0, max_ = 0, sum_ = 0;
};

// Key: collective, algorithm, parameters (name ids), bytes, metric (name id; "call" = whole call).
using SummaryKey =
    std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t>;
using SummaryTable = std::map<SummaryKey, LogHistogram>;

}  // namespace pcoll::trace

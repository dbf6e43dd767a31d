#include "trace/summary.hpp"

#include <algorithm>
#include <cmath>

namespace pcoll::trace {

namespace {
constexpr double kLow = 1e-9;  // lower edge of bin 1
}

int LogHistogram::bin(double seconds) {
  if (!(seconds >= kLow)) return 0;  // also NaN and negatives (clock steps)
  const int b = 1 + static_cast<int>(std::floor(std::log2(seconds / kLow) * kBinsPerOctave));
  return std::min(b, kBins - 1);
}

double LogHistogram::bin_centre(int b) {
  if (b <= 0) return 0;
  return kLow * std::exp2((b - 1 + 0.5) / kBinsPerOctave);
}

void LogHistogram::add(double seconds) {
  if (n_ == 0) {
    min_ = max_ = seconds;
  } else {
    min_ = std::min(min_, seconds);
    max_ = std::max(max_, seconds);
  }
  ++n_;
  sum_ += seconds;
  ++bins_[static_cast<std::size_t>(bin(seconds))];
}

double LogHistogram::quantile(double q) const {
  if (n_ == 0) return 0;
  const double target = q * static_cast<double>(n_ - 1);  // 0-based rank of the sample
  std::uint64_t seen = 0;
  for (int b = 0; b < kBins; ++b) {
    seen += bins_[static_cast<std::size_t>(b)];
    if (static_cast<double>(seen) > target) return std::clamp(bin_centre(b), min_, max_);
  }
  return max_;
}

}  // namespace pcoll::trace

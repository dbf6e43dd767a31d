#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace collbench {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

Stats describe(const std::vector<double> &v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  s.median = quantile(v, 0.5);
  s.p10 = quantile(v, 0.1);
  s.p90 = quantile(v, 0.9);
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - s.median));
  s.mad = quantile(dev, 0.5);
  return s;
}

}  // namespace collbench

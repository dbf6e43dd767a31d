// Order statistics of one sample set (the conventions of "Rings, Trees, and Butterflies: HPX
// Collectives" and OSU).
#pragma once

#include <vector>

namespace collbench {

struct Stats {
  double median = 0, mad = 0, p10 = 0, p90 = 0, min = 0, max = 0;
  std::size_t n = 0;
};

// Quantile with linear interpolation between order statistics (numpy's default).
double quantile(std::vector<double> v, double q);
Stats describe(const std::vector<double> &v);

}  // namespace collbench

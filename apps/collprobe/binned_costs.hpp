// collprobe --binned-costs: nanoseconds per value of the reproducible mode's local kernels
// (binned.hpp), beside the plain double kernels they replace, on one rank. What the mode costs
// outside the messages: the deposit of addends (add, add_n, dot_n), the conversion of a vector
// into binned sums, the merge of two vectors of them (the reduction step) and the rounding out.
#pragma once

#include <string>

namespace collprobe {

// Prints the table on stdout (and as CSV to `csv` unless empty: kernel,n,ns_per_value_min,
// ns_per_value_median); returns 0.
int binned_costs(const std::string &csv, bool quiet);

}  // namespace collprobe

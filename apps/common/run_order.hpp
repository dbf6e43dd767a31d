// The order in which a driver runs its n algorithms in repetition `rep`, for drivers that run
// them one after another within a launch (kmeans): a Williams design, the crossover design of
// clinical trials. Over every `run_order_period(n)` consecutive repetitions each algorithm takes
// each position equally often, so the first position, which absorbs what the previous
// repetition left behind (caches, page faults, descheduled ranks), is never always the same
// algorithm; and each algorithm directly follows each other one equally often, so one that
// leaves the machine in a bad state (a cold cache, a late rank) penalises all the others
// equally, not always the same one. A plain rotation (rep, rep+1, ...) has the first property but
// not the second: with three algorithms A always follows C.
//
// Row 0 is 0, 1, n-1, 2, n-2, 3, ...; row i adds i mod n. For even n these n rows are balanced;
// for odd n the n mirrored rows follow (period 2n). Pure and MPI-free: every rank computes the
// same order, and tests/apps/run_order_test.cpp checks both properties for n = 1..12.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace pcoll::apps {

// Repetitions after which the design repeats: n for even n, 2n for odd n (1 for n <= 1).
inline int run_order_period(int n) {
  if (n <= 1) return 1;
  return n % 2 == 0 ? n : 2 * n;
}

// Indices 0..n-1 in the order of repetition `rep` (any rep >= 0; the design repeats).
inline std::vector<int> run_order(int n, int rep) {
  std::vector<int> order(n > 0 ? static_cast<std::size_t>(n) : 0);
  if (n <= 0) return order;
  const int row = rep % run_order_period(n);
  const int shift = row % n;
  for (int j = 0; j < n; ++j) {
    const int first_row = j == 0 ? 0 : j % 2 == 1 ? (j + 1) / 2 : n - j / 2;
    order[static_cast<std::size_t>(j)] = (first_row + shift) % n;
  }
  if (row >= n) {  // odd n, second half: the mirror of row - n
    for (int j = 0; j < n / 2; ++j)
      std::swap(order[static_cast<std::size_t>(j)], order[static_cast<std::size_t>(n - 1 - j)]);
  }
  return order;
}

}  // namespace pcoll::apps

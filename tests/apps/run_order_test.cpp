// apps/common/run_order.hpp: the Williams design that orders the k-means driver's algorithms in
// each repetition. For n = 1..12, over one period: every row is a permutation, every algorithm
// takes every position equally often (so the first, warm-up-absorbing position rotates) and
// follows every other algorithm equally often (carry-over balance).
#include "common/run_order.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

using pcoll::apps::run_order;
using pcoll::apps::run_order_period;

TEST_CASE("run_order: a balanced Williams design for n = 1..12") {
  for (int n = 1; n <= 12; ++n) {
    INFO("n = " << n);
    const int period = run_order_period(n);
    CHECK(period == (n == 1 ? 1 : n % 2 == 0 ? n : 2 * n));
    std::vector<std::vector<int>> at(n, std::vector<int>(n, 0));       // [position][algo]
    std::vector<std::vector<int>> follows(n, std::vector<int>(n, 0));  // [before][after]
    for (int rep = 0; rep < period; ++rep) {
      const auto o = run_order(n, rep);
      REQUIRE(o.size() == static_cast<std::size_t>(n));
      CHECK(std::set<int>(o.begin(), o.end()).size() == static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j) {
        REQUIRE(o[j] >= 0);
        REQUIRE(o[j] < n);
        ++at[j][o[j]];
        if (j > 0) ++follows[o[j - 1]][o[j]];
      }
      CHECK(run_order(n, rep + period) == o);  // periodic
    }
    const int per_position = period / n;
    for (int j = 0; j < n; ++j)
      for (int a = 0; a < n; ++a) CHECK(at[j][a] == per_position);
    const int per_pair = period / n;  // each ordered pair once per n rows
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) CHECK(follows[a][b] == (a == b ? 0 : per_pair));
  }
}

TEST_CASE("run_order: the first position is not always the same algorithm") {
  for (int n = 2; n <= 6; ++n) {
    std::set<int> firsts;
    for (int rep = 0; rep < n; ++rep) firsts.insert(run_order(n, rep).front());
    CHECK(firsts.size() == static_cast<std::size_t>(n));  // n consecutive reps: all different
  }
  CHECK(run_order(2, 0) == std::vector<int>{0, 1});
  CHECK(run_order(2, 1) == std::vector<int>{1, 0});
  CHECK(run_order(3, 0) == std::vector<int>{0, 1, 2});
  CHECK(run_order(3, 3) == std::vector<int>{2, 1, 0});
  CHECK(run_order(0, 5).empty());
}

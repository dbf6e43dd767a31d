// The Swing allreduce (algorithms/allreduce/swing.cpp): symbolic verification at the large P
// the matrix does not reach (P = 1..64 is in plan_matrix_test.cpp), the bandwidth bound, and
// what Swing is for: its peers are nearer on a ring than recursive halving's.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "config.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "shard.hpp"

using namespace pcoll;

std::string check_variant(Collective coll, const std::string &algo_name,
                          const std::vector<std::pair<std::string, std::string>> &set, int P,
                          std::size_t count, std::size_t type_size, int ranks_per_node);

namespace {

std::vector<Plan> plans_of(const char *name, int P, std::size_t count) {
  const AlgorithmInfo *a = find_algorithm(Collective::allreduce, name);
  REQUIRE(a != nullptr);
  const CallShape shape = CallShape::in_units(Collective::allreduce, P, count, 8);
  return build_all(*a, plan_request(*a, load_config(), 0, shape));
}

// Elements rank `r` sends in its plan, and the elements x ring distance it sends over (the
// bytes a ring or a 1-D torus carries per link, summed).
std::pair<double, double> sent(const Plan &p, int r, int P) {
  double elems = 0, far = 0;
  for (const Round &rd : p.rounds)
    for (const Xfer &x : rd.sends) {
      const int d = std::abs(x.peer - r);
      elems += double(x.range.len);
      far += double(x.range.len) * double(std::min(d, P - d));
    }
  return {elems, far};
}

}  // namespace

TEST_CASE("swing: every plan correct at large P", "[plan][swing]") {
  pcoll_test::Dealer mine;
  for (int P : {256, 1000, 1024, 2304})
    for (std::size_t count : {std::size_t(P) - 1, std::size_t(P) + 1, std::size_t(4099)}) {
      if (!mine() || (P == 2304 && count != std::size_t(P) + 1)) continue;
      INFO("P=" << P << " count=" << count);
      REQUIRE(check_variant(Collective::allreduce, "swing", {}, P, count, 8, 0) == "");
    }
}

TEST_CASE("swing: bandwidth-optimal, and its peers nearer than recursive halving's", "[swing]") {
  for (int P : {2, 4, 8, 16, 64, 256, 1024}) {
    const std::size_t n = 64 * std::size_t(P);
    const auto sw = plans_of("swing", P, n), rb = plans_of("rabenseifner", P, n);
    double sw_far = 0, rb_far = 0;
    for (int r = 0; r < P; ++r) {
      const auto [e, far] = sent(sw[static_cast<std::size_t>(r)], r, P);
      INFO("P=" << P << " rank " << r);
      // A power of two: 2 (P-1)/P x n elements per rank, each block once each way.
      CHECK(e == double(2 * (std::size_t(P) - 1) * (n / std::size_t(P))));
      CHECK(e == sent(rb[static_cast<std::size_t>(r)], r, P).first);
      sw_far += far;
      rb_far += sent(rb[static_cast<std::size_t>(r)], r, P).second;
    }
    INFO("P=" << P << ": element x ring hops, swing " << sw_far << ", rabenseifner " << rb_far);
    if (P >= 4) CHECK(sw_far < rb_far);
    if (P == 2) CHECK(sw_far == rb_far);
  }
  // Non-powers of two: the fold's extra vector on top of the bound over P' = the largest power
  // of two <= P, and blocks of ceil(n / P') elements (one more than n / P' each, at most).
  for (int P : {3, 5, 7, 12, 1000}) {
    const std::size_t n = 1000;
    int q = 1;
    while (2 * q <= P) q *= 2;
    const double bound = 2.0 * (q - 1) / q * double(n) + double(n) + 2.0 * (q - 1);
    const auto sw = plans_of("swing", P, n);
    for (int r = 0; r < P; ++r) {
      INFO("P=" << P << " rank " << r);
      CHECK(sent(sw[static_cast<std::size_t>(r)], r, P).first <= bound);
    }
  }
}

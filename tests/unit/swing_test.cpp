// The Swing allreduce (algorithms/allreduce/swing.cpp): symbolic verification at the large P
// the matrix does not reach (P = 1..64 is in plan_matrix_test.cpp), the bandwidth bound, and
// what Swing is for: its peers are nearer on a ring than recursive halving's, and its
// per-dimension version's nearer on a torus than the 1-D Swing's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "config.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "shard.hpp"
#include "algorithms/patterns/fold.hpp"
#include "algorithms/patterns/swing.hpp"

using namespace pcoll;

std::string check_variant(Collective coll, const std::string &algo_name,
                          const std::vector<std::pair<std::string, std::string>> &set, int P,
                          std::size_t count, std::size_t type_size, int ranks_per_node);

namespace {

std::vector<Plan> plans_of(const char *name, int P, std::size_t count, int dims = 1,
                           bool multiport = false) {
  const AlgorithmInfo *a = find_algorithm(Collective::allreduce, name);
  REQUIRE(a != nullptr);
  const CallShape shape = CallShape::in_units(Collective::allreduce, P, count, 8);
  const Config config =
      with_overrides(load_config(), {{param_index("swing_dims"), std::to_string(dims)},
                                     {param_index("swing_multiport"), multiport ? "1" : "0"}});
  return build_all(*a, plan_request(*a, config, 0, shape));
}

// Elements x torus hops rank `r` sends over on a torus of the given sides, the first dimension
// varying fastest (dimension-ordered routing: the ring distance in each dimension, summed).
double torus_far(const Plan &p, int r, const std::vector<int> &sides) {
  double far = 0;
  for (const Round &rd : p.rounds)
    for (const Xfer &x : rd.sends) {
      int a = r, b = x.peer, hops = 0;
      for (int d : sides) {
        const int delta = std::abs(a % d - b % d);
        hops += std::min(delta, d - delta);
        a /= d, b /= d;
      }
      far += double(x.range.len) * hops;
    }
  return far;
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
      for (const char *dims : {"1", "2", "3"}) {
        // The torus versions at one count each (the peers do not depend on it), 3 below 2304.
        if (dims[0] != '1' && (count != std::size_t(P) + 1 || (P == 2304 && dims[0] == '3')))
          continue;
        INFO("P=" << P << " count=" << count << " swing_dims=" << dims);
        REQUIRE(check_variant(Collective::allreduce, "swing", {{"swing_dims", dims}}, P, count, 8,
                              0) == "");
      }
    }
  // Multiport: 2 D parts need 2 D P' elements; 2 D P' + 3 gives each its parts. Not at
  // P = 2304: 2 parts need 4099 elements there, and the symbolic check of that plan holds
  // 7.7 GB (3.9 GB with one part; it grows as count x P^2); P = 1000 folds 488 ranks.
  for (int P : {256, 1000, 1024})
    for (int dims : {1, 2, 3}) {
      if (!mine()) continue;
      const std::size_t count = 2 * std::size_t(dims) * std::size_t(PowerOfTwoFold(P).pof2) + 3;
      INFO("P=" << P << " count=" << count << " swing_dims=" << dims << " multiport");
      REQUIRE(check_variant(Collective::allreduce, "swing",
                            {{"swing_dims", std::to_string(dims)}, {"swing_multiport", "1"}}, P,
                            count, 8, 0) == "");
    }
}

TEST_CASE("swing: the per-dimension version's torus and its peers", "[swing]") {
  // The grid: sides as equal as they can be, the first the larger, one step per dimension in
  // turn; a dimension of one rank (more dimensions than steps) takes no step.
  CHECK(SwingGrid(512, 3).shape() == "8x8x8");
  CHECK(SwingGrid(128, 2).shape() == "16x8");
  CHECK(SwingGrid(2048, 3).shape() == "16x16x8");
  CHECK(SwingGrid(4, 3).shape() == "2x2x1");
  CHECK(SwingGrid(1, 2).shape() == "1x1");
  const SwingGrid g(16, 2);  // 4 x 4, rank = c0 + 4 c1
  REQUIRE(g.steps.size() == 4);
  // Rank 0 (0, 0): +1 along x, +1 along y, then -1 along both; rank 5 (1, 1): the mirror.
  CHECK(std::vector<int>{g.peer(0, 0), g.peer(0, 1), g.peer(0, 2), g.peer(0, 3)} ==
        std::vector<int>{1, 4, 3, 12});
  CHECK(std::vector<int>{g.peer(5, 0), g.peer(5, 1), g.peer(5, 2), g.peer(5, 3)} ==
        std::vector<int>{4, 1, 6, 9});
  for (int q : {1, 2, 8, 64, 1024})
    for (int dims : {1, 2, 3, 5}) {
      const SwingGrid h(q, dims);
      for (int x = 0; x < q; ++x)
        for (int s = 0; s < static_cast<int>(h.steps.size()); ++s) {
          INFO("q=" << q << " dims=" << dims << " x=" << x << " step " << s);
          CHECK(h.peer(h.peer(x, s), s) == x);  // partners pair up
          CHECK(h.peer(x, s) != x);
        }
    }
}

TEST_CASE("swing: the multiport version's parts leave a node on different links", "[swing]") {
  // Mirrored grids: partners still pair up, and the peer is the plain peer of -x, negated.
  for (int q : {2, 8, 64, 1024})
    for (int dims : {1, 2, 3})
      for (int first = 0; first < dims; ++first) {
        const SwingGrid plain(q, dims, first), mirror(q, dims, first, true);
        REQUIRE(plain.steps == mirror.steps);
        for (int x = 0; x < q; ++x)
          for (int s = 0; s < static_cast<int>(plain.steps.size()); ++s) {
            INFO("q=" << q << " dims=" << dims << " first=" << first << " x=" << x << " step "
                      << s);
            CHECK(mirror.peer(mirror.peer(x, s), s) == x);
            // -x on the torus: each coordinate negated mod its side.
            auto neg = [&](int y) {
              int out = 0, stride = 1;
              for (int d : plain.sides) out += (d - y / stride % d) % d * stride, stride *= d;
              return out;
            };
            CHECK(mirror.peer(x, s) == neg(plain.peer(neg(x), s)));
          }
      }
  // On an 8 x 8 x 8 torus each step sends the 6 parts along 6 different (dimension, direction)
  // pairs: the parts' first dimensions rotate, the mirrored ones go the other way.
  for (int x : {0, 1, 9, 73, 511})
    for (int s = 0; s < 9; ++s) {
      std::vector<std::pair<int, int>> used;  // (dimension, +1 / -1)
      for (int c = 0; c < 6; ++c) {
        const SwingGrid g(512, 3, c / 2, c % 2 == 1);
        const int y = g.peer(x, s);
        int a = x, b = y, stride = 1, dim = -1, dir = 0;
        for (int i = 0; i < 3; ++i, stride *= 8) {
          const int delta = (b / stride % 8 - a / stride % 8 + 8) % 8;
          if (delta == 0) continue;
          CHECK(dim == -1);  // one dimension per step
          dim = i, dir = delta < 4 ? 1 : -1;
        }
        used.emplace_back(dim, dir);
      }
      std::sort(used.begin(), used.end());
      INFO("x=" << x << " step " << s);
      CHECK(std::adjacent_find(used.begin(), used.end()) == used.end());
    }
  // The same elements per rank as one part, split in 2 D parts (fewer when the count is short).
  for (const auto &[P, dims] : std::vector<std::pair<int, int>>{{16, 1}, {64, 2}, {512, 3}}) {
    const std::size_t n = 24 * std::size_t(P);
    const auto one = plans_of("swing", P, n, dims), multi = plans_of("swing", P, n, dims, true);
    for (int r = 0; r < P; ++r) {
      const auto R = static_cast<std::size_t>(r);
      INFO("P=" << P << " dims=" << dims << " rank " << r);
      CHECK(sent(multi[R], r, P).first == sent(one[R], r, P).first);
      REQUIRE(multi[R].rounds.size() == one[R].rounds.size());
      for (const Round &rd : multi[R].rounds) CHECK(rd.sends.size() == std::size_t(2 * dims));
    }
    const auto short_count = plans_of("swing", P, 3 * std::size_t(P), dims, true);
    for (const Round &rd : short_count[0].rounds)
      CHECK(rd.sends.size() == std::size_t(std::min(3, 2 * dims)));
  }
}

TEST_CASE("swing: per dimension, fewer element-hops on the torus than the 1-D Swing", "[swing]") {
  // The point of the per-dimension version: on a torus numbered with the first dimension
  // fastest, each step stays in one ring; the 1-D Swing's rank distances (1, 1, 3, 5, 11, ...)
  // span several dimensions once they pass the first side. The same elements are sent.
  for (const auto &[P, dims] : std::vector<std::pair<int, int>>{
           {64, 2}, {256, 2}, {512, 3}, {1024, 2}}) {
    const std::size_t n = 16 * std::size_t(P);
    const std::vector<int> sides = SwingGrid(P, dims).sides;
    const auto grid = plans_of("swing", P, n, dims), flat = plans_of("swing", P, n),
               rb = plans_of("rabenseifner", P, n);
    double far_grid = 0, far_flat = 0, far_rb = 0;
    for (int r = 0; r < P; ++r) {
      const auto R = static_cast<std::size_t>(r);
      CHECK(sent(grid[R], r, P).first == sent(flat[R], r, P).first);
      far_grid += torus_far(grid[R], r, sides);
      far_flat += torus_far(flat[R], r, sides);
      far_rb += torus_far(rb[R], r, sides);
    }
    INFO("P=" << P << " dims=" << dims << ": element x torus hops, per dimension " << far_grid
              << ", 1-D swing " << far_flat << ", rabenseifner " << far_rb);
    CHECK(far_grid < far_flat);
    CHECK(far_grid < far_rb);
  }
}

TEST_CASE("swing: bandwidth-optimal, and its peers nearer than recursive halving's", "[swing]") {
  for (int P : {2, 4, 8, 16, 64, 256, 1024}) {
    const std::size_t n = 64 * std::size_t(P);
    const auto sw = plans_of("swing", P, n), rb = plans_of("rabenseifner", P, n),
               sw2 = plans_of("swing", P, n, 2), sw3 = plans_of("swing", P, n, 3);
    double sw_far = 0, rb_far = 0;
    for (int r = 0; r < P; ++r) {
      const auto [e, far] = sent(sw[static_cast<std::size_t>(r)], r, P);
      INFO("P=" << P << " rank " << r);
      // A power of two: 2 (P-1)/P x n elements per rank, each block once each way.
      CHECK(e == double(2 * (std::size_t(P) - 1) * (n / std::size_t(P))));
      CHECK(sent(sw2[static_cast<std::size_t>(r)], r, P).first == e);
      CHECK(sent(sw3[static_cast<std::size_t>(r)], r, P).first == e);
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
    for (int dims : {1, 2, 3}) {
      const auto sw = plans_of("swing", P, n, dims);
      for (int r = 0; r < P; ++r) {
        INFO("P=" << P << " swing_dims=" << dims << " rank " << r);
        CHECK(sent(sw[static_cast<std::size_t>(r)], r, P).first <= bound);
      }
    }
  }
}

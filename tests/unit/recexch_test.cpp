// The k-nomial recursive exchange (algorithms/allreduce/recexch.cpp, recexch_rsag.cpp): symbolic
// verification at the large P the plan matrix does not reach (P = 1..64 with radices 2, 3, 5, 64
// is in plan_matrix_test.cpp), and what the bandwidth variant is for: its step count and bytes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "algorithms/patterns/radix.hpp"
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

std::vector<Plan> plans_of(const char *name, int P, std::size_t count, int radix,
                           const char *factors = "mixed") {
  const AlgorithmInfo *a = find_algorithm(Collective::allreduce, name);
  REQUIRE(a != nullptr);
  const Config cfg =
      with_overrides(load_config(), {{param_index("recexch_radix"), std::to_string(radix)},
                                     {param_index("recexch_factors"), factors}});
  const CallShape shape = CallShape::in_units(Collective::allreduce, P, count, 8);
  return build_all(*a, plan_request(*a, cfg, 0, shape));
}

// An independent check of radix_shape's search: q has no prime factor above k.
bool smooth(int q, int k) {
  for (int p = 2; p <= k; ++p)
    while (q % p == 0) q /= p;
  return q == 1;
}

}  // namespace

TEST_CASE("radix_shape: the mixed-radix group and MPICH's power of k", "[recexch]") {
  using V = std::vector<int>;
  // MPICH's group: the largest power of k, the rest folded.
  CHECK(radix_shape(512, 16, RadixFactors::power).radix == V{16, 16});
  CHECK(radix_shape(512, 16, RadixFactors::power).q == 256);
  CHECK(radix_shape(100, 4, RadixFactors::power).radix == V{4, 4, 4});
  // Mixed: the largest k-smooth q <= P in the fewest radices, as equal as they can be.
  CHECK(radix_shape(512, 16).radix == V{8, 8, 8});
  CHECK(radix_shape(2048, 16).radix == V{16, 16, 8});
  CHECK(radix_shape(1000, 16).radix == V{10, 10, 10});
  CHECK(radix_shape(1000, 8).radix == V{8, 5, 5, 5});
  CHECK(radix_shape(2304, 16).radix == V{16, 12, 12});
  CHECK(radix_shape(4096, 16).radix == V{16, 16, 16});
  CHECK(radix_shape(7, 4).radix == V{3, 2});  // 6 ranks, one folded
  CHECK(radix_shape(13, 4).q == 12);
  CHECK(radix_shape(6, 64).radix == V{6});  // k capped at P: one step of P-1 peers
  CHECK(radix_shape(1, 4).radix.empty());
  CHECK(radix_shape(512, 16).describe() == "8 x 8 x 8");
  CHECK(radix_shape(512, 16).peers() == 21);
  for (int k : {2, 3, 4, 5, 8, 16})
    for (int P = 1; P <= 3000; ++P) {
      INFO("P=" << P << " k=" << k);
      const RadixShape s = radix_shape(P, k), pw = radix_shape(P, k, RadixFactors::power);
      REQUIRE(s.k == std::min(k, std::max(P, 2)));  // the radix capped at P
      long long prod = 1;
      for (int t = 0; t < s.m; ++t) {
        REQUIRE(s.stride[std::size_t(t)] == prod);
        REQUIRE(s.radix[std::size_t(t)] >= 2);
        REQUIRE(s.radix[std::size_t(t)] <= s.k);
        if (t > 0) REQUIRE(s.radix[std::size_t(t)] <= s.radix[std::size_t(t) - 1]);
        prod *= s.radix[std::size_t(t)];
      }
      REQUIRE(prod == s.q);
      REQUIRE(s.q <= P);
      REQUIRE(2 * s.q > P);               // at most one folded vector per rank
      REQUIRE(s.q >= pw.q);               // never more folded ranks than MPICH's group
      if (s.q == pw.q) REQUIRE(s.m <= pw.m);  // the fewest radices
      for (int x = s.q + 1; x <= P; ++x) REQUIRE_FALSE(smooth(x, s.k));
      long long reach = 1;  // no fewer steps than ceil(log_k q) ...
      int least = 0;
      for (; reach < s.q; reach *= s.k) ++least;
      REQUIRE(s.m >= least);
      if ((s.q & (s.q - 1)) == 0) {  // ... and for q = 2^j exactly ceil(j / floor(log2 k))
        int j = 0, e = 0;
        while ((1 << (j + 1)) <= s.q) ++j;
        while ((2 << e) <= s.k) ++e;
        REQUIRE(s.m == (j + e - 1) / e);
      }
    }
}

TEST_CASE("recexch: every plan correct at large P", "[plan][recexch]") {
  pcoll_test::Dealer mine;
  for (const char *algo : {"recexch", "recexch_rsag"})
    for (int P : {256, 1000, 1024, 2304})
      for (const char *k : {"3", "4", "16"})
        for (std::size_t count : {std::size_t(P) + 1, std::size_t(4099)}) {
          if (!mine() || (P == 2304 && count != std::size_t(P) + 1)) continue;
          INFO(algo << " radix " << k << " P=" << P << " count=" << count);
          REQUIRE(check_variant(Collective::allreduce, algo, {{"recexch_radix", k}}, P, count, 8,
                                0) == "");
        }
  // MPICH's power-of-k group with its larger fold (radix 16 at P = 1000: 744 folded ranks).
  for (const char *algo : {"recexch", "recexch_rsag"})
    for (int P : {1000, 1024}) {
      if (!mine()) continue;
      INFO(algo << " power radix 16 P=" << P);
      REQUIRE(check_variant(Collective::allreduce, algo,
                            {{"recexch_radix", "16"}, {"recexch_factors", "power"}}, P,
                            std::size_t(P) + 1, 8, 0) == "");
    }
}

TEST_CASE("recexch_rsag: 2 log_k P steps of k-1 peers, each block once each way",
          "[recexch]") {
  for (const auto &[P, k] : std::vector<std::pair<int, int>>{{16, 4}, {64, 4}, {64, 8}, {81, 3}}) {
    int m = 0;
    for (int q = 1; q < P; q *= k) ++m;
    const std::size_t n = 10 * std::size_t(P);
    const auto plans = plans_of("recexch_rsag", P, n, k);
    for (int r = 0; r < P; ++r) {
      const Plan &p = plans[static_cast<std::size_t>(r)];
      INFO("P=" << P << " k=" << k << " rank " << r);
      REQUIRE(p.rounds.size() == std::size_t(2 * m));
      std::size_t elems = 0;
      for (const Round &rd : p.rounds) {
        CHECK(rd.sends.size() == std::size_t(k - 1));
        CHECK(rd.recvs.size() == std::size_t(k - 1));
        for (const Xfer &x : rd.sends) elems += x.range.len;
      }
      // A power of the radix and blocks of n / P elements: exactly 2 (P-1)/P x n.
      CHECK(elems == 2 * (std::size_t(P) - 1) * (n / std::size_t(P)));
    }
  }
  // Mixed radices: 512 = 8 x 8 x 8 and 1000 = 10 x 10 x 10 with radix 16, no fold, the same
  // bandwidth bound.
  for (const auto &[P, peers] : std::vector<std::pair<int, int>>{{512, 7}, {1000, 9}}) {
    const std::size_t n = 10 * std::size_t(P);
    const auto plans = plans_of("recexch_rsag", P, n, 16);
    for (int r = 0; r < P; r += 37) {
      const Plan &p = plans[static_cast<std::size_t>(r)];
      INFO("P=" << P << " rank " << r);
      REQUIRE(p.rounds.size() == 6);
      std::size_t elems = 0;
      for (const Round &rd : p.rounds) {
        CHECK(rd.sends.size() == std::size_t(peers));
        for (const Xfer &x : rd.sends) elems += x.range.len;
      }
      CHECK(elems == 2 * (std::size_t(P) - 1) * (n / std::size_t(P)));
    }
  }
  // The first step is among neighbours: with k dividing the ranks per node, its parts (the
  // largest, (k-1)/k of the vector) never leave the node.
  const auto plans = plans_of("recexch_rsag", 64, 6400, 4);
  for (int r = 0; r < 64; ++r)
    for (const Xfer &x : plans[static_cast<std::size_t>(r)].rounds.front().sends)
      CHECK(x.peer / 4 == r / 4);
  // Fewer elements than k^m blocks: recexch's whole vectors.
  const auto small = plans_of("recexch_rsag", 64, 63, 4), whole = plans_of("recexch", 64, 63, 4);
  CHECK(small[5].rounds.size() == whole[5].rounds.size());
}

// The k-nomial recursive exchange (algorithms/allreduce/recexch.cpp, recexch_rsag.cpp): symbolic
// verification at the large P the plan matrix does not reach (P = 1..64 with radices 2, 3, 5, 64
// is in plan_matrix_test.cpp), and what the bandwidth variant is for: its step count and bytes.
#include <catch2/catch.hpp>

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

std::vector<Plan> plans_of(const char *name, int P, std::size_t count, int radix) {
  const AlgorithmInfo *a = find_algorithm(Collective::allreduce, name);
  REQUIRE(a != nullptr);
  const Config cfg =
      with_overrides(load_config(), {{param_index("recexch_radix"), std::to_string(radix)}});
  const CallShape shape = CallShape::in_units(Collective::allreduce, P, count, 8);
  return build_all(*a, plan_request(*a, cfg, 0, shape));
}

}  // namespace

TEST_CASE("recexch: every plan correct at large P", "[plan][recexch]") {
  pcoll_test::Dealer mine;
  for (const char *algo : {"recexch", "recexch_rsag"})
    for (int P : {256, 1000, 1024, 2304})
      for (const char *k : {"3", "4"})
        for (std::size_t count : {std::size_t(P) + 1, std::size_t(4099)}) {
          if (!mine() || (P == 2304 && count != std::size_t(P) + 1)) continue;
          INFO(algo << " radix " << k << " P=" << P << " count=" << count);
          REQUIRE(check_variant(Collective::allreduce, algo, {{"recexch_radix", k}}, P, count, 8,
                                0) == "");
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

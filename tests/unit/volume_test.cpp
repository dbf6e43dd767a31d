// The bandwidth promise of every bandwidth-optimal schedule (AlgorithmInfo::bandwidth_optimal:
// ring, rabenseifner, swing, recexch_rsag, and any added later): where it says a request gets the
// bandwidth-optimal plan, every rank sends at most 2 (P-1)/P x n elements outside its fold and
// unfold phases, and only whole vectors (at most n elements per message) in those phases.
// Exactly that where n divides evenly into every block count the schedules use (P, and the
// powers of 2, 3 and 5 below it); for any other n, up to one element of rounding per block sent
// (2 (P-1) blocks at most). P = 1..64 and a few large P, every parameter variant of the plan
// matrix.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "../common/variants.hpp"
#include "config.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "shard.hpp"

using namespace pcoll;

namespace {

struct Sent {
  double core = 0;          // elements sent outside the fold and unfold phases
  std::size_t messages = 0; // those sends
  std::size_t fold_max = 0; // the largest fold or unfold message
};

Sent sent_by(const Plan &p) {
  Sent s;
  for (const Round &rd : p.rounds) {
    const std::string &ph = p.phases.at(static_cast<std::size_t>(rd.phase));
    const bool fold = ph == "fold" || ph == "unfold";
    for (const Xfer &x : rd.sends) {
      if (fold) {
        s.fold_max = std::max(s.fold_max, x.range.len);
      } else {
        s.core += double(x.range.len);
        ++s.messages;
      }
    }
  }
  return s;
}

// The bandwidth-optimal algorithms of the registry with their symbolic parameter variants.
std::vector<pcoll_test::AlgoVariant> bandwidth_optimal_variants() {
  std::vector<pcoll_test::AlgoVariant> out;
  for (const auto &v : pcoll_test::variants_of("allreduce", pcoll_test::symbolic)) {
    const AlgorithmInfo *a = find_algorithm(Collective::allreduce, v.algo);
    if (a != nullptr && a->bandwidth_optimal != nullptr) out.push_back(v);
  }
  return out;
}

// A count every block partition of these schedules divides evenly at P: a multiple of P and of
// the largest powers of 2, 3 and 5 not above P (the block counts of the folded schedules and the
// radix-2, 3 and 5 groups; radix 64 is capped at P).
std::size_t even_count(int P) {
  std::size_t n = static_cast<std::size_t>(P);
  for (std::size_t k : {2, 3, 5}) {
    std::size_t q = 1;
    while (q * k <= static_cast<std::size_t>(P)) q *= k;
    n = std::lcm(n, q);
  }
  return n;
}

// Checks every rank's plan; returns how many requests were bandwidth-optimal.
int check(const pcoll_test::AlgoVariant &v, int P, std::size_t n) {
  const AlgorithmInfo *a = find_algorithm(Collective::allreduce, v.algo);
  std::vector<std::pair<int, std::string>> ov;
  for (const auto &s : v.set) ov.emplace_back(param_index(s.first), s.second);
  const Config cfg = with_overrides(load_config(), ov);
  const CallShape shape = CallShape::in_units(Collective::allreduce, P, n, 8);
  const PlanRequest req = plan_request(*a, cfg, 0, shape);
  if (!a->bandwidth_optimal(req)) return 0;
  const std::vector<Plan> plans = build_all(*a, req);
  const bool even = n % even_count(P) == 0 || (v.algo == "ring" && n % std::size_t(P) == 0);
  const double bound = 2.0 * double(P - 1) / double(P) * double(n) * (1 + 1e-12);
  const double rounding = even ? 0.0 : 2.0 * double(P - 1);
  for (int r = 0; r < P; ++r) {
    const Sent s = sent_by(plans[static_cast<std::size_t>(r)]);
    INFO(v.label << ": P=" << P << " n=" << n << " rank " << r << " sends " << s.core
                 << " elements in " << s.messages << " messages outside the fold; bound "
                 << bound << (even ? " exactly" : " + one per block"));
    CHECK(s.core <= bound + rounding);
    CHECK(s.fold_max <= n);
  }
  return 1;
}

}  // namespace

TEST_CASE("bandwidth-optimal plans send at most 2(P-1)/P x n per rank", "[plan][volume]") {
  const auto variants = bandwidth_optimal_variants();
  // The four of today at least (a new one is picked up from the registry).
  std::vector<std::string> names;
  for (const auto &v : variants) names.push_back(v.algo);
  for (const char *must : {"ring", "rabenseifner", "swing", "recexch_rsag"})
    CHECK(std::find(names.begin(), names.end(), must) != names.end());
  int optimal = 0;
  for (int P = 1; P <= 64; ++P) {
    if (!pcoll_test::in_shard(P)) continue;
    for (const auto &v : variants)
      for (std::size_t n : {std::size_t(P), std::size_t(P) + 1, std::size_t(2 * P) - 1,
                            std::size_t(97), std::size_t(1000), std::size_t(4099), even_count(P)})
        // ring cuts the vector into P blocks only: 3P is even for it (and its segmented
        // variants at the common count would be millions of messages).
        optimal += check(v, P, v.algo == "ring" && n == even_count(P) ? 3 * std::size_t(P) : n);
  }
  CHECK(optimal > 0);
}

TEST_CASE("bandwidth-optimal plans at large P", "[plan][volume]") {
  pcoll_test::Dealer mine;
  // Each algorithm at its defaults, and recexch_rsag's radices (ring's segments only cut the
  // same blocks finer, into P^2 / segment messages: the P = 1..64 sweep covers them).
  for (int P : {256, 1000, 1024, 2304})
    for (const auto &v : bandwidth_optimal_variants()) {
      if (!(v.set.empty() || v.algo == "recexch_rsag") || !mine()) continue;
      CHECK(check(v, P, std::size_t(16) * std::size_t(P) + 3) == 1);
    }
}

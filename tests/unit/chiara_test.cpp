// CHiArA plans (seed paper 002): symbolic verification over every batch size that divides P,
// both radices, odd counts, emulated node sizes; the stage and round counts of the paper's
// formulas; the rotating lane roots; the batch rule.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "algorithms/chiara/chiara.hpp"
#include "config.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"

using namespace pcoll;

std::string check_variant(Collective coll, const std::string &algo_name,
                          const std::vector<std::pair<std::string, std::string>> &set, int P,
                          std::size_t count, std::size_t type_size, int ranks_per_node);

namespace {

using Set = std::vector<std::pair<std::string, std::string>>;

std::vector<int> divisors(int P) {
  std::vector<int> d;
  for (int b = 1; b <= P; ++b)
    if (P % b == 0) d.push_back(b);
  return d;
}

// Radices to try for batch size b: all of 2..b-1 for small b, a spread for large b.
std::vector<int> radices(int b) {
  if (b < 3) return {2};
  std::set<int> k;
  if (b <= 12) {
    for (int i = 2; i < b; ++i) k.insert(i);
  } else {
    for (int i : {2, 3, 4, int(std::lround(std::sqrt(b))), b / 2, b - 1}) k.insert(i);
  }
  return {k.begin(), k.end()};
}

std::vector<std::size_t> counts(int P, int b) {
  const std::size_t B = static_cast<std::size_t>(P / b);
  std::set<std::size_t> c = {0, 1, B > 0 ? B - 1 : 0, B, B + 1, 23, 97};
  return {c.begin(), c.end()};
}

Schedule schedule_of(const std::string &algo, const Set &set, int P, std::size_t count) {
  Config cfg = load_config();
  std::vector<std::pair<int, std::string>> ov;
  for (const auto &s : set) ov.emplace_back(param_index(s.first), s.second);
  cfg = with_overrides(cfg, ov);
  const AlgorithmInfo *a = find_algorithm(Collective::allreduce, algo);
  CallShape shape{Collective::allreduce, P, count, {}, true, false};
  shape.type.size = 8;
  shape.type.contiguous = true;
  return make_schedule(build_all(*a, plan_request(*a, cfg, 0, shape)));
}

int rounds_in_phase(const Plan &p, const std::string &phase) {
  int n = 0;
  for (const Round &r : p.rounds)
    if (p.phases[r.phase] == phase) ++n;
  return n;
}

}  // namespace

TEST_CASE("chiara: every divisor b, both radices, odd counts, P = 1..64", "[plan][chiara]") {
  for (int P = 1; P <= 64; ++P) {
    for (int b : divisors(P)) {
      const std::string bs = std::to_string(b);
      for (std::size_t count : counts(P, b)) {
        for (int k : radices(b)) {
          const std::string ks = std::to_string(k);
          for (const char *algo : {"chiara", "chiara_composed"}) {
            INFO(algo << " P=" << P << " b=" << b << " k_RS=" << k << " count=" << count);
            REQUIRE(check_variant(Collective::allreduce, algo,
                                  {{"chiara_batch", bs}, {"chiara_krs", ks}, {"chiara_kag", "2"}},
                                  P, count, 8, 0) == "");
            INFO(algo << " P=" << P << " b=" << b << " k_AG=" << k << " count=" << count);
            REQUIRE(check_variant(Collective::allreduce, algo,
                                  {{"chiara_batch", bs}, {"chiara_krs", "2"}, {"chiara_kag", ks}},
                                  P, count, 8, 0) == "");
          }
          for (Collective c : {Collective::reduce_scatter_block, Collective::allgather}) {
            INFO(collective_name(c)
                 << " P=" << P << " b=" << b << " k=" << k << " count=" << count);
            REQUIRE(check_variant(c, "chiara",
                                  {{"chiara_batch", bs}, {"chiara_krs", ks}, {"chiara_kag", ks}}, P,
                                  count, 8, 0) == "");
          }
        }
      }
      // A large vector with the default radices.
      INFO("P=" << P << " b=" << b << " count=100000");
      REQUIRE(check_variant(Collective::allreduce, "chiara", {{"chiara_batch", bs}}, P, 100000, 8,
                            0) == "");
    }
  }
}

TEST_CASE("chiara: auto parameters under emulated node sizes", "[plan][chiara]") {
  for (int P : {1, 2, 5, 6, 7, 8, 9, 12, 16, 24, 30, 64})
    for (int rpn : {1, 2, 3, 4, 8, 16})
      for (std::size_t count : {std::size_t(1), std::size_t(23), std::size_t(4099)}) {
        INFO("P=" << P << " ranks per node " << rpn << " count=" << count);
        REQUIRE(check_variant(Collective::allreduce, "chiara", {}, P, count, 8, rpn) == "");
      }
}

TEST_CASE("chiara: the paper's batch rule", "[chiara]") {
  std::string note;
  CHECK(chiara_batch_rule(16, 16, &note) == 4);
  CHECK(chiara_batch_rule(24, 8, &note) == 4);   // sqrt 4.9: 4 and 6 are 0.9 and 1.1 away
  CHECK(chiara_batch_rule(12, 16, &note) == 3);  // sqrt 3.46: 3 (.46) beats 4 (.54)
  CHECK(chiara_batch_rule(2048, 32, &note) == 32);
  CHECK(chiara_batch_rule(36, 4, &note) == 4);  // capped by b_max
  CHECK(chiara_batch_rule(8, 8, &note) == 2);   // sqrt 2.83: 2 and 4 are .83 and 1.17 away
  CHECK(chiara_batch_rule(6, 6, &note) == 2);   // sqrt 2.45: 2 (.45) beats 3 (.55)
  note.clear();
  CHECK(chiara_batch_rule(9, 9, &note) == 3);
  CHECK(note.empty());
  // The rule would give b = 1: the smallest divisor >= 2 instead, with a note that says why.
  CHECK(chiara_batch_rule(2, 2, &note) == 2);
  CHECK(note.find("one batch of all 2 ranks") != std::string::npos);
  note.clear();
  CHECK(chiara_batch_rule(6, 6, &note) == 2);
  CHECK(note.empty());
  CHECK(chiara_batch_rule(10, 1, &note) == 10);  // b_max = 1: no divisor allowed at all
  note.clear();
  CHECK(chiara_batch_rule(22, 4, &note) == 2);  // sqrt 4.7: 2 is the only divisor <= 4
  CHECK(note.empty());
  CHECK(chiara_batch_rule(15, 16, &note) == 3);  // sqrt 3.87: 3 (.87) beats 5 (1.13)
  note.clear();
  CHECK(chiara_batch_rule(10, 4, &note) == 2);  // sqrt 3.2: the rule's 2 is fine, no note
  CHECK(note.empty());
  // No divisor in [2, b_max]: one batch of all ranks, and a note that says why.
  CHECK(chiara_batch_rule(7, 8, &note) == 7);
  CHECK(note.find("no divisor") != std::string::npos);
  note.clear();
  CHECK(chiara_batch_rule(10, 1, &note) == 10);
  CHECK(note.find("crossing node boundaries") != std::string::npos);
  note.clear();
  CHECK(chiara_batch_rule(1, 1, &note) == 1);
  CHECK(note.empty());
}

TEST_CASE("chiara: stages, per-phase rounds and rotating lane roots", "[plan][chiara]") {
  for (int P : {4, 8, 9, 12, 16, 24, 27, 32, 64, 256, 1024, 2048}) {
    for (int b : divisors(P)) {
      // Large P: the plan shapes of the batch sizes the rule picks there (shape checks only).
      if (P > 64 && b != 32 && b != 64 && b != chiara_batch_rule(P, 32, nullptr)) continue;
      const int B = P / b, I = (P + b * b - 1) / (b * b);
      CHECK(I == (B + b - 1) / b);  // I = ceil(B/b) = ceil(P/b^2)
      for (int krs : {2, 3}) {
        for (int kag : {2, 4}) {
          if (P > 64 && (krs != 2 || kag != 2)) continue;
          // count >= B so that every block is non-empty.
          const std::size_t count = static_cast<std::size_t>(B) * 3 + 1;
          const Schedule s = schedule_of("chiara",
                                         {{"chiara_batch", std::to_string(b)},
                                          {"chiara_krs", std::to_string(krs)},
                                          {"chiara_kag", std::to_string(kag)}},
                                         P, count);
          INFO("P=" << P << " b=" << b << " k_RS=" << krs << " k_AG=" << kag << ": " << s.error);
          REQUIRE(s.error.empty());
          const int kr = std::max(2, std::min(krs, b)), ka = std::max(2, std::min(kag, b));
          int p = 1, levels = 0;
          while (p * kr <= b) p *= kr, ++levels;
          int ag_rounds = 0;
          for (long long d = 1; d < b; d *= ka) ++ag_rounds;  // ceil(log_kAG b)
          std::set<int> roots;
          for (int r = 0; r < P; ++r) {
            const Plan &plan = s.plans[r];
            const int i = r % b;
            int lane_stages = 0;  // stages in which lane i owns a block
            for (int t = 0; t < I; ++t) lane_stages += (t * b + i < B) ? 1 : 0;
            if (b > 1) {
              // Participants run floor(log_k b) exchange rounds per stage; fold and unfold add one
              // round each on the ranks they involve.
              // With B < b some lanes own no block and rounds that would move nothing are
              // dropped, so the formula is exact when every stage is full (b divides B).
              const int rs = rounds_in_phase(plan, "intra_rs");
              const bool involved = p < b && (i >= p || i + p < b);
              const int rs_formula = I * ((i < p ? levels : 0) + (involved ? 2 : 0));
              const int ag = rounds_in_phase(plan, "intra_ag");
              if (B % b == 0) {
                CHECK(rs == rs_formula);
                CHECK(ag == I * ag_rounds);
              } else {
                CHECK(rs <= rs_formula);
                CHECK(ag <= I * ag_rounds);
              }
            }
            if (B > 1) {
              CHECK(rounds_in_phase(plan, "lane_reduce") == lane_stages);
              CHECK(rounds_in_phase(plan, "lane_bcast") == lane_stages);
            }
            for (const Round &rd : plan.rounds)
              if (plan.phases[rd.phase] == "lane_reduce" && !rd.recvs.empty()) {
                CHECK(roots.insert(r).second);  // nobody is a lane root twice
                CHECK(static_cast<int>(rd.recvs.size()) == B - 1);
              }
          }
          if (B > 1) {
            std::set<int> expected;
            for (int d = 0; d < B; ++d) expected.insert(d * b + d % b);
            CHECK(roots == expected);  // the root of block d is rank d*b + (d mod b)
          }
        }
      }
    }
  }
}

TEST_CASE("chiara: a batch size that does not divide P is refused with a reason", "[chiara]") {
  Config cfg = with_overrides(load_config(), {{param_index("chiara_batch"), "5"}});
  CallShape shape{Collective::allreduce, 12, 100, {}, true, false};
  shape.type.size = 8;
  shape.type.contiguous = true;
  const std::string why =
      restriction_failure(*find_algorithm(Collective::allreduce, "chiara"), shape, cfg);
  CHECK(why.find("does not divide P=12") != std::string::npos);
}

TEST_CASE("chiara: the ledger splits intra- and inter-node traffic", "[chiara][ledger]") {
  // 64 ranks, 8 per node, b = 8: phases I and III stay on the node, only the lane operations
  // cross it.
  const Schedule s = schedule_of("chiara", {{"chiara_batch", "8"}}, 64, 64 * 100);
  REQUIRE(s.error.empty());
  std::size_t lane_msgs = 0;
  for (const Plan &p : s.plans)
    for (const Round &r : p.rounds) {
      const std::string &ph = p.phases[r.phase];
      for (const Xfer &x : r.sends) {
        const bool inter = x.peer / 8 != p.rank / 8;
        if (ph == "lane_reduce" || ph == "lane_bcast") {
          CHECK(inter);
          ++lane_msgs;
        } else {
          CHECK_FALSE(inter);
        }
      }
    }
  CHECK(lane_msgs == 2 * 8 * 7);  // B = 8 blocks, each B-1 messages up and down
}

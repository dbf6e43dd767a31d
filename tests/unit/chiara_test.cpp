// CHiArA plans ("Configurable and Hierarchical Allreduce"): symbolic verification over every
// batch size that divides P, both radices, odd counts, emulated node sizes; the stage and round
// counts of the paper's formulas; the rotating lane roots; the batch rule. The same for chiara_loglane (the
// logarithmic LaneOp) over every chiara_lane, which with chiara_lane=flat must be chiara.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "algorithms/patterns/chiara_phases.hpp"
#include "config.hpp"
#include "ledger.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "shard.hpp"

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
  CallShape shape = CallShape::in_units(Collective::allreduce, P, count, 8);
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
  pcoll_test::Dealer mine;  // the shard's (P, b) pairs
  for (int P = 1; P <= 64; ++P) {
    for (int b : divisors(P)) {
      if (!mine()) continue;
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
  CallShape shape = CallShape::in_units(Collective::allreduce, 12, 100, 8);
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

// ---- chiara_loglane: CHiArA with a logarithmic LaneOp
// ---------------------------------------------

TEST_CASE("chiara_loglane: every divisor b, LaneOp, radices, odd counts, P = 1..64",
          "[plan][chiara][loglane]") {
  pcoll_test::Dealer mine;  // the shard's (P, b) pairs
  for (int P = 1; P <= 64; ++P) {
    for (int b : divisors(P)) {
      if (!mine()) continue;
      const std::string bs = std::to_string(b);
      for (const char *lane : {"auto", "flat", "doubling", "halving", "swing", "bine"}) {
        // Phase I leaves block d at lane i whatever the radices, so the lane schedules meet every
        // radix through one combined sweep (chiara's own test sweeps k_RS and k_AG apart).
        for (std::size_t count : counts(P, b)) {
          for (int k : radices(b)) {
            const std::string ks = std::to_string(k);
            INFO("chiara_loglane lane=" << lane << " P=" << P << " b=" << b << " k=" << k
                                        << " count=" << count);
            REQUIRE(check_variant(Collective::allreduce, "chiara_loglane",
                                  {{"chiara_batch", bs},
                                   {"chiara_lane", lane},
                                   {"chiara_krs", ks},
                                   {"chiara_kag", ks}},
                                  P, count, 8, 0) == "");
          }
        }
        INFO("chiara_loglane lane=" << lane << " P=" << P << " b=" << b << " count=100000");
        REQUIRE(check_variant(Collective::allreduce, "chiara_loglane",
                              {{"chiara_batch", bs}, {"chiara_lane", lane}}, P, 100000, 8,
                              0) == "");
      }
    }
  }
}

TEST_CASE("chiara_loglane: auto parameters under emulated node sizes", "[plan][chiara][loglane]") {
  for (int P : {1, 2, 5, 6, 7, 8, 9, 12, 16, 24, 30, 64})
    for (int rpn : {1, 2, 3, 4, 8, 16})
      for (std::size_t count : {std::size_t(1), std::size_t(23), std::size_t(4099)})
        for (const char *cross : {"0", "8k"}) {
          INFO("P=" << P << " ranks per node " << rpn << " count=" << count << " crossover "
                    << cross);
          REQUIRE(check_variant(Collective::allreduce, "chiara_loglane",
                                {{"chiara_lane_crossover", cross}}, P, count, 8, rpn) == "");
        }
}

namespace {

bool same_range(const Range &a, const Range &b) {
  return a.buf == b.buf && a.off == b.off && a.len == b.len;
}

// "" when the two plans are the same schedule (rounds, phases, transfers, local operations).
std::string plan_difference(const Plan &a, const Plan &b) {
  if (a.tmp_elems != b.tmp_elems) return "tmp_elems";
  if (a.rounds.size() != b.rounds.size()) return "number of rounds";
  for (std::size_t k = 0; k < a.rounds.size(); ++k) {
    const Round &x = a.rounds[k], &y = b.rounds[k];
    const std::string at = " in round " + std::to_string(k);
    if (a.phases[x.phase] != b.phases[y.phase]) return "phase" + at;
    if (x.sends.size() != y.sends.size() || x.recvs.size() != y.recvs.size() ||
        x.ops.size() != y.ops.size())
      return "step counts" + at;
    for (std::size_t j = 0; j < x.sends.size(); ++j)
      if (x.sends[j].peer != y.sends[j].peer || !same_range(x.sends[j].range, y.sends[j].range))
        return "send" + at;
    for (std::size_t j = 0; j < x.recvs.size(); ++j)
      if (x.recvs[j].peer != y.recvs[j].peer || !same_range(x.recvs[j].range, y.recvs[j].range))
        return "recv" + at;
    for (std::size_t j = 0; j < x.ops.size(); ++j) {
      const LocalOp &o = x.ops[j], &p = y.ops[j];
      if (o.kind != p.kind || !same_range(o.src, p.src) || !same_range(o.dst, p.dst) ||
          o.src_is_left != p.src_is_left || o.after_recv != p.after_recv ||
          o.after_sends != p.after_sends)
        return "local operation" + at;
    }
  }
  return "";
}

int log2_floor(int n) {
  int l = 0;
  while ((2 << l) <= n) ++l;
  return l;
}

}  // namespace

TEST_CASE("chiara_loglane with chiara_lane=flat is exactly chiara", "[plan][chiara][loglane]") {
  for (int P = 1; P <= 36; ++P)
    for (int b : divisors(P))
      for (std::size_t count : counts(P, b))
        for (const char *k : {"2", "3"}) {
          const Set set = {
              {"chiara_batch", std::to_string(b)}, {"chiara_krs", k}, {"chiara_kag", k}};
          Set flat = set;
          flat.emplace_back("chiara_lane", "flat");
          const Schedule c = schedule_of("chiara", set, P, count);
          const Schedule l = schedule_of("chiara_loglane", flat, P, count);
          REQUIRE(c.error.empty());
          REQUIRE(l.error.empty());
          for (int r = 0; r < P; ++r) {
            INFO("P=" << P << " b=" << b << " k=" << k << " count=" << count << " rank " << r);
            CHECK(plan_difference(c.plans[r], l.plans[r]) == "");
          }
        }
  // The same at a paper-scale shape.
  const Schedule c = schedule_of("chiara", {}, 2048, 2048 * 8);
  const Schedule l = schedule_of("chiara_loglane", {{"chiara_lane", "flat"}}, 2048, 2048 * 8);
  for (int r : {0, 1, 31, 32, 1000, 2047}) CHECK(plan_difference(c.plans[r], l.plans[r]) == "");
}

TEST_CASE("chiara_loglane: lane rounds are logarithmic in B", "[plan][chiara][loglane][ledger]") {
  const CostParams cost{2e-6, 2e-10, 1e-10};
  for (int P : {8, 12, 16, 24, 32, 48, 64, 96, 256, 1024, 2048}) {
    for (int b : divisors(P)) {
      const int B = P / b;
      if (B < 2 || b > 32) continue;
      // Large P: the batch sizes the rule picks there (shape checks only).
      if (P > 64 && b != 32 && b != chiara_batch_rule(P, 32, nullptr)) continue;
      const int I = (B + b - 1) / b, lg = log2_floor(B), pof2 = 1 << lg, rem = B - pof2;
      // Blocks of at least 2B elements: no piece of the halving is empty.
      const std::size_t count = static_cast<std::size_t>(B) * B * 2 + 5;
      const Set base = {{"chiara_batch", std::to_string(b)}};
      const Schedule flat = schedule_of("chiara", base, P, count);
      for (const char *lane : {"doubling", "halving", "swing"}) {
        Set set = base;
        set.emplace_back("chiara_lane", lane);
        const Schedule s = schedule_of("chiara_loglane", set, P, count);
        INFO("P=" << P << " b=" << b << " B=" << B << " lane=" << lane << ": " << s.error);
        REQUIRE(s.error.empty());
        // Swing's reduce-scatter and allgather have halving's rounds (other partners).
        const bool halving = std::string(lane) != "doubling";
        for (int r = 0; r < P; r += (P > 64 ? 7 : 1)) {
          const int x = r / b, i = r % b;
          int stages = 0;
          for (int t = 0; t < I; ++t) stages += (t * b + i < B) ? 1 : 0;
          const bool folded = x < 2 * rem, sits_out = folded && x % 2 == 0;
          const int core = sits_out ? 0 : lg;  // rounds of the power-of-two part
          const int reduce = stages * ((folded ? 1 : 0) + core);
          const int bcast = stages * ((folded ? 1 : 0) + (halving ? core : 0));
          INFO("rank " << r);
          CHECK(rounds_in_phase(s.plans[r], "lane_reduce") == reduce);
          CHECK(rounds_in_phase(s.plans[r], "lane_bcast") == bcast);
          // Phases I and III are chiara's, round for round.
          for (const char *ph : {"intra_rs", "intra_ag"})
            CHECK(rounds_in_phase(s.plans[r], ph) == rounds_in_phase(flat.plans[r], ph));
        }
        // The ledger: a lane op costs 2 rounds of B-1 messages at the root in chiara, and
        // (1 or 2) ceil-ish log2 B rounds of one message in chiara_loglane.
        const Ledger lf = compute_ledger(flat, 8, cost), ll = compute_ledger(s, 8, cost);
        const int lane_rounds = (halving ? 2 : 1) * lg + (rem > 0 ? 2 : 0);
        CHECK(ll.rounds <= lf.rounds - 2 * I + I * lane_rounds);
        CHECK(ll.messages <= lf.messages - 2 * I * (B - 1) + I * lane_rounds);
        if (B >= 8) CHECK(ll.messages < lf.messages);
      }
    }
  }
}

TEST_CASE("chiara_loglane: only the lane phases cross nodes", "[chiara][loglane][ledger]") {
  for (const char *lane : {"doubling", "halving", "swing", "bine"}) {
    const Schedule s =
        schedule_of("chiara_loglane", {{"chiara_batch", "8"}, {"chiara_lane", lane}}, 64, 64 * 100);
    REQUIRE(s.error.empty());
    std::size_t lane_msgs = 0;
    for (const Plan &p : s.plans)
      for (const Round &r : p.rounds) {
        const std::string &ph = p.phases[r.phase];
        for (const Xfer &x : r.sends) {
          const bool inter = x.peer / 8 != p.rank / 8;
          if (ph == "lane_reduce" || ph == "lane_bcast") {
            CHECK(inter);
            CHECK(x.peer % 8 == p.rank % 8);  // along the lane
            ++lane_msgs;
          } else {
            CHECK_FALSE(inter);
          }
        }
      }
    // B = 8 lanes ranks, 8 lanes: log2 8 = 3 exchanges per lane rank, twice for halving and
    // swing; bine: each of a lane's 7 tree edges once up and once down.
    const std::string l = lane;
    CHECK(lane_msgs == std::size_t(l == "bine" ? 8 * 2 * 7 : 8 * 8 * 3 * (l == "doubling" ? 1 : 2)));
  }
}

TEST_CASE("chiara_loglane: auto LaneOp follows the block size", "[chiara][loglane]") {
  auto lane_of = [](int P, std::size_t count, const char *cross) {
    Config cfg = with_overrides(load_config(), {{param_index("chiara_lane_crossover"), cross}});
    const AlgorithmInfo *a = find_algorithm(Collective::allreduce, "chiara_loglane");
    CallShape shape = CallShape::in_units(Collective::allreduce, P, count, 8);
    shape.ranks_per_node = 32;
    const PlanRequest req = plan_request(*a, cfg, 0, shape);
    return chiara_lane_mode(req, chiara_shape(req, count));
  };
  // P = 2048, b = 32, B = 64: S = 8 doubles per rank is a 2 KiB block, S = 512 a 128 KiB one.
  CHECK(lane_of(2048, 2048 * 8, "8k") == ChiaraLane::doubling);
  CHECK(lane_of(2048, 2048 * 512, "8k") == ChiaraLane::halving);
  CHECK(lane_of(2048, 2048 * 8, "2k") == ChiaraLane::halving);
  CHECK(lane_of(2048, 2048 * 8, "2049") == ChiaraLane::doubling);
  // Blocks of fewer than B' elements never halve (a piece would be empty).
  CHECK(lane_of(2048, 64 * 63, "0") == ChiaraLane::doubling);
  CHECK(lane_of(2048, 64 * 64, "0") == ChiaraLane::halving);
  // The parameter's choices are the enum's order.
  const ParamSpec &spec = param_table()[param_index("chiara_lane")];
  for (ChiaraLane l :
       {ChiaraLane::automatic, ChiaraLane::flat, ChiaraLane::doubling, ChiaraLane::halving,
        ChiaraLane::swing, ChiaraLane::bine})
    CHECK(parse_integer(spec, chiara_lane_name(l)) == static_cast<long long>(l));
}

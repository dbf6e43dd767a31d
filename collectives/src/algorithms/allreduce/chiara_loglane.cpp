// chiara_loglane: CHiArA's semi-composed hierarchical allreduce with a logarithmic LaneOp
// (beyond the paper: "Configurable and Hierarchical Allreduce", Algorithm 4, with Phase II replaced
// by Rabenseifner's or the butterfly schedule along each lane; Thakur, Rabenseifner, Gropp 2005,
// Sec. 4).
//
// Same batch-lane topology, shape rule, stages and Phases I and III as chiara (same parameters
// chiara_batch, chiara_bmax, chiara_krs, chiara_kag, chiara_kag_crossover). Phase II does not
// gather block d at one lane root and broadcast it back (2(B-1) block messages through that
// rank per stage: the bottleneck when B = P/b is large, e.g. B = 64 at P = 2048, b = 32); it
// allreduces block d among the B ranks of lane i, which all hold it after Phase I:
//   chiara_lane=halving   recursive-halving reduce-scatter of the block ("lane_reduce") and
//                         recursive-doubling allgather ("lane_bcast"), fold/unfold when B is
//                         not a power of two; bandwidth-optimal;
//   chiara_lane=doubling  butterfly of whole blocks ("lane_reduce", with the fold) and the
//                         unfold ("lane_bcast"); latency-optimal for small blocks;
//   chiara_lane=swing     Swing's reduce-scatter and allgather of the block (De Sensi et al.,
//                         NSDI 2024): halving's rounds and volumes, with partners at distances
//                         1, 1, 3, 5, 11, ... lane ranks, nearer on a ring or torus of batches;
//   chiara_lane=bine      reduce up and broadcast down a Bine tree (De Sensi et al., SC 2025)
//                         rooted at a member that rotates with the block: whole blocks, 2 log2 B
//                         rounds, each block crossing every tree edge once each way;
//   chiara_lane=flat      the paper's LaneOp: the plan is exactly chiara's;
//   chiara_lane=auto      halving for blocks of at least chiara_lane_crossover bytes (and B'
//                         elements), doubling below. Schedules in ../patterns/chiara_phases.hpp.
// Each element is still reduced on one rank in one fixed order per step, and the butterfly
// partners evaluate the same expression, so all ranks hold identical bits.
//
// Prior art for a lane phase that is itself an allreduce across nodes, one per lane: Traff and
// Hunold, "Decomposing Collectives for Exploiting Multi-lane Communication" (IEEE TPDS, 2020), and
// the multi-leader allreduce of Bayatpour, Chakraborty, Subramoni, Lu and Panda, "Scalable
// Reduction Collectives with Data Partitioning-based Multi-Leader Design" (SC 2017).
//
// Restrictions: commutative op (Phase I's fold and radix-k exchange combine the lanes of a batch
// out of rank order; the lane schedules themselves keep batch order); PCOLL_CHIARA_BATCH, when
// set, must divide P.
// Cost per stage (block n/B bytes; B' = largest power of two <= B; f = 1 if B != B'): Phases I
// and III as chiara; Phase II
//   halving:  (2 log2 B' + 2f) alpha + (2 (B'-1)/B' + 2f) beta n/B + ((B'-1)/B' + f) gamma n/B,
//   doubling: (log2 B' + 2f)(alpha + beta n/B) + (log2 B' + f) gamma n/B,
//   swing:    as halving,
//   bine:     2 (log2 B' + f)(alpha + beta n/B) + (log2 B' + f) gamma n/B,
// instead of 2(B-1)(alpha + beta n/B) + (B-1) gamma n/B. An estimate (chiara_model); the ledger
// has the exact count. Temporary: as chiara's Phase I, or one block, whichever is larger.
#include "../patterns/chiara_phases.hpp"

#include <string>

namespace pcoll {
namespace {

// CHiArA's parameters and the lane phase's own.
std::vector<ParamSpec> params() {
  std::vector<ParamSpec> p = chiara_params();
  p.push_back(
      ParamSpec::choice("chiara_lane", "auto")
          .one_of({"auto", "flat", "doubling", "halving", "swing", "bine"})
          .about(
              "chiara_loglane's LaneOp along each lane across the B batches: flat = the paper's "
              "gather at the rotating root and broadcast back (2(B-1) block messages, exactly "
              "chiara), doubling = butterfly allreduce of the whole block (log2 B rounds), halving "
              "= recursive-halving reduce-scatter + recursive-doubling allgather of the block (2 "
              "log2 B rounds, 2 block volumes), swing = halving's rounds and volumes with "
              "Swing's partners (distances 1, 1, 3, 5, 11, ...), bine = reduce and broadcast "
              "along a Bine tree (2 log2 B rounds of whole blocks); auto = halving when a block "
              "has at least chiara_lane_crossover bytes and B' elements, else doubling"));
  p.push_back(
      ParamSpec::integer("chiara_lane_crossover", "8k")
          .range(0, 1LL << 40)
          .size_suffixes()
          .about(
              "block size in bytes (count * type size / B) from which auto chiara_lane uses "
              "halving: the alpha-beta-gamma lane models cross at 9-18 KB for B = 4..64 with the "
              "default model parameters, and the b lanes of a node share its network link, which "
              "favours the bandwidth-optimal halving earlier than a per-rank model says"));
  return p;
}

// auto tries every batch size with each lane phase (the lane rule stays the configured value).
std::vector<std::vector<std::pair<std::string, std::string>>> tunings(const PlanRequest &req) {
  std::vector<std::vector<std::pair<std::string, std::string>>> out;
  for (const auto &b : chiara_batch_tunings(req))
    for (const char *lane : {"flat", "doubling", "halving", "swing", "bine"}) {
      auto set = b;
      set.emplace_back("chiara_lane", lane);
      out.push_back(std::move(set));
    }
  return out;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  plan.phase_index("intra_rs");
  plan.phase_index("lane_reduce");
  plan.phase_index("lane_bcast");
  plan.phase_index("intra_ag");
  if (req.size == 1 || req.count == 0) return plan;
  const ChiaraShape s = chiara_shape(req, req.count);
  const ChiaraLane lane = chiara_lane_mode(req, s);
  ChiaraBuffers buf;  // work = out, receives in tmp
  chiara_intra_rs(plan, s, req.rank, buf);
  chiara_loglane_reduce(plan, s, req.rank, buf, lane);
  chiara_loglane_bcast(plan, s, req.rank, buf, lane);
  chiara_intra_ag(plan, s, req.rank, buf);
  plan.tmp_elems = buf.scratch_max;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const ChiaraShape s = chiara_shape(req, req.count);
  return chiara_model(s, req.type_size, c, false, chiara_lane_mode(req, s));
}

std::string explain(const PlanRequest &req) {
  const ChiaraShape s = chiara_shape(req, req.count);
  return chiara_explain(s) + "; lane=" + chiara_lane_name(chiara_lane_mode(req, s));
}

}  // namespace

const AlgorithmInfo &chiara_loglane_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = chiara_info(Collective::allreduce);
    a.name = "chiara_loglane";
    a.description =
        "CHiArA with a logarithmic LaneOp: intra-batch reduce-scatter, Rabenseifner "
        "(large blocks) or recursive doubling (small) along each lane, intra-batch "
        "allgather, in stages";
    a.source =
        "Configurable and Hierarchical Allreduce (CHiArA), Algorithm 4, Phase II by Thakur, "
        "Rabenseifner, Gropp 2005";
    a.restrictions.needs_commutative = true;
    a.params = params();
    a.build = build;
    a.model = model;
    a.explain = explain;
    a.tunings = tunings;
    return a;
  }();
  return info;
}

}  // namespace pcoll

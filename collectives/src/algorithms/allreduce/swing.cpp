// swing: the bandwidth-optimal Swing allreduce (De Sensi, Bonato, Saam, Hoefler et al., "Swing:
// Short-cutting Rings for Higher Bandwidth Allreduce", NSDI 2024): a reduce-scatter and an
// allgather like Rabenseifner's, with the peers of recursive doubling replaced by Swing's.
//
// In step s (0 <= s < L = log2 P') new rank r exchanges with
//   peer(r, s) = r + rho(s) if r is even, r - rho(s) if r is odd (mod P'),
//   rho(s) = sum_{i=0..s} (-2)^i = 1, -1, 3, -5, 11, -21, ...
// so the partners stay close on a ring (|rho(s)| ~ 2^(s+1)/3 instead of 2^s, and half of them
// go the other way round): fewer bytes cross far links than with r xor 2^s. Non-power-of-two
// P is folded first (../patterns/fold.hpp), the new ranks then on a ring of P'.
//
// Blocks. r's share after step s is R(r, s+1), the new ranks r reaches through the steps
// s+1..L-1 (R(r, L) = {r}, R(r, t) = R(r, t+1) u R(peer(r, t), t+1)): in the reduce-scatter r
// sends its partial sums of the blocks R(peer, s+1) and keeps R(r, s+1); the allgather retraces
// the steps. These sets form one binary tree over all new ranks (checked for P' = 2..1024: each
// R(r, t) is the disjoint union of two sets of level t+1, and partners share theirs), so the
// blocks are laid out in the tree's leaf order and every set a step sends is one contiguous
// range: one message per step, as in Rabenseifner's (the schedule is in ../patterns/swing.hpp,
// which chiara_loglane's swing lane phase runs too). (The Bine trees of the same authors,
// SC 2025, reach contiguity by renumbering the ranks; this layout keeps the ranks and reorders
// the blocks instead.) Each block is reduced on one rank only and then copied: all ranks hold
// identical bits. Contributions meet out of rank order: commutative ops only.
//
// Fewer elements than P' blocks: recursive doubling's plan, as Rabenseifner does here.
// The paper's per-dimension version for multi-dimensional tori: swing_dims = D > 1 views the P'
// new ranks as a D-dimensional torus (patterns/swing.hpp's SwingGrid: power-of-two sides as
// equal as they can be, the first dimension varying fastest) and takes the dimensions in turn,
// each step Swing's distance rho(j) along one of them: every step stays in one torus ring
// instead of spanning several as the 1-D Swing's rank distances do on a torus numbered
// row-major. The same messages and volumes as the 1-D Swing; the peers differ. `auto` does not
// try it (no tunings): the grid is one of ranks, and whether a job's ranks form that torus (one
// rank per node, nodes numbered so) is a fact of the job's layout the machine description does
// not hold; set it where they do. swing_multiport = 1 is the paper's multiport version: the
// vector in 2D parts, each reduced by its own schedule at the same time (every round carries
// one message of each part), part c taking the dimensions in turn from dimension c/2 and, for
// odd c, mirrored (-rho where the plain one goes +rho): in each step a torus node's parts
// leave on different links (each dimension, both ways) where the sides are equal, so a node
// with one port per link drives all 2D at once. With D = 1 two parts go both ways round the
// ring. Fewer parts where the count has fewer than P' elements per part (at least one). The
// same bytes per rank as one part; 2D times the messages. `auto` does not try it either: it
// pays where a node has a port per torus link and one rank, again a fact of the job's layout
// (on pcoll's platforms, many ranks per node share one NIC). Not done: tori whose sides are
// not the equal powers of two above.
// Left out: the latency-optimal variant (the whole vector every step). Its partial sums are not
// nested across ranks the same way (for P' >= 8 two ranks of one step's set can hold differently
// bracketed sums), so a floating-point sum would differ in its last bits between ranks.
//
// Restrictions: commutative op.
// Cost (as Rabenseifner's, f = 1 if P is not a power of two):
//   T = (2 log2 P' + 2f) alpha + (2 (P'-1)/P' + 2f) beta n + ((P'-1)/P' + f) gamma n.
// Temporary: n bytes.
#include <string>

#include "../../registry.hpp"
#include "../patterns/fold.hpp"
#include "../patterns/swing.hpp"

namespace pcoll {

const AlgorithmInfo &recursive_doubling_allreduce_info();
const AlgorithmInfo &rabenseifner_allreduce_info();  // the same cost
namespace {

Delegation delegate(const PlanRequest &req) {
  if (req.count < static_cast<std::size_t>(PowerOfTwoFold(req.size).pof2))
    return {&recursive_doubling_allreduce_info(), "count < 2^floor(log2 P)"};
  return {};
}

// The parts the multiport version cuts the vector into (1 without it): 2 per torus dimension,
// fewer where a part would have fewer than P' elements.
int parts_of(const PlanRequest &req) {
  const int ports =
      req.param("swing_multiport") != 0 ? 2 * static_cast<int>(req.param("swing_dims")) : 1;
  return swing_parts(req.count, PowerOfTwoFold(req.size).pof2, ports);
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), rs = plan.phase_index("reduce_scatter"),
            ag = plan.phase_index("allgather"), unfold_ph = plan.phase_index("unfold");
  const std::size_t n = req.count;
  if (req.size == 1 || n == 0) return plan;
  const PowerOfTwoFold f(req.size);
  if (const Delegation d = delegate(req)) return d.to->build(req);
  plan.tmp_elems = n;
  const Range work = out_range(0, n), scratch = tmp_range(0, n);
  f.fold(plan, req.rank, work, scratch, fold_ph);
  const int dims = static_cast<int>(req.param("swing_dims")), parts = parts_of(req);
  f.run(plan, req.rank, rs, [&](Plan &pl, int nr) {
    swing_reduce_scatter(pl, f, nr, work, scratch, rs, {}, dims, parts);
    swing_allgather(pl, f, nr, work, ag, {}, dims, parts);
  });
  f.unfold(plan, req.rank, work, unfold_ph);
  return plan;
}

// count >= P' elements: the reduce-scatter and allgather (below, recursive doubling's vectors).
bool bandwidth_optimal(const PlanRequest &req) {
  return req.count >= static_cast<std::size_t>(PowerOfTwoFold(req.size).pof2);
}

}  // namespace

const AlgorithmInfo &swing_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "swing";
    a.description =
        "Swing (bandwidth-optimal): reduce-scatter + allgather with peers r +- rho(s), "
        "rho = 1, -1, 3, -5, ...; blocks in the peer tree's order; fold for non-power-of-two "
        "P; count < P': recursive doubling";
    a.source = "De Sensi et al., Swing: Short-cutting Rings for Higher Bandwidth Allreduce (NSDI 2024)";
    a.restrictions.needs_commutative = true;
    a.params = {ParamSpec::integer("swing_dims", "1")
                    .range(1, 16)
                    .about("allreduce swing: the torus dimensions of the Swing paper's "
                           "per-dimension version: the P' ranks (P' = the power of two <= P) "
                           "as a torus of that many dimensions, sides powers of two as equal as "
                           "they can be (the first the larger: 512, 3 = 8x8x8), rank = c0 + "
                           "d0 (c1 + d1 c2 ...), the steps taking the dimensions in turn; "
                           "1 = the 1-D Swing on a ring of P' ranks"),
                ParamSpec::integer("swing_multiport", "0")
                    .range(0, 1)
                    .about("allreduce swing: 1 = the Swing paper's multiport version: the "
                           "vector in 2 x swing_dims parts reduced at once, part c starting "
                           "on dimension c/2, the odd parts mirrored (-rho for +rho), so each "
                           "step's parts leave a torus node on different links; fewer parts "
                           "where a part would have fewer than P' elements")};
    a.explain = [](const PlanRequest &req) {
      const int dims = static_cast<int>(req.param("swing_dims")), parts = parts_of(req);
      const PowerOfTwoFold f(req.size);
      return (dims == 1 ? "ring of " + std::to_string(f.pof2) + " new ranks"
                        : "torus of new ranks " + SwingGrid(f.pof2, dims).shape()) +
             (parts > 1 ? ", " + std::to_string(parts) + " parts at once (multiport)" : "") +
             (f.pof2 < req.size ? " (" + std::to_string(req.size - f.pof2) + " ranks folded)" : "");
    };
    a.build = build;
    a.delegate = delegate;
    a.model = [](const PlanRequest &req, const CostParams &c) {
      return rabenseifner_allreduce_info().model(req, c);
    };
    a.bandwidth_optimal = bandwidth_optimal;
    return a;
  }();
  return info;
}

}  // namespace pcoll

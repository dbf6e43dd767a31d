// bine: the latency-optimal allreduce of "Bine Trees: Enhancing Collective Operations by
// Optimizing Communication Locality" (De Sensi, Pasqualoni, Piarulli, Bonato, Ba, Turisini, Domke,
// Hoefler, SC 2025): the whole vector reduced up a Bine tree to one rank and broadcast back down
// the same tree. A Bine tree is a binomial tree whose edges have Swing's distances rho(s) = 1,
// -1, 3, -5, 11, ... instead of 2^s (patterns/bine.hpp), so on a ring, torus or any placement
// where near ranks are near each other, each level's messages travel about 2/3 as far as a
// binomial tree's (the paper: up to 33% less global-link traffic).
//
// Non-power-of-two P: the fold (patterns/fold.hpp) pairs the first 2(P - P') ranks; the tree runs
// on the P' new ranks, rooted at new rank 0; the result goes back to the folded ranks at the end.
// The result is computed on one rank and copied: every rank holds the same bits. Contributions
// meet out of rank order: commutative ops only.
//
// Not here: the paper's bandwidth-optimal allreduce. Its reduce-scatter and allgather exchange
// the same amounts with the same partners as Swing's (r +- rho(s), halving each step); the
// paper's remap of the blocks (nu: negabinary, Gray code, bit reversal) only changes where each
// block sits in the buffer. pcoll's `swing` lays its blocks out by the peer tree instead, which
// gives the same messages, so that schedule is `swing` (plans differ in offsets only).
//
// Restrictions: commutative op.
// Cost (f = 1 if P is not a power of two):
//   T = 2 (log2 P' + f)(alpha + beta n) + (log2 P' + f) gamma n   (like `tree` with arity 2).
// Temporary: 2n bytes on inner ranks of the tree.
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/fold.hpp"
#include "../patterns/swing.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), reduce = plan.phase_index("reduce"),
            bcast = plan.phase_index("bcast"), unfold_ph = plan.phase_index("unfold");
  const std::size_t n = req.count;
  if (req.size == 1 || n == 0) return plan;
  const PowerOfTwoFold f(req.size);
  plan.tmp_elems = n;
  const Range work = out_range(0, n), scratch = tmp_range(0, n);
  f.fold(plan, req.rank, work, scratch, fold_ph);
  f.run(plan, req.rank, reduce, [&](Plan &pl, int nr) {
    bine_reduce(pl, f, nr, /*root=*/0, work, scratch, reduce);
    bine_bcast(pl, f, nr, /*root=*/0, work, bcast);
  });
  f.unfold(plan, req.rank, work, unfold_ph);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  if (req.size <= 1) return 0.0;
  const PowerOfTwoFold f(req.size);
  const double steps = f.log2_pof2() + (f.rem > 0 ? 1 : 0);
  const double n = double(req.count * req.type_size);
  return 2 * steps * (c.alpha + c.beta * n) + steps * c.gamma * n;
}

}  // namespace

const AlgorithmInfo &bine_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "bine";
    a.description =
        "Bine tree (binomial tree with Swing's distances 1, -1, 3, -5, ...) reduce to one rank, "
        "then broadcast down the same tree; fold for non-power-of-two P (latency-optimal; the "
        "bandwidth-optimal Bine schedule is swing's)";
    a.source =
        "De Sensi et al., Bine Trees: Enhancing Collective Operations by Optimizing "
        "Communication Locality (SC 2025)";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

// recursive_doubling: butterfly exchange of the whole vector (Thakur, Rabenseifner, Gropp 2005,
// "Optimization of Collective Communication Operations in MPICH", Sec. 4.1; "Rings, Trees, and
// Butterflies: HPX Collectives").
//
// In step s (mask = 2^s) new rank q exchanges its whole partial result with q xor mask and both
// reduce, the lower block on the left; after log2 P' steps every rank holds the reduction. A rank
// count that is not a power of two is folded first (../patterns/fold.hpp) and the result unfolded
// after. Both partners of every step evaluate the same expression with the same operand order, so
// all ranks end with bit-identical results, and aligned blocks keep rank order: non-commutative
// operations are exact.
//
// Restrictions: none.
// Cost (P' = largest power of two <= P, f = 1 if P != P' else 0):
//   T = (log2 P' + 2f)(alpha + beta n) + (log2 P' + f) gamma n.   Temporary: n bytes.
#include "../../registry.hpp"
#include "../patterns/fold.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), bfly = plan.phase_index("butterfly"),
            unfold_ph = plan.phase_index("unfold");
  const std::size_t n = req.count;
  if (req.size == 1 || n == 0) return plan;
  plan.tmp_elems = n;
  const PowerOfTwoFold f(req.size);
  f.fold(plan, req.rank, out_range(0, n), tmp_range(0, n), fold_ph);
  f.run(plan, req.rank, bfly, [&](Plan &pl, int nr) {
    butterfly_allreduce(pl, f, nr, out_range(0, n), tmp_range(0, n), bfly);
  });
  f.unfold(plan, req.rank, out_range(0, n), unfold_ph);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size);
  const PowerOfTwoFold f(req.size);
  const double lg = f.log2_pof2(), fo = f.rem > 0 ? 1 : 0;
  return (lg + 2 * fo) * (c.alpha + c.beta * n) + (lg + fo) * c.gamma * n;
}

}  // namespace

const AlgorithmInfo &recursive_doubling_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "recursive_doubling";
    a.description =
        "butterfly exchange of the whole vector, log2(P) rounds; fold for "
        "non-power-of-two P";
    a.source =
        "Thakur, Rabenseifner, Gropp 2005 (MPICH); Rings, Trees, and Butterflies: HPX "
        "Collectives";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

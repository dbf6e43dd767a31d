// rabenseifner: recursive-halving reduce-scatter followed by recursive-doubling allgather
// (Rabenseifner 2004; Thakur, Rabenseifner, Gropp 2005, Sec. 4.4; "Rings, Trees, and Butterflies:
// HPX Collectives").
//
// The vector is cut into P' blocks (P' = largest power of two <= P, sizes differ by at most one,
// so any count works). Non-power-of-two P is folded first (../patterns/fold.hpp). In halving step s
// (mask = 2^s) each new rank keeps the half of its current block range selected by bit s of its
// new rank, sends the other half to new rank q xor mask and reduces the half it receives; after
// log2 P' steps it owns one fully reduced block. The allgather retraces the steps in reverse,
// exchanging owned ranges until every rank holds the vector. The partners' contribution sets are
// aligned blocks of new ranks, and the received block is put on the left exactly when it comes
// from lower ranks, so rank order is kept and non-commutative ops are exact (checked by the
// symbolic tests). Each element is reduced on one rank only: all ranks hold identical bits.
// Fewer elements than P' blocks: the plan is recursive doubling's, as in Open MPI
// (ompi_coll_base_allreduce_intra_redscat_allgather, count < pof2) and MPICH (count >= pof2 for
// the reduce-scatter/allgather path): halving steps of empty blocks only add latency.
//
// Restrictions: none.
// Cost (f = 1 if P is not a power of two):
//   T = (2 log2 P' + 2f) alpha + (2 (P'-1)/P' + 2f) beta n + ((P'-1)/P' + f) gamma n.
// Temporary: n bytes (halves are received in place in tmp).
#include "../../registry.hpp"
#include "../patterns/fold.hpp"

namespace pcoll {

const AlgorithmInfo &recursive_doubling_allreduce_info();  // the schedule it uses for small calls
namespace {

Delegation delegate(const PlanRequest &req) {
  if (req.count < static_cast<std::size_t>(PowerOfTwoFold(req.size).pof2))
    return {&recursive_doubling_allreduce_info(), "count < 2^floor(log2 P)"};
  return {};
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
  f.fold(plan, req.rank, out_range(0, n), tmp_range(0, n), fold_ph);
  f.run(plan, req.rank, rs, [&](Plan &pl, int nr) {
    halving_reduce_scatter(pl, f, nr, out_range(0, n), tmp_range(0, n), rs);
    doubling_allgather(pl, f, nr, out_range(0, n), ag);
  });
  f.unfold(plan, req.rank, out_range(0, n), unfold_ph);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const PowerOfTwoFold f(req.size);
  if (const Delegation d = delegate(req)) return d.to->model(req, c);
  const double n = double(req.count * req.type_size);
  const double lg = f.log2_pof2(), fo = f.rem > 0 ? 1 : 0, q = double(f.pof2);
  return (2 * lg + 2 * fo) * c.alpha + (2 * (q - 1) / q + 2 * fo) * c.beta * n +
         ((q - 1) / q + fo) * c.gamma * n;
}

// count >= P' elements: the reduce-scatter and allgather (below, recursive doubling's vectors).
bool bandwidth_optimal(const PlanRequest &req) {
  return req.count >= static_cast<std::size_t>(PowerOfTwoFold(req.size).pof2);
}

}  // namespace

const AlgorithmInfo &rabenseifner_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "rabenseifner";
    a.description =
        "recursive-halving reduce-scatter + recursive-doubling allgather; fold for "
        "non-power-of-two P; count < P': recursive doubling (as Open MPI and MPICH)";
    a.source = "Rabenseifner 2004; Thakur, Rabenseifner, Gropp 2005";
    a.build = build;
    a.delegate = delegate;
    a.model = model;
    a.bandwidth_optimal = bandwidth_optimal;
    return a;
  }();
  return info;
}

}  // namespace pcoll

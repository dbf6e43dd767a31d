// chiara: CHiArA's semi-composed hierarchical allreduce ("Configurable and Hierarchical Allreduce",
// Algorithm 4).
//
// Batch-lane topology r = x*b + i, B = P/b blocks, I = ceil(B/b) stages. Phase I reduces each
// stage's blocks inside the batch (radix-k_RS recursive exchange with fold/unfold), leaving block
// d = t*b + i at lane i; Phase II-a reduces block d along lane i at the rotating root batch
// rho = d; Phase II-b broadcasts it back along the lane; Phase III replicates the stage's blocks
// inside each batch (radix-k_AG recursive exchange with clipping). The lane-aligned layout after
// II-b is exactly what Phase III starts from, so no intra-batch reorganisation happens between
// the reduce-scatter and allgather halves (compare chiara_composed). Phases and the handling of
// shapes the paper leaves open are in ../patterns/chiara_phases.hpp.
//
// Restrictions: commutative op (the fold and the rotating roots combine ranks out of order);
// PCOLL_CHIARA_BATCH, when set, must divide P.
// Cost per stage (block n/B bytes, stage s = b blocks): Phase I ceil-ish log_kRS(b) rounds of
// (k_RS-1) messages of shrinking size (+ fold and unfold when b is not a power of k_RS),
// Phase II 2(B-1) block messages serialised at the lane root, Phase III ceil(log_kAG b) rounds of
// (k_AG-1) messages of growing size. An estimate (chiara_model); the ledger has the exact count.
// Temporary: the vector's stage (b blocks) times max(k_RS - 1, fold fan-in), or B-1 blocks at a
// lane root, whichever is larger.
#include "../patterns/chiara_phases.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  plan.phase_index("intra_rs");
  plan.phase_index("lane_reduce");
  plan.phase_index("lane_bcast");
  plan.phase_index("intra_ag");
  if (req.size == 1 || req.count == 0) return plan;
  const ChiaraShape s = chiara_shape(req, req.count);
  ChiaraBuffers buf;  // work = out, receives in tmp
  chiara_intra_rs(plan, s, req.rank, buf);
  chiara_lane_reduce(plan, s, req.rank, buf);
  chiara_lane_bcast(plan, s, req.rank, buf);
  chiara_intra_ag(plan, s, req.rank, buf);
  plan.tmp_elems = buf.scratch_max;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return chiara_model(chiara_shape(req, req.count), req.type_size, c, false);
}

}  // namespace

const AlgorithmInfo &chiara_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = chiara_info(Collective::allreduce);
    a.name = "chiara";
    a.description =
        "CHiArA semi-composed hierarchical allreduce: intra-batch reduce-scatter, lane "
        "reduce, lane broadcast, intra-batch allgather, in stages";
    a.source = "Configurable and Hierarchical Allreduce (CHiArA), Algorithm 4";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

// chiara_composed: the "naive composition" baseline of the CHiArA paper, "Configurable and
// Hierarchical Allreduce" (Fig. 9): CHiArA's standalone hierarchical reduce-scatter (intra-batch
// reduce-scatter, lane reduce, intra-batch redistribution to the segment owners) followed by its
// standalone hierarchical allgather (intra-batch alignment back to the lane roots, lane broadcast,
// intra-batch allgather). The redistribution and the alignment undo each other; chiara
// (semi-composed) skips both. Having both lets the benefit of semi-composition be measured.
//
// Restrictions and cost: as chiara, plus two intra-batch rounds of b-1 segment messages.
#include "../patterns/chiara_phases.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  for (const char *ph :
       {"intra_rs", "lane_reduce", "intra_redistribute", "intra_align", "lane_bcast", "intra_ag"})
    plan.phase_index(ph);
  if (req.size == 1 || req.count == 0) return plan;
  const ChiaraShape s = chiara_shape(req, req.count);
  ChiaraBuffers buf;
  const auto seg = s.segment(req.rank);
  const Range mine = buf.work_range(seg.first, seg.second);
  chiara_intra_rs(plan, s, req.rank, buf);
  chiara_lane_reduce(plan, s, req.rank, buf);
  chiara_redistribute(plan, s, req.rank, buf, mine);
  chiara_align(plan, s, req.rank, buf, mine);
  chiara_lane_bcast(plan, s, req.rank, buf);
  chiara_intra_ag(plan, s, req.rank, buf);
  plan.tmp_elems = buf.scratch_max;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return chiara_model(chiara_shape(req, req.count), req.type_size, c, true);
}

}  // namespace

const AlgorithmInfo &chiara_composed_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = chiara_info(Collective::allreduce);
    a.name = "chiara_composed";
    a.description =
        "CHiArA standalone hierarchical reduce-scatter followed by standalone "
        "hierarchical allgather (the paper's naive composition, Fig. 9 baseline)";
    a.source = "Configurable and Hierarchical Allreduce, Sec. IV-A/V-C";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    a.auto_candidate = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll

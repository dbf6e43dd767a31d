// chiara: CHiArA's standalone hierarchical allgather ("Configurable and Hierarchical Allreduce",
// Sec. IV-A, Fig. 4): the intra-batch alignment gathers batch x's segments at the root lane of
// block x, the lane broadcast (Algorithm 2, BCAST) sends block d = t*b + i along lane i from the
// rotating root batch d, and the intra-batch allgather (Algorithm 3, radix k_AG with clipping)
// replicates each stage's blocks inside the batches. With m = P * sendcount every CHiArA block is
// exactly the b contributions of its batch.
//
// Restrictions: PCOLL_CHIARA_BATCH, when set, must divide P. (No reduction: any datatype.)
// Cost: one round of b-1 segment messages, then Phases II-b and III of chiara (allreduce).
// Temporary: none (everything lands in the output).
#include "../patterns/chiara_phases.hpp"
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  for (const char *ph : {"intra_align", "lane_bcast", "intra_ag"}) plan.phase_index(ph);
  const std::size_t n = req.count, m = n * static_cast<std::size_t>(req.size);
  if (n == 0) return plan;
  const ChiaraShape s = chiara_shape(req, m);
  ChiaraBuffers buf;  // work = out
  chiara_align(plan, s, req.rank, buf, in_range(0, n));
  chiara_lane_bcast(plan, s, req.rank, buf);
  chiara_intra_ag(plan, s, req.rank, buf);
  plan.tmp_elems = buf.scratch_max;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  ChiaraShape s = chiara_shape(req, chiara_length(req));
  return chiara_model(s, req.type_size, c, false) / 2;  // roughly the allgather half
}

}  // namespace

const AlgorithmInfo &chiara_allgather_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = chiara_info(Collective::allgather);
    a.name = "chiara";
    a.description =
        "CHiArA hierarchical allgather: intra-batch alignment, lane broadcast, "
        "intra-batch allgather";
    a.source = "Configurable and Hierarchical Allreduce, Sec. IV-A";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

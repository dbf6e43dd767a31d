// chiara: CHiArA's standalone hierarchical reduce-scatter ("Configurable and Hierarchical
// Allreduce", Sec. IV-A, Fig. 3): intra-batch reduce-scatter (Algorithm 1), lane reduce to the
// rotating roots (Algorithm 2), and the intra-batch redistribution that hands each rank of batch x
// its segment of block x. With m = P * recvcount every CHiArA block holds exactly the b output
// blocks of its batch.
//
// Restrictions: commutative op; PCOLL_CHIARA_BATCH, when set, must divide P.
// Cost: Phases I and II-a of chiara (allreduce) plus one round of b-1 segment messages.
// Temporary: the input vector (P * recvcount) plus the receive space of chiara.
#include "../patterns/chiara_phases.hpp"
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  for (const char *ph : {"intra_rs", "lane_reduce", "intra_redistribute"}) plan.phase_index(ph);
  const std::size_t n = req.count, m = n * static_cast<std::size_t>(req.size);
  if (n == 0) return plan;
  if (req.size == 1) {
    add_copy(plan.new_round(0), in_range(0, n), out_range(0, n));
    return plan;
  }
  const ChiaraShape s = chiara_shape(req, m);
  ChiaraBuffers buf;
  buf.work = Buf::tmp;
  buf.scratch_base = m;
  add_copy(plan.new_round(0), in_range(0, m), tmp_range(0, m));
  chiara_intra_rs(plan, s, req.rank, buf);
  chiara_lane_reduce(plan, s, req.rank, buf);
  chiara_redistribute(plan, s, req.rank, buf, out_range(0, n));
  plan.tmp_elems = buf.scratch_base + buf.scratch_max;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  ChiaraShape s = chiara_shape(req, chiara_length(req));
  return chiara_model(s, req.type_size, c, false) / 2;  // roughly the reduce-scatter half
}

}  // namespace

const AlgorithmInfo &chiara_reduce_scatter_block_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = chiara_info(Collective::reduce_scatter_block);
    a.name = "chiara";
    a.description =
        "CHiArA hierarchical reduce-scatter: intra-batch reduce-scatter, lane reduce, "
        "intra-batch redistribution";
    a.source = "Configurable and Hierarchical Allreduce, Sec. IV-A";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

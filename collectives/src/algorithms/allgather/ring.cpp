// ring: allgather around the ring r -> r+1 (the second half of the ring allreduce; Patarasuk and
// Yuan 2009). Rank r places its block at r*n; in step s it sends block (r-s) mod P to r+1 and
// receives block (r-s-1) mod P from r-1 straight into place.
//
// Restrictions: none. Cost (n = bytes per block): T = (P-1)(alpha + beta n). Temporary: none.
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("allgather");
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  auto blk = [&](int c) { return static_cast<std::size_t>(((c % P) + P) % P) * n; };
  add_copy(plan.new_round(ph), in_range(0, n), out_range(blk(me), n));
  for (int s = 0; s < P - 1; ++s) {
    Round &r = plan.new_round(ph);
    add_send(r, (me + 1) % P, out_range(blk(me - s), n));
    add_recv(r, (me + P - 1) % P, out_range(blk(me - s - 1), n));
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return (req.size - 1) * (c.alpha + c.beta * double(req.count * req.type_size));
}

}  // namespace

const AlgorithmInfo &ring_allgather_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allgather;
    a.name = "ring";
    a.description = "ring allgather, P-1 steps of one block";
    a.source = "Patarasuk and Yuan 2009";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

// ring: allgather around the ring r -> r+1 (the second half of the ring allreduce; Patarasuk and
// Yuan 2009). Rank r places its block at r*n; in step s it sends block (r-s) mod P to r+1 and
// receives block (r-s-1) mod P from r-1 straight into place.
//
// With PlanRequest::layout the same schedule over blocks of any length and displacements
// (allgatherv/ring.cpp, which shares this builder; ../patterns/vblocks.hpp).
//
// Restrictions: none. Cost (n = bytes per block): T = (P-1)(alpha + beta n). Temporary: none.
#include "../../registry.hpp"
#include "../patterns/vblocks.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("allgather");
  const int P = req.size, me = req.rank;
  const VBlocks b(req);
  plan.in_elems = b.in_off + b.in_len;
  plan.out_elems = b.out_extent();
  if (b.total() == 0) return plan;
  auto mod = [P](int c) { return ((c % P) + P) % P; };
  Round &own = plan.new_round(ph);  // on every rank, empty for an empty block (Round::step)
  if (b.len_of(me) > 0)
    add_copy(own, in_range(b.in_off, b.len_of(me)), out_range(b.at_of(me), b.len_of(me)));
  for (int s = 0; s < P - 1; ++s) {
    Round &r = plan.new_round(ph);
    const int give = mod(me - s), take = mod(me - s - 1);
    if (b.len_of(give) > 0) add_send(r, mod(me + 1), out_range(b.at_of(give), b.len_of(give)));
    if (b.len_of(take) > 0) add_recv(r, mod(me - 1), out_range(b.at_of(take), b.len_of(take)));
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

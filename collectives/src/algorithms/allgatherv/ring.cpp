// ring (allgatherv): the ring allgather with blocks of unequal length (MPICH's ring allgatherv,
// Thakur, Rabenseifner and Gropp 2005, Sec. 3.1; Patarasuk and Yuan 2009). Rank r copies its block
// to its place; in step s it sends block (r-s) mod P to r+1 and receives block (r-s-1) mod P from
// r-1 straight into its place (displs, any order, gaps untouched). An empty block is neither sent
// nor received: every rank knows every count.
//
// Restrictions: none. Cost (n_q = bytes of block q): every step waits for the largest block in
// flight, T = (P-1) alpha + beta sum_s max_r n_(r-s) <= (P-1)(alpha + beta max_q n_q); with equal
// blocks (P-1)(alpha + beta n). Temporary: none.
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
  if (b.len_of(me) > 0)
    add_copy(plan.new_round(ph), in_range(b.in_off, b.len_of(me)),
             out_range(b.at_of(me), b.len_of(me)));
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

const AlgorithmInfo &ring_allgatherv_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allgatherv;
    a.name = "ring";
    a.description = "ring allgatherv, P-1 steps of one block each, blocks of any length";
    a.source = "Thakur, Rabenseifner and Gropp 2005 (MPICH); Patarasuk and Yuan 2009";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

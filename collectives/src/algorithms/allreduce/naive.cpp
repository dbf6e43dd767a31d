// naive: root gather-reduce then broadcast ("naive root", HPX's flat communicator; "Rings,
// Trees, and Butterflies: HPX Collectives", flat section).
//
// Every rank sends its vector to rank 0; rank 0 receives them one at a time, in rank order, into
// one scratch vector and reduces out = out (op) v_r, so the result is ((v0 op v1) op v2) ... in
// rank order and non-commutative operations are exact. Rank 0 then sends the result to every
// other rank. All ranks receive the very bytes rank 0 computed.
//
// Restrictions: none (any P, any count, non-commutative ops).
// Cost: the root serialises P-1 receives and P-1 sends of the whole vector (n bytes):
//   T = 2(P-1)(alpha + beta n) + (P-1) gamma n.   Temporary: n bytes at the root.
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int reduce = plan.phase_index("reduce"), bcast = plan.phase_index("bcast");
  const std::size_t n = req.count;
  if (req.size == 1 || n == 0) return plan;
  if (req.rank == 0) {
    plan.tmp_elems = n;
    for (int src = 1; src < req.size; ++src) {
      Round &r = plan.new_round(reduce);
      const int rv = add_recv(r, src, tmp_range(0, n));
      add_reduce(r, tmp_range(0, n), out_range(0, n), /*src_is_left=*/false, rv);
    }
    Round &b = plan.new_round(bcast);
    for (int dst = 1; dst < req.size; ++dst) add_send(b, dst, out_range(0, n));
  } else {
    // Sent straight from the input (no copy into out first, as Open MPI's basic_linear);
    // with MPI_IN_PLACE `in` is the receive buffer, sent before the result lands there.
    plan.reads_in_only = true;
    // Steps (Round::step) in the root's order: its receive from this rank, then the broadcast.
    plan.idle(reduce, req.rank - 1);
    add_send(plan.new_round(reduce), 0, in_range(0, n));
    plan.idle(reduce, req.size - 1 - req.rank);
    add_recv(plan.new_round(bcast), 0, out_range(0, n));
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size), p1 = req.size - 1;
  return 2 * p1 * (c.alpha + c.beta * n) + p1 * c.gamma * n;
}

}  // namespace

const AlgorithmInfo &naive_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "naive";
    a.description = "root 0 receives every vector, reduces in rank order, sends the result to all";
    a.source = "HPX flat communicator (Rings, Trees, and Butterflies: HPX Collectives)";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

// ring: reduce-scatter around the ring r -> r+1 (Patarasuk and Yuan 2009; the first half of the
// ring allreduce). The input is copied to a working vector of P blocks; in step s rank r sends
// block (r-1-s) mod P to r+1 and reduces block (r-2-s) mod P received from r-1, so after P-1
// steps it holds block r reduced over all ranks, which is copied to the output.
//
// Restrictions: commutative op (block c is accumulated starting at rank c+1).
// Cost (n = bytes per block): T = (P-1)(alpha + beta n + gamma n). Temporary: (P+1) n bytes.
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("reduce_scatter");
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count, m = n * static_cast<std::size_t>(P);
  if (n == 0) return plan;
  if (P == 1) {
    add_copy(plan.new_round(ph), in_range(0, n), out_range(0, n));
    return plan;
  }
  plan.tmp_elems = m + n;  // working vector, then one receive block
  add_copy(plan.new_round(ph), in_range(0, m), tmp_range(0, m));
  auto blk = [&](int c) { return static_cast<std::size_t>(((c % P) + P) % P) * n; };
  for (int s = 0; s < P - 1; ++s) {
    Round &r = plan.new_round(ph);
    add_send(r, (me + 1) % P, tmp_range(blk(me - 1 - s), n));
    const int rv = add_recv(r, (me + P - 1) % P, tmp_range(m, n));
    add_reduce(r, tmp_range(m, n), tmp_range(blk(me - 2 - s), n), true, rv);
  }
  add_copy(plan.new_round(ph), tmp_range(blk(me), n), out_range(0, n));
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size);
  return (req.size - 1) * (c.alpha + c.beta * n + c.gamma * n);
}

}  // namespace

const AlgorithmInfo &ring_reduce_scatter_block_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::reduce_scatter_block;
    a.name = "ring";
    a.description = "ring reduce-scatter, P-1 steps of one block";
    a.source = "Patarasuk and Yuan 2009";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

// ring: reduce-scatter around the ring r -> r+1 (Patarasuk and Yuan 2009; the first half of the
// ring allreduce). The input is copied to a working vector of P blocks; in step s rank r sends
// block (r-1-s) mod P to r+1 and reduces block (r-2-s) mod P received from r-1, so after P-1
// steps it holds block r reduced over all ranks, which is copied to the output.
//
// With PlanRequest::layout the same schedule over blocks of any length (reduce_scatter/ring.cpp,
// which shares this builder; ../patterns/vblocks.hpp).
//
// Restrictions: commutative op (block c is accumulated starting at rank c+1).
// Cost (n = bytes per block): T = (P-1)(alpha + beta n + gamma n). Temporary: (P+1) n bytes.
#include <algorithm>

#include "../../registry.hpp"
#include "../patterns/vblocks.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("reduce_scatter");
  const int P = req.size, me = req.rank;
  const VBlocks b(req);
  const std::size_t N = b.total();
  plan.in_elems = N;
  plan.out_elems = b.len_of(me);
  if (N == 0) return plan;
  if (P == 1) {
    add_copy(plan.new_round(ph), in_range(0, N), out_range(0, N));
    return plan;
  }
  const std::size_t widest = *std::max_element(b.len.begin(), b.len.end());
  plan.tmp_elems = N + widest;  // working vector, then one receive block
  add_copy(plan.new_round(ph), in_range(0, N), tmp_range(0, N));
  auto mod = [P](int c) { return ((c % P) + P) % P; };
  auto at = [&](int q) { return b.packed[static_cast<std::size_t>(q)]; };
  for (int s = 0; s < P - 1; ++s) {
    Round &r = plan.new_round(ph);
    const int give = mod(me - 1 - s), take = mod(me - 2 - s);
    if (b.len_of(give) > 0) add_send(r, mod(me + 1), tmp_range(at(give), b.len_of(give)));
    if (b.len_of(take) > 0) {
      const int rv = add_recv(r, mod(me - 1), tmp_range(N, b.len_of(take)));
      add_reduce(r, tmp_range(N, b.len_of(take)), tmp_range(at(take), b.len_of(take)), true, rv);
    }
  }
  if (b.len_of(me) > 0)
    add_copy(plan.new_round(ph), tmp_range(at(me), b.len_of(me)), out_range(0, b.len_of(me)));
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

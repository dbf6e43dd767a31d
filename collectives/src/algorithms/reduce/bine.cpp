// bine: reduce up a Bine tree to the root ("Bine Trees: Enhancing Collective Operations by
// Optimizing Communication Locality", De Sensi et al., SC 2025): the binomial tree with Swing's
// distances 1, -1, 3, -5, 11, ... (patterns/bine.hpp), the broadcast tree of bcast/bine.cpp run
// backwards, so each level's messages travel about 2/3 as far as a binomial tree's on a ring or
// torus. On virtual ranks v = (r - root) mod P: the P - P' ranks beyond the largest power of two
// P' first hand their input to v - P'; then every tree rank receives its children's partial
// results, the smallest subtree first, reduces each as it arrives and sends to its parent.
// Contributions meet out of rank order: commutative ops only.
//
// Leaves send straight from the input; the root accumulates in its receive buffer (MPI_IN_PLACE
// included), the other inner ranks in scratch.
// Restrictions: commutative op.
// Cost: (log2 P' + f)(alpha + beta n + gamma n) (f = 1 if P is not a power of two).
// Temporary: 2n at inner ranks (n at the root).
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/bine.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("reduce");
  const int P = req.size;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  int q = 1;
  while (q * 2 <= P) q *= 2;
  const int v = (req.rank - req.root + P) % P;
  // Steps (Round::step): the copy, the tail's, then one per level of the tree; each rank has
  // them all up to its send, empty where it has nothing to do.
  if (v >= q) {  // a tail rank: its input to its partner, nothing else
    plan.idle(ph, 1);
    add_send(plan.new_round(ph), v - q, in_range(0, n));
    rotate_peers(plan, req.root, P);
    return plan;
  }
  const bine::TreeNode node = bine::tree_node(v, q);
  const bool receives = !node.children.empty() || v + q < P;
  const Range acc = v == 0 ? out_range(0, n) : (receives ? tmp_range(0, n) : in_range(0, n));
  const std::size_t slot_off = acc.buf == Buf::tmp ? n : 0;
  Round &start = plan.new_round(ph);
  if (acc.buf != Buf::in) add_copy(start, in_range(0, n), acc);
  if (receives) plan.tmp_elems = slot_off + n;
  auto receive = [&](Round &r, int from) {
    const int rv = add_recv(r, from, tmp_range(slot_off, n));
    add_reduce(r, tmp_range(slot_off, n), acc, /*src_is_left=*/false, rv);
  };
  if (q < P) {
    Round &r = plan.new_round(ph);
    if (v + q < P) receive(r, v + q);
  }
  for (auto c = node.children.rbegin(); c != node.children.rend(); ++c)
    receive(plan.new_round(ph), *c);
  if (node.parent >= 0) add_send(plan.new_round(ph), node.parent, acc);
  rotate_peers(plan, req.root, P);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  if (req.size <= 1) return 0.0;
  const double n = double(req.count * req.type_size);
  return std::ceil(std::log2(double(req.size))) * (c.alpha + c.beta * n + c.gamma * n);
}

}  // namespace

const AlgorithmInfo &bine_reduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::reduce;
    a.name = "bine";
    a.description =
        "Bine tree to the root (binomial tree with Swing's distances 1, -1, 3, -5, ...), the "
        "ranks beyond the largest power of two folded in first; commutative ops";
    a.source =
        "De Sensi et al., Bine Trees: Enhancing Collective Operations by Optimizing "
        "Communication Locality (SC 2025)";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

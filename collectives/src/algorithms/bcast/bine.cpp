// bine: broadcast down a Bine tree ("Bine Trees: Enhancing Collective Operations by Optimizing
// Communication Locality", De Sensi et al., SC 2025): the binomial tree with Swing's distances
// 1, -1, 3, -5, 11, ... (patterns/bine.hpp), so on a ring or torus each level's messages travel
// about 2/3 as far as a binomial tree's. On virtual ranks v = (r - root) mod P: the tree spans
// the first P' (the largest power of two <= P); each of the other P - P' ranks receives from
// v - P' once that one has the data and has served its tree children.
//
// Restrictions: none (any P, any root).
// Cost: (log2 P' + f)(alpha + beta n) on the longest path (f = 1 if P is not a power of two).
// Temporary: none.
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/bine.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("bcast");
  const int P = req.size;
  const std::size_t n = req.count;
  if (P == 1 || n == 0) return plan;
  int q = 1;
  while (q * 2 <= P) q *= 2;
  const int v = (req.rank - req.root + P) % P;
  const Range data = out_range(0, n);
  // One step per level of the tree and one for the tail (Round::step): a member waits as many
  // steps as it has children fewer than the root; the tail ranks wait for the whole tree.
  if (v >= q) {
    int levels = 0;
    while ((1 << levels) < q) ++levels;
    plan.idle(ph, levels);
    add_recv(plan.new_round(ph), v - q, data);
  } else {
    const bine::TreeNode node = bine::tree_node(v, q);
    if (node.parent >= 0) {
      plan.idle(ph, bine::wait_steps(node, q));
      add_recv(plan.new_round(ph), node.parent, data);
    }
    for (int c : node.children) add_send(plan.new_round(ph), c, data);
    if (v + q < P) add_send(plan.new_round(ph), v + q, data);
  }
  rotate_peers(plan, req.root, P);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  if (req.size <= 1) return 0.0;
  const double steps = std::ceil(std::log2(double(req.size)));
  return steps * (c.alpha + c.beta * double(req.count * req.type_size));
}

}  // namespace

const AlgorithmInfo &bine_bcast_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::bcast;
    a.name = "bine";
    a.description =
        "Bine tree from the root (binomial tree with Swing's distances 1, -1, 3, -5, ...), the "
        "ranks beyond the largest power of two served last by their partner";
    a.source =
        "De Sensi et al., Bine Trees: Enhancing Collective Operations by Optimizing "
        "Communication Locality (SC 2025)";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

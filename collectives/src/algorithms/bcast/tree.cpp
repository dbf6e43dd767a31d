// tree: broadcast down the k-ary tree of HPX's hierarchical communicator, the broadcast half of
// the tree allreduce (patterns/hpx_tree.hpp: the same balanced groups and edges), on virtual
// ranks v = (r - root) mod P so that the root is the top of the tree. A representative sends to
// its sibling groups' representatives in one round, level by level; one flat group (the root
// sends to everybody) below tree_flat_below ranks, as in HPX.
//
// Restrictions: none (any P, any root).
// Cost (a_l = fan-out of level l on the root's path): T = sum_l (a_l - 1)(alpha + beta n),
//   log_2 P (alpha + beta n) for a = 2 and P a power of two. Temporary: none.
#include <algorithm>

#include "../../registry.hpp"
#include "../patterns/hpx_tree.hpp"

namespace pcoll {
namespace {

int flat_of(const PlanRequest &req) {
  return static_cast<int>(std::min<long long>(req.param("tree_flat_below"), 1 << 30));
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("bcast");
  const int P = req.size;
  const std::size_t n = req.count;
  if (P == 1 || n == 0) return plan;
  const int v = (req.rank - req.root + P) % P;
  const int arity = static_cast<int>(req.param("tree_arity"));
  add_tree_bcast(plan, tree_path(v, P, arity, flat_of(req)), v, out_range(0, n), ph);
  rotate_peers(plan, req.root, P);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const int arity = static_cast<int>(req.param("tree_arity"));
  return tree_fanin(req.size, arity, flat_of(req)) *
         (c.alpha + c.beta * double(req.count * req.type_size));
}

}  // namespace

const AlgorithmInfo &tree_bcast_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::bcast;
    a.name = "tree";
    a.description =
        "k-ary tree from the root, balanced groups, flat below tree_flat_below ranks (HPX "
        "hierarchical communicator; the allreduce tree's broadcast)";
    a.source = "HPX hierarchical_communicator (Rings, Trees, and Butterflies: HPX Collectives)";
    a.params = hpx_tree_params();
    a.tunings = hpx_tree_tunings;
    a.build = build;
    a.model = model;
    a.model_exact = false;  // the root path's fan-out; a wider level elsewhere can be longer
    return a;
  }();
  return info;
}

}  // namespace pcoll

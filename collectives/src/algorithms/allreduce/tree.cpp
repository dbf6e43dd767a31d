// tree: k-ary tree reduce followed by a broadcast down the same tree, with the balanced groups of
// HPX's hierarchical communicator ("Rings, Trees, and Butterflies: HPX Collectives", "the handle
// named one box" and "uneven groups were a correctness problem").
//
// The ranks [0, P) are split into `tree_arity` balanced groups, recursively
// (patterns/hpx_tree.hpp); the leftmost rank of a group is its representative. Reduction climbs the
// tree: a representative receives the partial results of its sibling groups' representatives and
// reduces them in group order (left to right), so contributions are combined in rank order and
// non-commutative ops are exact. The result goes back down the same edges. As in HPX, a
// communicator with fewer than `tree_flat_below` ranks uses one flat group (the root receives from
// everybody).
//
// Restrictions: none.
// Cost (levels l with group fan-in a_l on the root's path; a_l = a for a balanced power):
//   T = 2 sum_l (a_l - 1)(alpha + beta n) + sum_l (a_l - 1) gamma n
//   = 2 log_2(P) (alpha + beta n) + log_2(P) gamma n for a = 2 and P a power of two.
// Temporary: (a_max - 1) n bytes at representatives.
#include <algorithm>

#include "../../plan.hpp"
#include "../../registry.hpp"
#include "../patterns/hpx_tree.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int reduce = plan.phase_index("reduce"), bcast = plan.phase_index("bcast");
  const std::size_t n = req.count;
  if (req.size == 1 || n == 0) return plan;
  const int arity = static_cast<int>(req.param("tree_arity"));
  const auto flat = static_cast<int>(std::min<long long>(req.param("tree_flat_below"), 1 << 30));
  const std::vector<TreeLevel> path = tree_path(req.rank, req.size, arity, flat);
  plan.tmp_elems = add_tree_reduce(plan, path, req.rank, out_range(0, n), 0, reduce,
                                   tree_depth(req.size, arity, flat));
  add_tree_bcast(plan, path, req.rank, out_range(0, n), bcast);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size);
  const int arity = static_cast<int>(req.param("tree_arity"));
  const auto flat = static_cast<int>(std::min<long long>(req.param("tree_flat_below"), 1 << 30));
  const double fanin = tree_fanin(req.size, arity, flat);  // the critical path
  return 2 * fanin * (c.alpha + c.beta * n) + fanin * c.gamma * n;
}

}  // namespace

const AlgorithmInfo &tree_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "tree";
    a.description =
        "k-ary tree reduce then broadcast, balanced groups, flat below tree_flat_below "
        "ranks (HPX hierarchical communicator)";
    a.source = "HPX hierarchical_communicator (Rings, Trees, and Butterflies: HPX Collectives)";
    a.params = hpx_tree_params();
    a.tunings = hpx_tree_tunings;
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

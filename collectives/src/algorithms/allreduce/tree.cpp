// tree: k-ary tree reduce followed by a broadcast down the same tree, with the balanced groups of
// HPX's hierarchical communicator (seed article 000, "the handle named one box" and "uneven groups
// were a correctness problem").
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
  const int me = req.rank;
  std::size_t max_children = 0;
  // Reduce: deepest level first. At a level the rank takes part iff it leads its subgroup.
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const TreeLevel &lv = *it;
    if (lv.reps[lv.my_sub] != me) break;  // not a representative at this level or above
    Round &r = plan.new_round(reduce);
    if (lv.my_sub == 0) {
      for (std::size_t g = 1; g < lv.reps.size(); ++g) {
        const Range slot = tmp_range((g - 1) * n, n);
        const int rv = add_recv(r, lv.reps[g], slot);
        add_reduce(r, slot, out_range(0, n), /*src_is_left=*/false, rv);
      }
      max_children = std::max(max_children, lv.reps.size() - 1);
    } else {
      add_send(r, lv.reps[0], out_range(0, n));
      break;  // handed the partial result up; done reducing
    }
  }
  // Broadcast: the same edges, top down.
  for (const TreeLevel &lv : path) {
    if (lv.reps[lv.my_sub] != me) continue;
    Round &r = plan.new_round(bcast);
    if (lv.my_sub == 0) {
      for (std::size_t g = 1; g < lv.reps.size(); ++g) add_send(r, lv.reps[g], out_range(0, n));
    } else {
      add_recv(r, lv.reps[0], out_range(0, n));
    }
  }
  plan.tmp_elems = max_children * n;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size);
  const int arity = static_cast<int>(req.param("tree_arity"));
  const auto flat = static_cast<int>(std::min<long long>(req.param("tree_flat_below"), 1 << 30));
  double fanin = 0;  // sum of (a_l - 1) along the root's path, the critical path
  for (const TreeLevel &lv : tree_path(0, req.size, arity, flat))
    fanin += double(lv.reps.size() - 1);
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
    a.params = {"tree_arity", "tree_flat_below"};
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

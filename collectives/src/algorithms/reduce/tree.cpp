// tree: reduce up the k-ary tree of HPX's hierarchical communicator to rank 0, then (root != 0)
// one message from rank 0 to the root: the reduce half of the tree allreduce, the same code
// (patterns/hpx_tree.hpp: balanced groups, partial results reduced in group order, so
// non-commutative ops are exact). One flat group (rank 0 receives from everybody) below
// tree_flat_below ranks, as in HPX.
//
// Leaves send straight from the input; the root accumulates in its receive buffer (MPI_IN_PLACE
// included), the other representatives in scratch.
// Restrictions: none (any P, any root, any op).
// Cost (a_l = fan-in of level l on rank 0's path): sum_l (a_l - 1)(alpha + beta n + gamma n),
//   plus alpha + beta n when root != 0. Temporary: (a_max - 1) n, plus n off the root.
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
  const int ph = plan.phase_index("reduce");
  const int P = req.size, me = req.rank, root = req.root;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  const int arity = static_cast<int>(req.param("tree_arity"));
  const std::vector<TreeLevel> path = tree_path(me, P, arity, flat_of(req));
  const bool receives = tree_receives(path, me);
  const Range acc = me == root ? out_range(0, n) : (receives ? tmp_range(0, n) : in_range(0, n));
  const std::size_t slot_off = acc.buf == Buf::tmp ? n : 0;
  Round &start = plan.new_round(ph);  // on every rank, empty for most: the same step (Round::step)
  if (acc.buf != Buf::in) add_copy(start, in_range(0, n), acc);
  const std::size_t slots =
      add_tree_reduce(plan, path, me, acc, slot_off, ph, tree_depth(P, arity, flat_of(req)));
  if (receives) plan.tmp_elems = slot_off + slots;
  if (root != 0 && me == 0) add_send(plan.new_round(ph), root, acc);
  if (root != 0 && me == root) add_recv(plan.new_round(ph), 0, out_range(0, n));
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size);
  const int arity = static_cast<int>(req.param("tree_arity"));
  return tree_fanin(req.size, arity, flat_of(req)) * (c.alpha + c.beta * n + c.gamma * n) +
         (req.root != 0 ? c.alpha + c.beta * n : 0);
}

}  // namespace

const AlgorithmInfo &tree_reduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::reduce;
    a.name = "tree";
    a.description =
        "k-ary tree to rank 0 in rank order, balanced groups, flat below tree_flat_below ranks "
        "(HPX hierarchical communicator; the allreduce tree's reduce), then to the root";
    a.source = "HPX hierarchical_communicator (Rings, Trees, and Butterflies: HPX Collectives)";
    a.params = hpx_tree_params();
    a.tunings = hpx_tree_tunings;
    a.build = build;
    a.model = model;
    a.model_exact = false;  // rank 0's path; a wider level elsewhere can be longer
    return a;
  }();
  return info;
}

}  // namespace pcoll

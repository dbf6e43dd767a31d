// The balanced k-ary groups of HPX's hierarchical communicator (Rings, Trees, and Butterflies:
// HPX Collectives, "uneven groups were a correctness problem"), shared by the tree allreduce and
// the routed_tree alltoall.
//
// The ranks [0, P) are split into `arity` groups whose sizes differ by at most one (the first
// P % a groups get the ceiling); each group recursively the same way, down to single ranks. The
// leftmost rank of a group is its representative. As in HPX, a communicator with fewer than
// `flat_below` ranks is one flat group (arity = P at the top level).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../plan.hpp"
#include "../../registry.hpp"

namespace pcoll {

// The tree's parameters (tree_arity, tree_flat_below), read by every algorithm built on it.
const std::vector<ParamSpec> &hpx_tree_params();
// The arities `auto` tries (2, 4 and 8: deeper trees cost latency, wider ones a root's
// bandwidth).
std::vector<std::vector<std::pair<std::string, std::string>>> hpx_tree_tunings(
    const PlanRequest &req);

// One level of the tree as seen by one rank: the group it belongs to, split into subgroups.
struct TreeLevel {
  std::vector<int> reps;   // leftmost rank of each subgroup, in order; reps[0] = group leftmost
  std::vector<int> sizes;  // ranks in each subgroup
  int my_sub = 0;          // index of the subgroup that contains the rank
};

// Levels from the top of the tree down to the rank's leaf (the last level's subgroup of the rank
// is the rank alone); empty for P = 1.
std::vector<TreeLevel> tree_path(int rank, int size, int arity, int flat_below);

// Whether `me` receives partial results on the way up (it leads a group with siblings below it).
bool tree_receives(const std::vector<TreeLevel> &path, int me);

// Reduction up the tree to the top rank (path computed for `me`), shared by the tree allreduce
// and the tree reduce: deepest level first; a representative receives its sibling groups' partial
// results into tmp slots from `slot_off` on (n elements each) and reduces them into `acc` in group
// order, so contributions are combined in rank order (non-commutative ops are exact); a
// non-leading member sends `acc` up and stops. Appends rounds of `phase`, one per level of the
// tree, `depth` in all (tree_depth; empty where the rank has nothing to do: Round::step); returns
// the tmp elements used past slot_off.
std::size_t add_tree_reduce(Plan &plan, const std::vector<TreeLevel> &path, int me, Range acc,
                            std::size_t slot_off, int phase, int depth);
// Broadcast of `buf` from the top rank down the same edges (allreduce tree, bcast tree): one
// round per level of the rank's path.
void add_tree_bcast(Plan &plan, const std::vector<TreeLevel> &path, int me, Range buf, int phase);
// The number of levels of the tree: rank 0's path (the first subgroup is the largest at every
// level).
int tree_depth(int size, int arity, int flat_below);
// Sum of (a_l - 1) over the levels of rank 0's path: the messages on the critical path.
double tree_fanin(int size, int arity, int flat_below);

}  // namespace pcoll

// The balanced k-ary groups of HPX's hierarchical communicator (Rings, Trees, and Butterflies:
// HPX Collectives, "uneven groups were a correctness problem"), shared by the tree allreduce and
// the routed_tree alltoall.
//
// The ranks [0, P) are split into `arity` groups whose sizes differ by at most one (the first
// P % a groups get the ceiling); each group recursively the same way, down to single ranks. The
// leftmost rank of a group is its representative. As in HPX, a communicator with fewer than
// `flat_below` ranks is one flat group (arity = P at the top level).
#pragma once

#include <vector>

namespace pcoll {

// One level of the tree as seen by one rank: the group it belongs to, split into subgroups.
struct TreeLevel {
  std::vector<int> reps;   // leftmost rank of each subgroup, in order; reps[0] = group leftmost
  std::vector<int> sizes;  // ranks in each subgroup
  int my_sub = 0;          // index of the subgroup that contains the rank
};

// Levels from the top of the tree down to the rank's leaf (the last level's subgroup of the rank
// is the rank alone); empty for P = 1.
std::vector<TreeLevel> tree_path(int rank, int size, int arity, int flat_below);

}  // namespace pcoll

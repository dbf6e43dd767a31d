// Swing's distances and the Bine trees built on them (De Sensi, Bonato, Saam, Hoefler et al.,
// "Swing: Short-cutting Rings for Higher Bandwidth Allreduce", NSDI 2024; De Sensi, Pasqualoni,
// Piarulli, Bonato, Ba, Turisini, Domke, Hoefler, "Bine Trees: Enhancing Collective Operations by
// Optimizing Communication Locality", SC 2025), shared by the swing allreduce and the bine
// allreduce, broadcast and reduce.
//
// rho(s) = sum_{i=0..s} (-2)^i = 1, -1, 3, -5, 11, -21, ...: in step s rank r pairs with
// r + rho(s) if r is even, r - rho(s) if odd (mod q). The partners stay near each other on a
// ring (|rho(s)| ~ 2^(s+1) / 3), half of them the other way round.
//
// A Bine tree is the binomial tree with those distances: written in negabinary (base -2), rank
// v's partner in the step of weight 2^s is v with its lowest s + 1 digits flipped, which is
// v -+ rho(s); in a broadcast from 0, v receives in the step where its lowest s + 1 digits are all
// equal (a 0 run or a 1 run ends there) and then sends in every smaller step. On a ring every edge
// of the tree spans about 2/3 of a binomial tree's, so fewer bytes cross far links.
// Power-of-two q only; the algorithms fold the other ranks in (patterns/fold.hpp, or the tail
// ranks q..P-1 onto 0..P-q-1).
#pragma once

#include <vector>

namespace pcoll::bine {

long long rho(int s);
// Swing's partner of r in step s among q ranks (any q >= 1).
int peer(int r, int s, int q);

// Rank v's place in the Bine broadcast tree of q = 2^L ranks rooted at 0: its parent (-1 for
// the root) and its children in the order it sends to them (the larger subtree first). A
// reduction runs the same tree backwards.
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};
TreeNode tree_node(int v, int q);
// The steps (Round::step) a member waits before its broadcast receive, and after its send up in
// a reduction: as many as it has children fewer than the root, less the step of the receive
// itself (0 for the root).
int wait_steps(const TreeNode &node, int q);

}  // namespace pcoll::bine

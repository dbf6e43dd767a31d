// Schedules on Swing's distances (patterns/bine.hpp: rho(s) = 1, -1, 3, -5, ...), shared by the
// algorithms that run them on the whole communicator (the swing and bine allreduces) and by
// chiara_loglane, which runs them inside a group (along each CHiArA lane): the bandwidth-optimal
// Swing reduce-scatter and the allgather that undoes it (De Sensi et al., "Swing: Short-cutting
// Rings for Higher Bandwidth Allreduce", NSDI 2024), and the reduction up and broadcast down a
// Bine tree (De Sensi et al., "Bine Trees: Enhancing Collective Operations by Optimizing
// Communication Locality", SC 2025). All run among the f.pof2 new ranks of a power-of-two fold
// (patterns/fold.hpp); a group's members are named by a RankMap.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../../plan.hpp"
#include "fold.hpp"

namespace pcoll {

// The q = 2^L new ranks as a torus of `dims` dimensions for Swing's per-dimension version (the
// Swing paper's multidimensional algorithm): sides powers of two, as equal as they can be, the
// first dimensions the larger (2^L = 512, dims 3: 8 x 8 x 8; 128, dims 2: 16 x 8), new rank
// x = c_0 + d_0 (c_1 + d_1 (c_2 + ...)), the first dimension varying fastest as SimGrid and most
// job layouts number a torus's nodes. Step s runs along one dimension, the dimensions taken in
// turn from `first` (first, first+1, ..., dims-1, 0, ...; a dimension whose steps are done is
// skipped): the j-th step along dimension i moves coordinate c_i by +rho(j) if c_i is even,
// -rho(j) if odd (mod d_i); `mirrored` swaps the signs (the schedule seen in a mirror, c -> -c).
// dims = 1, not mirrored, is the 1-D Swing on a ring of q: peer(x, s) = bine::peer(x, s, q).
struct SwingGrid {
  int q = 1;
  std::vector<int> sides;                  // d_0 .. d_{dims-1}, product q (1 where 2^L < dims)
  std::vector<std::pair<int, int>> steps;  // per step s: (dimension, step j along it)
  int first = 0;
  bool mirrored = false;
  SwingGrid(int q, int dims, int first = 0, bool mirrored = false);
  int peer(int x, int s) const;
  std::string shape() const;  // "8x8x8"
};

// The Swing paper's multiport version: the vector cut into `parts` ranges, each reduced by its
// own Swing schedule at the same time, part c on SwingGrid(q, dims, first = (c / 2) mod dims,
// mirrored = c odd); with parts = 2 dims every step's parts leave a torus node on different
// links (each dimension, both ways) where the sides are equal. parts = 1: the plain schedule.
// The parts a vector of `len` elements gets: at most `parts`, each with >= q elements.
int swing_parts(std::size_t len, int q, int parts);

// Swing's reduce-scatter among the new ranks: `work` is cut into f.pof2 blocks laid out in the
// order of Swing's peer tree (swing.cpp's header), so every step sends one contiguous range; in
// step s new rank nr sends the partial sums its peer r +- rho(s) will own and reduces what it
// receives (into `scratch` at the same offset, scratch.len >= work.len), the lower new rank on
// the left. nr ends owning one fully reduced block. work.len >= f.pof2 (no empty block).
// dims > 1: the peers of SwingGrid(f.pof2, dims); parts > 1: the multiport version above, all
// parts' messages of a step in one round (work.len >= parts x f.pof2: see swing_parts).
void swing_reduce_scatter(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                          int phase, RankMap map = {}, int dims = 1, int parts = 1);
// The allgather that retraces swing_reduce_scatter's steps: afterwards every new rank holds all
// of `work`.
void swing_allgather(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, int phase,
                     RankMap map = {}, int dims = 1, int parts = 1);

// The Bine tree of the new ranks rooted at new rank `root` (the tree of root 0 shifted by root,
// so its edges keep Swing's distances): bine_reduce reduces every new rank's `work` up the tree
// into the root's (children's partial results received into `scratch`, the smallest subtree
// first, one round each), bine_bcast sends the root's `work` back down it.
void bine_reduce(Plan &plan, const PowerOfTwoFold &f, int nr, int root, Range work, Range scratch,
                 int phase, RankMap map = {});
void bine_bcast(Plan &plan, const PowerOfTwoFold &f, int nr, int root, Range work, int phase,
                RankMap map = {});

}  // namespace pcoll

// The standard reduction of an arbitrary rank count to a power of two (MPICH's "fold", Thakur,
// Rabenseifner and Gropp 2005, Sec. 4): with P' the largest power of two <= P and r = P - P',
// the first 2r ranks pair up (2i, 2i+1); the even rank sends its vector to the odd one, which
// reduces it (lower rank on the left, so rank order is kept) and stands for both in a
// power-of-two algorithm on the "new ranks"; at the end the odd rank sends the result back.
// New ranks are monotone in real ranks, so aligned blocks of new ranks are contiguous blocks of
// real ranks: power-of-two schedules that combine aligned blocks stay order-preserving.
//
// Also the two power-of-two schedules built on the fold, shared by the allreduce algorithms that
// run them on the whole communicator (rabenseifner, recursive_doubling) and by those that run
// them inside a group of it (chiara_loglane, along each CHiArA lane): the recursive-halving
// reduce-scatter, the recursive-doubling allgather that undoes it, and the butterfly allreduce.
// A group of `size` members is named by a RankMap; for the whole communicator it is the identity.
// The fold's slot helpers (which real ranks a new rank stands for) serve the reduce_scatter_block
// and allgather builders. Schedule pieces shared by several algorithms live in patterns/.
#pragma once

#include <cstddef>
#include <utility>

#include "../../plan.hpp"

namespace pcoll {

// Member j of a group is communicator rank base + stride * j. Monotone in j, so schedules that
// keep member order keep rank order.
struct RankMap {
  int base = 0;
  int stride = 1;
  int operator()(int member) const { return base + stride * member; }
};

struct PowerOfTwoFold {
  int size = 1;
  int pof2 = 1;
  int rem = 0;

  explicit PowerOfTwoFold(int p);
  // -1 for members that sit out the power-of-two part (even members below 2*rem).
  int new_rank(int member) const;
  int real_rank(int new_rank) const;
  int log2_pof2() const;
  // Appends the fold round for `member`: the even member sends `work`, the odd one receives it
  // into `scratch` (same length) and reduces it into `work`; an empty round (the same step,
  // Round::step) for the members outside the fold.
  void fold(Plan &plan, int member, Range work, Range scratch, int phase, RankMap map = {}) const;
  // The power-of-two part: `core(plan, nr)` appends new rank nr's rounds. A member that sits it
  // out appends as many empty rounds as new rank 0's part has (each new rank's part has the same
  // number of steps), so that the unfold is the same step on every member.
  template <class Core>
  void run(Plan &plan, int member, int phase, Core core) const {
    const int nr = new_rank(member);
    if (nr >= 0) return core(plan, nr);
    Plan part;
    core(part, 0);
    plan.idle(phase, static_cast<int>(part.rounds.size()));
  }
  // Appends the unfold round: the odd member sends `result` back, the even one receives it
  // there; an empty round for the members outside the fold.
  void unfold(Plan &plan, int member, Range result, int phase, RankMap map = {}) const;
};

// Recursive halving (Rabenseifner's reduce-scatter) among the f.pof2 new ranks: `work` is cut
// into f.pof2 blocks (BlockSplit); in step mask = 1, 2, 4, ... new rank nr keeps the half of its
// current block range selected by bit `mask` of nr, sends the other half to new rank nr ^ mask
// and reduces the half it receives (into `scratch` at the same offset; scratch.len >= work.len),
// lower new rank on the left. One round per step; nr ends owning one fully reduced block.
void halving_reduce_scatter(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                            int phase, RankMap map = {});
// Recursive doubling allgather that undoes halving_reduce_scatter step by step (same `work`):
// afterwards every new rank holds all of `work`.
void doubling_allgather(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, int phase,
                        RankMap map = {});
// Butterfly allreduce of the whole of `work` among the new ranks: in step mask both partners
// exchange everything and reduce, lower new rank on the left, so both hold the same bits.
void butterfly_allreduce(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                         int phase, RankMap map = {});

// With the power-of-two fold, new rank q stands for real ranks [slot_lo(q), slot_hi(q)):
// {2q, 2q+1} for q < rem, else {q + rem}. Consecutive new ranks own consecutive real ranks.
inline int slot_lo(const PowerOfTwoFold &f, int q) {
  return q < f.rem ? 2 * q : q + f.rem;
}
inline int slot_hi(const PowerOfTwoFold &f, int q) {
  return q < f.rem ? 2 * q + 2 : q + f.rem + 1;
}

// Element range [first, second) of the blocks (n elements each) of new ranks [q0, q1).
inline std::pair<std::size_t, std::size_t> slot_elems(const PowerOfTwoFold &f, int q0, int q1,
                                                      std::size_t n) {
  return {static_cast<std::size_t>(slot_lo(f, q0)) * n,
          static_cast<std::size_t>(slot_hi(f, q1 - 1)) * n};
}

}  // namespace pcoll

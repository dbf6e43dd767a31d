// The standard reduction of an arbitrary rank count to a power of two (MPICH's "fold", Thakur,
// Rabenseifner and Gropp 2005, Sec. 4): with P' the largest power of two <= P and r = P - P',
// the first 2r ranks pair up (2i, 2i+1); the even rank sends its vector to the odd one, which
// reduces it (lower rank on the left, so rank order is kept) and stands for both in a
// power-of-two algorithm on the "new ranks"; at the end the odd rank sends the result back.
// New ranks are monotone in real ranks, so aligned blocks of new ranks are contiguous blocks of
// real ranks: power-of-two schedules that combine aligned blocks stay order-preserving.
#pragma once

#include "../../plan.hpp"

namespace pcoll {

struct PowerOfTwoFold {
  int size = 1;
  int pof2 = 1;
  int rem = 0;

  explicit PowerOfTwoFold(int p);
  // -1 for ranks that sit out the power-of-two part (even ranks below 2*rem).
  int new_rank(int rank) const;
  int real_rank(int new_rank) const;
  int log2_pof2() const;
  // Appends the fold round for `rank`: the even rank sends `work`, the odd one receives it into
  // `scratch` (same length) and reduces it into `work`.
  void fold(Plan &plan, int rank, Range work, Range scratch, int phase) const;
  // Appends the unfold round: the odd rank sends `result` back, the even one receives it there.
  void unfold(Plan &plan, int rank, Range result, int phase) const;
};

}  // namespace pcoll

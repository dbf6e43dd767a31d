#include "fold.hpp"

namespace pcoll {

PowerOfTwoFold::PowerOfTwoFold(int p) : size(p) {
  while (pof2 * 2 <= p) pof2 *= 2;
  rem = p - pof2;
}

int PowerOfTwoFold::new_rank(int rank) const {
  if (rank < 2 * rem) return (rank % 2 == 0) ? -1 : rank / 2;
  return rank - rem;
}

int PowerOfTwoFold::real_rank(int nr) const {
  return nr < rem ? 2 * nr + 1 : nr + rem;
}

int PowerOfTwoFold::log2_pof2() const {
  int l = 0;
  while ((1 << l) < pof2) ++l;
  return l;
}

void PowerOfTwoFold::fold(Plan &plan, int rank, Range work, Range scratch, int phase) const {
  if (rank >= 2 * rem || work.len == 0) return;
  Round &r = plan.new_round(phase);
  if (rank % 2 == 0) {
    add_send(r, rank + 1, work);
  } else {
    const int rv = add_recv(r, rank - 1, scratch);
    add_reduce(r, scratch, work, /*src_is_left=*/true, rv);
  }
}

void PowerOfTwoFold::unfold(Plan &plan, int rank, Range result, int phase) const {
  if (rank >= 2 * rem || result.len == 0) return;
  Round &r = plan.new_round(phase);
  if (rank % 2 == 0)
    add_recv(r, rank + 1, result);
  else
    add_send(r, rank - 1, result);
}

}  // namespace pcoll

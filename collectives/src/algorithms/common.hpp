// Small helpers shared by the reduce_scatter_block and allgather plan builders.
#pragma once

#include "../plan.hpp"
#include "allreduce/fold.hpp"

namespace pcoll {

// A round with only local operations (e.g. copying the input into the working vector before the
// first round's sends read it: sends are posted before a round's operations run).
inline Round &local_round(Plan &plan, int phase) {
  return plan.new_round(phase);
}

// With the power-of-two fold, new rank q stands for real ranks [slot_lo(q), slot_hi(q)):
// {2q, 2q+1} for q < rem, else {q + rem}. Consecutive new ranks own consecutive real ranks.
inline int slot_lo(const PowerOfTwoFold &f, int q) {
  return q < f.rem ? 2 * q : q + f.rem;
}
inline int slot_hi(const PowerOfTwoFold &f, int q) {
  return q < f.rem ? 2 * q + 2 : q + f.rem + 1;
}

}  // namespace pcoll

// Small helpers shared by the reduce_scatter_block and allgather plan builders.
#pragma once

#include <cstddef>
#include <utility>

#include "../plan.hpp"
#include "allreduce/fold.hpp"

namespace pcoll {

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

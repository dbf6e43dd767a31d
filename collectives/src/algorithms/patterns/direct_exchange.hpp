// The direct all-to-all exchange of pairwise and linear: every block goes straight to its rank,
// one message per destination, the own block is copied locally. The P-1 exchanges k = 1..P-1 are
// cut into rounds of `per_round` (the first round also holds the local copy); in exchange k rank
// `me` receives from (me - k) mod P and sends to (me + k) mod P, or, with xor_partners (P a
// power of two), exchanges both ways with me xor k, so that a round of one is a perfect matching.
#pragma once

#include <cstddef>

#include "../../plan.hpp"

namespace pcoll {

inline void direct_exchange(Plan &plan, int phase, int me, int P, std::size_t n, int per_round,
                            bool xor_partners) {
  auto blk = [n](int q) { return static_cast<std::size_t>(q) * n; };
  add_copy(plan.new_round(phase), in_range(blk(me), n), out_range(blk(me), n));
  for (int k = 1; k < P; ++k) {
    Round &r = k == 1 || (k - 1) % per_round != 0 ? plan.rounds.back() : plan.new_round(phase);
    const int to = xor_partners ? me ^ k : (me + k) % P;
    const int from = xor_partners ? me ^ k : (me - k + P) % P;
    add_recv(r, from, out_range(blk(from), n));
    add_send(r, to, in_range(blk(to), n));
  }
}

}  // namespace pcoll

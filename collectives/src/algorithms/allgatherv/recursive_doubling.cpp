// recursive_doubling (allgatherv): the recursive-doubling allgather with blocks of unequal length
// (MPICH's short-message allgatherv, Thakur, Rabenseifner and Gropp 2005, Sec. 3.1). The blocks
// are gathered packed in rank order, in the output itself where displs already lay them out that
// way, else in temporary space, copied to their places at the end. With the power-of-two fold the
// even rank of a folded pair first hands its block to the odd one; new rank q then owns the
// blocks of real ranks [slot_lo(q), slot_hi(q)), which are contiguous in the packed form, and in
// step s new ranks q and q xor 2^s exchange what they own (each side knows every count, so both
// know every message's length; empty ranges post nothing); at the end the odd rank sends the
// whole packed vector to its even partner.
//
// Restrictions: none.
// Cost (N = total bytes, n_q of block q, P' the largest power of two <= P, f = 1 if P != P'):
//   T = log2 P' alpha + beta (N - n_owned) + f (2 alpha + beta (N + n_even)), equal blocks:
//   log2 P' alpha + (P'-1)/P' beta N + f (2 alpha + beta (N + n)).
// Temporary: N bytes where displs are not the packed order, else none.
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &recursive_doubling_allgather_info();

// The twin's schedule and model: its builder reads PlanRequest::layout (blocks of any length),
// and without one builds the uniform plan.
const AlgorithmInfo &recursive_doubling_allgatherv_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = recursive_doubling_allgather_info();
    a.coll = Collective::allgatherv;
    a.description = "recursive-doubling allgatherv, log2(P) steps of packed rank ranges; fold for "
        "non-power-of-two P";
    return a;
  }();
  return info;
}

}  // namespace pcoll

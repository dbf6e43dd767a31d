// recursive_halving (reduce_scatter): the recursive-halving reduce-scatter with blocks of unequal
// length (MPI_Reduce_scatter's recvcounts; Thakur, Rabenseifner and Gropp 2005, Sec. 3.3, the
// schedule of reduce_scatter_block/recursive_halving). The input, its blocks packed in rank
// order, is copied to a working vector; a rank count that is not a power of two is folded first
// (../patterns/fold.hpp): new rank q then stands for the blocks of real ranks
// [slot_lo(q), slot_hi(q)), a contiguous range of the vector. In each step the current range of
// new ranks is halved, the half that belongs to the partner's side is sent to it and the
// received half is reduced; every rank knows every count, so both sides know each message's
// length, and empty ranges post nothing. At the end the odd rank of a folded pair sends the even
// rank its block.
//
// Restrictions: commutative op (halving from the top bit pairs ranks P'/2 apart).
// Cost (N = total bytes, P' the largest power of two <= P, f = 1 if P != P'): equal blocks
//   log2 P' alpha + (P'-1)/P' (beta + gamma) N + f (2 alpha + beta (N + n) + gamma N); uneven
//   blocks send what the halves hold, whatever their sizes.
// Temporary: 2 N bytes.
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &recursive_halving_reduce_scatter_block_info();

// The twin's schedule and model: its builder reads PlanRequest::layout (blocks of any length),
// and without one builds the uniform plan.
const AlgorithmInfo &recursive_halving_reduce_scatter_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = recursive_halving_reduce_scatter_block_info();
    a.coll = Collective::reduce_scatter;
    a.description = "recursive-halving reduce-scatter, log2(P) steps of packed rank ranges; fold for "
        "non-power-of-two P";
    return a;
  }();
  return info;
}

}  // namespace pcoll

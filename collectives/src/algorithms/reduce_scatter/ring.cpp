// ring (reduce_scatter): the ring reduce-scatter with blocks of unequal length (MPI_Reduce_scatter's
// recvcounts; Patarasuk and Yuan 2009, the schedule of reduce_scatter_block/ring). The input is
// copied to a working vector of the P blocks packed in rank order; in step s rank r sends block
// (r-1-s) mod P to r+1 and reduces block (r-2-s) mod P received from r-1, so after P-1 steps it
// holds block r reduced over all ranks, which is copied to the output. An empty block is neither
// sent nor received: every rank knows every count.
//
// Restrictions: commutative op (block c is accumulated starting at rank c+1).
// Cost (n_q = bytes of block q): every step waits for the largest block in flight,
// T <= (P-1)(alpha + (beta + gamma) max_q n_q); equal blocks (P-1)(alpha + (beta + gamma) n).
// Temporary: N + max_q n_q bytes (N the whole input).
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &ring_reduce_scatter_block_info();

// The twin's schedule and model: its builder reads PlanRequest::layout (blocks of any length),
// and without one builds the uniform plan.
const AlgorithmInfo &ring_reduce_scatter_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = ring_reduce_scatter_block_info();
    a.coll = Collective::reduce_scatter;
    a.description = "ring reduce-scatter, P-1 steps of one block each, blocks of any length";
    return a;
  }();
  return info;
}

}  // namespace pcoll

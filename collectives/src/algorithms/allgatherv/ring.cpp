// ring (allgatherv): the ring allgather with blocks of unequal length (MPICH's ring allgatherv,
// Thakur, Rabenseifner and Gropp 2005, Sec. 3.1; Patarasuk and Yuan 2009). Rank r copies its block
// to its place; in step s it sends block (r-s) mod P to r+1 and receives block (r-s-1) mod P from
// r-1 straight into its place (displs, any order, gaps untouched). An empty block is neither sent
// nor received: every rank knows every count.
//
// Restrictions: none. Cost (n_q = bytes of block q): every step waits for the largest block in
// flight, T = (P-1) alpha + beta sum_s max_r n_(r-s) <= (P-1)(alpha + beta max_q n_q); with equal
// blocks (P-1)(alpha + beta n). Temporary: none.
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &ring_allgather_info();

// The twin's schedule and model: its builder reads PlanRequest::layout (blocks of any length),
// and without one builds the uniform plan.
const AlgorithmInfo &ring_allgatherv_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a = ring_allgather_info();
    a.coll = Collective::allgatherv;
    a.description = "ring allgatherv, P-1 steps of one block each, blocks of any length";
    return a;
  }();
  return info;
}

}  // namespace pcoll

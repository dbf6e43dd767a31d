// vendor: the MPI library's MPI_Reduce_scatter_block, called through PMPI. The reference and the
// fallback. Restrictions: none.
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &vendor_reduce_scatter_block_info() {
  static const AlgorithmInfo info{Collective::reduce_scatter_block,
                                  "vendor",
                                  "the MPI library's own MPI_Reduce_scatter_block (via PMPI)",
                                  "the MPI implementation",
                                  {},
                                  {},
                                  nullptr,
                                  nullptr};
  return info;
}

}  // namespace pcoll

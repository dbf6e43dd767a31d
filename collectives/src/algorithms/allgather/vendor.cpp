// vendor: the MPI library's MPI_Allgather, called through PMPI. The reference and the fallback.
// Restrictions: none.
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &vendor_allgather_info() {
  static const AlgorithmInfo info{Collective::allgather,
                                  "vendor",
                                  "the MPI library's own MPI_Allgather (via PMPI)",
                                  "the MPI implementation",
                                  {},
                                  {},
                                  nullptr,
                                  nullptr};
  return info;
}

}  // namespace pcoll

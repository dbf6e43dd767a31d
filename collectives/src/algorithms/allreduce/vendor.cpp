// vendor: the MPI library's own MPI_Allreduce, called through PMPI_Allreduce so that pcoll's
// PMPI interposition library never calls itself. Whatever algorithm the vendor's selection logic
// picks (Open MPI: coll/tuned fixed decision rules; MPICH: CVAR-driven) is used unchanged. It is
// the reference every measurement is compared with and the fallback for calls our algorithms
// cannot serve. Restrictions: none. Cost: unknown (not a plan), so `auto` never picks it by model.
#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &vendor_allreduce_info() {
  static const AlgorithmInfo info{Collective::allreduce,
                                  "vendor",
                                  "the MPI library's own MPI_Allreduce (via PMPI)",
                                  "the MPI implementation",
                                  {},
                                  {},
                                  nullptr,
                                  nullptr};
  return info;
}

}  // namespace pcoll

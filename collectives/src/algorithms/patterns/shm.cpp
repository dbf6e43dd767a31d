#include "shm.hpp"

#include <algorithm>

namespace pcoll::shm {

const ParamSpec &chunk_param() {
  static const ParamSpec p =
      ParamSpec::integer("shm_chunk", "auto")
          .range(1, 1LL << 30)
          .or_auto()
          .size_suffixes()
          .about("shared-memory algorithms: bytes of the vector each rank moves through the "
                 "node segment per step (a larger vector goes in pieces, each through the same "
                 "slots); auto = the whole slot, PCOLL_SHM_SEGMENT");
  return p;
}

std::string check(const PlanRequest &req) {
  if (req.size == 1) return {};
  if (req.node_segment == 0)
    return "no node segment: the communicator's ranks are not all on one node, or PCOLL_SHM "
           "did not ask for one (auto maps it only where PCOLL_<COLL> names a shared-memory "
           "algorithm; on always), or it could not be made";
  if (req.ranks_per_node > 0 && req.ranks_per_node < req.size)
    return "the communicator spans nodes (PCOLL_RANKS_PER_NODE): the shared-memory algorithms "
           "serve one node";
  if (req.persistent)
    return "persistent calls are not served by the shared-memory algorithms yet (their starts "
           "may come in a different order on each rank, so each would need a channel of its "
           "own)";
  const long long c = req.param("shm_chunk");
  if (c != kAuto && static_cast<std::size_t>(c) > req.node_segment)
    return "shm_chunk exceeds the node segment's slot (PCOLL_SHM_SEGMENT)";
  if (req.type_size > req.node_segment) return "an element is larger than the segment's slot";
  return {};
}

std::size_t chunk_elems(const PlanRequest &req) {
  const long long c = req.param("shm_chunk");
  const std::size_t bytes = c == kAuto ? req.node_segment : static_cast<std::size_t>(c);
  return std::max<std::size_t>(1, bytes / std::max<std::size_t>(1, req.type_size));
}

}  // namespace pcoll::shm

// shm: broadcast through the node segment, no messages (all ranks on one node).
//
// The channel's data area (P slots of shm_chunk bytes) is a ring of P regions of c elements; the
// vector goes in pieces of c, piece k through region k mod P:
//   root:   (from piece P on, after a wait for every rank to have read region k mod P's last
//           piece) copies piece k into its region, raises its flag to k + 1;
//   others: wait for the root's flag k + 1, copy the region to their buffer, raise theirs.
// The root runs up to P pieces ahead of the slowest reader, so copies in and out overlap. Every
// rank copies the root's bytes: all have the same bits.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp); not persistent.
// Cost (m bytes in k pieces): k flag waits on the root's path and 2m copied through the segment
// (the root in, each other rank out, all at once: the node's memory bandwidth is shared, which
// `auto`'s model charges from the machine's [shm] and the closed form leaves out).
#include <algorithm>
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/shm.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int P = req.size, me = req.rank, root = req.root;
  const std::size_t n = req.count;
  if (P == 1 || n == 0) return plan;
  const int copy_ph = plan.phase_index("shm_copy"), wait_ph = plan.phase_index("shm_wait");
  const std::size_t c = std::min(n, shm::chunk_elems(req));
  const std::size_t regions = static_cast<std::size_t>(P);
  plan.node_elems = std::min(n, regions * c);
  int k = 0;
  for (std::size_t o = 0; o < n; o += c, ++k) {
    const std::size_t len = std::min(c, n - o);
    const Range region = node_range((static_cast<std::size_t>(k) % regions) * c, len);
    if (me == root) {
      if (static_cast<std::size_t>(k) >= regions)  // the region's last piece has been read
        add_wait_all(plan.new_round(wait_ph), me, P, k - P + 1);
      Round &in = plan.new_round(copy_ph);
      add_copy(in, out_range(o, len), region);
      in.signal = k + 1;
    } else {
      plan.new_round(wait_ph).waits.push_back(Wait{root, k + 1});
      Round &out = plan.new_round(copy_ph);
      add_copy(out, region, out_range(o, len));
      out.signal = k + 1;
    }
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &k) {
  const double m = double(req.count * req.type_size);
  if (req.size == 1 || m == 0) return 0;
  const double pieces = std::ceil(m / double(shm::chunk_elems(req) * req.type_size));
  return (pieces + 1) * k.alpha + k.beta * 2 * m;
}

}  // namespace

const AlgorithmInfo &shm_bcast_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::bcast;
    a.name = "shm";
    a.description =
        "through the node segment, no messages: the root copies pieces into a ring of regions, "
        "every other rank copies them out (one node)";
    a.source = "copy-in/copy-out broadcast on shared memory, as Open MPI's coll/sm";
    a.params = {shm::chunk_param()};
    a.build = build;
    a.model = model;
    a.check = shm::check;
    a.model_exact = false;
    a.uses_node_segment = true;
    return a;
  }();
  return info;
}

}  // namespace pcoll

#include "shm.hpp"

#include <algorithm>
#include <cmath>

#include "../../shm/segment.hpp"

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
           "did not ask for one (auto maps it where a collective is auto or names a shared-memory "
           "algorithm when the communicator is made; on always), or it could not be made";
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
  if (2 * req.type_size > req.node_segment)
    return "an element is larger than half the segment's slot (the pieces of a long vector "
           "use the slot's two halves in turn)";
  return {};
}

std::size_t chunk_elems(const PlanRequest &req) {
  const long long c = req.param("shm_chunk");
  const std::size_t bytes = c == kAuto ? req.node_segment : static_cast<std::size_t>(c);
  // At least two elements, so that a slot has two halves (pieces_in_halves): an shm_chunk of
  // less than two elements (a binned sum's element is 48 bytes or more) is rounded up, within
  // the segment's slot (check() refuses types larger than half of it).
  return std::max<std::size_t>(2, bytes / std::max<std::size_t>(1, req.type_size));
}

Lines lines(const PlanRequest &req) {
  constexpr std::size_t line = NodeSegment::kLine, payload = NodeSegment::kLinePayload;
  const std::size_t e = req.type_size;
  if (e == 0 || e > payload || line % e != 0) return {};
  return Lines{line / e, payload / e};
}

void use_lines(Plan &plan, const Lines &l) {
  plan.line_stride = l.stride;
  plan.line_payload = l.payload;
}

std::vector<Piece> pieces_in_halves(std::size_t n, std::size_t c) {
  std::vector<Piece> out;
  if (n <= c) {
    if (n > 0) out.push_back(Piece{0, 0, n, 0});
    return out;
  }
  const std::size_t len = std::max<std::size_t>(1, c / 2);
  int k = 0;
  for (std::size_t o = 0; o < n; o += len, ++k)
    out.push_back(Piece{k, o, std::min(len, n - o), static_cast<std::size_t>(k % 2) * len});
  return out;
}

double count_pieces_in_halves(double n, double c, double elem) {
  if (n <= c) return 1;
  return std::ceil(n / std::max(elem, std::floor(c / 2 / elem) * elem));
}

Round &add_block_reduction(Plan &plan, const Piece &p, const Slots &slots, int me, int P,
                           int copied, const Range &acc, int copy_ph, int wait_ph,
                           int reduce_ph) {
  const BlockSplit split{p.len, static_cast<std::size_t>(P)};
  auto boff = [&](int q) { return split.offset(static_cast<std::size_t>(q)); };
  auto blen = [&](int q) { return split.length(static_cast<std::size_t>(q)); };
  Round &in = plan.new_round(copy_ph);
  for (int q = 0; q < P; ++q)
    if (q != me)
      add_copy(in, in_range(p.off + boff(q), blen(q)), slots.at(me, p.at + boff(q), blen(q)));
  in.signal = copied;
  add_wait_all(plan.new_round(wait_ph), me, P, copied);
  Round &red = plan.new_round(reduce_ph);
  add_copy(red, in_range(p.off + boff(me), blen(me)), acc);
  for (int q = me + 1; q < P; ++q)
    add_reduce(red, slots.at(q, p.at + boff(me), blen(me)), acc, /*src_is_left=*/false);
  for (int q = me - 1; q >= 0; --q)
    add_reduce(red, slots.at(q, p.at + boff(me), blen(me)), acc, /*src_is_left=*/true);
  return red;
}

}  // namespace pcoll::shm

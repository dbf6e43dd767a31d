// ring: reduce-scatter then allgather around the ring r -> r+1 (Patarasuk and Yuan 2009,
// "Bandwidth optimal all-reduce algorithms for clusters of workstations"; "Rings, Trees, and
// Butterflies: HPX Collectives").
//
// The vector is cut into P chunks whose sizes differ by at most one (count need not be a multiple
// of P; with count < P some chunks are empty and their messages are skipped on both sides). In
// reduce-scatter step s rank r sends chunk (r - s) mod P to r+1 and reduces chunk (r - s - 1) mod P
// received from r-1; after P-1 steps rank r owns the complete chunk (r + 1) mod P, which P-1
// allgather steps circulate. Each chunk is reduced by one rank and copied to the others, so all
// ranks hold identical bits. With ring_segment > 0 every chunk travels as several messages of at
// most that many bytes, and each segment is reduced as soon as it arrives while the following
// segments are still in flight (overlap of reduction and transfer inside a step).
//
// Fewer elements than ranks (count < P): most chunks would be empty and the 2(P-1) latency-bound
// steps buy nothing, so the plan is recursive doubling's, as Open MPI's coll/base ring does
// (ompi_coll_base_allreduce_intra_ring: "count < size: use recursive doubling").
//
// Restrictions: needs a commutative op (chunk c is accumulated starting at rank c+1, not rank 0).
// Cost: T = 2(P-1) alpha + 2 (P-1)/P beta n + (P-1)/P gamma n   (times the segments per chunk for
// the alpha term when segmented). Temporary: one chunk, ceil(n/P) bytes.
#include <algorithm>

#include "../../registry.hpp"

namespace pcoll {

const AlgorithmInfo &recursive_doubling_allreduce_info();  // the schedule it uses for small calls
namespace {

Delegation delegate(const PlanRequest &req) {
  if (req.count < static_cast<std::size_t>(req.size))
    return {&recursive_doubling_allreduce_info(), "count < P"};
  return {};
}

std::size_t segment_elems(const PlanRequest &req) {
  const long long bytes = req.param("ring_segment");
  if (bytes <= 0) return 0;
  return std::max<std::size_t>(1, static_cast<std::size_t>(bytes) / req.type_size);
}

// Appends one transfer of `len` elements starting at `off` (in out) as segments.
void segmented(Round &r, int to, int from, std::size_t send_off, std::size_t send_len,
               std::size_t recv_off, std::size_t recv_len, std::size_t seg, bool reduce) {
  const std::size_t s = seg ? seg : std::max<std::size_t>(1, std::max(send_len, recv_len));
  for (std::size_t o = 0; o < send_len; o += s)
    add_send(r, to, out_range(send_off + o, std::min(s, send_len - o)));
  for (std::size_t o = 0; o < recv_len; o += s) {
    const std::size_t len = std::min(s, recv_len - o);
    if (reduce) {
      const int rv = add_recv(r, from, tmp_range(o, len));
      add_reduce(r, tmp_range(o, len), out_range(recv_off + o, len), /*src_is_left=*/true, rv);
    } else {
      add_recv(r, from, out_range(recv_off + o, len));
    }
  }
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int rs = plan.phase_index("reduce_scatter"), ag = plan.phase_index("allgather");
  const int P = req.size, me = req.rank;
  if (P == 1 || req.count == 0) return plan;
  if (const Delegation d = delegate(req)) return d.to->build(req);
  const BlockSplit chunks{req.count, static_cast<std::size_t>(P)};
  const std::size_t seg = segment_elems(req);
  plan.tmp_elems = chunks.length(0);
  const int next = (me + 1) % P, prev = (me + P - 1) % P;
  auto chunk = [P](int c) { return static_cast<std::size_t>(((c % P) + P) % P); };
  for (int s = 0; s < P - 1; ++s) {
    const std::size_t sc = chunk(me - s), rc = chunk(me - s - 1);
    segmented(plan.new_round(rs), next, prev, chunks.offset(sc), chunks.length(sc),
              chunks.offset(rc), chunks.length(rc), seg, true);
  }
  for (int s = 0; s < P - 1; ++s) {
    const std::size_t sc = chunk(me + 1 - s), rc = chunk(me - s);
    segmented(plan.new_round(ag), next, prev, chunks.offset(sc), chunks.length(sc),
              chunks.offset(rc), chunks.length(rc), seg, false);
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  if (const Delegation d = delegate(req)) return d.to->model(req, c);
  const double n = double(req.count * req.type_size), P = req.size;
  const std::size_t seg = segment_elems(req);
  const std::size_t chunk = (req.count + req.size - 1) / req.size;
  const double segs = seg ? double((chunk + seg - 1) / seg) : 1.0;
  return 2 * (P - 1) * segs * c.alpha + 2 * (P - 1) / P * c.beta * n + (P - 1) / P * c.gamma * n;
}

// Every count: each block goes once around for the reduce-scatter and once for the allgather.
bool bandwidth_optimal(const PlanRequest &) {
  return true;
}

}  // namespace

const AlgorithmInfo &ring_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "ring";
    a.description =
        "ring reduce-scatter + allgather on P chunks, optional pipelined segments; count < P: "
        "recursive doubling (as Open MPI)";
    a.source = "Patarasuk and Yuan 2009; Rings, Trees, and Butterflies: HPX Collectives";
    a.restrictions.needs_commutative = true;
    a.params = {
        ParamSpec::integer("ring_segment", "0")
            .range(0, 1LL << 40)
            .size_suffixes()
            .about(
                "ring: pipeline each chunk in segments of at most this many bytes (0 = off); the "
                "reduction of one segment overlaps the transfer of the next")};
    a.build = build;
    a.model = model;
    a.bandwidth_optimal = bandwidth_optimal;
    a.delegate = delegate;
    return a;
  }();
  return info;
}

}  // namespace pcoll

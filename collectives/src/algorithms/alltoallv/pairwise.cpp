// pairwise (alltoallv): P-1 rounds of direct exchange with per-peer counts and displacements
// (MPICH's pairwise-exchange alltoallv, Thakur, Rabenseifner and Gropp 2005, Sec. 3.4; the
// schedule of alltoall/pairwise.cpp). In round k = 1..P-1 rank r sends sendcounts[to] elements
// from sdispls[to] to to = (r + k) mod P and receives recvcounts[from] elements at
// rdispls[from] from from = (r - k) mod P; for a power-of-two P the partner is r xor k both
// ways. The own block is copied locally in the first round. A zero count posts nothing, on both
// sides alike (MPI requires the sender's count to match the receiver's).
//
// Messages above 1 GiB are cut into pieces of at most 1 GiB: both sides cut the same length the
// same way, so no rank needs to know another rank's counts to agree (the executor posts int byte
// counts; the 2 GiB restriction of the uniform collectives would need every rank's counts).
//
// Without PlanRequest::layout the layout is uniform: `count` elements to and from every peer in
// rank order (pcoll-info, the plan matrix), which is exactly alltoall/pairwise's plan.
//
// Restrictions: none (any P, any counts; contiguous datatypes of one size are api.cpp's check).
// Cost (n_j = bytes sent to rank j): T = (P-1) alpha + beta sum_{j != r} n_j. Temporary: none.
#include <algorithm>

#include "../../registry.hpp"

namespace pcoll {
namespace {

bool power_of_two(int p) {
  return p > 0 && (p & (p - 1)) == 0;
}

Layout uniform(const PlanRequest &req) {
  Layout l;
  const auto P = static_cast<std::size_t>(req.size);
  l.sendcounts.assign(P, req.count);
  l.recvcounts.assign(P, req.count);
  for (std::size_t q = 0; q < P; ++q) {
    l.sdispls.push_back(q * req.count);
    l.rdispls.push_back(q * req.count);
  }
  return l;
}

std::size_t extent(const std::vector<std::size_t> &counts, const std::vector<std::size_t> &displs) {
  std::size_t e = 0;
  for (std::size_t q = 0; q < counts.size(); ++q)
    if (counts[q] > 0) e = std::max(e, displs[q] + counts[q]);
  return e;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("exchange");
  const int P = req.size, me = req.rank;
  const Layout own = req.layout ? Layout{} : uniform(req);
  const Layout &l = req.layout ? *req.layout : own;
  plan.in_elems = extent(l.sendcounts, l.sdispls);
  plan.out_elems = extent(l.recvcounts, l.rdispls);
  // Largest piece: 1 GiB of elements (at least one element).
  const std::size_t piece = std::max<std::size_t>(1, (std::size_t(1) << 30) / req.type_size);
  auto send = [&](Round &r, int peer, std::size_t off, std::size_t len) {
    for (std::size_t o = 0; o < len; o += piece)
      add_send(r, peer, in_range(off + o, std::min(piece, len - o)));
  };
  auto recv = [&](Round &r, int peer, std::size_t off, std::size_t len) {
    for (std::size_t o = 0; o < len; o += piece)
      add_recv(r, peer, out_range(off + o, std::min(piece, len - o)));
  };
  const auto m = static_cast<std::size_t>(me);
  Round &first = plan.new_round(ph);
  add_copy(first, in_range(l.sdispls[m], std::min(l.sendcounts[m], l.recvcounts[m])),
           out_range(l.rdispls[m], std::min(l.sendcounts[m], l.recvcounts[m])));
  const bool xor_partners = power_of_two(P);
  for (int k = 1; k < P; ++k) {
    const int to = xor_partners ? me ^ k : (me + k) % P;
    const int from = xor_partners ? me ^ k : (me - k + P) % P;
    // The first round also holds the local copy: it touches neither message.
    Round &r = k == 1 ? plan.rounds.back() : plan.new_round(ph);
    const auto t = static_cast<std::size_t>(to), f = static_cast<std::size_t>(from);
    recv(r, from, l.rdispls[f], l.recvcounts[f]);
    send(r, to, l.sdispls[t], l.sendcounts[t]);
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  double bytes = 0;
  if (req.layout) {
    for (std::size_t q = 0; q < req.layout->sendcounts.size(); ++q)
      if (static_cast<int>(q) != req.rank) bytes += double(req.layout->sendcounts[q]);
    bytes *= double(req.type_size);
  } else {
    bytes = double(req.size - 1) * double(req.count * req.type_size);
  }
  return (req.size - 1) * c.alpha + c.beta * bytes;
}

}  // namespace

const AlgorithmInfo &pairwise_alltoallv_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoallv;
    a.name = "pairwise";
    a.description =
        "P-1 rounds of direct exchange with per-peer counts, partner (r+k) mod P / (r-k) mod P "
        "or r xor k for a power-of-two P; zero counts post nothing";
    a.source =
        "Thakur, Rabenseifner and Gropp 2005; HPX pull request \"Add size-based pairwise dispatch "
        "to all_to_all\"";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll

// swing: the bandwidth-optimal Swing allreduce (De Sensi, Bonato, Saam, Hoefler et al., "Swing:
// Short-cutting Rings for Higher Bandwidth Allreduce", NSDI 2024): a reduce-scatter and an
// allgather like Rabenseifner's, with the peers of recursive doubling replaced by Swing's.
//
// In step s (0 <= s < L = log2 P') new rank r exchanges with
//   peer(r, s) = r + rho(s) if r is even, r - rho(s) if r is odd (mod P'),
//   rho(s) = sum_{i=0..s} (-2)^i = 1, -1, 3, -5, 11, -21, ...
// so the partners stay close on a ring (|rho(s)| ~ 2^(s+1)/3 instead of 2^s, and half of them
// go the other way round): fewer bytes cross far links than with r xor 2^s. Non-power-of-two
// P is folded first (../patterns/fold.hpp), the new ranks then on a ring of P'.
//
// Blocks. r's share after step s is R(r, s+1), the new ranks r reaches through the steps
// s+1..L-1 (R(r, L) = {r}, R(r, t) = R(r, t+1) u R(peer(r, t), t+1)): in the reduce-scatter r
// sends its partial sums of the blocks R(peer, s+1) and keeps R(r, s+1); the allgather retraces
// the steps. These sets form one binary tree over all new ranks (checked for P' = 2..1024: each
// R(r, t) is the disjoint union of two sets of level t+1, and partners share theirs), so the
// blocks are laid out in the tree's leaf order and every set a step sends is one contiguous
// range: one message per step, as in Rabenseifner's. (The Bine trees of the same authors,
// SC 2025, reach contiguity by renumbering the ranks; this layout keeps the ranks and reorders
// the blocks instead.) Each block is reduced on one rank only and then copied: all ranks hold
// identical bits. Contributions meet out of rank order: commutative ops only.
//
// Fewer elements than P' blocks: recursive doubling's plan, as Rabenseifner does here.
// Left out: the latency-optimal variant (the whole vector every step). Its partial sums are not
// nested across ranks the same way (for P' >= 8 two ranks of one step's set can hold differently
// bracketed sums), so a floating-point sum would differ in its last bits between ranks.
// Also left out: the paper's per-dimension version for multi-dimensional tori.
//
// Restrictions: commutative op.
// Cost (as Rabenseifner's, f = 1 if P is not a power of two):
//   T = (2 log2 P' + 2f) alpha + (2 (P'-1)/P' + 2f) beta n + ((P'-1)/P' + f) gamma n.
// Temporary: n bytes.
#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "../../registry.hpp"
#include "../patterns/bine.hpp"
#include "../patterns/fold.hpp"

namespace pcoll {

const AlgorithmInfo &recursive_doubling_allreduce_info();
const AlgorithmInfo &rabenseifner_allreduce_info();  // the same cost
namespace {

using bine::peer;

// The block tree of Q = 2^L new ranks: start[t][x] = the first leaf position of R(x, t) (R(x, t)
// spans 2^(L-t) consecutive positions), leaf order depth-first, the child holding the smaller
// rank first.
std::vector<std::vector<int>> block_tree(int q, int L) {
  std::vector<std::vector<int>> lo(static_cast<std::size_t>(L) + 1, std::vector<int>(q));
  for (int x = 0; x < q; ++x) lo[static_cast<std::size_t>(L)][static_cast<std::size_t>(x)] = x;
  for (int t = L - 1; t >= 0; --t)
    for (int x = 0; x < q; ++x)
      lo[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)] =
          std::min(lo[static_cast<std::size_t>(t) + 1][static_cast<std::size_t>(x)],
                   lo[static_cast<std::size_t>(t) + 1][static_cast<std::size_t>(peer(x, t, q))]);
  // Top-down: a set at level t starting at position p puts the child with the smaller least
  // rank at p, the other at p + 2^(L-t-1).
  std::vector<std::vector<int>> start(static_cast<std::size_t>(L) + 1, std::vector<int>(q, 0));
  for (int t = 0; t < L; ++t)
    for (int x = 0; x < q; ++x) {
      const auto T = static_cast<std::size_t>(t);
      const int y = peer(x, t, q);
      const bool first = lo[T + 1][static_cast<std::size_t>(x)] < lo[T + 1][static_cast<std::size_t>(y)];
      start[T + 1][static_cast<std::size_t>(x)] =
          start[T][static_cast<std::size_t>(x)] + (first ? 0 : 1 << (L - t - 1));
    }
  return start;
}

// The tree depends on Q alone and costs O(Q log Q); every rank of a call needs it, and the
// cost model builds every rank's plan (P plans: O(P^2 log P) without this), so the last few
// trees are kept, read-only, behind a lock.
std::shared_ptr<const std::vector<std::vector<int>>> shared_block_tree(int q, int L) {
  static std::mutex lock;
  static std::vector<std::pair<int, std::shared_ptr<const std::vector<std::vector<int>>>>> kept;
  const std::lock_guard<std::mutex> hold(lock);
  for (const auto &[k, tree] : kept)
    if (k == q) return tree;
  auto tree = std::make_shared<const std::vector<std::vector<int>>>(block_tree(q, L));
  if (kept.size() >= 4) kept.erase(kept.begin());
  kept.emplace_back(q, tree);
  return tree;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), rs = plan.phase_index("reduce_scatter"),
            ag = plan.phase_index("allgather"), unfold_ph = plan.phase_index("unfold");
  const std::size_t n = req.count;
  if (req.size == 1 || n == 0) return plan;
  const PowerOfTwoFold f(req.size);
  if (n < static_cast<std::size_t>(f.pof2)) return recursive_doubling_allreduce_info().build(req);
  plan.tmp_elems = n;
  const Range work = out_range(0, n), scratch = tmp_range(0, n);
  f.fold(plan, req.rank, work, scratch, fold_ph);
  const int nr = f.new_rank(req.rank);
  if (nr >= 0) {
    const int Q = f.pof2, L = f.log2_pof2();
    const auto start = shared_block_tree(Q, L);
    const auto &start_of = *start;
    const BlockSplit blocks{n, static_cast<std::size_t>(Q)};
    // Element range of R(x, t): 2^(L-t) blocks from position start[t][x].
    auto elems = [&](int x, int t) {
      const auto T = static_cast<std::size_t>(t), X = static_cast<std::size_t>(x);
      const auto p = static_cast<std::size_t>(start_of[T][X]);
      const std::size_t e = p + (std::size_t{1} << (L - t));
      return sub(work, blocks.offset(p), blocks.offset(e) - blocks.offset(p));
    };
    for (int s = 0; s < L; ++s) {
      const int pr = peer(nr, s, Q), partner = f.real_rank(pr);
      const Range send = elems(pr, s + 1), keep = elems(nr, s + 1);
      const Range in = sub(scratch, keep.off - work.off, keep.len);
      Round &r = plan.new_round(rs);
      add_send(r, partner, send);
      const int rv = add_recv(r, partner, in);
      add_reduce(r, in, keep, /*src_is_left=*/pr < nr, rv);
    }
    for (int s = L - 1; s >= 0; --s) {
      const int pr = peer(nr, s, Q), partner = f.real_rank(pr);
      Round &r = plan.new_round(ag);
      add_send(r, partner, elems(nr, s + 1));
      add_recv(r, partner, elems(pr, s + 1));
    }
  }
  f.unfold(plan, req.rank, work, unfold_ph);
  return plan;
}

}  // namespace

const AlgorithmInfo &swing_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "swing";
    a.description =
        "Swing (bandwidth-optimal): reduce-scatter + allgather with peers r +- rho(s), "
        "rho = 1, -1, 3, -5, ...; blocks in the peer tree's order; fold for non-power-of-two "
        "P; count < P': recursive doubling";
    a.source = "De Sensi et al., Swing: Short-cutting Rings for Higher Bandwidth Allreduce (NSDI 2024)";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = [](const PlanRequest &req, const CostParams &c) {
      return rabenseifner_allreduce_info().model(req, c);
    };
    return a;
  }();
  return info;
}

}  // namespace pcoll

#include "plan.hpp"

#include <algorithm>

#include "registry.hpp"

namespace pcoll {

const char *buf_name(Buf b) {
  switch (b) {
    case Buf::in:
      return "in";
    case Buf::out:
      return "out";
    case Buf::tmp:
      return "tmp";
    case Buf::node:
      return "node";
    case Buf::line:
      return "line";
  }
  return "?";
}

Round &Plan::new_round(int phase) {
  rounds.emplace_back();
  rounds.back().phase = phase;
  return rounds.back();
}

void Plan::idle(int phase, int n) {
  for (int i = 0; i < n; ++i) new_round(phase);
}

int Plan::phase_index(const std::string &name) {
  auto it = std::find(phases.begin(), phases.end(), name);
  if (it != phases.end()) return static_cast<int>(it - phases.begin());
  phases.push_back(name);
  return static_cast<int>(phases.size() - 1);
}

void add_send(Round &r, int peer, Range range) {
  if (range.len == 0) return;
  r.sends.push_back(Xfer{peer, range});
}

int add_recv(Round &r, int peer, Range range) {
  if (range.len == 0) return -1;
  r.recvs.push_back(Xfer{peer, range});
  return static_cast<int>(r.recvs.size() - 1);
}

void add_reduce(Round &r, Range src, Range dst, bool src_is_left, int after_recv) {
  if (src.len == 0) return;
  r.ops.push_back(LocalOp{OpKind::reduce, src, dst, src_is_left, after_recv});
}

void add_copy(Round &r, Range src, Range dst, int after_recv) {
  if (src.len == 0) return;
  r.ops.push_back(LocalOp{OpKind::copy, src, dst, true, after_recv});
}

void add_wait_all(Round &r, int rank, int size, int signal) {
  for (int q = 0; q < size; ++q)
    if (q != rank) r.waits.push_back(Wait{q, signal});
}

void rotate_peers(Plan &plan, int root, int size) {
  for (auto &r : plan.rounds) {
    for (auto &x : r.sends) x.peer = (x.peer + root) % size;
    for (auto &x : r.recvs) x.peer = (x.peer + root) % size;
    for (auto &w : r.waits) w.peer = (w.peer + root) % size;
  }
}

std::size_t BlockSplit::offset(std::size_t i) const {
  const std::size_t q = count / parts, rem = count % parts;
  return i * q + std::min(i, rem);
}

std::size_t BlockSplit::length(std::size_t i) const {
  const std::size_t q = count / parts, rem = count % parts;
  return q + (i < rem ? 1 : 0);
}

Plan make_plan(const AlgorithmInfo &algo, const PlanRequest &req) {
  Plan p = algo.build(req);
  p.rank = req.rank;
  p.size = req.size;
  const CollectiveInfo &coll = collective_info(algo.coll);
  // With a layout (or without a uniform one) the builder sized the buffers itself.
  if (req.layout == nullptr && coll.in_elems != nullptr) {
    p.in_elems = coll.in_elems(req.count, req.size);
    p.out_elems = coll.out_elems(req.count, req.size);
  }
  p.copy_in_to_out = coll.copy_in_to_out && !p.reads_in_only;
  // Builders may leave rounds in which this rank has nothing to do (a fold it is not part of):
  // drop them, they would only cost the executor a loop iteration.
  // Each round keeps its place in the builder's list as its step.
  std::vector<Round> kept;
  for (std::size_t k = 0; k < p.rounds.size(); ++k) {
    Round &r = p.rounds[k];
    r.step = static_cast<int>(k);
    if (!r.sends.empty() || !r.recvs.empty() || !r.ops.empty() || !r.waits.empty() ||
        r.signal > 0)
      kept.push_back(std::move(r));
  }
  p.rounds = std::move(kept);
  finalize_plan(p);
  return p;
}

void finalize_plan(Plan &plan) {
  std::vector<bool> heard(static_cast<std::size_t>(std::max(plan.size, 1)), false);
  for (const Round &round : plan.rounds)
    for (const Wait &w : round.waits)
      if (w.peer >= 0 && w.peer < plan.size) heard[static_cast<std::size_t>(w.peer)] = true;
  plan.waits_for_every_peer = true;
  for (int q = 0; q < plan.size; ++q)
    if (q != plan.rank && !heard[static_cast<std::size_t>(q)]) plan.waits_for_every_peer = false;
  for (auto &round : plan.rounds)
    for (auto &op : round.ops) {
      op.after_sends = false;
      // A reduction whose src is not on the left may be computed into src (reduce.cpp, user
      // ops): src is then written too.
      const bool writes_src = op.kind == OpKind::reduce && !op.src_is_left;
      for (const auto &s : round.sends)
        op.after_sends = op.after_sends || overlaps(op.dst, s.range) ||
                         (writes_src && overlaps(op.src, s.range));
    }
}

}  // namespace pcoll

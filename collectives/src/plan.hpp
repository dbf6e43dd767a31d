// Plan: the data an algorithm produces instead of sending messages itself.
//
// A plan is the complete schedule of ONE rank for ONE call shape (P, count, parameters): an
// ordered list of rounds; in each round the rank posts all its receives and sends at once, runs
// the local operations (reductions, copies) attached to each receive as soon as that receive has
// completed, then the operations attached to the end of the round. Plans are built without MPI,
// so they can be executed symbolically (verify.hpp), costed (ledger.hpp) and cached. make_plan and
// finalize_plan live here, on the runtime side: the call path (api -> select -> plan -> executor)
// does not depend on the offline modules (schedule, verify, ledger), which pcoll-info and the
// tests use.
//
// All offsets and lengths are in ELEMENTS of the user's datatype, never bytes: a reduction can
// therefore never split an element, and the same plan serves every datatype of a given size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pcoll {

// The buffers a plan may name. `in` is the user's send buffer (read only), `out` the user's
// receive buffer, `tmp` scratch memory owned by the communicator's context, `node` the data
// area of the node's shared-memory segment (shm/segment.hpp) that this call uses: the same
// bytes on every rank of the node, at the same element offsets, so one rank's copy into it is
// another's source once a flag says so (Round::waits and Round::signal). `line` is the payload
// of the call's flag lines (NodeSegment::lines: rank q's line at q * Plan::line_stride elements,
// of which the first Plan::line_payload carry data and the rest is q's flag), shared under the
// same rule; a rank that waited for q's flag read q's line payload in the same cache-line fetch.
enum class Buf : std::uint8_t { in, out, tmp, node, line };
const char *buf_name(Buf b);

struct Range {
  Buf buf = Buf::out;
  std::size_t off = 0;  // elements
  std::size_t len = 0;  // elements
};

// One message: to (sends) or from (recvs) `peer`, a rank of the communicator.
struct Xfer {
  int peer = -1;
  Range range;
};

enum class OpKind : std::uint8_t {
  reduce,  // dst = src (op) dst  when src_is_left, else dst = dst (op) src
  copy,    // dst = src
};

struct LocalOp {
  OpKind kind = OpKind::copy;
  Range src;
  Range dst;  // dst.len == src.len
  // For reductions: true when the values in src come from lower ranks than those in dst, so
  // that non-commutative operations are applied in rank order. When false the executor may
  // overwrite src: for user-defined ops, commutative or not, it computes into src and copies
  // back (reduce.cpp; MPI_Reduce_local only writes its second buffer); finalize_plan() then
  // protects a pending send of src.
  bool src_is_left = true;
  // Index into the round's recvs after whose completion this op may run; -1: after all recvs.
  int after_recv = -1;
  // Set by finalize_plan(): dst (or the src of a reduction not on the left, which the executor
  // may write) overlaps a range sent in the same round, so the executor must complete the
  // round's sends before running this op (MPI forbids touching a pending send).
  bool after_sends = false;
};

// A wait on a flag of the node segment: the round begins only once rank `peer` (a rank of the
// same node) has raised its flag of this call to at least `signal` (Round::signal), so what
// that rank wrote to the node area before raising it can be read, and what it read before can
// be overwritten.
struct Wait {
  int peer = -1;
  int signal = 0;
};

struct Round {
  // Shared-memory rounds: the flags to wait for before anything else of the round, and the value
  // to raise this rank's flag to once everything of the round is done (0: none). Signals grow
  // along a plan: 1, 2, ... (check_plan).
  std::vector<Wait> waits;
  int signal = 0;
  std::vector<Xfer> recvs;
  std::vector<Xfer> sends;
  std::vector<LocalOp> ops;
  int phase = 0;  // index into Plan::phases, for tracing and the ledger
  // The schedule's step this round belongs to, the same on every rank (make_plan: the round's
  // place in the builder's list before empty rounds are dropped; -1 in plans written by hand,
  // where the round's index is its step). A message is sent and received in the same step, so a
  // builder whose ranks sit out some steps (a tree's leaves, a fold's extra ranks) leaves an
  // empty round for each: the model charges a node's shared links per step, the traffic of
  // every rank of the node in that step together (model.cpp), not per round index, which would
  // add a leaf's first round to the root's.
  int step = -1;
};

struct Plan {
  int rank = 0;
  int size = 1;
  std::size_t in_elems = 0;   // size the plan assumes for the `in` buffer
  std::size_t out_elems = 0;  // size the plan assumes for the `out` buffer
  std::size_t tmp_elems = 0;  // scratch the plan needs
  // The node segment's data area the plan uses, in elements from its start (0: none). Every rank
  // of a shared-memory plan gives the same value: the area is one, and so are its offsets.
  std::size_t node_elems = 0;
  // The flag lines' payload (Buf::line), in elements: a line is line_stride elements, the first
  // line_payload of them data (0: the plan does not use it). The same on every rank.
  std::size_t line_stride = 0, line_payload = 0;
  // Allreduce-like plans work in `out` only: the executor copies `in` to `out` first (unless
  // MPI_IN_PLACE). make_plan() sets it from the collective's row (CollectiveInfo::copy_in_to_out)
  // unless the builder set reads_in_only, so builders never set it; the default serves plans
  // written by hand (the verifier's tests).
  bool copy_in_to_out = true;
  // Set by a builder whose plan, on this rank, reads its own input from `in` and never reads
  // `out` before writing it (naive's non-roots send their vector straight from `in`): the
  // executor then skips the copy, which costs a full pass over the vector.
  bool reads_in_only = false;
  // Set by finalize_plan(): the plan's waits cover every other rank (a shared-memory plan in which
  // this rank hears from all its peers: once it is complete, each of them has started the call).
  bool waits_for_every_peer = false;
  std::vector<std::string> phases;
  std::vector<Round> rounds;

  // Helpers used by plan builders.
  Round &new_round(int phase);
  // `n` steps in which this rank does nothing (kept as steps, dropped as rounds).
  void idle(int phase, int n);
  int phase_index(const std::string &name);  // adds the phase name if new
};

// Convenience constructors used throughout the algorithm files.
inline Range out_range(std::size_t off, std::size_t len) {
  return Range{Buf::out, off, len};
}
inline Range tmp_range(std::size_t off, std::size_t len) {
  return Range{Buf::tmp, off, len};
}
inline Range in_range(std::size_t off, std::size_t len) {
  return Range{Buf::in, off, len};
}
inline Range node_range(std::size_t off, std::size_t len) {
  return Range{Buf::node, off, len};
}
inline Range line_range(std::size_t off, std::size_t len) {
  return Range{Buf::line, off, len};
}
// The buffers every rank of the node shares (the node area and the flag lines).
inline bool is_shared(Buf b) { return b == Buf::node || b == Buf::line; }
// The `len` elements of `r` that start `off` elements into it.
inline Range sub(Range r, std::size_t off, std::size_t len) {
  return Range{r.buf, r.off + off, len};
}

// Helpers that append to a round; zero-length transfers and ops are dropped, consistently on
// both sides, because both sides compute the same lengths.
void add_send(Round &r, int peer, Range range);
// Returns the index of the receive in r.recvs, or -1 when the range is empty.
int add_recv(Round &r, int peer, Range range);
void add_reduce(Round &r, Range src, Range dst, bool src_is_left, int after_recv = -1);
void add_copy(Round &r, Range src, Range dst, int after_recv = -1);
// A wait for every rank of the node but this one (ranks 0..size-1 of a one-node plan).
void add_wait_all(Round &r, int rank, int size, int signal);
// Whether the plan uses the node segment (a shared-memory plan).
inline bool uses_node(const Plan &p) {
  if (p.node_elems > 0 || p.line_payload > 0) return true;
  for (const Round &r : p.rounds)
    if (r.signal > 0 || !r.waits.empty()) return true;
  return false;
}

// Builders that plan on virtual ranks v = (rank - root) mod size, with the root as rank 0 (the
// broadcasts): maps every peer back to its real rank, (v + root) mod size.
void rotate_peers(Plan &plan, int root, int size);

// Whether two ranges share an element of the same buffer.
inline bool overlaps(const Range &a, const Range &b) {
  return a.buf == b.buf && a.len > 0 && b.len > 0 && a.off < b.off + b.len && b.off < a.off + a.len;
}

struct AlgorithmInfo;
struct PlanRequest;
// Builds rank req.rank's plan with the algorithm's builder, fills in the fields every plan of the
// collective has (rank, size, buffer sizes), drops empty rounds and finalizes it. The one way
// plans are made, on the call path (api.cpp) and offline (schedule.hpp, pcoll-info, tests).
Plan make_plan(const AlgorithmInfo &algo, const PlanRequest &req);
// Marks, in each round, the local operations that write to a range being sent in that round
// (the executor waits for those sends first). Applied to every plan before it is used.
void finalize_plan(Plan &plan);

// The split of `count` elements into `parts` contiguous blocks whose sizes differ by at most one,
// the larger ones first (MPI's and MPICH's convention for uneven reduce-scatter blocks).
struct BlockSplit {
  std::size_t count = 0;
  std::size_t parts = 1;
  std::size_t offset(std::size_t i) const;
  std::size_t length(std::size_t i) const;
};

}  // namespace pcoll

// What the shared-memory algorithms share: their restrictions, the piece of a vector they move
// per step, and the slot layout of the node area (shm/segment.hpp for the segment, plan.hpp for
// Buf::node, Round::waits and Round::signal).
//
// Every rank of the node owns a slot of `chunk` elements in the call's node area, slot q at
// q * chunk; a rank writes only its own slot (or, where a plan says so, a part of another's that
// no other rank touches in that step), raises its flag, and the others read it once their wait
// for that flag is over. The symbolic verifier checks that every pair of accesses of different
// ranks to the same elements, one of them a write, is ordered by a flag or a message.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../registry.hpp"

namespace pcoll::shm {

// shm_chunk: bytes per rank per step (auto: the segment's channel, PCOLL_SHM_SEGMENT).
const ParamSpec &chunk_param();
// Why the shared-memory plans cannot serve `req`, or empty.
std::string check(const PlanRequest &req);
// Elements per slot: shm_chunk (or the segment's channel) in whole elements, at least 2.
std::size_t chunk_elems(const PlanRequest &req);

// The pieces of a vector of n elements through slots of c: the whole vector when it fits, else
// half a slot at a time, the two halves in turn (piece k in half k mod 2, at `at`), so that a
// rank copies piece k + 1 in while the others still copy piece k out; a plan must then wait,
// before piece k + 2, for everyone to be done with piece k.
struct Piece {
  int k = 0;            // index
  std::size_t off = 0;  // first element of the vector (of each block, for alltoall)
  std::size_t len = 0;
  std::size_t at = 0;   // offset in the slot: 0, or half a slot for odd k
};
std::vector<Piece> pieces_in_halves(std::size_t n, std::size_t c);
// How many there are (the models), for n and c in any common unit, elem the element's size.
double count_pieces_in_halves(double n, double c, double elem);

// The node area's slots: rank q's at q * c.
struct Slots {
  std::size_t c = 0;
  Range at(int q, std::size_t off, std::size_t len) const {
    return node_range(static_cast<std::size_t>(q) * c + off, len);
  }
};

// The call's flag lines (Buf::line): rank q's line at q * stride elements, the first `payload`
// of them data. A vector of at most `payload` elements travels in the line of the flag that
// announces it, so a reader's wait and its read are one cache-line transfer. Zero where the
// element size does not divide the line or the element does not fit beside the flag.
struct Lines {
  std::size_t stride = 0, payload = 0;
  Range at(int q, std::size_t off, std::size_t len) const {
    return line_range(static_cast<std::size_t>(q) * stride + off, len);
  }
};
Lines lines(const PlanRequest &req);
// Declares the plan's use of the flag lines (Plan::line_stride, Plan::line_payload).
void use_lines(Plan &plan, const Lines &l);

// The block-wise reduction of allreduce and reduce shm, piece p split P ways (BlockSplit): a
// round in which rank `me` copies block q of its input (`in` at the piece) to block q of its
// slot for every q != me and raises `copied`; a wait for every rank's; and a round that reduces
// block `me` of every rank's input into `acc`, its own from `in`, in rank order (lower ranks on
// the left, the grouping starting at its own operand: the op is associative). Returns that
// round, for the caller to add to and signal.
Round &add_block_reduction(Plan &plan, const Piece &p, const Slots &slots, int me, int P,
                           int copied, const Range &acc, int copy_ph, int wait_ph,
                           int reduce_ph);

}  // namespace pcoll::shm

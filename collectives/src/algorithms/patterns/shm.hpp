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

#include "../../config.hpp"
#include "../../registry.hpp"

namespace pcoll::shm {

// shm_chunk: bytes per rank per step (auto: the segment's channel, PCOLL_SHM_SEGMENT).
const ParamSpec &chunk_param();
// Why the shared-memory plans cannot serve `req`, or empty.
std::string check(const PlanRequest &req);
// Elements per slot: shm_chunk (or the segment's channel) in whole elements, at least 1.
std::size_t chunk_elems(const PlanRequest &req);

}  // namespace pcoll::shm

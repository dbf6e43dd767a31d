// The four ledgers of "Rings, Trees, and Butterflies: HPX Collectives" ("the sum needed a byte
// ledger"), computed from the plans of all ranks of one call, and an alpha-beta-gamma model time:
//   rounds and messages on the critical path, bytes sent per rank (max and mean), bytes through
//   the busiest rank (sent + received), temporary bytes; plus the split of messages and bytes
//   into intra-node and inter-node when node boundaries are given.
//
// Model: a rank starts round k when it finished round k-1; the round finishes at
//   max(own start, start of every peer's matching round)
//     + max(sum over sends (alpha + beta b), sum over receives (alpha + beta b))
//     + gamma * bytes reduced in the round,
// i.e. full-duplex links, messages in one direction serialised. Shared-memory plans: a round
// that waits on flags starts after the rounds raising them have finished, plus alpha (seeing the
// flag; counted as one message and one round), and copies through the node segment cost
// beta * b. The critical path is the largest
// finish time over ranks. This reproduces the closed forms of "Rings, Trees, and Butterflies: HPX
// Collectives" exactly for the textbook cases (tests/unit/ledger_test.cpp checks it).
#pragma once

#include <cstddef>
#include <string>

#include "registry.hpp"
#include "schedule.hpp"

namespace pcoll {

struct Ledger {
  double rounds = 0;    // critical-path rounds (each round counts 1)
  double messages = 0;  // critical-path message starts and flag waits (the alpha coefficient)
  double model_time = 0;
  std::size_t max_bytes_sent = 0;
  double mean_bytes_sent = 0;
  std::size_t busiest_bytes = 0;  // max over ranks of bytes sent + received
  int busiest_rank = 0;
  std::size_t max_temp_bytes = 0;
  std::size_t total_messages = 0;
  std::size_t intra_messages = 0, inter_messages = 0;
  std::size_t intra_bytes = 0, inter_bytes = 0;
};

// `ranks_per_node` <= 0: all ranks on one node.
Ledger compute_ledger(const Schedule &s, std::size_t type_size, const CostParams &cost,
                      int ranks_per_node = 0);

}  // namespace pcoll

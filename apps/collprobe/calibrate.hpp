// collprobe --calibrate FILE: measures the numbers of pcoll's machine description
// (collectives/src/machine.hpp) on the machine it runs on, or inside a SimGrid simulation of a
// platform file, and writes the TOML. Collective over MPI_COMM_WORLD; nodes are the groups of
// MPI_COMM_TYPE_SHARED, ordered by their lowest rank. What it measures:
//   intra, inter   ping-pong between two ranks of one node / of nodes 0 and 1 at 8 B .. 2 MiB:
//                  latency = half the 8-byte round trip, bandwidth = the slope between 256 KiB
//                  and 2 MiB; overhead = the extra time of exchanging with 16 peers at once
//                  instead of 1, per message;
//   link_bandwidth every rank of node 0 sending 1 MiB to a rank of another node at once, the
//                  senders spread over as many nodes as there are;
//   pair_bandwidth every rank of node 0 sending 1 MiB to its partner on node 1 at once;
//   tiers          for groups of k = 2, 4, 8, ... consecutive nodes (while 2k nodes exist):
//                  every rank of nodes [0, k) sending 1 MiB to its partner k nodes further
//                  (bandwidth between two groups), to partners spread over every other group
//                  (spread_bandwidth), and the 8-byte latency to node k; a tier is written where
//                  the groups' bandwidth is below 3/4 of what their nodes' links give, or
//                  leaving the group adds latency;
//   torus          with --torus DIMS instead of the tiers: the link bandwidth is
//                  pair_bandwidth (node 0 to node 1, neighbours), the per-hop latency the
//                  least-squares slope of the 8-byte latency from node 0 over the hop count
//                  of the dimension-ordered route, one node per hop count present;
//   reduce         pcoll's own local reduction of 4 MiB of doubles (in a simulation, where
//                  computation costs no simulated time: inf).
// With one node only the intra-node numbers and the reduction are measured; the inter-node
// ones are then written as those of the built-in description, and the file says so.
#pragma once

#include <string>
#include <vector>

namespace collprobe {

// Writes the description to `path`, its [origin] naming `machine` (empty: the host name) and
// `command`. Returns 0, or 1 when the file cannot be written (rank 0 says why).
// `torus`: the nodes' torus dimensions, or empty.
int calibrate(const std::string &path, const std::string &machine, const std::string &command,
              const std::vector<int> &torus, bool quiet);

}  // namespace collprobe

// The machine description the cost model (model.hpp) runs on: what a message costs inside a node
// and between nodes, how much a node's link carries when all its ranks use it at once, and how
// fast a rank reduces. A TOML file (PCOLL_MACHINE=path; `builtin` = inputs/machines/default.toml
// compiled in), written by scripts/pcoll-calibrate.sh on the machine it describes:
//
//   [origin]                 # where the numbers come from (free-form strings)
//   tool = "pcoll-calibrate"  date = "..."  machine = "..."
//
//   [intra]                  # two ranks of one node
//   latency = 0.3e-6         # s: one-way time of an empty message
//   overhead = 0.05e-6       # s: CPU time per message posted (send or receive)
//   bandwidth = 20e9         # B/s: one flow alone (its per-byte time is 1 / bandwidth)
//   rank_bandwidth = 20e9    # optional: one rank's flows of a round together; default
//                            # bandwidth (one after another); inf: all at once at full rate
//
//   [inter]                  # two ranks of different nodes
//   latency = 1.0e-6
//   overhead = 0.05e-6
//   bandwidth = 45e9         # one flow alone (rank_bandwidth as in [intra])
//   link_bandwidth = 50e9    # B/s per direction: the node's link(s), shared by all its ranks
//   pair_bandwidth = 50e9    # optional: what one node can send to one other node (a torus sends
//                            # to one neighbour over one of its links); default link_bandwidth
//
//   [[tier]]                 # optional, any number, in increasing `nodes`: groups of that many
//   nodes = 8                # consecutive nodes (a switch, a dragonfly group, a torus block)
//   bandwidth = 50e9         # B/s per direction between the group and one other group
//   spread_bandwidth = 150e9 # optional: out of (into) the group to (from) all others at once;
//                            # default bandwidth (a tapered fat tree's uplink is both)
//   latency = 0.5e-6         # s added to a message that leaves the group
//
//   [torus]                  # optional: the nodes are the points of a torus (Tofu, Blue Gene,
//   dims = [2, 3, 2, 2]      # Gemini), the communicator's n-th node at the n-th point, the first
//                            # dimension varying fastest; routes are dimension-ordered, each
//                            # dimension the short way round
//   link_bandwidth = 6.8e9   # B/s per direction of one link between neighbours, shared by
//                            # every route through it
//   hop_latency = 0.49e-6    # s added per hop after the first ([inter] latency is one hop's)
//
//   [reduce]
//   bandwidth = 8e9          # B/s: bytes of input one rank reduces into its output
//
//   [copy]                   # optional: a plan's local copies (packing, unpacking, folds)
//   bandwidth = 10e9         # B/s: bytes one rank copies within its memory; default [intra]
//                            # bandwidth (inf where copies cost nothing: SMPI without
//                            # simulated computation)
//
//   [shm]                    # optional: the node segment of the shared-memory algorithms
//   flag_latency = 0.1e-6    # s: a flag one rank raises seen by the ranks that wait for it
//                            # (a cache line's trip between cores); default [intra] latency / 2
//   copy_bandwidth = 10e9    # B/s: bytes one rank copies into or out of the segment alone;
//                            # default [copy] bandwidth
//   node_bandwidth = 100e9   # B/s: all ranks of a node copying through memory at once (its
//                            # memory bandwidth); default inf (each rank at copy_bandwidth)
//
// Which ranks share a node comes from the communicator (MPI_COMM_TYPE_SHARED, or
// PCOLL_RANKS_PER_NODE), never from the file. A file that does not parse, has an unknown key or
// table, a missing key or a value out of range is rejected as a whole with "file:line: reason",
// like the rules file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pcoll {

struct LinkLevel {
  double latency = 0;    // s
  double overhead = 0;   // s per message
  double bandwidth = 0;  // B/s of one flow
  // B/s one rank moves in (or out) over all its flows of a round at once; a rank's flows are
  // serialized (bandwidth) where the core copies each message itself, as single-copy
  // shared-memory transports do; SimGrid's hosts carry every flow at full rate at once (inf).
  double rank_bandwidth = 0;
};

// Groups of `nodes` consecutive nodes sharing an uplink (a tapered fat tree's switch, a
// dragonfly's router or group, a block of a torus).
struct Tier {
  int nodes = 0;
  double bandwidth = 0;         // B/s per direction between the group and one other group
  double spread_bandwidth = 0;  // B/s per direction out of (into) the group altogether
  double latency = 0;           // s added when a message leaves the group
};

// A torus the nodes sit on (empty dims: none). Node n is the point whose coordinates are the
// digits of n (mod the point count) in the mixed radix `dims`, the first dimension fastest.
struct Torus {
  std::vector<int> dims;
  double link_bandwidth = 0;  // B/s per direction of one neighbour link
  double hop_latency = 0;     // s per hop after the first

  bool present() const { return !dims.empty(); }
  int points() const;
  // Calls f(from, dim, dir) for every hop of the dimension-ordered shortest route from node a
  // to node b (dir +1 or -1; a tie goes the + way), and returns the number of hops.
  template <class F>
  int route(int a, int b, F &&f) const;
  int hops(int a, int b) const {
    return route(a, b, [](int, int, int) {});
  }
  // The links, one per (point, dimension, direction): an index below link_count() for the hop
  // route() reports as (from, dim, dir).
  std::size_t link_count() const { return static_cast<std::size_t>(points()) * dims.size() * 2; }
  std::size_t link_id(int from, int dim, int dir) const {
    return (static_cast<std::size_t>(from % points()) * dims.size() +
            static_cast<std::size_t>(dim)) * 2 + (dir > 0 ? 1 : 0);
  }
};

// What the shared-memory plans' steps cost: a round that waits for flags pays flag_latency
// once (its peers' flags arrive together in the lockstep plans), and its copies and reductions
// through the segment run at the lesser of the rank's own rate and its share of the node's
// memory bandwidth.
struct ShmLevel {
  double flag_latency = 0;    // s
  double copy_bandwidth = 0;  // B/s, one rank
  double node_bandwidth = 0;  // B/s, the node's ranks together (inf: no shared limit)
};

struct Machine {
  std::string source;  // the file, or "builtin (inputs/machines/default.toml)"
  std::string origin;  // the [origin] table, "key=value, ..."
  LinkLevel intra, inter;
  double link_bandwidth = 0;      // B/s per direction, one node's off-node traffic together
  double pair_bandwidth = 0;      // B/s per direction, from one node to one other node
  std::vector<Tier> tiers;        // increasing nodes
  Torus torus;
  double reduce_bandwidth = 0;    // B/s
  double copy_bandwidth = 0;      // B/s ([copy], default intra.bandwidth)
  ShmLevel shm;                   // [shm], defaults from [intra] and [copy]
  std::uint64_t fingerprint = 0;  // of the text: ranks must agree on it
};

// Parses a description; `source` names it in messages. On error: nullptr and *error set to
// "source:line: reason".
std::shared_ptr<const Machine> parse_machine(const std::string &text, const std::string &source,
                                             std::string *error);
// The description PCOLL_MACHINE names: "builtin" or a path (errors name PCOLL_MACHINE too).
std::shared_ptr<const Machine> load_machine(const std::string &spec, std::string *error);
// inputs/machines/default.toml, compiled in (machine_builtin.cpp, generated by CMake).
const char *builtin_machine_text();

template <class F>
int Torus::route(int a, int b, F &&f) const {
  const int n = points();
  int cur = a % n, dst = b % n, hops = 0, stride = 1;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    const int k = dims[j];
    const int c = cur / stride % k, t = dst / stride % k;
    const int right = ((t - c) % k + k) % k;
    const int steps = right <= k / 2 ? right : k - right;
    const int dir = right <= k / 2 ? 1 : -1;
    for (int s = 0, x = c; s < steps; ++s) {
      f(cur, static_cast<int>(j), dir);
      const int nx = ((x + dir) % k + k) % k;
      cur += (nx - x) * stride;
      x = nx;
      ++hops;
    }
    stride *= k;
  }
  return hops;
}

}  // namespace pcoll

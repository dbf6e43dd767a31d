#include "calibrate.hpp"

#include <mpi.h>
#include <unistd.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "machine.hpp"
#include "reduce.hpp"

namespace collprobe {

namespace {

#ifdef PCOLL_SMPI
constexpr bool kSimulated = true;  // simulated time is deterministic: one repetition is exact
constexpr int kReps = 1;
#else
constexpr bool kSimulated = false;
constexpr int kReps = 7;  // the minimum over repetitions: the machine undisturbed
#endif

constexpr std::size_t kFlowBytes = 1 << 20;  // per flow in the shared-link measurements

struct World {
  int rank = 0, size = 1;
  std::vector<std::vector<int>> nodes;  // ranks of each node, nodes ordered by lowest rank
  std::vector<int> node_of;             // node index of every rank
};

World world() {
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int leader = w.rank;
  MPI_Allreduce(&w.rank, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> leaders(static_cast<std::size_t>(w.size));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::map<int, int> index;
  for (int l : leaders) index.emplace(l, 0);
  int n = 0;
  for (auto &kv : index) kv.second = n++;
  w.nodes.resize(index.size());
  w.node_of.resize(leaders.size());
  for (std::size_t r = 0; r < leaders.size(); ++r) {
    w.node_of[r] = index[leaders[r]];
    w.nodes[static_cast<std::size_t>(w.node_of[r])].push_back(static_cast<int>(r));
  }
  return w;
}

// Seconds of `body` (run by every rank; most do nothing), the maximum over ranks, the minimum
// over repetitions.
double timed(const std::function<void()> &body) {
  double best = INFINITY;
  for (int rep = 0; rep < kReps + (kSimulated ? 0 : 1); ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    body();
    double t = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (kSimulated || rep > 0) best = std::min(best, worst);  // the first native one warms up
  }
  return best;
}

// Memory for the measurements' messages (contents never matter), allocated only by a rank
// that takes part and only ever grown, to the largest size at once. In a simulation it is
// SMPI_SHARED_MALLOC (all ranks share one block), so thousands of simulated ranks fit in memory;
// every reallocation maps a block anew, which at thousands of ranks costs the kernel more
// than the simulation.
constexpr std::size_t kMaxBuffer = 2 * (2u << 20) + 1;  // the largest ping-pong, or 3 flows in

char *buffer(std::size_t bytes) {
  static char *b = nullptr;
  static std::size_t have = 0;
  if (have < bytes) {
    const std::size_t n = std::max(bytes, kMaxBuffer);
#ifdef PCOLL_SMPI
    b = static_cast<char *>(SMPI_SHARED_MALLOC(n));  // the smaller one stays mapped: no free
#else
    static std::vector<char> store;
    store.assign(n, 1);
    b = store.data();
#endif
    have = n;
  }
  return b;
}

// One-way time of a message of `bytes` between ranks a and b (half a round trip), timed by a
// after a first round trip has lined the two up (the barrier lets ranks go at different times).
double one_way(const World &w, int a, int b, std::size_t bytes) {
  const int iters = kSimulated ? 1 : (bytes <= 65536 ? 50 : 5);
  char *buf = w.rank == a || w.rank == b ? buffer(2 * bytes + 1) : nullptr;
  auto round_trip = [&] {
    if (w.rank == a) {
      MPI_Send(buf, static_cast<int>(bytes), MPI_BYTE, b, 1, MPI_COMM_WORLD);
      MPI_Recv(buf + bytes, static_cast<int>(bytes), MPI_BYTE, b, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (w.rank == b) {
      MPI_Recv(buf + bytes, static_cast<int>(bytes), MPI_BYTE, a, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(buf, static_cast<int>(bytes), MPI_BYTE, a, 1, MPI_COMM_WORLD);
    }
  };
  double best = INFINITY;
  for (int rep = 0; rep < kReps; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    round_trip();
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) round_trip();
    double t = w.rank == a ? (MPI_Wtime() - t0) / (2.0 * iters) : 0, at_a = 0;
    MPI_Allreduce(&t, &at_a, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, at_a);
  }
  return best;
}

// Every (src, dst) pair sends `bytes` at once; seconds until the last one arrived (the mean of
// `iters` such rounds back to back: the ranks leave the barrier at different times, and a short
// exchange timed once would measure that).
double flows(const World &w, const std::vector<std::pair<int, int>> &pairs, std::size_t bytes,
             int iters = 1) {
  std::size_t mine = 0;  // receives of this rank: each into its own part of the buffer
  bool sends = false;
  for (const auto &pr : pairs) {
    mine += pr.second == w.rank ? 1 : 0;
    sends = sends || pr.first == w.rank;
  }
  char *buf = mine > 0 || sends ? buffer(bytes * (mine + 1) + 1) : nullptr;
  return timed([&] {
           for (int it = 0; it < iters; ++it) {
             std::vector<MPI_Request> req;
             std::size_t at = bytes;
             for (const auto &[s, d] : pairs) {
               if (w.rank == d) {
                 req.emplace_back();
                 MPI_Irecv(buf + at, static_cast<int>(bytes), MPI_BYTE, s, 2, MPI_COMM_WORLD,
                           &req.back());
                 at += bytes;
               }
               if (w.rank == s) {
                 req.emplace_back();
                 MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, d, 2, MPI_COMM_WORLD,
                           &req.back());
               }
             }
             MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
           }
         }) /
         iters;
}

// Rank a exchanges 8 bytes with each of `peers` at once (each peer with a alone).
double exchange(const World &w, int a, const std::vector<int> &peers) {
  std::vector<std::pair<int, int>> pairs;
  for (int p : peers) {
    pairs.emplace_back(a, p);
    pairs.emplace_back(p, a);
  }
  return flows(w, pairs, 8, 20);
}

struct Level {
  double latency = 0, overhead = 0, bandwidth = 0, rank_bandwidth = 0;
  bool measured = false;
};

// Latency, overhead and one flow's bandwidth between ranks a and b; `peers`: ranks of the same
// kind as b for the overhead (a exchanges with all of them at once).
Level level(const World &w, int a, int b, const std::vector<int> &peers) {
  Level l;
  l.measured = true;
  l.latency = one_way(w, a, b, 8);
  const double t1 = one_way(w, a, b, 256 * 1024), t2 = one_way(w, a, b, 2 * 1024 * 1024);
  l.bandwidth = t2 > t1 ? double(2 * 1024 * 1024 - 256 * 1024) / (t2 - t1) : INFINITY;
  l.rank_bandwidth = l.bandwidth;
  if (peers.size() >= 2) {
    // The rate one rank moves several flows at once, in and out: up to 7 peers.
    const std::size_t k = std::min<std::size_t>(7, peers.size());
    std::vector<std::pair<int, int>> in, out;
    for (std::size_t i = 0; i < k; ++i) {
      in.emplace_back(peers[i], a);
      out.emplace_back(a, peers[i]);
    }
    const double bytes = double(k) * double(kFlowBytes);
    const double both =
        std::min(bytes / flows(w, in, kFlowBytes, 4), bytes / flows(w, out, kFlowBytes, 4));
    // Serial unless clearly more than one flow's rate (a rank's own copies in practice); no
    // limit (inf) where k flows at once each kept one flow's rate.
    if (both >= 0.9 * double(k) * l.bandwidth)
      l.rank_bandwidth = INFINITY;
    else if (both > 1.25 * l.bandwidth)
      l.rank_bandwidth = both;
  }
  if (peers.size() >= 2) {
    const double one = exchange(w, a, {peers[0]});
    const double many = exchange(w, a, peers);
    // 2 messages per peer posted by `a`; the extra peers' messages cost what `a` spends on them.
    l.overhead = std::max(0.0, (many - one) / (2.0 * double(peers.size() - 1)));
  }
  return l;
}

double reduce_bandwidth() {
  if (kSimulated) return INFINITY;  // SMPI here simulates no computation: reductions are free
  const std::size_t n = (4u << 20) / sizeof(double);
  std::vector<double> a(n, 1.0), c(n, 2.0);
  const pcoll::Reducer reducer(MPI_DOUBLE, sizeof(double), MPI_SUM);
  const double t = timed([&] { reducer.apply(a.data(), c.data(), n, true); });
  return t > 0 ? double(n * sizeof(double)) / t : INFINITY;
}

double copy_bandwidth() {
  if (kSimulated) return INFINITY;  // as for reductions: a local copy costs no simulated time
  const std::size_t n = 4u << 20;
  std::vector<char> a(n, 1), c(n, 2);
  volatile char sink = 0;  // the copy is read, so it cannot be left out
  const double t = timed([&] {
    std::memcpy(c.data(), a.data(), n);
    sink = sink + c[n / 2];
  });
  return t > 0 ? double(n) / t : INFINITY;
}

// The node segment's costs ([shm]): the ranks of each node map one window
// (MPI_Win_allocate_shared, as portable as pcoll's segment is not, and enough to measure it):
// per rank a 64-byte flag line and kShmBytes of data.
//   flag_latency: ranks 0 and 1 of node 0 raise flags in turn (each waits for the other's
//     value, then raises its own); half the time of such a round trip.
//   copy_bandwidth: node 0's first rank alone copies kShmBytes from its memory into its area.
//   node_bandwidth: every rank of every node copies kShmBytes into its area at once; node 0's
//     bytes over the time.
// Not measured in a simulation (SMPI would not charge the memory) or with one rank per node.
struct ShmCosts {
  double flag_latency = 0, copy = 0, node = 0;
  bool measured = false;
};
constexpr std::size_t kShmBytes = 4u << 20;
constexpr std::size_t kShmLine = 64;

ShmCosts shm_costs(const World &w) {
  ShmCosts c;
  if (kSimulated) return c;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int me = 0, n = 1;
  MPI_Comm_rank(node, &me);
  MPI_Comm_size(node, &n);
  const bool node0 = w.node_of[static_cast<std::size_t>(w.rank)] == 0;
  const int rpn0 = static_cast<int>(w.nodes[0].size());
  if (rpn0 < 2) {
    MPI_Comm_free(&node);
    return c;
  }
  char *mine = nullptr;
  MPI_Win win;
  MPI_Win_allocate_shared(static_cast<MPI_Aint>(kShmLine + kShmBytes), 1, MPI_INFO_NULL, node,
                          &mine, &win);
  auto base_of = [&](int r) {
    MPI_Aint size = 0;
    int unit = 1;
    char *b = nullptr;
    MPI_Win_shared_query(win, r, &size, &unit, &b);
    return b;
  };
  auto flag = [](char *line) { return reinterpret_cast<std::atomic<std::uint64_t> *>(line); };
  flag(mine)->store(0, std::memory_order_relaxed);
  std::memset(mine + kShmLine, 0, kShmBytes);  // (the pages are touched before any timing)
  MPI_Barrier(MPI_COMM_WORLD);
  std::atomic<std::uint64_t> *f0 = flag(base_of(0)), *f1 = flag(base_of(std::min(1, n - 1)));
  auto wait_for = [](std::atomic<std::uint64_t> *f, std::uint64_t v) {
    for (long i = 0; f->load(std::memory_order_acquire) < v; ++i)
      if (i > 1000) sched_yield();  // (ranks sharing a core)
  };
  constexpr int kRounds = 2000;
  std::uint64_t seq = 0;
  const bool pinger = node0 && me == 0, ponger = node0 && me == 1;
  c.flag_latency = timed([&] {
                     for (int i = 0; i < kRounds; ++i) {
                       ++seq;
                       if (pinger) {
                         f0->store(seq, std::memory_order_release);
                         wait_for(f1, seq);
                       } else if (ponger) {
                         wait_for(f0, seq);
                         f1->store(seq, std::memory_order_release);
                       }
                     }
                   }) /
                   (2.0 * kRounds);
  std::vector<char> src(kShmBytes, 3);
  volatile char sink = 0;
  auto copy_in = [&] {
    std::memcpy(mine + kShmLine, src.data(), kShmBytes);
    sink = sink + mine[kShmLine + kShmBytes / 2];
  };
  const double alone = timed([&] {
    if (pinger) copy_in();
  });
  const double all = timed(copy_in);
  c.copy = alone > 0 ? double(kShmBytes) / alone : INFINITY;
  c.node = all > 0 ? double(rpn0) * double(kShmBytes) / all : INFINITY;
  c.measured = true;
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
  return c;
}

std::string number(double v) {
  if (std::isinf(v)) return "inf";
  char s[32];
  std::snprintf(s, sizeof s, "%.4g", v);
  return s;
}

std::string library() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string s(lib, static_cast<std::size_t>(len));
  s = s.substr(0, s.find_first_of("\r\n"));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  std::string out;
  for (char ch : s) out += ch == '"' ? '\'' : ch;
  return out;
}

}  // namespace

int calibrate(const std::string &path, const std::string &machine, const std::string &command,
              const std::vector<int> &torus_dims, bool quiet) {
  const World w = world();
  const int nodes = static_cast<int>(w.nodes.size());
  const std::vector<int> &n0 = w.nodes[0];
  const int rpn = static_cast<int>(n0.size());
  auto say = [&](const std::string &what) {
    if (w.rank == 0 && !quiet) std::fprintf(stderr, "collprobe --calibrate: %s\n", what.c_str());
  };
  say(std::to_string(nodes) + " node(s), " + std::to_string(rpn) + " ranks on node 0" +
      (kSimulated ? " (simulated)" : ""));

  // Intra-node: ranks 0 and 1 of node 0, the overhead with up to 16 peers of the node.
  Level intra;
  if (rpn >= 2) {
    std::vector<int> peers(n0.begin() + 1, n0.begin() + std::min<std::ptrdiff_t>(rpn, 17));
    intra = level(w, n0[0], n0[1], peers);
  }
  say("intra-node latency " + number(intra.latency) + " s, bandwidth " + number(intra.bandwidth) +
      ", one rank's flows together " + number(intra.rank_bandwidth));

  Level inter;
  double link = 0, pair = 0;
  struct TierRow {
    int nodes = 0;
    double bandwidth = INFINITY, spread = INFINITY, latency = 0;
  };
  std::vector<TierRow> tiers;
  pcoll::Torus torus;
  if (nodes >= 2) {
    const std::vector<int> &n1 = w.nodes[1];
    std::vector<int> peers;  // one rank of each other node, then more of node 1
    for (int k = 1; k < nodes && peers.size() < 16; ++k) peers.push_back(w.nodes[k][0]);
    for (std::size_t i = 1; i < n1.size() && peers.size() < 16; ++i) peers.push_back(n1[i]);
    inter = level(w, n0[0], n1[0], peers);
    say("inter-node latency " + number(inter.latency) + " s, bandwidth " + number(inter.bandwidth) +
        ", one rank's flows together " + number(inter.rank_bandwidth));
    // Node 0's link: every rank of node 0 to a rank of another node, spread over the nodes.
    std::vector<std::pair<int, int>> spread, partner;
    for (int i = 0; i < rpn; ++i) {
      const int dn = 1 + i % (nodes - 1);
      const std::vector<int> &d = w.nodes[static_cast<std::size_t>(dn)];
      spread.emplace_back(n0[static_cast<std::size_t>(i)],
                          d[static_cast<std::size_t>((i / (nodes - 1)) % int(d.size()))]);
      partner.emplace_back(n0[static_cast<std::size_t>(i)],
                           n1[static_cast<std::size_t>(i) % n1.size()]);
    }
    link = double(rpn) * double(kFlowBytes) / flows(w, spread, kFlowBytes);
    pair = double(rpn) * double(kFlowBytes) / flows(w, partner, kFlowBytes);
    say("node link " + number(link) + " B/s, node to node " + number(pair) + " B/s");
    if (!torus_dims.empty()) {
      // A torus: one node per hop count from node 0, the latency's slope over the hops.
      torus.dims = torus_dims;
      torus.link_bandwidth = pair;
      std::vector<double> h, l;
      std::vector<bool> seen(64, false);
      for (int n = 1; n < nodes; ++n) {
        const int hops = torus.hops(0, n);
        if (hops >= int(seen.size()) || seen[static_cast<std::size_t>(hops)]) continue;
        seen[static_cast<std::size_t>(hops)] = true;
        h.push_back(hops);
        l.push_back(one_way(w, n0[0], w.nodes[static_cast<std::size_t>(n)][0], 8));
      }
      if (h.size() >= 2) {
        double mh = 0, ml = 0, shh = 0, shl = 0;
        for (std::size_t i = 0; i < h.size(); ++i) mh += h[i] / double(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) ml += l[i] / double(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) {
          shh += (h[i] - mh) * (h[i] - mh);
          shl += (h[i] - mh) * (l[i] - ml);
        }
        torus.hop_latency = std::max(0.0, shl / shh);
      }
      say("torus of " + std::to_string(torus.points()) + " points: link " +
          number(torus.link_bandwidth) + " B/s, " + number(torus.hop_latency) +
          " s per hop over " + std::to_string(h.size()) + " hop counts" +
          (h.size() < 2 ? " (too few nodes to fit: 0)" : ""));
    }
    // Groups of k consecutive nodes (a torus has its own description instead).
    double lat_prev = inter.latency;
    for (int k = 2; torus_dims.empty() && 2 * k <= nodes; k *= 2) {
      std::vector<std::pair<int, int>> next, all;
      const int groups = nodes / k;
      for (int j = 0; j < k; ++j) {
        const std::vector<int> &src = w.nodes[static_cast<std::size_t>(j)];
        const std::vector<int> &dst = w.nodes[static_cast<std::size_t>(j + k)];
        for (std::size_t i = 0; i < src.size(); ++i) {
          next.emplace_back(src[i], dst[i % dst.size()]);
          const int g = 1 + static_cast<int>(i) % (groups - 1);  // another group, round robin
          const std::vector<int> &far = w.nodes[static_cast<std::size_t>(g * k + j)];
          all.emplace_back(src[i], far[i % far.size()]);
        }
      }
      const double bytes = double(next.size()) * double(kFlowBytes);
      TierRow t;
      t.nodes = k;
      t.bandwidth = bytes / flows(w, next, kFlowBytes);
      t.spread = groups > 2 ? bytes / flows(w, all, kFlowBytes) : t.bandwidth;
      const double lat = one_way(w, n0[0], w.nodes[static_cast<std::size_t>(k)][0], 8);
      t.latency = std::max(0.0, lat - lat_prev);
      lat_prev = std::max(lat, lat_prev);
      // What the group could carry were this no tier: its nodes' links, or the groups of the
      // last tier found it is made of (groups of 16 over two 8-node groups' links are no tier
      // of their own).
      double links = double(k) * std::min(link, pair);
      for (const TierRow &below : tiers)
        if (!std::isinf(below.bandwidth))
          links = std::min(links, double(k / below.nodes) * below.bandwidth);
      // Narrower when the group's links to one other group carry less than its nodes' links
      // together. (A spread over all other groups crosses every wider tier too: narrow there
      // alone is the wider tier's, measured at its own k.)
      const bool narrow = t.bandwidth < 0.75 * links;
      const bool later = t.latency > std::max(50e-9, 0.05 * inter.latency);
      say("groups of " + std::to_string(k) + " nodes: " + number(t.bandwidth) +
          " B/s to one other, " + number(t.spread) + " to all, +" + number(t.latency) + " s" +
          (narrow || later ? "" : " (not a tier)"));
      if (!narrow) t.bandwidth = t.spread = INFINITY;
      if (!later) t.latency = 0;
      if (narrow || later) tiers.push_back(t);
    }
  }
  if (!torus_dims.empty() && nodes < 2) say("one node: --torus ignored, no [torus] measured");
  const double red = reduce_bandwidth();
  say("reduction " + number(red) + " B/s");
  const double copy = copy_bandwidth();
  say("local copy " + number(copy) + " B/s");
  const ShmCosts shm = shm_costs(w);
  if (shm.measured)
    say("node segment: flag " + number(shm.flag_latency) + " s, one rank copies " +
        number(shm.copy) + " B/s, node 0's ranks together " + number(shm.node) + " B/s");

  if (w.rank != 0) return 0;
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "collprobe --calibrate: cannot write %s\n", path.c_str());
    return 1;
  }
  char host[256] = "?";
  gethostname(host, sizeof host);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", std::gmtime(&now));
  std::fprintf(f,
               "# pcoll machine description, measured by collprobe --calibrate "
               "(scripts/pcoll-calibrate.sh).\n[origin]\ntool = \"pcoll-calibrate\"\n");
  std::fprintf(f, "date = \"%s\"\nmachine = \"%s\"\nmpi = \"%s\"\n", date,
               machine.empty() ? host : machine.c_str(), library().c_str());
  std::fprintf(f, "ranks = %d\nnodes = %d\nranks_per_node = %d\ncommand = \"%s\"\n", w.size, nodes,
               rpn, command.c_str());
  if (kSimulated)
    std::fprintf(f,
                 "note = \"simulated (SimGrid SMPI): computation costs no simulated time, so "
                 "the reduction is free\"\n");
  const pcoll::Machine *builtin = nullptr;
  std::string error;
  const auto fallback = pcoll::load_machine("builtin", &error);
  builtin = fallback.get();
  if (nodes < 2)
    std::fprintf(f,
                 "note_inter = \"one node: [inter] is the built-in description's, not "
                 "measured\"\n");
  if (rpn < 2)
    std::fprintf(f,
                 "note_intra = \"one rank per node: [intra] is the built-in description's, "
                 "not measured\"\n");
  auto level_out = [&](const char *name, const Level &l, const pcoll::LinkLevel &def) {
    std::fprintf(f, "\n[%s]\nlatency = %s\noverhead = %s\nbandwidth = %s\n", name,
                 number(l.measured ? l.latency : def.latency).c_str(),
                 number(l.measured ? l.overhead : def.overhead).c_str(),
                 number(l.measured ? l.bandwidth : def.bandwidth).c_str());
    const double rb = l.measured ? l.rank_bandwidth : def.rank_bandwidth;
    const double bw = l.measured ? l.bandwidth : def.bandwidth;
    if (rb > bw) std::fprintf(f, "rank_bandwidth = %s\n", number(rb).c_str());
  };
  level_out("intra", intra, builtin->intra);
  level_out("inter", inter, builtin->inter);
  std::fprintf(f, "link_bandwidth = %s\n",
               number(nodes >= 2 ? link : builtin->link_bandwidth).c_str());
  if (nodes >= 2) std::fprintf(f, "pair_bandwidth = %s\n", number(pair).c_str());
  for (const TierRow &t : tiers) {
    std::fprintf(f, "\n[[tier]]\nnodes = %d\n", t.nodes);
    if (!std::isinf(t.bandwidth))
      std::fprintf(f, "bandwidth = %s\nspread_bandwidth = %s\n", number(t.bandwidth).c_str(),
                   number(t.spread).c_str());
    if (t.latency > 0) std::fprintf(f, "latency = %s\n", number(t.latency).c_str());
  }
  if (torus.present()) {
    std::fprintf(f, "\n[torus]\ndims = [");
    for (std::size_t i = 0; i < torus.dims.size(); ++i)
      std::fprintf(f, "%s%d", i ? ", " : "", torus.dims[i]);
    std::fprintf(f, "]\nlink_bandwidth = %s\nhop_latency = %s\n",
                 number(torus.link_bandwidth).c_str(), number(torus.hop_latency).c_str());
  }
  std::fprintf(f, "\n[reduce]\nbandwidth = %s\n", number(red).c_str());
  std::fprintf(f, "\n[copy]\nbandwidth = %s\n", number(copy).c_str());
  if (shm.measured)
    std::fprintf(f, "\n[shm]\nflag_latency = %s\ncopy_bandwidth = %s\nnode_bandwidth = %s\n",
                 number(shm.flag_latency).c_str(), number(shm.copy).c_str(),
                 number(shm.node).c_str());
  std::fclose(f);
  // The file must be one pcoll accepts.
  const auto back = pcoll::load_machine(path, &error);
  if (!back) {
    std::fprintf(stderr, "collprobe --calibrate: wrote a file pcoll rejects: %s\n", error.c_str());
    return 1;
  }
  if (!quiet) std::fprintf(stderr, "collprobe --calibrate: wrote %s\n", path.c_str());
  return 0;
}

}  // namespace collprobe

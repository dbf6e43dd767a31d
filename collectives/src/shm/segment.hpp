// The node segment: memory that every rank of one node maps, through which pcoll's shared-memory
// plans move data without point-to-point messages (Buf::node in plan.hpp).
//
// Why POSIX shared memory and not MPI_Win_allocate_shared: MPI_Win_free is collective, and a
// context is deleted at a rank-local moment (the release of its last operation, which may come
// long after MPI_Comm_free when operations were outstanding: context.hpp). A collective free at a
// local moment would hang. shm_open + mmap is created collectively (with the context, which is
// collective anyway) and unmapped locally; the object is unlinked as soon as every rank of the
// node has mapped it, so nothing is left in /dev/shm even if the job is killed later.
//
// Layout: a page of header, then per channel one 64-byte line per rank (the channel's line area,
// Buf::line in plan.hpp), then `channels` data areas of `channel_bytes` each, page aligned. Rank
// q's line of a channel is written only by rank q: its first 56 bytes carry a payload, its last 8
// the rank's flag of the channel (an atomic 64-bit counter). A small call's data travels in the
// flag's own cache line: the reader that sees the flag raised has the data in the same fetch,
// where data in the data area is one more dependent line transfer after the flag's.
//
// Channels and flags. Calls on a communicator are issued in the same order on every rank, so the
// n-th shared-memory call of a context has the same number n everywhere: it uses channel n mod C
// (two calls in flight at once use different ones) at generation g = n div C. A plan's signal s
// (Round::signal, 1..kMaxSignal) is stored as g * kStride + s, and a wait for s is satisfied by
// any value >= g * kStride + s. When a rank's plan ends it stores g * kStride + kDone; before a
// rank touches the channel's area for generation g it waits until every rank of the node has
// stored (g - 1) * kStride + kDone: nobody still reads or writes what the previous call left
// there. Values only grow, so a reader never mistakes an old call's flag for a new one.
//
// Waiting: a flag is polled `spin` times, then the rank yields the core between polls
// (sched_yield), so that oversubscribed runs (more ranks than cores) do not starve the rank they
// wait for.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace pcoll {

class NodeSegment {
 public:
  static constexpr std::uint64_t kStride = std::uint64_t{1} << 32;
  static constexpr std::uint64_t kDone = kStride - 1;
  static constexpr int kMaxSignal = 1 << 30;

  // Collective over `node`, whose ranks must share memory (MPI_COMM_TYPE_SHARED). Returns null
  // and sets *why on failure on any rank (then on every rank: the outcome is agreed).
  static std::unique_ptr<NodeSegment> create(MPI_Comm node, std::size_t channel_bytes,
                                             int channels, std::string *why);
  // For the protocol's unit tests: `ranks` views of one anonymous shared mapping, one per rank,
  // made without MPI (threads or forked processes stand in for the ranks).
  static std::unique_ptr<NodeSegment> view(void *base, int rank, int ranks,
                                           std::size_t channel_bytes, int channels);
  static std::size_t mapping_bytes(int ranks, std::size_t channel_bytes, int channels);

  ~NodeSegment();
  NodeSegment(const NodeSegment &) = delete;
  NodeSegment &operator=(const NodeSegment &) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int channels() const { return channels_; }
  std::size_t channel_bytes() const { return channel_bytes_; }
  char *data(int channel) const {
    return static_cast<char *>(base_) + data_offset_ + std::size_t(channel) * channel_bytes_;
  }
  // The channel's line area: rank q's line at q * kLine, its payload the first kLinePayload bytes.
  char *lines(int channel) const {
    return static_cast<char *>(base_) + kHeaderBytes +
           std::size_t(channel) * std::size_t(ranks_) * kLine;
  }
  std::atomic<std::uint64_t> &flag(int rank, int channel) const {
    return *reinterpret_cast<std::atomic<std::uint64_t> *>(lines(channel) +
                                                           std::size_t(rank) * kLine + kLinePayload);
  }

  static constexpr std::size_t kLine = 64;
  static constexpr std::size_t kLinePayload = kLine - sizeof(std::uint64_t);

 private:
  static constexpr std::size_t kHeaderBytes = 4096;
  NodeSegment() = default;
  void lay_out(void *base, std::size_t bytes, bool owned, int rank, int ranks,
               std::size_t channel_bytes, int channels);
  void *base_ = nullptr;
  std::size_t bytes_ = 0;
  bool owned_ = false;  // unmapped by the destructor
  int rank_ = 0, ranks_ = 1, channels_ = 0;
  std::size_t channel_bytes_ = 0, data_offset_ = 0;
};

// One shared-memory call's use of a channel: what the executor needs to wait and signal.
struct NodeChannel {
  const NodeSegment *seg = nullptr;
  int channel = 0;
  std::uint64_t base = 0;  // generation * kStride
  long long spin = 0;      // polls before yielding
  bool known_free = false;  // every rank is done with the previous generation: the
                            // executor skips the entry check (NodeSequence)
  char *data() const { return seg->data(channel); }
  char *lines() const { return seg->lines(channel); }
  // Whether node rank `peer` has raised its flag to signal `s` of this call (acquire).
  bool reached(int peer, std::uint64_t s) const {
    return seg->flag(peer, channel).load(std::memory_order_acquire) >= base + s;
  }
  void raise(std::uint64_t s) const {
    seg->flag(seg->rank(), channel).store(base + s, std::memory_order_release);
  }
  // Every rank of the node is done with this channel's previous generation.
  bool previous_done(int peer) const {
    return base == 0 ||
           seg->flag(peer, channel).load(std::memory_order_acquire) >= base - 1;  // (g-1)*S+kDone
  }
  void finish() const { raise(NodeSegment::kDone); }
};

// The order of one communicator's shared-memory calls: the n-th takes channel n mod C at
// generation n div C. A call is also known to find its channel free, and skips the wait for
// every rank to be done with the channel's previous generation (one cache line fetched from
// each peer, on the critical path of every small call), when the two calls before it were
// blocking and the last one's plan waited for every peer. Blocking is the same on every rank (a
// blocking collective matches only a blocking one), so each peer finished call n - 2 before it
// started n - 1, and this rank, having completed n - 1, heard from each of them in it; with two
// channels n - 2 is the previous generation of n's channel.
class NodeSequence {
 public:
  NodeChannel next(const NodeSegment *seg, long long spin, bool blocking,
                   bool waits_for_every_peer) {
    NodeChannel ch;
    ch.seg = seg;
    const auto c = static_cast<std::uint64_t>(seg->channels());
    ch.channel = static_cast<int>(n_ % c);
    ch.base = n_ / c * NodeSegment::kStride;
    ch.spin = spin;
    ch.known_free = c == 2 && last_heard_all_ && before_blocking_;
    before_blocking_ = last_blocking_;
    last_blocking_ = blocking;
    last_heard_all_ = blocking && waits_for_every_peer;
    ++n_;
    return ch;
  }

 private:
  std::uint64_t n_ = 0;  // calls issued
  bool last_heard_all_ = false, last_blocking_ = false, before_blocking_ = false;
};

void yield_core();  // sched_yield

// Lets the vendor MPI progress (an MPI_Iprobe on `comm`, which receives nothing; MPI_COMM_NULL:
// none). A rank polling flags makes no MPI call, so without it the program's own nonblocking
// point-to-point messages would not move (Open MPI and MPICH progress inside MPI calls): a
// rendezvous Isend a peer waits for, while that peer is what this rank's flags wait for, is a
// deadlock (MPICH's nonblocking3 test hung at P = 3 so).
void poke_vendor_progress(MPI_Comm comm);

// After the n-th poll of a flag (from 0) came back unready: pokes the vendor's progress (every
// poll once the rank yields, every 64th while it spins) and, from poll `spin` on, yields the
// core. The one spin-then-yield policy of blocking waits and nonblocking cursors alike.
inline void idle_poll(long long n, long long spin, MPI_Comm comm) {
  if (n >= spin || (n & 63) == 63) poke_vendor_progress(comm);
  if (n >= spin) yield_core();
}

// Polls `ready` until it is true, idle_poll after each unready poll.
template <class Ready>
void wait_until(Ready ready, long long spin, MPI_Comm comm) {
  for (long long i = 0; !ready(); ++i) idle_poll(i, spin, comm);
}

}  // namespace pcoll

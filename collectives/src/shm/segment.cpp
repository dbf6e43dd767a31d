#include "segment.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

namespace pcoll {

namespace {
constexpr std::size_t kPage = 4096;
std::size_t page_up(std::size_t n) { return (n + kPage - 1) / kPage * kPage; }
std::atomic<unsigned> g_segments{0};  // names of this process's segments
}  // namespace

void yield_core() { sched_yield(); }

void poke_vendor_progress(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return;  // (the protocol's unit tests: threads, no MPI)
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
}

std::size_t NodeSegment::mapping_bytes(int ranks, std::size_t channel_bytes, int channels) {
  const std::size_t flags = std::size_t(ranks) * std::size_t(channels) * kLine;
  return kHeaderBytes + page_up(flags) + std::size_t(channels) * page_up(channel_bytes);
}

void NodeSegment::lay_out(void *base, std::size_t bytes, bool owned, int rank, int ranks,
                          std::size_t channel_bytes, int channels) {
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
                "flags in shared memory need lock-free 64-bit atomics");
  base_ = base;
  bytes_ = bytes;
  owned_ = owned;
  rank_ = rank;
  ranks_ = ranks;
  channels_ = channels;
  channel_bytes_ = page_up(channel_bytes);
  data_offset_ = kHeaderBytes + page_up(std::size_t(ranks) * std::size_t(channels) * kLine);
}

std::unique_ptr<NodeSegment> NodeSegment::view(void *base, int rank, int ranks,
                                               std::size_t channel_bytes, int channels) {
  std::unique_ptr<NodeSegment> s(new NodeSegment());
  s->lay_out(base, mapping_bytes(ranks, channel_bytes, channels), false, rank, ranks,
             channel_bytes, channels);
  return s;
}

std::unique_ptr<NodeSegment> NodeSegment::create(MPI_Comm node, std::size_t channel_bytes,
                                                 int channels, std::string *why) {
  int rank = 0, ranks = 1;
  PMPI_Comm_rank(node, &rank);
  PMPI_Comm_size(node, &ranks);
  const std::size_t bytes = mapping_bytes(ranks, channel_bytes, channels);
  // Rank 0 names, creates and sizes the object; the name travels in a fixed buffer.
  char name[64] = {0};
  int ok = 1;
  std::string err;
  if (rank == 0) {
    std::snprintf(name, sizeof name, "/pcoll-%ld-%u", static_cast<long>(getpid()),
                  g_segments.fetch_add(1));
    // The object's pages are allocated when first touched: one /dev/shm cannot hold would be
    // a SIGBUS in a collective later (containers often mount 64 MiB). Refuse it here instead.
    struct statvfs fs {};
    const bool room = statvfs("/dev/shm", &fs) != 0 ||
                      static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize) >=
                          static_cast<double>(bytes);
    const int fd = room ? shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600) : -1;
    if (!room) {
      ok = 0;
      err = "/dev/shm has " + std::to_string(fs.f_bavail * fs.f_frsize >> 20) +
            " MiB free, the segment needs " + std::to_string(bytes >> 20) +
            " MiB (PCOLL_SHM_SEGMENT sets the bytes per rank)";
    } else if (fd < 0) {
      ok = 0;
      err = std::string("shm_open: ") + std::strerror(errno);
    } else {
      if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        ok = 0;
        err = std::string("ftruncate: ") + std::strerror(errno);
        shm_unlink(name);
      }
      close(fd);
    }
  }
  PMPI_Bcast(&ok, 1, MPI_INT, 0, node);
  if (!ok) {
    if (why) *why = rank == 0 ? err : "rank 0 of the node could not create it";
    return nullptr;
  }
  PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, node);
  void *base = MAP_FAILED;
  const int fd = shm_open(name, O_RDWR, 0600);
  if (fd >= 0) {
    base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
  }
  if (base == MAP_FAILED) err = std::string("mapping ") + name + ": " + std::strerror(errno);
  int mapped = base != MAP_FAILED ? 1 : 0, all = 0;
  PMPI_Allreduce(&mapped, &all, 1, MPI_INT, MPI_MIN, node);  // every rank has opened it
  if (rank == 0) shm_unlink(name);
  if (!all) {
    if (base != MAP_FAILED) munmap(base, bytes);
    if (why) *why = mapped ? "another rank of the node could not map it" : err;
    return nullptr;
  }
  // ftruncate's object is zero-filled: every flag starts at 0 (generation 0, nothing signalled).
  std::unique_ptr<NodeSegment> s(new NodeSegment());
  s->lay_out(base, bytes, true, rank, ranks, channel_bytes, channels);
  return s;
}

NodeSegment::~NodeSegment() {
  if (owned_ && base_ != nullptr) munmap(base_, bytes_);
}

}  // namespace pcoll

#include "collective.hpp"

#include <pcoll/pcoll.h>

#include <algorithm>
#include <stdexcept>

namespace collprobe {

namespace {

struct Named {
  Coll coll;
  const char *name;
};
constexpr Named kColls[] = {{Coll::allreduce, "allreduce"}, {Coll::bcast, "bcast"},
                            {Coll::reduce, "reduce"},       {Coll::barrier, "barrier"},
                            {Coll::allgather, "allgather"}, {Coll::alltoall, "alltoall"}};

constexpr int kRoot = 0;

// Small integers: every partial sum is exact in double, whatever the association, so the exact
// result is known and every correct algorithm gives the same bits.
double input(int rank, std::size_t i) { return double(rank + 1) + double(i % 13); }
// What rank `from` sends to rank `to` in an alltoall (distinct per pair, exact).
double pair_value(int from, int to, std::size_t i) {
  return double(from + 1) * 64.0 + double(to) + double(i % 13);
}

template <class F>
int repeat(int calls, F &&call) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < calls; ++i) rc |= call();
  return rc;
}

}  // namespace

const char *coll_name(Coll c) {
  for (const Named &n : kColls)
    if (n.coll == c) return n.name;
  return "?";
}

std::string coll_names() {
  std::string s;
  for (const Named &n : kColls) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

void print_collectives(std::FILE *f) {
  for (const Named &n : kColls) {
    std::fprintf(f, "%s", n.name);
    for (int i = 0; const char *a = PCOLL_Algorithm_name(n.name, i); ++i)
      if (std::string(a) != "auto") std::fprintf(f, " %s", a);
    std::fprintf(f, "\n");
  }
}

Coll parse_coll(const std::string &name) {
  for (const Named &n : kColls)
    if (name == n.name) return n.coll;
  throw std::invalid_argument("--coll " + name + ": unknown (allowed: " + coll_names() + ")");
}

Buffers::Buffers(Coll c, std::size_t bytes, int rank_, int P_) : coll(c), rank(rank_), P(P_) {
  const std::size_t n = c == Coll::barrier ? 0 : bytes / sizeof(double);
  const std::size_t p = static_cast<std::size_t>(P);
  count = static_cast<int>(n);
  switch (c) {
    case Coll::allreduce:
    case Coll::reduce:
      send.resize(n), recv.resize(n), exact.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        send[i] = input(rank, i);
        exact[i] = P * (P + 1) / 2.0 + double(P) * double(i % 13);
      }
      break;
    case Coll::bcast:
      recv.resize(n), exact.resize(n);
      for (std::size_t i = 0; i < n; ++i) exact[i] = input(kRoot, i);
      break;
    case Coll::allgather:
      send.resize(n), recv.resize(n * p), exact.resize(n * p);
      for (std::size_t i = 0; i < n; ++i) send[i] = input(rank, i);
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t i = 0; i < n; ++i) exact[r * n + i] = input(static_cast<int>(r), i);
      break;
    case Coll::alltoall:
      send.resize(n * p), recv.resize(n * p), exact.resize(n * p);
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t i = 0; i < n; ++i) {
          send[r * n + i] = pair_value(rank, static_cast<int>(r), i);
          exact[r * n + i] = pair_value(static_cast<int>(r), rank, i);
        }
      break;
    case Coll::barrier:
      break;
  }
  poison();
}

void Buffers::poison() {
  std::fill(recv.begin(), recv.end(), -1.0);
  if (coll == Coll::bcast && rank == kRoot) recv = exact;
}

bool Buffers::result_here() const {
  if (coll == Coll::barrier) return false;
  return coll != Coll::reduce || rank == kRoot;
}

int blocking_calls(Coll c, bool pcoll, Buffers &b, MPI_Comm comm, int calls) {
  const double *s = b.send.data();
  double *r = b.recv.data();
  const int n = b.count;
  switch (c) {
    case Coll::allreduce:
      return pcoll ? repeat(calls, [&] { return PCOLL_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm); })
                   : repeat(calls, [&] { return PMPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm); });
    case Coll::bcast:
      return pcoll ? repeat(calls, [&] { return PCOLL_Bcast(r, n, MPI_DOUBLE, kRoot, comm); })
                   : repeat(calls, [&] { return PMPI_Bcast(r, n, MPI_DOUBLE, kRoot, comm); });
    case Coll::reduce:
      return pcoll ? repeat(calls,
                            [&] { return PCOLL_Reduce(s, r, n, MPI_DOUBLE, MPI_SUM, kRoot, comm); })
                   : repeat(calls,
                            [&] { return PMPI_Reduce(s, r, n, MPI_DOUBLE, MPI_SUM, kRoot, comm); });
    case Coll::barrier:
      return pcoll ? repeat(calls, [&] { return PCOLL_Barrier(comm); })
                   : repeat(calls, [&] { return PMPI_Barrier(comm); });
    case Coll::allgather:
      return pcoll ? repeat(calls,
                            [&] {
                              return PCOLL_Allgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm);
                            })
                   : repeat(calls, [&] {
                       return PMPI_Allgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm);
                     });
    case Coll::alltoall:
      return pcoll ? repeat(calls,
                            [&] {
                              return PCOLL_Alltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm);
                            })
                   : repeat(calls, [&] {
                       return PMPI_Alltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm);
                     });
  }
  return MPI_ERR_OTHER;
}

int start_nonblocking(Coll c, bool pcoll, Buffers &b, MPI_Comm comm, MPI_Request *q) {
  const double *s = b.send.data();
  double *r = b.recv.data();
  const int n = b.count;
  switch (c) {
    case Coll::allreduce:
      return pcoll ? PCOLL_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm, q)
                   : PMPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm, q);
    case Coll::bcast:
      return pcoll ? PCOLL_Ibcast(r, n, MPI_DOUBLE, kRoot, comm, q)
                   : PMPI_Ibcast(r, n, MPI_DOUBLE, kRoot, comm, q);
    case Coll::reduce:
      return pcoll ? PCOLL_Ireduce(s, r, n, MPI_DOUBLE, MPI_SUM, kRoot, comm, q)
                   : PMPI_Ireduce(s, r, n, MPI_DOUBLE, MPI_SUM, kRoot, comm, q);
    case Coll::barrier:
      return pcoll ? PCOLL_Ibarrier(comm, q) : PMPI_Ibarrier(comm, q);
    case Coll::allgather:
      return pcoll ? PCOLL_Iallgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm, q)
                   : PMPI_Iallgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm, q);
    case Coll::alltoall:
      return pcoll ? PCOLL_Ialltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm, q)
                   : PMPI_Ialltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm, q);
  }
  return MPI_ERR_OTHER;
}

int init_persistent(Coll c, Buffers &b, MPI_Comm comm, MPI_Request *q) {
  const double *s = b.send.data();
  double *r = b.recv.data();
  const int n = b.count;
  const MPI_Info i = MPI_INFO_NULL;
  switch (c) {
    case Coll::allreduce:
      return PCOLL_Allreduce_init(s, r, n, MPI_DOUBLE, MPI_SUM, comm, i, q);
    case Coll::bcast:
      return PCOLL_Bcast_init(r, n, MPI_DOUBLE, kRoot, comm, i, q);
    case Coll::reduce:
      return PCOLL_Reduce_init(s, r, n, MPI_DOUBLE, MPI_SUM, kRoot, comm, i, q);
    case Coll::barrier:
      return PCOLL_Barrier_init(comm, i, q);
    case Coll::allgather:
      return PCOLL_Allgather_init(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm, i, q);
    case Coll::alltoall:
      return PCOLL_Alltoall_init(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm, i, q);
  }
  return MPI_ERR_OTHER;
}

}  // namespace collprobe

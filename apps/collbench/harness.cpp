#include "harness.hpp"

#include "options.hpp"

#include <pcoll/pcoll.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace collbench {

namespace {

template <class T>
void set_as(void *buf, std::size_t i, long long v) {
  static_cast<T *>(buf)[i] = static_cast<T>(v);
}

// Rank r's i-th value: 1..13, so sums over up to 2^20 ranks stay exact even in float.
long long value(int r, std::size_t i) {
  return static_cast<long long>((static_cast<std::size_t>(r) * 7 + i) % 13) + 1;
}

// reduce_scatter_block: element j of rank q's P*n input; the term 14*(block mod 64) makes the
// result blocks differ, so a block delivered to the wrong rank is caught. At most 895 per rank:
// sums stay exact in float up to 2^24/895 (about 18700) ranks.
long long rsb_value(int q, std::size_t j, std::size_t n) {
  return value(q, j) + 14 * static_cast<long long>((j / n) % 64);
}

// allgather: element i of rank r's block; different for every rank (1021 is invertible modulo
// the prime 65521), so a misplaced block is caught; below 2^24, so exact in float.
long long gather_value(int r, std::size_t i) {
  return static_cast<long long>((static_cast<std::size_t>(r) * 1021 + i) % 65521) + 1;
}

double allreduce_bus(int P) {
  return P > 1 ? 2.0 * (P - 1) / P : 1.0;
}

// nccl-tests' reduce_scatter and allgather: busBw = algBw * (P-1)/P (algBw of the total size).
double scatter_gather_bus(int P) {
  return P > 1 ? double(P - 1) / P : 1.0;
}

// nccl-tests' size (the P blocks) -> per-rank count.
std::size_t per_rank_count(std::size_t bytes, std::size_t ts, int P) {
  return bytes / (ts * static_cast<std::size_t>(P));
}

}  // namespace

const DataType *find_type(const std::string &name) {
  static const DataType types[] = {
      {"double", MPI_DOUBLE, sizeof(double), set_as<double>},
      {"float", MPI_FLOAT, sizeof(float), set_as<float>},
      {"int", MPI_INT, sizeof(int), set_as<int>},
      {"long", MPI_INT64_T, sizeof(std::int64_t), set_as<std::int64_t>},
  };
  for (const auto &t : types)
    if (name == t.name) return &t;
  return nullptr;
}

const std::vector<CollectiveBench> &collectives() {
  static const std::vector<CollectiveBench> table = {
      {"allreduce", [](std::size_t n, int) { return n; }, [](std::size_t n, int) { return n; },
       [](std::size_t bytes, std::size_t ts, int) { return bytes / ts; },
       [](std::size_t S, int P) { return static_cast<std::size_t>(P) * S; },
       [](int r, std::size_t i, std::size_t, int) { return value(r, i); },
       [](int, std::size_t i, std::size_t, int P) {
         long long s = 0;
         for (int q = 0; q < P; ++q) s += value(q, i);
         return s;
       },
       [](int, std::size_t, int) { return 0LL; },
       [](const void *s, void *r, int n, MPI_Datatype t, MPI_Comm c) {
         return PCOLL_Allreduce(s, r, n, t, MPI_SUM, c);
       },
       [](const void *s, void *r, int n, MPI_Datatype t, MPI_Comm c) {
         return PMPI_Allreduce(s, r, n, t, MPI_SUM, c);
       },
       allreduce_bus},
      // count = recvcount, the per-rank block; input P*count, result count elements.
      {"reduce_scatter_block", [](std::size_t n, int P) { return static_cast<std::size_t>(P) * n; },
       [](std::size_t n, int) { return n; }, per_rank_count, [](std::size_t S, int) { return S; },
       [](int q, std::size_t j, std::size_t n, int) { return rsb_value(q, j, n); },
       [](int r, std::size_t i, std::size_t n, int P) {
         long long s = 0;
         for (int q = 0; q < P; ++q) s += rsb_value(q, static_cast<std::size_t>(r) * n + i, n);
         return s;
       },
       [](int, std::size_t, int) { return 0LL; },  // the whole P*count input, result in front
       [](const void *s, void *r, int n, MPI_Datatype t, MPI_Comm c) {
         return PCOLL_Reduce_scatter_block(s, r, n, t, MPI_SUM, c);
       },
       [](const void *s, void *r, int n, MPI_Datatype t, MPI_Comm c) {
         return PMPI_Reduce_scatter_block(s, r, n, t, MPI_SUM, c);
       },
       scatter_gather_bus},
      // count = sendcount = recvcount, the per-rank block; result P*count elements.
      {"allgather", [](std::size_t n, int) { return n; },
       [](std::size_t n, int P) { return static_cast<std::size_t>(P) * n; }, per_rank_count,
       [](std::size_t S, int) { return S; },
       [](int r, std::size_t i, std::size_t, int) { return gather_value(r, i); },
       [](int, std::size_t i, std::size_t n, int) {
         return gather_value(static_cast<int>(i / n), i % n);
       },
       [](int r, std::size_t n, int) {
         return static_cast<long long>(r) * static_cast<long long>(n);
       },
       [](const void *s, void *r, int n, MPI_Datatype t, MPI_Comm c) {
         return PCOLL_Allgather(s, n, t, r, n, t, c);
       },
       [](const void *s, void *r, int n, MPI_Datatype t, MPI_Comm c) {
         return PMPI_Allgather(s, n, t, r, n, t, c);
       },
       scatter_gather_bus},
  };
  return table;
}

const CollectiveBench *find_collective(const std::string &name) {
  for (const auto &c : collectives())
    if (name == c.name) return &c;
  return nullptr;
}

void Buffers::fill_send(const CollectiveBench &c, const DataType &t, std::size_t count, int rank,
                        int P) {
  const std::size_t n = c.send_elems(count, P);
  send.assign(n * t.size, 0);
  for (std::size_t i = 0; i < n; ++i) t.set(send.data(), i, c.input(rank, i, count, P));
}

void Buffers::fill_expected(const CollectiveBench &c, const DataType &t, std::size_t count,
                            int rank, int P) {
  const std::size_t n = c.recv_elems(count, P);
  expected.assign(n * t.size, 0);
  for (std::size_t i = 0; i < n; ++i) t.set(expected.data(), i, c.expected(rank, i, count, P));
}

void Buffers::prepare(const CollectiveBench &c, const DataType &t, std::size_t count, int rank,
                      int P, bool in_place) {
  const std::size_t off =
      in_place ? static_cast<std::size_t>(c.in_place_offset(rank, count, P)) * t.size : 0;
  recv_bytes = std::max(expected.size(), in_place ? off + send.size() : 0);
  recv.resize(recv_bytes + kGuard);
  std::memset(recv.data(), 0xA5, recv.size());  // poison: a missed element cannot pass
  if (in_place) std::memcpy(recv.data() + off, send.data(), send.size());
}

void Buffers::make_timing_only(const CollectiveBench &c, const DataType &t, std::size_t count,
                               int P) {
  timing_only = true;
  send.clear();
  recv.clear();
  expected.clear();
  const std::size_t send_bytes = c.send_elems(count, P) * t.size;
  recv_bytes = c.recv_elems(count, P) * t.size;
#ifdef PCOLL_SMPI
  // One call site each, so send and receive are distinct shared blocks.
  shared_send = SMPI_SHARED_MALLOC(std::max<std::size_t>(send_bytes, 1));
  shared_recv = SMPI_SHARED_MALLOC(std::max<std::size_t>(recv_bytes, 1) + send_bytes);
#else
  (void)send_bytes;
  throw std::logic_error("collbench: timing-only buffers exist in SMPI builds only");
#endif
}

std::size_t sim_shared_bytes(MPI_Comm comm) {
#ifdef PCOLL_SMPI
  const char *v = nullptr;
  if (PCOLL_Config_get(comm, "sim_shared_bytes", &v) == MPI_SUCCESS && v)
    return static_cast<std::size_t>(parse_size(v));
#else
  (void)comm;
#endif
  return 0;
}

bool Buffers::correct() const {
  if (recv.size() != recv_bytes + kGuard || recv_bytes < expected.size()) return false;
  if (std::memcmp(recv.data(), expected.data(), expected.size()) != 0) return false;
  for (std::size_t k = recv_bytes; k < recv.size(); ++k)
    if (recv[k] != 0xA5) return false;
  return true;
}

}  // namespace collbench

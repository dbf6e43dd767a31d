#include "harness.hpp"

#include <pcoll/pcoll.h>

#include <cstdint>
#include <cstring>

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

double allreduce_bus(int P) {
  return P > 1 ? 2.0 * (P - 1) / P : 1.0;
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
  recv.resize(expected.size());
  std::memset(recv.data(), 0xA5, recv.size());  // poison: a missed element cannot pass
  if (in_place) {
    const long long off = c.in_place_offset(rank, count, P);
    std::memcpy(recv.data() + static_cast<std::size_t>(off) * t.size, send.data(), send.size());
  }
}

}  // namespace collbench

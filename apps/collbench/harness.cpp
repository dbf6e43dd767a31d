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

DataType strided(const DataType &t) {
  DataType s = t;
  MPI_Type_create_resized(t.mpi, 0, static_cast<MPI_Aint>(2 * t.size), &s.mpi);
  MPI_Type_commit(&s.mpi);
  s.stride = 2;
  return s;
}

// The gaps of a strided layout hold the poison byte, in every buffer: a gap written by the
// call differs from `expected` there.
void Buffers::fill_send(const CollectiveBench &c, const DataType &t, std::size_t count, int rank,
                        int P) {
  const std::size_t n = c.in_elems(count, P);
  send.assign(n * t.size * t.stride, t.stride > 1 ? 0xA5 : 0);
  for (std::size_t i = 0; i < n; ++i)
    t.set(send.data(), i * t.stride, c.input(rank, i, count, P));
}

void Buffers::fill_expected(const CollectiveBench &c, const DataType &t, std::size_t count,
                            int rank, int P) {
  const std::size_t n = c.out_elems(count, P);
  expected.assign(n * t.size * t.stride, t.stride > 1 ? 0xA5 : 0);
  for (std::size_t i = 0; i < n; ++i)
    t.set(expected.data(), i * t.stride, c.expected(rank, i, count, P));
}

void Buffers::prepare(const CollectiveBench &c, const DataType &t, std::size_t count, int rank,
                      int P, bool in_place) {
  const std::size_t off =
      in_place ? static_cast<std::size_t>(c.in_place_offset(rank, count, P)) * t.size * t.stride
               : 0;
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
  const std::size_t send_bytes = c.in_elems(count, P) * t.size * t.stride;
  recv_bytes = c.out_elems(count, P) * t.size * t.stride;
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

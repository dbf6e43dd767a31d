// What collbench knows about each collective: one table entry says how many elements the send
// and receive buffers hold, what every input element is, what every output element must be
// (exactly), how to call pcoll, and the busBw factor (nccl-tests). Inputs are small integers,
// so every reduction is exact in every supported type and the expected result is known.
// A new collective is one more entry in collectives() (harness.cpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace collbench {

struct DataType {
  const char *name;
  MPI_Datatype mpi;
  std::size_t size;
  void (*set)(void *buf, std::size_t i, long long v);
};
const DataType *find_type(const std::string &name);

struct CollectiveBench {
  const char *name;  // as in PCOLL_<NAME> and pcoll-info
  // Elements in the send and receive buffers for the `count` argument, P ranks.
  std::size_t (*send_elems)(std::size_t count, int P);
  std::size_t (*recv_elems)(std::size_t count, int P);
  // The `count` argument for a message of `bytes` (elements of the whole vector for allreduce).
  std::size_t (*count_for_bytes)(std::size_t bytes, std::size_t type_size, int P);
  // Send element i of rank r, and receive element i of rank r, exactly.
  long long (*input)(int r, std::size_t i, std::size_t count, int P);
  long long (*expected)(int r, std::size_t i, std::size_t count, int P);
  // MPI_IN_PLACE: where rank r's input sits in the receive buffer (element offset), or -1
  // when the collective has no in-place form.
  long long (*in_place_offset)(int r, std::size_t count, int P);
  int (*call)(const void *send, void *recv, int count, MPI_Datatype t, MPI_Comm comm);
  int (*vendor)(const void *send, void *recv, int count, MPI_Datatype t, MPI_Comm comm);
  double (*bus_factor)(int P);  // busBw = algBw * bus_factor
};
const std::vector<CollectiveBench> &collectives();
const CollectiveBench *find_collective(const std::string &name);

// The buffers of one (collective, count): send, receive and the expected receive content.
struct Buffers {
  std::vector<unsigned char> send, recv, expected;
  void fill_send(const CollectiveBench &c, const DataType &t, std::size_t count, int rank, int P);
  void fill_expected(const CollectiveBench &c, const DataType &t, std::size_t count, int rank,
                     int P);
  // Prepares recv for a call (in place: the input at its place, the rest poisoned).
  void prepare(const CollectiveBench &c, const DataType &t, std::size_t count, int rank, int P,
               bool in_place);
  bool correct() const { return recv == expected; }
};

}  // namespace collbench

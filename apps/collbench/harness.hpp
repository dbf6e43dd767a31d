// What collbench needs of each collective comes from pcoll's collective table
// (collectives/src/registry.hpp, CollectiveInfo): how many elements the send and receive buffers
// hold, what every input element is, what every output element must be (exactly), how to call
// pcoll and the vendor, the in-place layout and the busBw factor (nccl-tests). Inputs are small
// integers, so every reduction is exact in every supported type and the expected result is known.
// A new collective is a new row there; nothing here changes.
//
// Sizes: the `count` argument is the whole vector for allreduce and the per-rank block for
// reduce_scatter_block (recvcount) and allgather (sendcount = recvcount). A message's bytes
// (--sizes, --min/--max, the `size` column) are nccl-tests' size, the larger of the send and
// receive buffers: the whole vector for allreduce, P blocks for the other two; the per-rank
// segment S (--per-rank-segment) is count = P*S for allreduce and count = S for the other two.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "registry.hpp"

namespace collbench {

struct DataType {
  const char *name;
  MPI_Datatype mpi;
  std::size_t size;
  void (*set)(void *buf, std::size_t i, long long v);
  // --layout strided: every element is followed by a gap of one element (mpi is then
  // MPI_Type_create_resized(T, 0, 2 * size)), so pcoll must pack and unpack, and the vendor
  // uses its own datatype engine. Element i lives at byte i * stride * size.
  std::size_t stride = 1;
};
const DataType *find_type(const std::string &name);
// The strided variant of `t` (its datatype committed, never freed: one per run).
DataType strided(const DataType &t);

using CollectiveBench = pcoll::CollectiveInfo;
// The operation every benchmarked reduction uses (inputs are chosen so that sums are exact).
inline const MPI_Op kBenchOp = MPI_SUM;

// The buffers of one (collective, count): send, receive and the expected receive content.
// recv is the receive buffer (larger than expected in place where the input is larger than the
// result) followed by a poisoned guard zone that must stay untouched.
struct Buffers {
  static constexpr std::size_t kGuard = 64;  // bytes
  std::vector<unsigned char> send, recv, expected;
  std::size_t recv_bytes = 0;  // the receive buffer proper, without the guard zone
  void fill_send(const CollectiveBench &c, const DataType &t, std::size_t count, int rank, int P);
  void fill_expected(const CollectiveBench &c, const DataType &t, std::size_t count, int rank,
                     int P);
  // Prepares recv for a call (in place: the input at its place, the rest poisoned).
  void prepare(const CollectiveBench &c, const DataType &t, std::size_t count, int rank, int P,
               bool in_place);
  // The result elements equal the expected ones and the guard zone is untouched (the rest of a
  // larger in-place buffer is the collective's to use).
  bool correct() const;

  // Timing-only buffers for paper-scale simulation (SMPI builds, PCOLL_SIM_SHARED_BYTES): send
  // and receive live in SMPI_SHARED_MALLOC blocks that all simulated ranks share, nothing is
  // filled or checked, and the row says "not verified". Natively it is never used.
  bool timing_only = false;
  void *shared_send = nullptr, *shared_recv = nullptr;
  void make_timing_only(const CollectiveBench &c, const DataType &t, std::size_t count, int P);
  const void *send_data() const { return timing_only ? shared_send : send.data(); }
  void *recv_data() { return timing_only ? shared_recv : recv.data(); }
};

// In SMPI builds, the byte size at and above which collbench's buffers and pcoll's scratch are
// shared timing-only blocks (PCOLL_SIM_SHARED_BYTES, 0 = never); natively always 0.
std::size_t sim_shared_bytes(MPI_Comm comm);

}  // namespace collbench

// The collective collprobe times (--coll): its buffers, their known inputs and exact results,
// and its calls in each form through PMPI or pcoll. One table of switch statements here keeps
// the probe's loops (probe.cpp) the same for every collective.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace collprobe {

enum class Coll { allreduce, bcast, reduce, barrier, allgather, alltoall };

// "allreduce", ... (pcoll's collective names, as PCOLL_Config_push and pcoll-info spell them).
const char *coll_name(Coll c);
// The inverse; throws std::invalid_argument listing the names it knows.
Coll parse_coll(const std::string &name);
// The names, comma-separated (usage text and errors).
std::string coll_names();
// --list: one line per collective, its name then pcoll's algorithms for it (as
// PCOLL_Algorithm_name enumerates them: vendor included, auto not).
void print_collectives(std::FILE *f);

// One size of one collective on one rank: what `bytes` means (OSU's convention, see
// message_doubles), the buffers and the exact result. Roots are rank 0.
//   allreduce, reduce, bcast: the vector of `bytes` (reduce: the sum lands at the root only);
//   allgather: each rank's contribution (the result is P times it);
//   alltoall: what a rank sends to each rank (send and receive P times it);
//   barrier: no data (one row, 0 B).
struct Buffers {
  Coll coll = Coll::allreduce;
  int rank = 0, P = 1;
  int count = 0;                    // the count argument of the call
  std::vector<double> send, recv;   // send unused by bcast (its buffer is recv) and barrier
  std::vector<double> exact;        // what recv holds after a correct call, where it is defined
  Buffers(Coll c, std::size_t bytes, int rank, int P);
  // Before a checked call: recv to a value no correct call leaves (the root's bcast buffer to
  // its data).
  void poison();
  // Whether recv is defined on this rank after the call (reduce: the root only; barrier: never).
  bool result_here() const;
};

// Calls of one collective, `calls` times back to back (one tight loop per collective and path).
int blocking_calls(Coll c, bool pcoll, Buffers &b, MPI_Comm comm, int calls);
// A nonblocking call through pcoll (PCOLL_I*) or PMPI (PMPI_I*).
int start_nonblocking(Coll c, bool pcoll, Buffers &b, MPI_Comm comm, MPI_Request *r);
// A persistent request (PCOLL_*_init).
int init_persistent(Coll c, Buffers &b, MPI_Comm comm, MPI_Request *r);

}  // namespace collprobe

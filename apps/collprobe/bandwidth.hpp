// This machine's local reduction bandwidth, measured in the probe's own run, so that pcoll's
// 1 MiB reduction can be compared with what the memory system gives (the goal: the fast path's
// double sum reaches >= 80% of the STREAM add bandwidth).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace collprobe {

struct Bandwidth {
  std::string name;  // stream_add, reduce_local, pcoll_reduce
  std::string what;  // the kernel, in words
  double best_gbs = 0, median_gbs = 0;
};

// 1 MiB arrays of doubles (a, b, c), every rank at once (as in an allreduce, where all ranks
// reduce together), `reps` timed repetitions after a few untimed ones; one repetition's time is
// the maximum over ranks. GB/s count 3 x 8 B per element (two streams read, one written):
//   stream_add    c[i] = a[i] + b[i]                                 (STREAM's "add")
//   reduce_local  MPI_Reduce_local(a, c, n, MPI_DOUBLE, MPI_SUM)     (c[i] = a[i] + c[i])
//   pcoll_reduce  pcoll's own local reduction (src/reduce.*), same operands
// Collective over comm. Under SimGrid's SMPI (simulated time) nothing is measured: empty.
std::vector<Bandwidth> measure_local_bandwidth(int reps, MPI_Comm comm);

}  // namespace collprobe

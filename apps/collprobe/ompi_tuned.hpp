// Open MPI's coll/tuned forced to one allreduce algorithm per communicator, through MPI_T.
//
// coll/tuned reads its forced-algorithm variables when it builds its module for a new
// communicator (Open MPI 4.1 coll_tuned_module.c: with coll_tuned_use_dynamic_rules set, every
// MPI_Comm_dup re-reads coll_tuned_allreduce_algorithm). So, in one run: write the control
// variable, duplicate the communicator, restore the variable. Each duplicate keeps its forced
// algorithm for life, and every other communicator (the PMPI reference, pcoll's private
// duplicates) is made with the variable at its start value. Where the MPI library is not Open
// MPI with coll/tuned (MPICH, SimGrid's SMPI without MPI_T) there are no forced entries, and
// `note` says why.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace collprobe {

struct ForcedComm {
  std::string label;      // "ompi:ring", "ompi:naive" (= basic_linear), ...
  std::string ompi_name;  // Open MPI's enum name, "basic_linear"
  int value = 0;          // its value of coll_tuned_allreduce_algorithm
  MPI_Comm comm = MPI_COMM_NULL;
};

struct OmpiForced {
  std::vector<ForcedComm> comms;
  std::string note;         // why there are none or what is missing; empty when all is well
  std::string start_value;  // coll_tuned_allreduce_algorithm before we touched it ("ignore")
};

// The Open MPI algorithms the probe forces (by Open MPI's enum name) and their labels: pcoll's
// name where pcoll has the same algorithm, so the report can pair them. segmented_ring is left
// out: with the default segment size 0 it runs exactly `ring` (coll_base_allreduce.c).
struct OmpiAlgorithm {
  const char *ompi_name;
  const char *label;
};
const std::vector<OmpiAlgorithm> &ompi_algorithms();

// Evidence, without timing, that each forced communicator runs what it was told: one allreduce
// of 4P ints with a non-commutative operation (x o y = x, whose rank-ordered result is rank 0's
// value everywhere). Open MPI's own decision never uses ring for such an operation and its other
// algorithms keep the rank order, so "order not kept" on ompi:ring shows that the forced ring ran.
// One line per forced communicator, "ompi:ring: rank order not kept"; collective over base.
std::vector<std::string> order_check(const OmpiForced &f, MPI_Comm base);

// Collective over `base`. Call after MPI_Init and before any other communicator is created that
// must keep Open MPI's default decisions. Never fails the run: problems land in `note`.
OmpiForced make_ompi_forced(MPI_Comm base);
void free_ompi_forced(OmpiForced &f);

}  // namespace collprobe

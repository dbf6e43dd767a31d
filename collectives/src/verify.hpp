// Symbolic execution of a Schedule: instead of numbers, every element carries WHICH ranks'
// contributions it holds, which element of the input vector they are (so misplaced data is
// caught), whether they were combined in rank order, and a hash of the exact
// expression tree (operands and their order). Running all ranks' plans this way proves, without
// MPI and for any P (contributor sets are bit masks of any length) and any count:
//   - every output element of every rank is the reduction of all P inputs, each exactly once;
//   - for algorithms that claim order preservation, the inputs were combined in rank order;
//   - every rank evaluated the same expression in the same operand order, i.e. all ranks get
//     bit-identical results whatever the datatype and op;
//   - no uninitialised scratch memory reaches a result;
//   - every message is sent and received in the same step (Round::step), as the cost model
//     assumes when it charges a node's shared links step by step.
// Buffers are stored as runs of equal values, so counts of 10^5 and more cost no more than small
// counts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "schedule.hpp"

namespace pcoll {

// Output elements [out_off, out_off + len) of a rank must hold input elements
// [src_off, src_off + len) of rank src_rank, from that rank alone; src_rank = kAllRanks: the
// reduction of those input elements over every rank (reduce_scatter's uneven blocks).
constexpr int kAllRanks = -1;
struct ExpectSegment {
  std::size_t out_off = 0, len = 0;
  int src_rank = 0;
  std::size_t src_off = 0;
};

struct VerifyOptions {
  Expect expect;  // the collective's CollectiveInfo::expect (registry.hpp); default: allreduce
  std::size_t count = 0;      // the collective's `count` argument
  bool require_order = true;  // check rank order (for algorithms without needs_commutative)
  int root = 0;               // collectives with a root (bcast, reduce)
  // Per-rank layouts (alltoallv from a count matrix, allgatherv and reduce_scatter from block
  // lengths): when not empty, segments[r] replaces
  // `expect` for rank r, and every output element outside its segments must be left untouched.
  std::vector<std::vector<ExpectSegment>> segments;
};

// Empty string when the schedule is correct, else a description of the first problem found.
std::string verify_schedule(const Schedule &s, const VerifyOptions &opt);

}  // namespace pcoll

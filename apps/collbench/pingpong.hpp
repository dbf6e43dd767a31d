// alpha and beta of the local machine, measured as "Rings, Trees, and Butterflies: HPX
// Collectives" does: ranks 0 and 1 bounce
// a message; one-way time = round trip / 2, batched for small sizes; alpha = the median one-way
// time of an empty message, beta = the slope of a least-squares line through the three largest
// sizes. Other ranks wait.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "stats.hpp"

namespace collbench {

struct PingPongRow {
  std::size_t bytes = 0;
  Stats one_way;  // seconds
};

struct PingPong {
  bool valid = false;  // needs P >= 2
  double alpha = 0, beta = 0;
  std::vector<PingPongRow> rows;
};

PingPong measure_pingpong(MPI_Comm comm);

}  // namespace collbench

// The 3-D block decomposition of the global nx x ny x nz interior grid and the halo exchange
// with the six face neighbours.
#pragma once

#include <mpi.h>

#include <pcoll/kernels/stencil.hpp>

#include <array>
#include <vector>

namespace pcoll::cg {

// Points [first, first + count) of `n` owned by part `idx` of `parts`: the first n % parts parts
// get one more. Pure, so the decomposition is testable without MPI.
struct Range1 {
  int first = 0, count = 0;
};
Range1 block_range(int n, int parts, int idx);

// The process grid (MPI_Dims_create + MPI_Cart_create, not periodic, ranks not reordered, so the
// Cartesian rank is the rank in the given communicator) and this rank's block.
struct Decomposition {
  MPI_Comm cart = MPI_COMM_NULL;  // owned: free with free_decomposition
  int rank = 0, size = 1;
  std::array<int, 3> global{}, dims{}, coords{}, first{};
  kernels::Box box;                // local interior extents
  std::array<int, 6> neighbour{};  // face 2d + side -> rank, MPI_PROC_NULL at the boundary
};

// Collective. Throws, naming the dimension, when a process-grid dimension exceeds the points in
// that direction (a rank would own no points). `dims` all zero: MPI_Dims_create chooses.
Decomposition make_decomposition(MPI_Comm comm, std::array<int, 3> global,
                                 std::array<int, 3> dims = {0, 0, 0});
void free_decomposition(Decomposition &d);
// The process grid MPI_Dims_create gives for P ranks (for weak-scaling decks, before the grid).
std::array<int, 3> process_grid(int ranks);

// Fills the ghost layers of a field with the neighbours' boundary layers: nonblocking receives
// and sends on all six faces at once (the 7-point stencil needs no edges or corners), packed and
// unpacked by Kokkos kernels. Ghosts on the domain boundary are left as they are (zero).
class HaloExchange {
 public:
  explicit HaloExchange(const Decomposition &d);
  void start(kernels::ConstField x);  // pack, post receives and sends
  void finish(kernels::Field x);      // wait, unpack
  void exchange(kernels::Field x) {
    start(x);
    finish(x);
  }

 private:
  const Decomposition &d_;
  std::array<kernels::Field, 6> send_, recv_;
  std::vector<MPI_Request> requests_;
};

}  // namespace pcoll::cg

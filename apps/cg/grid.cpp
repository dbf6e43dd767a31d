// Block decomposition and halo exchange; see grid.hpp.
#include "grid.hpp"

#include <pcoll/pcoll.h>

#include <stdexcept>
#include <string>

namespace pcoll::cg {

namespace {
void check_mpi(int rc, const char *what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}
// One tag per direction of travel: a message leaving through face f arrives through face f ^ 1.
// Two neighbours can be the same rank (two parts along a dimension), so the tag must say which.
constexpr int kTagBase = 7300;
}  // namespace

Range1 block_range(int n, int parts, int idx) {
  const int base = n / parts, extra = n % parts;
  return {idx * base + std::min(idx, extra), base + (idx < extra ? 1 : 0)};
}

std::array<int, 3> process_grid(int ranks) {
  std::array<int, 3> dims{0, 0, 0};
  check_mpi(MPI_Dims_create(ranks, 3, dims.data()), "MPI_Dims_create");
  return dims;
}

Decomposition make_decomposition(MPI_Comm comm, std::array<int, 3> global,
                                 std::array<int, 3> dims) {
  Decomposition d;
  MPI_Comm_size(comm, &d.size);
  if (dims == std::array<int, 3>{0, 0, 0}) dims = process_grid(d.size);
  if (dims[0] * dims[1] * dims[2] != d.size)
    throw std::invalid_argument("process grid does not multiply to P");
  static const char *names[3] = {"nx", "ny", "nz"};
  for (int a = 0; a < 3; ++a)
    if (global[a] < dims[a])
      throw std::invalid_argument(std::string(names[a]) + " = " + std::to_string(global[a]) +
                                  " is smaller than the " + std::to_string(dims[a]) +
                                  " ranks along that axis of the process grid " +
                                  std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                                  std::to_string(dims[2]) + ": every rank needs a point");
  d.global = global;
  d.dims = dims;
  const int periods[3] = {0, 0, 0};
  check_mpi(MPI_Cart_create(comm, 3, dims.data(), periods, 0, &d.cart), "MPI_Cart_create");
  MPI_Comm_set_errhandler(d.cart, MPI_ERRORS_RETURN);
  MPI_Comm_rank(d.cart, &d.rank);
  check_mpi(MPI_Cart_coords(d.cart, d.rank, 3, d.coords.data()), "MPI_Cart_coords");
  int n[3];
  for (int a = 0; a < 3; ++a) {
    const Range1 r = block_range(global[a], dims[a], d.coords[a]);
    d.first[a] = r.first;
    n[a] = r.count;
    check_mpi(MPI_Cart_shift(d.cart, a, 1, &d.neighbour[2 * a], &d.neighbour[2 * a + 1]),
              "MPI_Cart_shift");
  }
  d.box = kernels::Box{n[0], n[1], n[2]};
  return d;
}

void free_decomposition(Decomposition &d) {
  if (d.cart != MPI_COMM_NULL) MPI_Comm_free(&d.cart);
}

HaloExchange::HaloExchange(const Decomposition &d) : d_(d) {
  for (int f = 0; f < 6; ++f) {
    const std::size_t n = kernels::face_size(d.box, f);
    send_[f] = kernels::Field("pcoll::cg::halo_send", n);
    recv_[f] = kernels::Field("pcoll::cg::halo_recv", n);
  }
  requests_.reserve(12);
}

void HaloExchange::start(kernels::ConstField x) {
  requests_.clear();
  for (int f = 0; f < 6; ++f) {
    if (d_.neighbour[f] == MPI_PROC_NULL) continue;
    MPI_Request req;
    // The neighbour beyond face f sends through its face f ^ 1.
    check_mpi(MPI_Irecv(recv_[f].data(), static_cast<int>(recv_[f].extent(0)), MPI_DOUBLE,
                        d_.neighbour[f], kTagBase + (f ^ 1), d_.cart, &req),
              "halo MPI_Irecv");
    requests_.push_back(req);
  }
  for (int f = 0; f < 6; ++f)
    if (d_.neighbour[f] != MPI_PROC_NULL) kernels::pack_face(d_.box, f, x, send_[f]);
  // Kokkos may return before a kernel has finished: the buffers go to MPI only after a fence.
  Kokkos::DefaultHostExecutionSpace().fence();
  for (int f = 0; f < 6; ++f) {
    if (d_.neighbour[f] == MPI_PROC_NULL) continue;
    MPI_Request req;
    check_mpi(MPI_Isend(send_[f].data(), static_cast<int>(send_[f].extent(0)), MPI_DOUBLE,
                        d_.neighbour[f], kTagBase + f, d_.cart, &req),
              "halo MPI_Isend");
    requests_.push_back(req);
  }
}

void HaloExchange::finish(kernels::Field x) {
  // PCOLL_Waitall, not MPI_Waitall: while it waits for the faces it also advances pcoll's
  // outstanding collectives (pipecg's PCOLL_Iallreduce), which only move inside pcoll calls.
  check_mpi(PCOLL_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
            "halo PCOLL_Waitall");
  for (int f = 0; f < 6; ++f)
    if (d_.neighbour[f] != MPI_PROC_NULL) kernels::unpack_face(d_.box, f, recv_[f], x);
}

}  // namespace pcoll::cg

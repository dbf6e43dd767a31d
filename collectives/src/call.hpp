// One call as this rank sees it: its shape (select.hpp: the type signature every rank shares)
// and how this rank's buffers map onto the packed form the plans work on.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "datatype.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "select.hpp"

namespace pcoll {

// One side of a call (what is sent, what is received) in the user's terms.
struct Side {
  int count = 0;  // elements of dt (the whole buffer the side covers)
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  bool as_is = true;      // the buffer is already in packed form: no pack or unpack
  std::size_t bytes = 0;  // count * MPI_Type_size(dt): its packed size
};

struct Signature {
  CallShape shape;
  Side send, recv;  // send is unused with MPI_IN_PLACE (the input then lives in recv)
  // Reductions: the type the reducer works in (a predefined type; a user op's own datatype).
  MPI_Datatype unit_type = MPI_BYTE;
  // A reduction with a predefined op on a derived datatype: the vendor path calls the vendor
  // with the signature's (units, unit_type), because some MPI libraries (Open MPI 4.1) refuse
  // predefined ops on derived datatypes, and ranks may even pass different datatypes.
  bool vendor_in_units = false;
  bool predefined_unit = true;  // unit_type is a predefined type (its reducer may be cached)
  // What the call writes of the receive side (in place the side holds the input too, and
  // reduce_scatter_block writes only its first block), in the user's elements and bytes.
  int out_count = 0;
  std::size_t out_bytes = 0;
  std::size_t type_size = 0;  // of the receive datatype, for the trace
  // The reproducible mode (PCOLL_REPRODUCIBLE=on, binned.hpp) for an MPI_SUM of floating-point
  // values: the plan (or the vendor) reduces binned sums of `scalar` values (MPI_DOUBLE or
  // MPI_FLOAT; complex bases count 2 per value) with the binned op; the user's values are
  // `base`. Null scalar: off. `binned_note`: why the mode left this reduction as it is.
  struct {
    MPI_Datatype scalar = MPI_DATATYPE_NULL;
    MPI_Datatype base = MPI_DATATYPE_NULL;
    std::size_t scalar_size = 0;
    bool on() const { return scalar != MPI_DATATYPE_NULL; }
  } binned;
  const char *binned_note = nullptr;
  // Units per element of the user's datatype (reductions: base values, binned sums), and for
  // reduce_scatter the whole input and this rank's block in units.
  std::size_t units_per_elem = 1;
  std::size_t blocks_in_units = 0, block_out_units = 0;
  bool packs() const { return !send.as_is || !recv.as_is; }
};

// alltoallv's and allgatherv's per-peer counts and displacements, as the user passed them.
// allgatherv (`gather`) sends one block: sendcounts and sdispls point at one_count and one_displ.
struct VectorArgs {
  int peers = 0;
  const int *sendcounts = nullptr, *sdispls = nullptr, *recvcounts = nullptr, *rdispls = nullptr;
  bool gather = false;
  int rank = 0;  // gather: this rank (its block's place in the receive buffer)
  int one_count = 0, one_displ = 0;
  int send_peers() const { return gather ? 1 : peers; }
};

// One call of a collective after its own argument checks, in the user's terms.
struct Call {
  Collective coll;
  MPI_Comm comm;
  int count;  // the call's count argument (allreduce, reduce, bcast: elements; others: per rank)
  MPI_Op op;  // MPI_OP_NULL for data movement
  const void *sendbuf;  // MPI_IN_PLACE: the input lives in recvbuf
  void *recvbuf;
  // The elements each buffer covers (alltoall: P blocks; in place: the input and output) and
  // their datatypes. The receive side of a rank without output (reduce off the root) is empty.
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  int recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  int root = 0;                       // bcast, reduce
  const VectorArgs *vec = nullptr;    // alltoallv, allgatherv: per-peer counts and displacements
  const int *block_counts = nullptr;  // reduce_scatter: recvcounts, every rank's block

  bool in_place() const { return sendbuf == MPI_IN_PLACE; }
  // The memo may hold this call: predefined datatypes and op (handles that never change
  // meaning), no per-rank layout (allgatherv's and reduce_scatter's counts, which are the
  // signature's, are kept with the memo entry and compared in full).
  bool memoizable() const {
    return (vec == nullptr || vec->gather) && (op == MPI_OP_NULL || is_predefined_op(op)) &&
           describe_type(recvtype).predefined && (in_place() || describe_type(sendtype).predefined);
  }
};

// alltoallv in bytes: this rank's counts and displacements of the packed form, and how to get
// there. A side whose datatype is dense is used in place (displacements made non-negative by
// moving the buffer pointer to the lowest block used: MPI allows negative displacements); any
// other is packed block by block into scratch memory, blocks in peer order.
struct VectorLayout {
  Layout bytes;
  const char *send = nullptr;  // dense send side: the rebased buffer
  char *recv = nullptr;        // dense receive side: the rebased buffer
  bool pack_send = false, pack_recv = false;
  std::size_t send_total = 0, recv_total = 0;  // packed bytes of each side
};

class Context;

// MPI's convention for a failed call: says `msg` (when given), calls the communicator's error
// handler, then returns the code.
int fail_call(MPI_Comm comm, int code, const std::string &msg = {});

// One side of a call: `count` elements of `dt`.
Side side_of(int count, MPI_Datatype dt);
// The call's signature: its shape in units every rank computes alike from its own (count,
// datatype), and this rank's sides. Returns an MPI error code (a send side whose signature
// cannot match the receive side's).
int signature_of(const Context &ctx, const Call &c, Signature &sig);
// alltoallv's and allgatherv's layout of the packed form (VectorLayout).
VectorLayout vector_layout(const Call &c);
// Packs or unpacks every block of one vector side to or from its packed form.
int vector_pack(const void *buf, const int *counts, const int *displs, MPI_Datatype dt, int P,
                char *packed, std::size_t total, MPI_Comm comm, bool into_packed);

}  // namespace pcoll

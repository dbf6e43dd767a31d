// One call as this rank sees it (call.hpp): its signature, the vector collectives' packed
// layout, and the error convention every PCOLL_ call follows.
#include "call.hpp"

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include <pcoll/pcoll.h>

#include "binned.hpp"
#include "context.hpp"
#include "datatype.hpp"
#include "reduce.hpp"

namespace pcoll {

// MPI's convention: call the communicator's error handler, then return the code.
int fail_call(MPI_Comm comm, int code, const std::string &msg) {
  if (!msg.empty()) report(msg);
  if (comm != MPI_COMM_NULL) MPI_Comm_call_errhandler(comm, code);
  return code;
}

Side side_of(int count, MPI_Datatype dt) {
  Side s;
  s.count = count;
  s.dt = dt;
  if (dt == MPI_DATATYPE_NULL || count == 0) return s;
  const TypeInfo &t = describe_type(dt);
  s.as_is = t.packed_as_is(count);
  s.bytes = static_cast<std::size_t>(count) * t.size;
  return s;
}

namespace {

// The reproducible mode (PCOLL_REPRODUCIBLE=on): an MPI_SUM of floating-point values reduces
// binned sums instead (binned.hpp), one per scalar (complex values: two), with the binned op,
// under the plan or the vendor alike; what the mode leaves alone says why, once.
void binned_form(const Call &c, const TypeInfo &t, Signature &sig) {
  CallShape &s = sig.shape;
  int parts = 1;
  const MPI_Datatype scalar = binned::scalar_of(t.base, &parts);
  const bool floating = scalar != MPI_DATATYPE_NULL || t.base == MPI_LONG_DOUBLE ||
                        t.base == MPI_C_LONG_DOUBLE_COMPLEX;
  if (!floating || (c.op != MPI_SUM && c.op != MPI_PROD)) return;  // order-independent already
  if (c.op == MPI_PROD) {
    sig.binned_note =
        "PCOLL_REPRODUCIBLE=on covers MPI_SUM only: an MPI_PROD of floating-point "
        "values is computed as usual, and its last bits may depend on the algorithm";
    return;
  }
  if (scalar == MPI_DATATYPE_NULL) {
    sig.binned_note =
        "PCOLL_REPRODUCIBLE=on does not cover long double: its MPI_SUM is computed "
        "as usual, and its last bits may depend on the algorithm";
    return;
  }
  if (s.intercomm) {
    sig.binned_note =
        "PCOLL_REPRODUCIBLE=on does not cover inter-communicators: their MPI_SUM "
        "goes to the vendor as usual";
    return;
  }
  sig.binned.scalar = scalar;
  sig.binned.base = t.base;
  sig.binned.scalar_size = scalar == MPI_DOUBLE ? sizeof(double) : sizeof(float);
  s.count = s.count * static_cast<std::size_t>(parts);
  s.unit = sizeof(PCOLL_Binned);
  s.commutative = true;
  sig.unit_type = binned::mpi_type();
  sig.vendor_in_units = true;  // the vendor reduces the binned sums too
}

// A reduction's units: the base type's values on the packed form for a predefined op (the
// reproducible mode's binned sums where it applies), the user's datatype for a user op.
void reduction_units(const Context &ctx, const Call &c, const TypeInfo &t, Signature &sig) {
  CallShape &s = sig.shape;
  int commute = 1;
  PMPI_Op_commutative(c.op, &commute);
  s.commutative = commute != 0;
  if (is_predefined_op(c.op)) {
    if (t.base != MPI_DATATYPE_NULL) {
      // By the base type, on the packed form: every rank has the same base values.
      s.unit = t.base_size;
      s.count = static_cast<std::size_t>(c.count) * t.base_per_elem;
      sig.unit_type = t.base;
      // (Inter-communicators' vendor calls keep the user's arguments: their buffers are
      // sized by the remote group.)
      sig.vendor_in_units = !t.predefined && !s.intercomm;
      if (ctx.config().get("reproducible") == "on") binned_form(c, t, sig);
    } else {
      s.issue = TypeIssue::mixed_base;
      s.unit = t.size ? t.size : 1;
      s.count = static_cast<std::size_t>(c.count);
      sig.unit_type = c.recvtype;
    }
  } else {
    // MPI calls a user op with the user's datatype, which reductions must use on every rank.
    if (!t.dense) s.issue = TypeIssue::user_op_layout;
    s.unit = t.size ? t.size : 1;
    s.count = static_cast<std::size_t>(c.count);
    sig.unit_type = c.recvtype;
  }
}

}  // namespace

// The call's signature: its shape in units every rank computes alike from its own (count,
// datatype), and this rank's sides. Returns an MPI error code (a send side whose signature
// cannot match the receive side's).
int signature_of(const Context &ctx, const Call &c, Signature &sig) {
  const CollectiveInfo &row = collective_info(c.coll);
  CallShape &s = sig.shape;
  s.coll = c.coll;
  s.size = ctx.size();
  s.ranks_per_node = ctx.ranks_per_node();
  s.node_segment = ctx.node_segment_bytes();
  s.intercomm = ctx.intercomm();
  s.root = c.root;
  s.reduction = row.takes_op;
  sig.recv = side_of(c.recvcount, c.recvtype);
  if (!c.in_place()) sig.send = side_of(c.sendcount, c.sendtype);
  const TypeInfo &t = describe_type(c.recvtype);
  sig.type_size = t.size;
  sig.out_count = c.block_counts != nullptr ? c.block_counts[ctx.intercomm() ? 0 : ctx.rank()]
                  : c.vec != nullptr || c.recvcount == 0
                      ? c.recvcount
                      : static_cast<int>(row.out_elems(static_cast<std::size_t>(c.count), s.size));
  sig.out_bytes = static_cast<std::size_t>(sig.out_count) * t.size;
  if (s.reduction) {
    reduction_units(ctx, c, t, sig);
  } else if (c.vec != nullptr && c.vec->gather) {
    // allgatherv: every rank knows every block, so the shape is the mean block in bytes (the
    // same on every rank: the blocks' signatures are). This rank's block must carry what its
    // place in the receive buffer expects.
    s.unit = 1;
    std::size_t total = 0;
    for (int q = 0; q < c.vec->peers; ++q)
      total += static_cast<std::size_t>(c.vec->recvcounts[q]) * t.size;
    const auto P = static_cast<std::size_t>(std::max(1, c.vec->peers));
    s.count = (total + P - 1) / P;
    sig.unit_type = MPI_BYTE;
    const std::size_t expect = static_cast<std::size_t>(c.vec->recvcounts[c.vec->rank]) * t.size;
    if (!c.in_place() && !s.intercomm && sig.send.bytes != expect)
      return fail_call(c.comm, MPI_ERR_ARG,
                       std::string(row.mpi_name) + ": the send side carries " +
                           std::to_string(sig.send.bytes) + " bytes where recvcounts[" +
                           std::to_string(c.vec->rank) + "] expects " + std::to_string(expect) +
                           " (MPI requires matching type signatures)");
  } else {
    s.unit = 1;
    s.count = row.per_rank_layout() ? 1 : static_cast<std::size_t>(c.count) * t.size;
    sig.unit_type = MPI_BYTE;
    // MPI requires equal type signatures on both ends of every block: the send side carries
    // exactly the bytes the plan's input holds.
    // (Inter-communicators size their buffers by the remote group: the vendor's to check.)
    if (!c.in_place() && !row.per_rank_layout() && !s.intercomm &&
        sig.send.bytes != row.in_elems(s.count, s.size) * s.unit)
      return fail_call(c.comm, MPI_ERR_ARG,
                       std::string(row.mpi_name) + ": the send side carries " +
                           std::to_string(sig.send.bytes) +
                           " bytes where the receive side expects " +
                           std::to_string(row.in_elems(s.count, s.size)) +
                           " (MPI requires matching type signatures)");
  }
  sig.predefined_unit = describe_type(sig.unit_type).predefined;
  if (c.count > 0) sig.units_per_elem = s.count / static_cast<std::size_t>(c.count);
  if (c.block_counts != nullptr) {
    std::size_t total = 0;
    for (int q = 0; q < s.size; ++q) total += static_cast<std::size_t>(c.block_counts[q]);
    sig.blocks_in_units = total * sig.units_per_elem;
    sig.block_out_units = static_cast<std::size_t>(sig.out_count) * sig.units_per_elem;
  }
  return MPI_SUCCESS;
}

namespace {

void side_layout(const char *buf, const int *counts, const int *displs, MPI_Datatype dt,
                 std::size_t P, std::vector<std::size_t> &c, std::vector<std::size_t> &d,
                 const char **base, bool *packed, std::size_t *total) {
  const TypeInfo &t = describe_type(dt);
  c.resize(P);
  d.resize(P);
  *packed = !t.dense;
  *total = 0;
  long long lo = 0;
  for (std::size_t q = 0; q < P; ++q)
    if (counts[q] > 0) lo = std::min<long long>(lo, displs[q]);
  for (std::size_t q = 0; q < P; ++q) {
    c[q] = static_cast<std::size_t>(counts[q]) * t.size;
    if (*packed)
      d[q] = *total;
    else
      d[q] = counts[q] > 0 ? static_cast<std::size_t>(displs[q] - lo) * t.size : 0;
    *total += c[q];
  }
  *base = *packed ? nullptr : buf + lo * t.extent;
}
}  // namespace

VectorLayout vector_layout(const Call &c) {
  VectorLayout L;
  const auto P = static_cast<std::size_t>(c.vec->peers);
  const char *rbase = nullptr;
  side_layout(static_cast<const char *>(c.recvbuf), c.vec->recvcounts, c.vec->rdispls, c.recvtype,
              P, L.bytes.recvcounts, L.bytes.rdispls, &rbase, &L.pack_recv, &L.recv_total);
  L.recv = const_cast<char *>(rbase);
  if (c.in_place() && c.vec->gather) {
    // allgatherv in place: the own block, where the receive side has it.
    const auto me = static_cast<std::size_t>(c.vec->rank);
    L.bytes.sendcounts.assign(1, L.bytes.recvcounts[me]);
    L.bytes.sdispls.assign(1, L.bytes.rdispls[me]);
  } else if (c.in_place()) {
    L.bytes.sendcounts = L.bytes.recvcounts;
    L.bytes.sdispls = L.bytes.rdispls;
  } else {
    side_layout(static_cast<const char *>(c.sendbuf), c.vec->sendcounts, c.vec->sdispls, c.sendtype,
                static_cast<std::size_t>(c.vec->send_peers()), L.bytes.sendcounts, L.bytes.sdispls,
                &L.send, &L.pack_send, &L.send_total);
  }
  return L;
}

// Packs or unpacks every block of one alltoallv side to or from its packed form.
int vector_pack(const void *buf, const int *counts, const int *displs, MPI_Datatype dt, int P,
                char *packed, std::size_t total, MPI_Comm comm, bool into_packed) {
  const TypeInfo &t = describe_type(dt);
  std::size_t at = 0;
  for (int q = 0; q < P; ++q) {
    if (counts[q] == 0) continue;
    const std::size_t n = static_cast<std::size_t>(counts[q]) * t.size;
    char *user = static_cast<char *>(const_cast<void *>(buf)) + displs[q] * t.extent;
    const int rc = into_packed ? pack(user, counts[q], dt, packed + at, n, comm)
                               : unpack(packed + at, n, user, counts[q], dt, comm);
    if (rc != MPI_SUCCESS) return rc;
    at += n;
  }
  (void)total;
  return MPI_SUCCESS;
}

}  // namespace pcoll

// The C API: argument checks -> context -> signature (the call's shape in units every rank
// shares) -> decision (select.hpp, cached in the context) -> the vendor, or the plan on the
// packed form of the buffers -> trace.
#include <pcoll/pcoll.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "binned.hpp"
#include "config.hpp"
#include "context.hpp"
#include "datatype.hpp"
#include "engine.hpp"
#include "executor.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "request.hpp"
#include "select.hpp"
#include "trace/recorder.hpp"

using namespace pcoll;

namespace {

// MPI's convention: call the communicator's error handler, then return the code.
int fail(MPI_Comm comm, int code, const std::string &msg = {}) {
  if (!msg.empty()) report(msg);
  if (comm != MPI_COMM_NULL) MPI_Comm_call_errhandler(comm, code);
  return code;
}

// No C++ exception crosses the C API: every PCOLL_ entry runs its body through guarded(), which
// maps std::bad_alloc to MPI_ERR_NO_MEM and anything else to MPI_ERR_INTERN, then calls the
// communicator's error handler like every other error.
template <class Body>
int guarded(MPI_Comm comm, Body body) noexcept {
  try {
    const EngineLock lock;  // (engine.hpp: only with PCOLL_PROGRESS=thread)
    return body();
  } catch (const std::bad_alloc &) {
    return fail(comm, MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception &e) {
    return fail(comm, MPI_ERR_INTERN, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(comm, MPI_ERR_INTERN, "internal error (unknown exception)");
  }
}

// True the first time this process meets `msg`: warnings are said once per process and reason
// (by speaker() below), not per communicator, so a program (or a preloaded libpcoll_mpi.so under
// one) that creates many communicators does not repeat them. Calls are serialised (pcoll is not
// thread-safe).
bool first_in_process(const std::string &msg) {
  static std::set<std::string> said;
  return said.insert(msg).second;
}

// Whether this rank says a warning about a call on ctx's communicator: rank 0 of MPI_COMM_WORLD
// when the communicator contains it (so a run says each reason once, on rank 0), else the
// communicator's rank 0 (nobody else would); of an inter-communicator's two groups, only the
// one holding rank 0 of MPI_COMM_WORLD, if either does. Evaluated only on a warning's first
// occurrence.
bool speaker(const Context &ctx) {
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Comm_group(ctx.comm(), &group);
  int zero = 0, there = MPI_UNDEFINED, over_there = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(world, 1, &zero, group, &there);
  if (ctx.intercomm()) {
    PMPI_Comm_remote_group(ctx.comm(), &remote);
    PMPI_Group_translate_ranks(world, 1, &zero, remote, &over_there);
    PMPI_Group_free(&remote);
  }
  PMPI_Group_free(&world);
  PMPI_Group_free(&group);
  if (there == MPI_UNDEFINED && over_there != MPI_UNDEFINED) return false;
  return ctx.rank() == (there == MPI_UNDEFINED ? 0 : there);
}

// A null buffer with a non-zero count is an error, except MPI_BOTTOM (a null pointer in Open MPI
// and MPICH) with a datatype of absolute addresses, whose data does not start at displacement 0.
bool null_data(const void *buf, long long count, MPI_Datatype dt) {
  return buf == nullptr && count > 0 && (dt == MPI_DATATYPE_NULL || describe_type(dt).packed_order);
}
// Send and receive buffers that are the same memory (MPI_BOTTOM for both is not: the datatypes
// say where the data is).
bool aliased(const void *sendbuf, const void *recvbuf) {
  return sendbuf == recvbuf && sendbuf != MPI_BOTTOM;
}

// Argument checks common to the collectives (MPI's error classes).
int check_args(MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op, bool has_op) {
  if (comm == MPI_COMM_NULL) return fail(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
  if (count < 0) return fail(comm, MPI_ERR_COUNT, "negative count");
  if (dt == MPI_DATATYPE_NULL) return fail(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
  if (has_op && op == MPI_OP_NULL) return fail(comm, MPI_ERR_OP, "MPI_OP_NULL");
  return MPI_SUCCESS;
}

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
  int root = 0;                   // bcast, reduce
  const VectorArgs *v = nullptr;  // alltoallv, allgatherv
  const int *blocks = nullptr;    // reduce_scatter: recvcounts, every rank's block

  bool in_place() const { return sendbuf == MPI_IN_PLACE; }
  // The memo may hold this call: predefined datatypes and op (handles that never change
  // meaning), no per-rank layout (allgatherv's and reduce_scatter's counts, which are the
  // signature's, are kept with the memo entry and compared in full).
  bool memoizable() const {
    return (v == nullptr || v->gather) && (op == MPI_OP_NULL || is_predefined_op(op)) &&
           describe_type(recvtype).predefined && (in_place() || describe_type(sendtype).predefined);
  }
};

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
    sig.binned_note = "PCOLL_REPRODUCIBLE=on covers MPI_SUM only: an MPI_PROD of floating-point "
                      "values is computed as usual, and its last bits may depend on the algorithm";
    return;
  }
  if (scalar == MPI_DATATYPE_NULL) {
    sig.binned_note = "PCOLL_REPRODUCIBLE=on does not cover long double: its MPI_SUM is computed "
                      "as usual, and its last bits may depend on the algorithm";
    return;
  }
  if (s.intercomm) {
    sig.binned_note = "PCOLL_REPRODUCIBLE=on does not cover inter-communicators: their MPI_SUM "
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

// The call's signature: its shape in units every rank computes alike from its own (count,
// datatype), and this rank's sides. Returns an MPI error code (a send side whose signature
// cannot match the receive side's).
int signature_of(const Context &ctx, const Call &c, Signature &sig) {
  const CollectiveInfo &row = collective_info(c.coll);
  CallShape &s = sig.shape;
  s.coll = c.coll;
  s.size = ctx.size();
  s.ranks_per_node = ctx.ranks_per_node();
  s.intercomm = ctx.intercomm();
  s.root = c.root;
  s.reduction = row.takes_op;
  sig.recv = side_of(c.recvcount, c.recvtype);
  if (!c.in_place()) sig.send = side_of(c.sendcount, c.sendtype);
  const TypeInfo &t = describe_type(c.recvtype);
  sig.type_size = t.size;
  sig.out_count = c.blocks != nullptr ? c.blocks[ctx.intercomm() ? 0 : ctx.rank()]
                  : c.v != nullptr || c.recvcount == 0
                      ? c.recvcount
                      : static_cast<int>(row.out_elems(static_cast<std::size_t>(c.count), s.size));
  sig.out_bytes = static_cast<std::size_t>(sig.out_count) * t.size;
  if (s.reduction) {
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
  } else if (c.v != nullptr && c.v->gather) {
    // allgatherv: every rank knows every block, so the shape is the mean block in bytes (the
    // same on every rank: the blocks' signatures are). This rank's block must carry what its
    // place in the receive buffer expects.
    s.unit = 1;
    std::size_t total = 0;
    for (int q = 0; q < c.v->peers; ++q) total += static_cast<std::size_t>(c.v->recvcounts[q]) * t.size;
    const auto P = static_cast<std::size_t>(std::max(1, c.v->peers));
    s.count = (total + P - 1) / P;
    sig.unit_type = MPI_BYTE;
    const std::size_t expect = static_cast<std::size_t>(c.v->recvcounts[c.v->rank]) * t.size;
    if (!c.in_place() && !s.intercomm && sig.send.bytes != expect)
      return fail(c.comm, MPI_ERR_ARG,
                  std::string(row.mpi_name) + ": the send side carries " +
                      std::to_string(sig.send.bytes) + " bytes where recvcounts[" +
                      std::to_string(c.v->rank) + "] expects " + std::to_string(expect) +
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
      return fail(c.comm, MPI_ERR_ARG,
                  std::string(row.mpi_name) + ": the send side carries " +
                      std::to_string(sig.send.bytes) + " bytes where the receive side expects " +
                      std::to_string(row.in_elems(s.count, s.size)) +
                      " (MPI requires matching type signatures)");
  }
  sig.predefined_unit = describe_type(sig.unit_type).predefined;
  if (c.count > 0) sig.units_per_elem = s.count / static_cast<std::size_t>(c.count);
  if (c.blocks != nullptr) {
    std::size_t total = 0;
    for (int q = 0; q < s.size; ++q) total += static_cast<std::size_t>(c.blocks[q]);
    sig.blocks_in_units = total * sig.units_per_elem;
    sig.block_out_units = static_cast<std::size_t>(sig.out_count) * sig.units_per_elem;
  }
  return MPI_SUCCESS;
}

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

VectorLayout vector_layout(const Call &c) {
  VectorLayout L;
  const auto P = static_cast<std::size_t>(c.v->peers);
  const char *rbase = nullptr;
  side_layout(static_cast<const char *>(c.recvbuf), c.v->recvcounts, c.v->rdispls, c.recvtype, P,
              L.bytes.recvcounts, L.bytes.rdispls, &rbase, &L.pack_recv, &L.recv_total);
  L.recv = const_cast<char *>(rbase);
  if (c.in_place() && c.v->gather) {
    // allgatherv in place: the own block, where the receive side has it.
    const auto me = static_cast<std::size_t>(c.v->rank);
    L.bytes.sendcounts.assign(1, L.bytes.recvcounts[me]);
    L.bytes.sdispls.assign(1, L.bytes.rdispls[me]);
  } else if (c.in_place()) {
    L.bytes.sendcounts = L.bytes.recvcounts;
    L.bytes.sdispls = L.bytes.rdispls;
  } else {
    side_layout(static_cast<const char *>(c.sendbuf), c.v->sendcounts, c.v->sdispls, c.sendtype,
                static_cast<std::size_t>(c.v->send_peers()), L.bytes.sendcounts, L.bytes.sdispls,
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

constexpr std::size_t round_up(std::size_t n) {
  return (n + 63) / 64 * 64;
}

// The time spent packing or unpacking, for the trace (when it is on).
struct PhaseTimer {
  bool on;
  bool used = false;
  double t0 = 0, seconds = 0;
  explicit PhaseTimer(bool o) : on(o) {}
  void start() {
    used = true;
    if (on) t0 = PMPI_Wtime();
  }
  void stop() {
    if (on) seconds += PMPI_Wtime() - t0;
  }
};

// How a call runs: blocking, or handed to the program as a request (nonblocking: started now;
// persistent: started by PCOLL_Start, as often as the program likes).
// The handles a vendor call takes: the user's for a call made now; for an operation that calls
// the vendor at a later start (persistent), its own (HeldHandles) and its own communicator.
struct VendorHandles {
  MPI_Comm comm;
  MPI_Datatype sendtype, recvtype;
  MPI_Op op;
};

struct Async {
  MPI_Request *request = nullptr;  // null: a blocking call
  Operation::Kind kind = Operation::Kind::nonblocking;
  bool blocking() const { return request == nullptr; }
};

// The op the signature's units are reduced with: the user's, or the reproducible mode's binned op.
MPI_Op unit_op(const Signature &sig, MPI_Op user) {
  return sig.binned.on() ? binned::mpi_op() : user;
}

// The reproducible mode's buffers (Signature::binned): the input's values become binned sums in
// scratch memory, which the plan or the vendor reduces, and the result's sums are rounded back
// into the user's buffer. `in_bins`: the input's sums; `out_bins`: what the plan or the vendor
// may write.
struct BinnedStaging {
  std::size_t in_bins = 0, in_area = 0, out_area = 0, vals_area = 0;
  bool input_in_recv = false, has_output = true;

  BinnedStaging(const Signature &sig, std::size_t in, std::size_t out, bool in_recv, bool output)
      : in_bins(in), input_in_recv(in_recv), has_output(output) {
    in_area = round_up(in * sizeof(PCOLL_Binned));
    out_area = round_up(out * sizeof(PCOLL_Binned));
    // The user's values where a side is not an array of them already.
    const bool pack_in = !(input_in_recv ? sig.recv : sig.send).as_is;
    vals_area = round_up(std::max(pack_in ? (input_in_recv ? sig.recv : sig.send).bytes : 0,
                                  sig.recv.as_is ? 0 : sig.recv.bytes));
  }
  std::size_t bytes() const { return in_area + out_area + vals_area; }

  int stage(const Call &c, const Signature &sig, MPI_Comm pc, char *at, const void **in,
            void **out, PhaseTimer &t) const {
    const Side &side = input_in_recv ? sig.recv : sig.send;
    const void *buf = input_in_recv ? c.recvbuf : c.sendbuf;
    char *vals = at + in_area + out_area;
    t.start();
    const void *v = buf;
    if (!side.as_is && side.bytes > 0) {
      if (int rc = pack(buf, side.count, side.dt, vals, side.bytes, pc); rc != MPI_SUCCESS) {
        t.stop();
        return rc;
      }
      v = vals;
    }
    auto *bins = reinterpret_cast<PCOLL_Binned *>(at);
    if (sig.binned.scalar == MPI_DOUBLE)
      binned::from_doubles(static_cast<const double *>(v), in_bins, bins);
    else
      binned::from_floats(static_cast<const float *>(v), in_bins, bins);
    t.stop();
    *in = at;
    *out = at + in_area;
    return MPI_SUCCESS;
  }

  int unstage(const Call &c, const Signature &sig, MPI_Comm pc, char *at, PhaseTimer &t) const {
    if (!has_output || sig.out_bytes == 0) return MPI_SUCCESS;
    const std::size_t n = sig.out_bytes / sig.binned.scalar_size;
    const auto *bins = reinterpret_cast<const PCOLL_Binned *>(at + in_area);
    void *v = sig.recv.as_is ? c.recvbuf : static_cast<void *>(at + in_area + out_area);
    t.start();
    if (sig.binned.scalar == MPI_DOUBLE)
      binned::to_doubles(bins, n, static_cast<double *>(v));
    else
      binned::to_floats(bins, n, static_cast<float *>(v));
    const int rc = sig.recv.as_is ? MPI_SUCCESS
                                  : unpack(v, sig.out_bytes, c.recvbuf, sig.out_count, c.recvtype, pc);
    t.stop();
    return rc;
  }
};

// The vendor in the signature's units (Signature::vendor_in_units): each side an array of base
// values, converted from and to the user's layout where that is not one already.
struct UnitsStaging {
  Call c;
  Signature sig;
  bool input_in_recv = false;
  MPI_Comm pc = MPI_COMM_NULL;
  bool send_direct = true, recv_direct = true;
  std::size_t send_units = 0, recv_units = 0, send_area = 0, recv_area = 0, tmp_area = 0;
  std::optional<BinnedStaging> binned;

  UnitsStaging(const Call &call, const Signature &s, bool in_recv, MPI_Comm p)
      : c(call), sig(s), input_in_recv(in_recv), pc(p) {
    if (sig.binned.on()) {
      const CollectiveInfo &row = collective_info(c.coll);
      const bool blocks = c.blocks != nullptr;
      binned.emplace(sig, blocks ? sig.blocks_in_units : row.in_elems(sig.shape.count, sig.shape.size),
                     blocks ? sig.block_out_units : row.out_elems(sig.shape.count, sig.shape.size),
                     input_in_recv, true);
      return;
    }
    const TypeInfo &bt = describe_type(sig.unit_type);
    const auto bext = static_cast<std::size_t>(bt.extent);
    const std::size_t unit = sig.shape.unit;
    send_direct = c.in_place() || (sig.send.as_is && bt.dense);
    recv_direct = sig.recv.as_is && bt.dense;
    send_units = sig.send.bytes / unit;
    recv_units = sig.recv.bytes / unit;
    send_area = send_direct ? 0 : round_up(send_units * bext);
    recv_area = recv_direct ? 0 : round_up(recv_units * bext);
    tmp_area = bt.dense ? 0 : std::max(sig.send.bytes, sig.recv.bytes);
  }
  std::size_t scratch_bytes() const {
    return binned ? binned->bytes() : send_area + recv_area + tmp_area;
  }
  // The buffers the vendor is called with, staged from the user's.
  int stage(char *scratch, const void **in, void **out, PhaseTimer &t) const {
    if (binned) return binned->stage(c, sig, pc, scratch, in, out, t);
    char *tmp = scratch + send_area + recv_area;
    *in = c.sendbuf;
    *out = c.recvbuf;
    int rc = MPI_SUCCESS;
    if (!send_direct || !recv_direct) t.start();
    if (!send_direct) {
      rc = to_base_array(c.sendbuf, c.sendcount, c.sendtype, scratch, static_cast<int>(send_units),
                         sig.unit_type, tmp, pc);
      *in = scratch;
    }
    if (!recv_direct) {
      *out = scratch + send_area;
      if (rc == MPI_SUCCESS && input_in_recv)
        rc = to_base_array(c.recvbuf, c.recvcount, c.recvtype, *out, static_cast<int>(recv_units),
                           sig.unit_type, tmp, pc);
    }
    if (!send_direct || !recv_direct) t.stop();
    return rc;
  }
  // The vendor's result, back in the user's layout.
  int unstage(char *scratch, PhaseTimer &t) const {
    if (binned) return binned->unstage(c, sig, pc, scratch, t);
    if (recv_direct || sig.out_count == 0) return MPI_SUCCESS;
    t.start();
    const int rc = from_base_array(scratch + send_area,
                                   static_cast<int>(sig.out_bytes / sig.shape.unit), sig.unit_type,
                                   c.recvbuf, sig.out_count, c.recvtype,
                                   scratch + send_area + recv_area, pc);
    t.stop();
    return rc;
  }
};

// The plan's buffers: its temporary space, the staged in-place input and the packed sides, in
// one scratch area; stage() before the plan runs, unstage() after.
struct PlanStaging {
  Call c;
  const Signature *sig = nullptr;
  const CollectiveInfo *row = nullptr;
  const Plan *plan = nullptr;
  const VectorLayout *vl = nullptr;  // alltoallv
  int rank = 0, size = 1;
  MPI_Comm pc = MPI_COMM_NULL;
  std::size_t unit = 1;
  bool input_in_recv = false, pack_send = false, pack_recv = false, staged = false;
  bool has_output = true;
  std::size_t send_bytes = 0, recv_bytes = 0;
  std::size_t tmp_bytes = 0, staged_bytes = 0, packed_in_bytes = 0, packed_out_bytes = 0;
  std::optional<BinnedStaging> binned;  // the reproducible mode: in place of the packing

  PlanStaging(const Call &call, const Signature &s, const Plan &p, const VectorLayout *layout,
              const Context &ctx)
      : c(call), sig(&s), row(&collective_info(call.coll)), plan(&p), vl(layout),
        rank(ctx.rank()), size(ctx.size()), pc(ctx.comm()), unit(s.shape.unit) {
    // The input lives in the receive buffer (in place) and must be read from it on this rank.
    input_in_recv = c.in_place() && (!row->takes_root || rank == c.root);
    pack_send = vl ? vl->pack_send : !c.in_place() && !sig->send.as_is;
    pack_recv = vl ? vl->pack_recv : !sig->recv.as_is;
    send_bytes = vl ? vl->send_total : sig->send.bytes;
    recv_bytes = vl ? vl->recv_total : sig->recv.bytes;
    staged = c.in_place() && row->in_place_staged;
    has_output = !row->expect.root_only || rank == c.root;
    tmp_bytes = round_up(plan->tmp_elems * unit);
    staged_bytes = staged ? round_up(plan->in_elems * unit) : 0;
    packed_in_bytes = pack_send ? round_up(send_bytes) : 0;
    packed_out_bytes = pack_recv ? round_up(recv_bytes) : 0;
    if (s.binned.on()) {
      // The plan runs on separate input and output sums, as if not in place.
      binned.emplace(s, plan->in_elems, plan->out_elems, input_in_recv, has_output);
      pack_send = pack_recv = staged = false;
      staged_bytes = packed_in_bytes = packed_out_bytes = 0;
    }
  }
  std::size_t scratch_bytes() const {
    return tmp_bytes + staged_bytes + packed_in_bytes + packed_out_bytes +
           (binned ? binned->bytes() : 0);
  }
  char *packed_out(char *scratch) const {
    return scratch + tmp_bytes + staged_bytes + packed_in_bytes;
  }

  int stage(char *scratch, ExecBuffers *bufs, PhaseTimer &t) const {
    if (binned) {
      const void *in = nullptr;
      void *out = nullptr;
      if (int rc = binned->stage(c, *sig, pc, scratch + tmp_bytes, &in, &out, t); rc != MPI_SUCCESS)
        return rc;
      if (plan->copy_in_to_out && plan->out_elems > 0) std::memcpy(out, in, unit * plan->out_elems);
      *bufs = ExecBuffers{in, out, scratch, unit};
      return MPI_SUCCESS;
    }
    char *staged_at = scratch + tmp_bytes;
    char *packed_in = staged_at + staged_bytes;
    int rc = MPI_SUCCESS;
    if (pack_send || pack_recv) t.start();
    const void *in = vl ? static_cast<const void *>(vl->send) : c.sendbuf;
    void *out = vl ? static_cast<void *>(vl->recv) : c.recvbuf;
    if (pack_send) {
      rc = c.v ? vector_pack(c.sendbuf, c.v->sendcounts, c.v->sdispls, c.sendtype, c.v->send_peers(),
                             packed_in, send_bytes, pc, true)
               : pack(c.sendbuf, c.sendcount, c.sendtype, packed_in, send_bytes, pc);
      in = packed_in;
    }
    if (pack_recv) {
      out = packed_out(scratch);
      if (rc == MPI_SUCCESS && input_in_recv)
        rc = c.v ? vector_pack(c.recvbuf, c.v->recvcounts, c.v->rdispls, c.recvtype, c.v->peers,
                               packed_out(scratch), recv_bytes, pc, true)
                 : pack(c.recvbuf, c.recvcount, c.recvtype, packed_out(scratch), recv_bytes, pc);
    }
    if (pack_send || pack_recv) t.stop();
    if (rc != MPI_SUCCESS) return rc;
    if (c.in_place()) {
      // MPI_IN_PLACE: the input sits in the receive buffer where the collective's row says;
      // collectives whose plans overwrite input they still have to send read a copy of it from
      // scratch memory.
      in = static_cast<const char *>(out) + unit * row->in_place_offset(rank, sig->shape.count, size);
      if (staged) {
        if (plan->in_elems > 0) std::memcpy(staged_at, in, plan->in_elems * unit);
        in = staged_at;
      }
    } else if (plan->copy_in_to_out && plan->out_elems > 0) {
      std::memcpy(out, in, unit * plan->out_elems);
    }
    *bufs = ExecBuffers{in, out, scratch, unit};
    return MPI_SUCCESS;
  }

  int unstage(char *scratch, PhaseTimer &t) const {
    if (binned) return binned->unstage(c, *sig, pc, scratch + tmp_bytes, t);
    if (!pack_recv || !has_output) return MPI_SUCCESS;
    t.start();
    const int rc =
        c.v ? vector_pack(c.recvbuf, c.v->recvcounts, c.v->rdispls, c.recvtype, c.v->peers,
                          packed_out(scratch), recv_bytes, pc, false)
            : unpack(packed_out(scratch), sig->out_bytes, c.recvbuf, sig->out_count, c.recvtype,
                     pc);
    t.stop();
    return rc;
  }
};

// What a nonblocking or persistent operation keeps of its call (the caller's arrays and
// signature die when the PCOLL_ call returns; the user's buffers and count arrays stay valid
// until completion, as MPI requires).
struct HeldCall {
  Call c;
  VectorArgs v;
  Signature sig;
  VectorLayout vl;
  std::optional<PlanStaging> plan_staging;
  std::optional<UnitsStaging> units_staging;
  HeldCall(const Call &call, const Signature &s) : c(call), sig(s) {
    if (call.v != nullptr) {
      v = *call.v;
      if (v.gather) {
        v.sendcounts = &v.one_count;
        v.sdispls = &v.one_displ;
      }
      c.v = &v;
    }
  }
  // Swaps the program's datatypes for the operation's own and holds its op (HeldHandles): the
  // program may free them before the operation completes. (A send type passed with MPI_IN_PLACE
  // is not significant and is left alone.)
  void hold(HeldHandles &h) {
    if (!c.in_place()) {
      sig.send.dt = h.type(sig.send.dt);
      c.sendtype = h.type(c.sendtype);
    }
    sig.recv.dt = h.type(sig.recv.dt);
    sig.unit_type = h.type(sig.unit_type);
    c.recvtype = h.type(c.recvtype);
    h.op(c.op);
  }
};

// The handles of a vendor call made at an operation's start: its own datatypes and op, on its
// own communicator (a persistent one's, made here at init) or the context's.
int vendor_handles(const Call &c, VendorOperation &op, Context &ctx, VendorHandles *h) {
  *h = VendorHandles{ctx.comm(), c.in_place() ? c.sendtype : op.held.type(c.sendtype),
                     op.held.type(c.recvtype), c.op};
  op.held.op(c.op);
  if (op.kind() == Operation::Kind::persistent) {
    if (const int rc = PMPI_Comm_dup(ctx.comm(), &op.own_comm); rc != MPI_SUCCESS) return rc;
    PMPI_Comm_set_errhandler(op.own_comm, MPI_ERRORS_RETURN);
    h->comm = op.own_comm;
  }
  return MPI_SUCCESS;
}

// A call through context, signature, decision, and either the vendor or the plan run by the
// executor on the packed form of the buffers. `vendor(request)` calls the vendor with the user's
// arguments (blocking when request is null, else its nonblocking twin);
// `vendor_in_units(in, out, count, type, op, request)` calls it in the signature's units
// (with the op the units are reduced with: the user's, or the reproducible mode's binned op)
// (reductions with a predefined op on a derived datatype, Signature::vendor_in_units).
template <class Vendor, class VendorInUnits>
int run(const Call &c, Vendor vendor, VendorInUnits vendor_in_units, Async async = {}) {
  progress();  // outstanding nonblocking collectives move on whenever the program enters pcoll
  // The context first: creating the first one arms PCOLL_TRACE, so the first call is recorded
  // too (its time then excludes the one-off context creation).
  int err = MPI_SUCCESS;
  Context *ctx = Context::get(c.comm, &err);
  trace::CallScope trace_call;  // when tracing is off: one predictable branch
  if (ctx == nullptr) return fail(c.comm, err);
  if (ctx->config_error() != MPI_SUCCESS) return fail(c.comm, ctx->config_error());

  // A loop repeating its last call finds its signature and decision in the memo (which only
  // ever holds calls on predefined datatypes and ops, so a hit needs no datatype inspection).
  const Context::MemoKey key{c.coll,
                             c.count,
                             c.in_place() ? -1 : c.sendcount,
                             c.recvtype,
                             c.in_place() ? MPI_DATATYPE_NULL : c.sendtype,
                             c.op,
                             c.root};
  const Signature *sig = nullptr;
  const int *memo_counts = c.v != nullptr ? c.v->recvcounts : c.blocks;
  const int memo_n = c.v != nullptr ? c.v->peers : c.blocks != nullptr ? ctx->size() : 0;
  const Decision *d = c.memoizable() ? ctx->memo_find(key, &sig, memo_counts, memo_n) : nullptr;
  Signature fresh;
  if (d == nullptr) {
    if (int rc = signature_of(*ctx, c, fresh); rc != MPI_SUCCESS) return rc;
    // Collective only where MPI lets the call wait for the others (blocking) and nothing of
    // pcoll's is outstanding that the wait would have to progress.
    d = &ctx->decision(fresh.shape, async.blocking() && !operations_outstanding());
    sig = &fresh;
    if (c.memoizable()) ctx->memo_store(key, fresh, d, memo_counts, memo_n);
  }
  if (d->error != MPI_SUCCESS) return fail(c.comm, d->error, d->error_message);
  for (const std::string &w : d->warnings)
    if (first_in_process(w) && speaker(*ctx)) report(w);
  if (sig->binned_note != nullptr && first_in_process(sig->binned_note) && speaker(*ctx))
    report(sig->binned_note);
  ctx->last_algorithm = d->algo->name;
  const auto traced_count = [&] {
    return c.v ? std::accumulate(c.v->recvcounts, c.v->recvcounts + c.v->peers, std::size_t(0))
               : static_cast<std::size_t>(c.count);
  };
  // A blocking call is recorded by trace_call; a nonblocking or persistent one by its operation,
  // from its start to its completion (trace::OpRecord), so the call itself is not.
  // The trace names the reproducible mode with the algorithm ("ring reproducible=on").
  std::string binned_label;
  if (sig->binned.on() && trace_call.on()) binned_label = std::string(d->label()) + " reproducible=on";
  const char *traced_label = binned_label.empty() ? d->label() : binned_label.c_str();
  if (async.blocking() && trace_call.on())
    trace_call.describe(ctx->comm(), collective_name(c.coll), traced_label, traced_count(),
                        sig->type_size);
  auto issued = [&](std::unique_ptr<Operation> op) {
    if (trace_call.on()) {
      op->describe(ctx->comm(),
                   async.kind == Operation::Kind::persistent
                       ? std::string(collective_name(c.coll)) + "_init"
                       : std::string("i") + collective_name(c.coll),
                   traced_label, traced_count(), sig->type_size);
      op->described.params = d->params;
      if (const auto *po = dynamic_cast<const PlanOperation *>(op.get()); po && po->plan)
        op->described.phases = po->plan->phases;
    }
    const int rc = issue(std::move(op), async.request);
    return rc == MPI_SUCCESS ? rc : fail(c.comm, rc);
  };
  // A data-movement call whose signature is empty moves nothing, and every rank knows it: it
  // returns at once (MPI does not make collectives synchronise; alltoallv and barrier count 1,
  // allgatherv counts its mean block),
  // or with a request that is complete. Not calling the vendor also avoids Open MPI 4.1's bcast
  // hanging when the root passes 1 x a zero-size datatype and the others 0 x MPI_INT (one
  // signature, legal MPI).
  const bool nothing = sig->shape.count == 0 &&
                       (!sig->shape.reduction || !d->algo->is_vendor());
  if (nothing) {
    if (async.blocking()) return MPI_SUCCESS;
    auto op = std::make_unique<PlanOperation>(async.kind, c.comm, ctx);
    op->comm = ctx->comm();
    return issued(std::move(op));
  }
  // A blocking call while nonblocking ones are outstanding must not hold them back (request.hpp).
  const bool alongside = async.blocking() && operations_outstanding();
  if (alongside && d->algo->is_vendor()) settle(*ctx);
  const VendorHandles user_handles{c.comm, c.sendtype, c.recvtype, c.op};
  if (d->algo->is_vendor() && !sig->vendor_in_units) {
    if (async.blocking()) {
      const EngineUnlocked unlocked;  // the progress thread runs while the vendor waits
      const int rc = vendor(user_handles, nullptr);  // the user's arguments, unchanged
      return rc == MPI_SUCCESS ? rc : fail(c.comm, rc);
    }
    // Nonblocking and persistent: the vendor's nonblocking call (at each start), on the
    // context's communicator (a persistent operation's own), inside an operation of pcoll's
    // whose request completes when the vendor's does. Not the vendor's call on the program's
    // communicator: that one may be freed with the call outstanding (legal MPI), which Open MPI
    // 4.1's libnbc does not survive (its next round sends on the freed communicator), while the
    // context's lives until the operation is released.
    auto op = std::make_unique<VendorOperation>(async.kind, c.comm, ctx);
    VendorHandles own{};
    if (const int rc = vendor_handles(c, *op, *ctx, &own); rc != MPI_SUCCESS) return fail(c.comm, rc);
    op->start = [vendor, own](char *, MPI_Request *inner) -> int { return vendor(own, inner); };
    return issued(std::move(op));
  }

  const CollectiveInfo &row = collective_info(c.coll);
  const int rank = ctx->rank();
  const MPI_Comm pc = ctx->comm();
  const std::size_t unit = sig->shape.unit;
  const bool input_in_recv = c.in_place() && (!row.takes_root || rank == c.root);
  PhaseTimer pack_t(trace_call.phase_seconds() != nullptr),
      unpack_t(trace_call.phase_seconds() != nullptr);
  auto add_pack_phases = [&] {
    if (pack_t.used || unpack_t.used) {
      trace_call.add_phase("pack", pack_t.seconds);
      trace_call.add_phase("unpack", unpack_t.seconds);
    }
  };

  if (d->algo->is_vendor()) {
    if (!async.blocking()) {
      auto held = std::make_shared<HeldCall>(c, *sig);
      auto op = std::make_unique<VendorOperation>(async.kind, c.comm, ctx);
      VendorHandles own{};
      if (const int rc = vendor_handles(c, *op, *ctx, &own); rc != MPI_SUCCESS)
        return fail(c.comm, rc);
      held->hold(op->held);
      const UnitsStaging &st = held->units_staging.emplace(held->c, held->sig, input_in_recv, pc);
      op->scratch.resize(st.scratch_bytes());
      op->start = [held, vendor_in_units, own](char *scratch, MPI_Request *inner) -> int {
        PhaseTimer t(false);
        const void *in = nullptr;
        void *out = nullptr;
        const UnitsStaging &u = *held->units_staging;
        if (const int rc = u.stage(scratch, &in, &out, t); rc != MPI_SUCCESS) return rc;
        // reduce_scatter's vendor call scales its recvcounts by the units per element.
        const std::size_t n = u.c.blocks ? u.sig.units_per_elem : u.sig.shape.count;
        return vendor_in_units(own, in, out, static_cast<int>(n), u.sig.unit_type,
                               unit_op(u.sig, u.c.op), inner);
      };
      op->unstage = [held](char *scratch) -> int {
        PhaseTimer t(false);
        return held->units_staging->unstage(scratch, t);
      };
      return issued(std::move(op));
    }
    const UnitsStaging st(c, *sig, input_in_recv, pc);
    char *scratch = static_cast<char *>(
        ctx->scratch(st.scratch_bytes(), std::max(sig->send.bytes, sig->recv.bytes)));
    const void *in = nullptr;
    void *out = nullptr;
    int rc = st.stage(scratch, &in, &out, pack_t);
    if (rc != MPI_SUCCESS) return fail(c.comm, rc);
    {
      const EngineUnlocked unlocked;  // (as above)
      rc = vendor_in_units(user_handles, in, out,
                           static_cast<int>(c.blocks ? sig->units_per_elem : sig->shape.count),
                           sig->unit_type, unit_op(*sig, c.op), nullptr);
    }
    if (rc == MPI_SUCCESS) rc = st.unstage(scratch, unpack_t);
    add_pack_phases();
    return rc == MPI_SUCCESS ? rc : fail(c.comm, rc);
  }

  VectorLayout vl;
  std::shared_ptr<const Plan> layout_plan;
  // Layout collectives: the plan of this layout, from the decision's cache or built now.
  auto plan_of = [&](const Layout &l) {
    std::shared_ptr<const Plan> p = d->layout_plans->find(l);
    if (!p) {
      PlanRequest req = d->req;
      req.layout = &l;
      p = std::make_shared<const Plan>(make_plan(*d->algo, req));
      d->layout_plans->store(l, p);
    }
    return p;
  };
  if (c.v != nullptr) {
    vl = vector_layout(c);
    layout_plan = plan_of(vl.bytes);
  } else if (c.blocks != nullptr) {
    // reduce_scatter: every rank's block in units, the input packed in rank order.
    Layout units;
    units.recvcounts.resize(static_cast<std::size_t>(ctx->size()));
    for (int q = 0; q < ctx->size(); ++q)
      units.recvcounts[static_cast<std::size_t>(q)] =
          static_cast<std::size_t>(c.blocks[q]) * sig->units_per_elem;
    layout_plan = plan_of(units);
  }
  const MPI_Op op = c.op == MPI_OP_NULL ? MPI_SUM : unit_op(*sig, c.op);

  if (!async.blocking()) {
    auto held = std::make_shared<HeldCall>(c, *sig);
    auto po = std::make_unique<PlanOperation>(async.kind, c.comm, ctx);
    held->hold(po->held);
    po->plan = layout_plan ? layout_plan : d->plan;
    if (c.v) held->vl = std::move(vl);
    const PlanStaging &st = held->plan_staging.emplace(held->c, held->sig, *po->plan,
                                                       c.v ? &held->vl : nullptr, *ctx);
    po->reducer.emplace(held->sig.unit_type, unit, op);
    po->comm = pc;
    po->scratch.resize(st.scratch_bytes());
    po->stage = [held](char *scratch, ExecBuffers *bufs) -> int {
      PhaseTimer t(false);
      return held->plan_staging->stage(scratch, bufs, t);
    };
    po->unstage = [held](char *scratch) -> int {
      PhaseTimer t(false);
      return held->plan_staging->unstage(scratch, t);
    };
    return issued(std::move(po));
  }

  const Plan &plan = layout_plan ? *layout_plan : *d->plan;
  trace_call.plan(d->params, plan.phases);
  const PlanStaging st(c, *sig, plan, c.v ? &vl : nullptr, *ctx);
  char *scratch = static_cast<char *>(
      ctx->scratch(st.scratch_bytes(), std::max(st.send_bytes, st.recv_bytes)));
  ExecBuffers bufs;
  int rc = st.stage(scratch, &bufs, pack_t);
  if (rc != MPI_SUCCESS) return fail(c.comm, rc);
  std::optional<Reducer> own;
  const Reducer &reducer = is_predefined_op(op) && sig->predefined_unit
                               ? ctx->predefined_reducer(sig->unit_type, unit, op)
                               : own.emplace(sig->unit_type, unit, op);
  rc = alongside ? execute_alongside(plan, bufs, reducer, *ctx, trace_call.phase_seconds())
                 : execute(plan, bufs, reducer, *ctx, trace_call.phase_seconds());
  if (rc == MPI_SUCCESS) rc = st.unstage(scratch, unpack_t);
  add_pack_phases();
  return rc == MPI_SUCCESS ? rc : fail(c.comm, rc);
}

// For data movement, whose vendor path always takes the user's arguments.
constexpr auto no_units = [](const VendorHandles &, const void *, void *, int, MPI_Datatype,
                             MPI_Op, MPI_Request *) -> int {
  return MPI_ERR_INTERN;
};

int allreduce_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (null_data(recvbuf, count, datatype) || null_data(sendbuf, count, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (count > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    Call c{Collective::allreduce, comm, count, op, sendbuf, recvbuf};
    c.sendcount = c.recvcount = count;
    c.sendtype = c.recvtype = datatype;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Iallreduce(sendbuf, recvbuf, count, h.recvtype, h.op, h.comm, r) : PMPI_Allreduce(sendbuf, recvbuf, count, h.recvtype, h.op, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int { return q ? PMPI_Iallreduce(s, r, n, t, o, h.comm, q) : PMPI_Allreduce(s, r, n, t, o, h.comm); }, async);
  });
}

int reduce_scatter_block_impl(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (null_data(recvbuf, recvcount, datatype) || null_data(sendbuf, recvcount, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (recvcount > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    int size = 1, inter = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_test_inter(comm, &inter);
    Call c{Collective::reduce_scatter_block, comm, recvcount, op, sendbuf, recvbuf};
    c.sendcount = recvcount * size;  // P blocks in; in place they are in recvbuf
    c.recvcount = sendbuf == MPI_IN_PLACE ? recvcount * size : recvcount;
    c.sendtype = c.recvtype = datatype;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, h.recvtype, h.op, h.comm, r) : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, h.recvtype, h.op, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int { return q ? PMPI_Ireduce_scatter_block(s, r, n, t, o, h.comm, q) : PMPI_Reduce_scatter_block(s, r, n, t, o, h.comm); }, async);
  });
}

int reduce_scatter_impl(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (recvcounts == nullptr) return fail(comm, MPI_ERR_ARG, "null recvcounts array");
    int size = 1, inter = 0, me = 0;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    long long total = 0;
    for (int q = 0; q < size; ++q) {
      if (recvcounts[q] < 0) return fail(comm, MPI_ERR_COUNT, "negative count");
      total += recvcounts[q];
    }
    if (total > INT_MAX)
      return fail(comm, MPI_ERR_COUNT, "the counts add up to more than an int can hold");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (null_data(recvbuf, in_place ? total : recvcounts[me], datatype) ||
        null_data(sendbuf, total, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (total > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    // count: the mean block, rounded up (every rank computes it alike from recvcounts).
    const int mean = static_cast<int>((total + size - 1) / size);
    Call c{Collective::reduce_scatter, comm, mean, op, sendbuf, recvbuf};
    c.sendcount = static_cast<int>(total);  // all blocks in; in place they are in recvbuf
    c.recvcount = in_place ? static_cast<int>(total) : recvcounts[me];
    c.sendtype = c.recvtype = datatype;
    c.blocks = inter ? nullptr : recvcounts;  // inter-communicators: the vendor's, as given
    // The vendor in units (a derived datatype, the reproducible mode) gets recvcounts scaled by
    // the units per element, which run() passes as n; kept with the call (a nonblocking one reads
    // the array until it completes).
    auto scaled = std::make_shared<std::vector<int>>(static_cast<std::size_t>(size));
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, h.recvtype, h.op, h.comm, r) : PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, h.recvtype, h.op, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int {
          for (int k = 0; k < size; ++k) (*scaled)[static_cast<std::size_t>(k)] = recvcounts[k] * n;
          return q ? PMPI_Ireduce_scatter(s, r, scaled->data(), t, o, h.comm, q) : PMPI_Reduce_scatter(s, r, scaled->data(), t, o, h.comm); }, async);
  });
}

int allgather_impl(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    if (null_data(recvbuf, recvcount, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    int size = 1;
    MPI_Comm_size(comm, &size);
    Call c{Collective::allgather, comm, recvcount, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendcount = sendcount;
    c.sendtype = sendtype;
    c.recvcount = recvcount * size;
    c.recvtype = recvtype;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Iallgather(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm, r) : PMPI_Allgather(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm); },
        no_units, async);
  });
}

int alltoall_impl(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcount and sendtype are ignored then
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    if (null_data(recvbuf, recvcount, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (recvcount > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    int size = 1, inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &size);
    else
      MPI_Comm_size(comm, &size);
    Call c{Collective::alltoall, comm, recvcount, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendcount = sendcount * size;
    c.sendtype = sendtype;
    c.recvcount = recvcount * size;
    c.recvtype = recvtype;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ialltoall(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm, r) : PMPI_Alltoall(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm); },
        no_units, async);
  });
}

int alltoallv_impl(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS) return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcounts, sdispls, sendtype ignored then
    if (!in_place && sendtype == MPI_DATATYPE_NULL)
      return fail(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    int inter = 0, peers = 1;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &peers);
    else
      MPI_Comm_size(comm, &peers);
    if (recvcounts == nullptr || rdispls == nullptr ||
        (!in_place && (sendcounts == nullptr || sdispls == nullptr)))
      return fail(comm, MPI_ERR_ARG, "null counts or displacements array");
    long long sent = 0, received = 0;
    for (int q = 0; q < peers; ++q) {
      if (recvcounts[q] < 0 || (!in_place && sendcounts[q] < 0))
        return fail(comm, MPI_ERR_COUNT, "negative count");
      received += recvcounts[q];
      if (!in_place) sent += sendcounts[q];
    }
    if (null_data(recvbuf, received, recvtype) || (!in_place && null_data(sendbuf, sent, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!in_place && (sent > 0 || received > 0) && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    const VectorArgs v{peers, sendcounts, sdispls, recvcounts, rdispls};
    // count 1 stands for "some data of these types": every rank has its own counts, so nothing
    // count-dependent may be decided (the rank's peers could decide otherwise).
    Call c{Collective::alltoallv, comm, 1, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendtype = sendtype;
    c.recvtype = recvtype;
    c.v = &v;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, h.sendtype, recvbuf, recvcounts,
                                rdispls, h.recvtype, h.comm, r) : PMPI_Alltoallv(sendbuf, sendcounts, sdispls, h.sendtype, recvbuf, recvcounts,
                                rdispls, h.recvtype, h.comm); },
        no_units, async);
  });
}

int allgatherv_impl(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS) return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcount and sendtype ignored then
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    int inter = 0, peers = 1, me = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &peers);
    else
      MPI_Comm_size(comm, &peers);
    MPI_Comm_rank(comm, &me);
    if (recvcounts == nullptr || displs == nullptr)
      return fail(comm, MPI_ERR_ARG, "null counts or displacements array");
    long long received = 0;
    for (int q = 0; q < peers; ++q) {
      if (recvcounts[q] < 0) return fail(comm, MPI_ERR_COUNT, "negative count");
      received += recvcounts[q];
    }
    if (null_data(recvbuf, received, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!in_place && received > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    VectorArgs v{peers, nullptr, nullptr, recvcounts, displs};
    v.gather = true;
    v.rank = inter ? 0 : me;
    v.one_count = in_place ? 0 : sendcount;
    v.sendcounts = &v.one_count;
    v.sdispls = &v.one_displ;
    Call c{Collective::allgatherv, comm, 1, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendcount = in_place ? 0 : sendcount;
    c.sendtype = sendtype;
    c.recvtype = recvtype;
    c.v = &v;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Iallgatherv(sendbuf, sendcount, h.sendtype, recvbuf, recvcounts, displs, h.recvtype, h.comm, r) : PMPI_Allgatherv(sendbuf, sendcount, h.sendtype, recvbuf, recvcounts, displs, h.recvtype, h.comm); },
        no_units, async);
  });
}

int bcast_impl(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    int inter = 0, size = 1;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    // Inter-communicators name the root differently (MPI_ROOT, MPI_PROC_NULL): the vendor's.
    if (!inter && (root < 0 || root >= size)) return fail(comm, MPI_ERR_ROOT, "root out of range");
    if (null_data(buffer, count, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    Call c{Collective::bcast, comm, count, MPI_OP_NULL, MPI_IN_PLACE, buffer};
    c.recvcount = count;
    c.recvtype = datatype;
    c.root = inter ? 0 : root;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ibcast(buffer, count, h.recvtype, root, h.comm, r) : PMPI_Bcast(buffer, count, h.recvtype, root, h.comm); }, no_units, async);
  });
}

int reduce_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, op, true); rc != MPI_SUCCESS) return rc;
    int inter = 0, size = 1, rank = 0;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (!inter && (root < 0 || root >= size)) return fail(comm, MPI_ERR_ROOT, "root out of range");
    const bool at_root = !inter && rank == root;
    if (null_data(sendbuf, count, datatype) || (at_root && null_data(recvbuf, count, datatype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!inter && !at_root && sendbuf == MPI_IN_PLACE)
      return fail(comm, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
    if (count > 0 && at_root && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    // Off the root the receive buffer is not significant: no side, and the plans never touch it.
    Call c{Collective::reduce, comm, count, op, sendbuf, recvbuf};
    c.sendcount = count;
    c.recvcount = at_root || inter ? count : 0;
    c.sendtype = c.recvtype = datatype;
    c.root = inter ? 0 : root;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ireduce(sendbuf, recvbuf, count, h.recvtype, h.op, root, h.comm, r) : PMPI_Reduce(sendbuf, recvbuf, count, h.recvtype, h.op, root, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int { return q ? PMPI_Ireduce(s, at_root ? r : nullptr, n, t, o, root, h.comm, q) : PMPI_Reduce(s, at_root ? r : nullptr, n, t, o, root, h.comm); }, async);
  });
}

int barrier_impl(MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (comm == MPI_COMM_NULL) return fail(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
    // One byte of scratch per message (the plans' unit): count 1 of MPI_BYTE, never user data.
    Call c{Collective::barrier, comm, 1, MPI_OP_NULL, MPI_IN_PLACE, nullptr};
    c.recvtype = MPI_BYTE;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ibarrier(h.comm, r) : PMPI_Barrier(h.comm); }, no_units, async);
  });
}

}  // namespace

extern "C" {

const char *PCOLL_Version(void) {
  return PCOLL_VERSION_STRING;
}

// --- the collectives: blocking, nonblocking (MPI_I<coll>) and persistent (MPI_<Coll>_init) ------
// Generated from collectives.def: each form calls <name>_impl with the blocking call's arguments
// and how it completes. MPI_Info hints of the persistent calls: none is used yet (MPI lets an
// implementation ignore them).

#define PCOLL_UNPAREN(...) __VA_ARGS__
#define PCOLL_COLLECTIVE(Name, name, Params, Args)                                           \
  int PCOLL_##Name Params { return name##_impl(PCOLL_UNPAREN Args, Async{}); }               \
  int PCOLL_I##name(PCOLL_UNPAREN Params, MPI_Request *request) {                            \
    if (request == nullptr) return fail(comm, MPI_ERR_REQUEST, "null request pointer");      \
    return name##_impl(PCOLL_UNPAREN Args, Async{request, Operation::Kind::nonblocking});    \
  }                                                                                          \
  int PCOLL_##Name##_init(PCOLL_UNPAREN Params, MPI_Info, MPI_Request *request) {            \
    if (request == nullptr) return fail(comm, MPI_ERR_REQUEST, "null request pointer");      \
    return name##_impl(PCOLL_UNPAREN Args, Async{request, Operation::Kind::persistent});     \
  }
#include "collectives.def"
#undef PCOLL_UNPAREN

int PCOLL_Config_push(MPI_Comm comm, const char *name, const char *value) {
  return guarded(comm, [&]() -> int {
    if (name == nullptr || value == nullptr) return fail(comm, MPI_ERR_ARG, "null name or value");
    const int idx = param_index(name);
    if (idx < 0) {
      std::string known;
      for (const auto &p : param_table()) known += std::string(known.empty() ? "" : ", ") + p.name;
      return fail(comm, MPI_ERR_ARG,
                  std::string("unknown parameter '") + name + "'; known: " + known);
    }
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    const int rc = ctx->push_override(idx, value);
    return rc == MPI_SUCCESS ? rc : fail(comm, rc);
  });
}

int PCOLL_Config_get(MPI_Comm comm, const char *name, const char **value) {
  return guarded(comm, [&]() -> int {
    if (name == nullptr || value == nullptr) return fail(comm, MPI_ERR_ARG, "null name or value");
    if (param_index(name) < 0)
      return fail(comm, MPI_ERR_ARG, std::string("unknown parameter '") + name + "'");
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    *value = ctx->config().get(name).c_str();
    return MPI_SUCCESS;
  });
}

int PCOLL_Config_pop(MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    const int rc = ctx->pop_override();
    return rc == MPI_SUCCESS ? rc : fail(comm, rc, "PCOLL_Config_pop without a matching push");
  });
}

const char *PCOLL_Algorithm_name(const char *collective, int index) {
  try {
    if (collective == nullptr || index < 0) return nullptr;
    for (Collective c : all_collectives()) {
      if (std::strcmp(collective, collective_name(c)) != 0) continue;
      const auto algos = algorithms_of(c);
      return index < static_cast<int>(algos.size()) ? algos[static_cast<std::size_t>(index)]->name
                                                    : nullptr;
    }
    return nullptr;
  } catch (...) {
    return nullptr;
  }
}

int PCOLL_Get_last_algorithm(MPI_Comm comm, const char **name) {
  return guarded(comm, [&]() -> int {
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    *name = ctx->last_algorithm;
    return MPI_SUCCESS;
  });
}

}  // extern "C"

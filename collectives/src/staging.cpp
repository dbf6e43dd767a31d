// Staging (staging.hpp): packing, base arrays and binned sums around a call's action.
#include "staging.hpp"

#include <algorithm>
#include <cstring>

#include <pcoll/pcoll.h>

#include "binned.hpp"
#include "context.hpp"
#include "datatype.hpp"
#include "registry.hpp"

namespace pcoll {

BinnedStaging::BinnedStaging(const Signature &sig, std::size_t in, std::size_t out, bool in_recv,
                             bool output)
    : in_bins(in), input_in_recv(in_recv), has_output(output) {
  in_area = round_up(in * sizeof(PCOLL_Binned));
  out_area = round_up(out * sizeof(PCOLL_Binned));
  // The user's values where a side is not an array of them already.
  const bool pack_in = !(input_in_recv ? sig.recv : sig.send).as_is;
  vals_area = round_up(std::max(pack_in ? (input_in_recv ? sig.recv : sig.send).bytes : 0,
                                sig.recv.as_is ? 0 : sig.recv.bytes));
}

int BinnedStaging::stage(const Call &c, const Signature &sig, MPI_Comm pc, char *at,
                         const void **in, void **out, PhaseTimer &t, bool into_out) const {
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
  auto *bins = reinterpret_cast<PCOLL_Binned *>(into_out ? at + in_area : at);
  if (sig.binned.scalar == MPI_DOUBLE)
    binned::from_doubles(static_cast<const double *>(v), in_bins, bins);
  else
    binned::from_floats(static_cast<const float *>(v), in_bins, bins);
  t.stop();
  *in = bins;
  *out = at + in_area;
  return MPI_SUCCESS;
}

int BinnedStaging::unstage(const Call &c, const Signature &sig, MPI_Comm pc, char *at,
                           PhaseTimer &t) const {
  if (!has_output || sig.out_bytes == 0) return MPI_SUCCESS;
  const std::size_t n = sig.out_bytes / sig.binned.scalar_size;
  const auto *bins = reinterpret_cast<const PCOLL_Binned *>(at + in_area);
  void *v = sig.recv.as_is ? c.recvbuf : static_cast<void *>(at + in_area + out_area);
  t.start();
  if (sig.binned.scalar == MPI_DOUBLE)
    binned::to_doubles(bins, n, static_cast<double *>(v));
  else
    binned::to_floats(bins, n, static_cast<float *>(v));
  const int rc = sig.recv.as_is
                     ? MPI_SUCCESS
                     : unpack(v, sig.out_bytes, c.recvbuf, sig.out_count, c.recvtype, pc);
  t.stop();
  return rc;
}

UnitsStaging::UnitsStaging(const Call &call, const Signature &s, bool in_recv, MPI_Comm p)
    : c(call), sig(s), input_in_recv(in_recv), pc(p) {
  if (sig.binned.on()) {
    const CollectiveInfo &row = collective_info(c.coll);
    const bool blocks = c.block_counts != nullptr;
    binned.emplace(sig,
                   blocks ? sig.blocks_in_units : row.in_elems(sig.shape.count, sig.shape.size),
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

int UnitsStaging::stage(char *scratch, const void **in, void **out, PhaseTimer &t) const {
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

int UnitsStaging::unstage(char *scratch, PhaseTimer &t) const {
  if (binned) return binned->unstage(c, sig, pc, scratch, t);
  if (recv_direct || sig.out_count == 0) return MPI_SUCCESS;
  t.start();
  const int rc = from_base_array(
      scratch + send_area, static_cast<int>(sig.out_bytes / sig.shape.unit), sig.unit_type,
      c.recvbuf, sig.out_count, c.recvtype, scratch + send_area + recv_area, pc);
  t.stop();
  return rc;
}

PlanStaging::PlanStaging(const Call &call, const Signature &s, const Plan &p,
                         const VectorLayout *layout, const Context &ctx)
    : c(call),
      sig(&s),
      row(&collective_info(call.coll)),
      plan(&p),
      vl(layout),
      rank(ctx.rank()),
      size(ctx.size()),
      pc(ctx.comm()),
      unit(s.shape.unit) {
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

int PlanStaging::stage(char *scratch, ExecBuffers *bufs, PhaseTimer &t) const {
  if (binned) {
    // A plan that first copies its input to its output and reads its input in place at offset 0
    // without a staged copy (allreduce) gets the sums converted straight into its output and
    // runs as with MPI_IN_PLACE: one pass of 56 bytes per value less.
    const bool into_out = plan->copy_in_to_out && plan->out_elems > 0 &&
                          plan->in_elems <= plan->out_elems && !row->in_place_staged &&
                          row->in_place_offset != nullptr &&
                          row->in_place_offset(rank, sig->shape.count, size) == 0;
    const void *in = nullptr;
    void *out = nullptr;
    if (int rc = binned->stage(c, *sig, pc, scratch + tmp_bytes, &in, &out, t, into_out);
        rc != MPI_SUCCESS)
      return rc;
    if (!into_out && plan->copy_in_to_out && plan->out_elems > 0)
      std::memcpy(out, in, unit * plan->out_elems);
    *bufs = ExecBuffers{in, out, scratch, unit, NodeChannel{}};
    return MPI_SUCCESS;
  }
  char *staged_at = scratch + tmp_bytes;
  char *packed_in = staged_at + staged_bytes;
  int rc = MPI_SUCCESS;
  if (pack_send || pack_recv) t.start();
  const void *in = vl ? static_cast<const void *>(vl->send) : c.sendbuf;
  void *out = vl ? static_cast<void *>(vl->recv) : c.recvbuf;
  if (pack_send) {
    rc = c.vec ? vector_pack(c.sendbuf, c.vec->sendcounts, c.vec->sdispls, c.sendtype,
                             c.vec->send_peers(), packed_in, send_bytes, pc, true)
               : pack(c.sendbuf, c.sendcount, c.sendtype, packed_in, send_bytes, pc);
    in = packed_in;
  }
  if (pack_recv) {
    out = packed_out(scratch);
    if (rc == MPI_SUCCESS && input_in_recv)
      rc = c.vec ? vector_pack(c.recvbuf, c.vec->recvcounts, c.vec->rdispls, c.recvtype,
                               c.vec->peers, packed_out(scratch), recv_bytes, pc, true)
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
  *bufs = ExecBuffers{in, out, scratch, unit, NodeChannel{}};
  return MPI_SUCCESS;
}

int PlanStaging::unstage(char *scratch, PhaseTimer &t) const {
  if (binned) return binned->unstage(c, *sig, pc, scratch + tmp_bytes, t);
  if (!pack_recv || !has_output) return MPI_SUCCESS;
  t.start();
  const int rc = c.vec ? vector_pack(c.recvbuf, c.vec->recvcounts, c.vec->rdispls, c.recvtype,
                                     c.vec->peers, packed_out(scratch), recv_bytes, pc, false)
                       : unpack(packed_out(scratch), sig->out_bytes, c.recvbuf, sig->out_count,
                                c.recvtype, pc);
  t.stop();
  return rc;
}

}  // namespace pcoll

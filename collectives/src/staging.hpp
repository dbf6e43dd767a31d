// Staging: the buffers a call's action runs on, made from the user's and turned back into them.
// Each action of the call path (api.cpp) stages before it runs and unstages after: the vendor in
// the signature's units (UnitsStaging), a plan on the packed form (PlanStaging), and under
// either the reproducible mode's binned sums (BinnedStaging). A staging object holds what it
// needs of the call, so a nonblocking or persistent operation keeps one until it is released.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>

#include "call.hpp"
#include "executor.hpp"
#include "plan.hpp"

namespace pcoll {

class Context;

// Scratch areas start on cache lines.
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

// The reproducible mode's buffers (Signature::binned): the input's values become binned sums in
// scratch memory, which the plan or the vendor reduces, and the result's sums are rounded back
// into the user's buffer. `in_bins`: the input's sums; `out_bins`: what the plan or the vendor
// may write.
struct BinnedStaging {
  std::size_t in_bins = 0, in_area = 0, out_area = 0, vals_area = 0;
  bool input_in_recv = false, has_output = true;

  BinnedStaging(const Signature &sig, std::size_t in, std::size_t out, bool in_recv, bool output);
  std::size_t bytes() const { return in_area + out_area + vals_area; }
  // into_out: the input's sums are written where the output's go, and *in points there too.
  int stage(const Call &c, const Signature &sig, MPI_Comm pc, char *at, const void **in, void **out,
            PhaseTimer &t, bool into_out = false) const;
  int unstage(const Call &c, const Signature &sig, MPI_Comm pc, char *at, PhaseTimer &t) const;
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

  UnitsStaging(const Call &call, const Signature &s, bool in_recv, MPI_Comm p);
  std::size_t scratch_bytes() const {
    return binned ? binned->bytes() : send_area + recv_area + tmp_area;
  }
  // The buffers the vendor is called with, staged from the user's.
  int stage(char *scratch, const void **in, void **out, PhaseTimer &t) const;
  // The vendor's result, back in the user's layout.
  int unstage(char *scratch, PhaseTimer &t) const;
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
              const Context &ctx);
  std::size_t scratch_bytes() const {
    return tmp_bytes + staged_bytes + packed_in_bytes + packed_out_bytes +
           (binned ? binned->bytes() : 0);
  }
  char *packed_out(char *scratch) const {
    return scratch + tmp_bytes + staged_bytes + packed_in_bytes;
  }
  int stage(char *scratch, ExecBuffers *bufs, PhaseTimer &t) const;
  int unstage(char *scratch, PhaseTimer &t) const;
};

}  // namespace pcoll

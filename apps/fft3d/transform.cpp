// The distributed 3-D FFT; see transform.hpp.
#include "transform.hpp"

#include <pcoll/pcoll.h>
#include <pcoll/trace.h>

#include <fftw3.h>

#ifdef PCOLL_SMPI
#include <simgrid/host.h>
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <tuple>
#include <stdexcept>
#include <utility>

#include "fftw_plans.hpp"
#include "pack.hpp"

namespace pcoll::fft3d {

namespace {

void check_mpi(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(msg, len));
}

int to_int(std::int64_t v, const char *what) {
  if (v > INT_MAX)
    throw std::runtime_error(std::string(what) + ": " + std::to_string(v) +
                             " elements exceed MPI's int counts; use more ranks");
  return static_cast<int>(v);
}

double now() {
  return MPI_Wtime();
}

// SMPI: `seconds` of computation as flops at this host's speed in the platform file.
void inject_compute(double seconds) {
#ifdef PCOLL_SMPI
  if (seconds > 0) smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#else
  (void)seconds;
#endif
}

}  // namespace

// One global transpose between two stage layouts, both directions: the exchange plans (pure,
// layout.cpp) and the MPI counts made from them once.
struct DistributedFft::Transpose {
  MPI_Comm comm;
  std::array<int, 3> from_order, to_order;  // memory orders of the two layouts (same on all)
  Layout from, to;                          // this rank's
  Exchange fwd, bwd;                        // from -> to, to -> from
  std::vector<int> counts[2][4];            // [dir][scount, sdispl, rcount, rdispl]
  int block[2] = {0, 0};                    // even: the one block size per direction
  // [dir]: the message equals the field (layout.hpp in_place_blocks): no pack / no unpack.
  bool send_in_place[2] = {false, false}, recv_in_place[2] = {false, false};
  std::vector<Layout> from_all, to_all;  // every member's, in rank order
  int me = 0;

  // Overlap: the transpose in pieces along `kept`, an axis whose range is the same in both
  // layouts of every member (-1: none, the transpose runs whole).
  struct Piece {
    Range rows;  // along `kept`, from the box's first row
    Exchange x[2];
    std::vector<int> counts[2][4];
    int block[2] = {0, 0};
    std::int64_t soff[2] = {0, 0}, roff[2] = {0, 0};  // in the send / receive buffers
  };
  int kept = -1;
  std::vector<Piece> pieces;

  static void count(const Exchange &x, std::vector<int> (&c)[4], int &block) {
    for (std::size_t j = 0; j < x.send.size(); ++j) {
      c[0].push_back(to_int(x.send[j].volume(), "transpose block"));
      c[1].push_back(to_int(x.sdispl[j], "transpose displacement"));
      c[2].push_back(to_int(x.recv[j].volume(), "transpose block"));
      c[3].push_back(to_int(x.rdispl[j], "transpose displacement"));
    }
    block = c[0].front();
  }

  Transpose(MPI_Comm c, const std::vector<Layout> &a, const std::vector<Layout> &b, int me_)
      : comm(c),
        from_order(a[me_].order),
        to_order(b[me_].order),
        from(a[me_]),
        to(b[me_]),
        from_all(a),
        to_all(b),
        me(me_) {
    fwd = plan_exchange(a, b, me);
    bwd = plan_exchange(b, a, me);
    count(fwd, counts[0], block[0]);
    count(bwd, counts[1], block[1]);
    send_in_place[0] = in_place_blocks(fwd.send, fwd.sdispl, from_order, from);
    recv_in_place[0] = in_place_blocks(fwd.recv, fwd.rdispl, from_order, to);
    send_in_place[1] = in_place_blocks(bwd.send, bwd.sdispl, to_order, to);
    recv_in_place[1] = in_place_blocks(bwd.recv, bwd.rdispl, to_order, from);
  }

  // The axes whose range every member keeps through the transpose (the same range on all).
  std::vector<int> kept_axes() const {
    std::vector<int> v;
    for (int ax = 0; ax < 3; ++ax) {
      bool same = true;
      for (std::size_t j = 0; j < from_all.size(); ++j)
        same = same && from_all[j].lo[ax] == to_all[j].lo[ax] &&
               from_all[j].n[ax] == to_all[j].n[ax] &&
               from_all[j].lo[ax] == from_all[0].lo[ax] && from_all[j].n[ax] == from_all[0].n[ax];
      if (same) v.push_back(ax);
    }
    return v;
  }

  // Cuts the transpose into `parts` pieces along axis ax (at most one per row).
  void cut(int ax, int parts) {
    kept = ax;
    pieces.clear();
    const int rows = from.n[ax];
    parts = std::max(1, std::min(parts, rows));
    std::int64_t off[2][2] = {{0, 0}, {0, 0}};
    for (int c = 0; c < parts; ++c) {
      Piece p;
      p.rows = split(rows, parts, c);
      auto narrow = [&](std::vector<Layout> v) {
        for (Layout &l : v) {
          l.lo[ax] += p.rows.lo;
          l.n[ax] = p.rows.n;
        }
        return v;
      };
      const std::vector<Layout> a = narrow(from_all), b = narrow(to_all);
      p.x[0] = plan_exchange(a, b, me);
      p.x[1] = plan_exchange(b, a, me);
      for (int d = 0; d < 2; ++d) {
        count(p.x[d], p.counts[d], p.block[d]);
        p.soff[d] = off[d][0];
        p.roff[d] = off[d][1];
        off[d][0] += p.x[d].send_total;
        off[d][1] += p.x[d].recv_total;
      }
      pieces.push_back(std::move(p));
    }
  }
};

// FFTW plans of the stages' pieces (set_overlap), by (stage, forward, axis, rows).
struct DistributedFft::ChunkPlans {
  std::map<std::tuple<int, bool, int, int>, fftw_plan> plans;
  ~ChunkPlans() {
    for (auto &kv : plans) fftw_destroy_plan(kv.second);
  }
};

// FFTW plans, in place on the field buffer: per stage, forward and backward.
struct DistributedFft::Plans {
  std::vector<fftw_plan> fwd, bwd;
  ~Plans() {
    for (fftw_plan p : fwd) fftw_destroy_plan(p);
    for (fftw_plan p : bwd) fftw_destroy_plan(p);
  }
};

DistributedFft::DistributedFft(MPI_Comm comm, const std::array<int, 3> &grid, Decomp decomp,
                               Planner planner, Kind kind)
    : comm_(comm),
      grid_(grid),
      cgrid_(kind == Kind::r2c ? std::array<int, 3>{grid[0], grid[1], grid[2] / 2 + 1} : grid),
      decomp_(decomp),
      kind_(kind),
      plans_(std::make_unique<Plans>()) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (decomp == Decomp::slab) {
    pg_ = ProcGrid{size, 1};
  } else {
    int dims[2] = {0, 0};
    check_mpi(MPI_Dims_create(size, 2, dims), "MPI_Dims_create");
    pg_ = ProcGrid{dims[0], dims[1]};
  }
  for (int a = 0; a < 3; ++a)
    if (grid[a] < 1) throw std::invalid_argument(check_grid(grid, pg_, decomp));
  // r2c: the distributed stages work on the half-spectrum grid, which must fit the process grid.
  if (std::string why = check_grid(cgrid_, pg_, decomp); !why.empty())
    throw std::invalid_argument(
        kind == Kind::r2c ? why + " (the r2c half-spectrum of grid " + std::to_string(grid[0]) +
                                "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) + ")"
                          : why);
  layouts_ = stage_layouts(cgrid_, pg_, decomp, rank);
  real_in_ = layouts_.in;
  real_in_.n[2] = grid[2];

  // Stage layouts of every member of each transpose's communicator, in its rank order.
  auto layouts_of = [&](auto member_to_rank, int q, Layout StageLayouts::*which) {
    std::vector<Layout> v;
    for (int j = 0; j < q; ++j)
      v.push_back(stage_layouts(cgrid_, pg_, decomp, member_to_rank(j)).*which);
    return v;
  };
  std::vector<std::pair<std::string, MPI_Comm>> where;
  if (decomp == Decomp::slab) {
    auto all = [](int j) { return j; };
    transposes_.push_back(
        std::make_unique<Transpose>(comm_, layouts_of(all, size, &StageLayouts::in),
                                    layouts_of(all, size, &StageLayouts::out), rank));
    where.push_back({"all ranks", comm_});
  } else {
    const int r0 = rank / pg_.p1, r1 = rank % pg_.p1;
    check_mpi(MPI_Comm_split(comm, r0, r1, &row_), "MPI_Comm_split (rows)");
    check_mpi(MPI_Comm_split(comm, r1, r0, &col_), "MPI_Comm_split (columns)");
    auto in_row = [&](int j) { return r0 * pg_.p1 + j; };
    auto in_col = [&](int j) { return j * pg_.p1 + r1; };
    transposes_.push_back(
        std::make_unique<Transpose>(row_, layouts_of(in_row, pg_.p1, &StageLayouts::in),
                                    layouts_of(in_row, pg_.p1, &StageLayouts::mid), r1));
    transposes_.push_back(
        std::make_unique<Transpose>(col_, layouts_of(in_col, pg_.p0, &StageLayouts::mid),
                                    layouts_of(in_col, pg_.p0, &StageLayouts::out), r0));
    where.push_back({"rows", row_});
    where.push_back({"columns", col_});
  }
  // What a member sends a member, over every sub-communicator (the same figures on every rank,
  // from the pure layouts of all ranks; O(P)).
  std::vector<Layout> all_in, all_mid, all_out;
  for (int r = 0; r < size; ++r) {
    const StageLayouts s = stage_layouts(cgrid_, pg_, decomp, r);
    all_in.push_back(s.in);
    all_mid.push_back(s.mid);
    all_out.push_back(s.out);
  }
  for (std::size_t t = 0; t < transposes_.size(); ++t) {
    TransposeInfo info;
    info.where = where[t].first;
    info.collective = transposes_[t]->fwd.even ? "alltoall" : "alltoallv";
    MPI_Comm_size(where[t].second, &info.peers);
    const bool last = decomp == Decomp::slab || t == 1;
    const BlockRange b = block_range(t == 0 ? all_in : all_mid, last ? all_out : all_mid);
    info.min_bytes = b.min * std::int64_t(sizeof(Complex));
    info.max_bytes = b.max * std::int64_t(sizeof(Complex));
    info_.push_back(info);
  }

  const std::int64_t cap =
      std::max({layouts_.in.volume(), layouts_.mid.volume(), layouts_.out.volume()});
  const std::size_t bytes = static_cast<std::size_t>(cap) * sizeof(Complex);
  field_ = static_cast<Complex *>(fftw_malloc(bytes));
  send_ = static_cast<Complex *>(fftw_malloc(bytes));
  recv_ = static_cast<Complex *>(fftw_malloc(bytes));
  if (kind == Kind::r2c)
    real_ = static_cast<double *>(fftw_malloc(real_in_.volume() * sizeof(double)));
  if (!field_ || !send_ || !recv_ || (kind == Kind::r2c && !real_))
    throw std::runtime_error("out of memory for the FFT buffers");

  // One plan per stage and direction, on the field buffer (FFTW_MEASURE overwrites it: done
  // before the caller fills the field).
  const unsigned flags = planner_flags(planner);
  std::vector<std::pair<const Layout *, std::vector<int>>> stages;
  if (decomp == Decomp::slab)
    stages = {{&layouts_.in, {1, 2}}, {&layouts_.out, {0}}};
  else
    stages = {{&layouts_.in, {2}}, {&layouts_.mid, {1}}, {&layouts_.out, {0}}};
  flags_ = flags;
  double total_flops = 0;
  for (const auto &[layout, axes] : stages) {
    stage_layouts_.push_back(layout);
    stage_axes_.push_back(axes);
    double points = 1;  // transform length: the real lengths (r2c's first stage is half work)
    for (int a : axes) points *= grid[a];
    stage_share_.push_back(double(layout->volume()) * std::log2(std::max(points, 2.0)));
    total_flops += stage_share_.back();
  }
  for (double &f : stage_share_) f /= total_flops;
  for (const auto &[layout, axes] : stages) {
    if (kind == Kind::r2c && layout == &layouts_.in) {
      plans_->fwd.push_back(plan_real(real_in_, *layout, axes, real_, field_, true, flags));
      plans_->bwd.push_back(plan_real(real_in_, *layout, axes, real_, field_, false, flags));
      continue;
    }
    plans_->fwd.push_back(plan_axes(*layout, axes, field_, FFTW_FORWARD, flags));
    plans_->bwd.push_back(plan_axes(*layout, axes, field_, FFTW_BACKWARD, flags));
  }
  std::fill(field_, field_ + cap, Complex(0, 0));
  if (real_) std::fill(real_, real_ + real_in_.volume(), 0.0);
}

DistributedFft::~DistributedFft() {
  plans_.reset();
  chunk_plans_.reset();
  fftw_free(field_);
  fftw_free(send_);
  fftw_free(recv_);
  fftw_free(spare_);
  fftw_free(real_);
  if (row_ != MPI_COMM_NULL) MPI_Comm_free(&row_);
  if (col_ != MPI_COMM_NULL) MPI_Comm_free(&col_);
}

std::vector<MPI_Comm> DistributedFft::comms() const {
  std::vector<MPI_Comm> v;
  for (const auto &t : transposes_) v.push_back(t->comm);
  return v;
}

void DistributedFft::fft(int stage, bool forward) {
  PCOLL_Trace_phase_begin("fft");
  const double t0 = now();
  // New-array execution: transposes swap buffers (all from fftw_malloc, so equally aligned).
  fftw_plan plan = forward ? plans_->fwd[stage] : plans_->bwd[stage];
  auto *z = reinterpret_cast<fftw_complex *>(field_);
  if (kind_ == Kind::r2c && stage == 0) {
    if (forward)
      fftw_execute_dft_r2c(plan, real_, z);
    else
      fftw_execute_dft_c2r(plan, z, real_);
  } else {
    fftw_execute_dft(plan, z, z);
  }
  inject_compute(injected_fft_ * stage_share_[stage]);
  times_.fft += now() - t0;
  PCOLL_Trace_phase_end("fft");
}

void DistributedFft::transpose(int index, bool forward) {
  Transpose &t = *transposes_[index];
  const Exchange &x = forward ? t.fwd : t.bwd;
  const Layout &src = forward ? t.from : t.to;
  const Layout &dst = forward ? t.to : t.from;
  const std::array<int, 3> &sender_order = forward ? t.from_order : t.to_order;
  const int d = forward ? 0 : 1;

  PCOLL_Trace_phase_begin("pack");
  double t0 = now();
  const Complex *message = field_;
  if (!t.send_in_place[d]) {
    pack_exchange(x, src, field_, send_);
    message = send_;
  }
  double t1 = now();
  times_.pack += t1 - t0;
  PCOLL_Trace_phase_end("pack");

  PCOLL_Trace_phase_begin("alltoall");
  if (x.even)
    check_mpi(PCOLL_Alltoall(message, t.block[d], MPI_C_DOUBLE_COMPLEX, recv_, t.block[d],
                             MPI_C_DOUBLE_COMPLEX, t.comm),
              "PCOLL_Alltoall");
  else
    check_mpi(PCOLL_Alltoallv(message, t.counts[d][0].data(), t.counts[d][1].data(),
                              MPI_C_DOUBLE_COMPLEX, recv_, t.counts[d][2].data(),
                              t.counts[d][3].data(), MPI_C_DOUBLE_COMPLEX, t.comm),
              "PCOLL_Alltoallv");
  t0 = now();
  times_.alltoall += t0 - t1;
  PCOLL_Trace_phase_end("alltoall");
  const char *served = "";
  PCOLL_Get_last_algorithm(t.comm, &served);
  info_[index].served = served;

  PCOLL_Trace_phase_begin("unpack");
  t0 = now();
  if (t.recv_in_place[d]) {
    std::swap(field_, recv_);  // the received message is the field in the next layout
  } else {
    // The sender packed in its own layout's order, which is this direction's source order.
    unpack_exchange(x, sender_order, dst, recv_, field_);
  }
  times_.unpack += now() - t0;
  PCOLL_Trace_phase_end("unpack");
}

const Layout &DistributedFft::stage_layout(int stage) const {
  return *stage_layouts_[static_cast<std::size_t>(stage)];
}

const std::vector<int> &DistributedFft::stage_axes(int stage) const {
  return stage_axes_[static_cast<std::size_t>(stage)];
}

bool DistributedFft::chunkable(int stage, int axis) const {
  if (kind_ == Kind::r2c && stage == 0) return false;  // reads the whole real input
  const std::vector<int> &axes = stage_axes(stage);
  return std::find(axes.begin(), axes.end(), axis) == axes.end();
}

void DistributedFft::set_overlap(int chunks) {
  if (chunks < 1)
    throw std::invalid_argument("overlap: " + std::to_string(chunks) +
                                " pieces per transpose; it must be at least 1 (1: off)");
  if (chunks == overlap_) return;  // already cut so (the driver sets it before every run)
  if (chunks == 1) return void(overlap_ = 1);
  if (spare_ == nullptr) {
    const std::int64_t cap =
        std::max({layouts_.in.volume(), layouts_.mid.volume(), layouts_.out.volume()});
    spare_ = static_cast<Complex *>(fftw_malloc(static_cast<std::size_t>(cap) * sizeof(Complex)));
    if (spare_ == nullptr) throw std::runtime_error("out of memory for the overlap buffer");
  }
  if (!chunk_plans_) chunk_plans_ = std::make_unique<ChunkPlans>();
  for (std::size_t t = 0; t < transposes_.size(); ++t) {
    Transpose &tr = *transposes_[t];
    const int before = static_cast<int>(t), after = before + 1;
    // Prefer an axis along which both neighbouring stages can run piece by piece.
    const std::vector<int> kept = tr.kept_axes();
    if (kept.empty()) {
      tr.kept = -1;  // cannot happen for these layouts; the transpose would run whole
      continue;
    }
    int axis = kept.front(), best = -1;
    for (int ax : kept) {
      const int score = int(chunkable(before, ax)) + int(chunkable(after, ax));
      if (score > best) best = score, axis = ax;
    }
    tr.cut(axis, chunks);
    // The pieces' plans, made on the scratch buffer (a measuring planner overwrites it).
    for (int stage : {before, after}) {
      if (!chunkable(stage, axis)) continue;
      const Layout &l = stage_layout(stage);
      for (const auto &piece : tr.pieces)
        for (bool fwd : {true, false}) {
          const auto key = std::make_tuple(stage, fwd, axis, piece.rows.n);
          if (chunk_plans_->plans.count(key)) continue;
          std::array<int, 3> extent = l.n;
          extent[axis] = piece.rows.n;
          chunk_plans_->plans[key] = plan_box(l, extent, stage_axes(stage), spare_,
                                              fwd ? FFTW_FORWARD : FFTW_BACKWARD, flags_);
        }
    }
  }
  overlap_ = chunks;  // only once every piece and plan is in place
}

void DistributedFft::fft_piece(int stage, bool forward, int axis, int lo, int n) {
  PCOLL_Trace_phase_begin("fft");
  const double t0 = now();
  const Layout &l = stage_layout(stage);
  fftw_plan plan = chunk_plans_->plans.at(std::make_tuple(stage, forward, axis, n));
  auto *z = reinterpret_cast<fftw_complex *>(field_ + std::int64_t(lo) * l.stride(axis));
  fftw_execute_dft(plan, z, z);
  inject_compute(injected_fft_ * stage_share_[stage] * n / l.n[axis]);
  times_.fft += now() - t0;
  PCOLL_Trace_phase_end("fft");
}

// The pieces in flight move on whenever this rank tests them; it does so after each piece's
// work. Their arrival order is the issue order (MPI orders collectives on a communicator).
void DistributedFft::pipelined_transpose(int index, bool forward, int before, bool fft_before,
                                         int after, bool fft_after) {
  Transpose &t = *transposes_[index];
  const int d = forward ? 0 : 1, axis = t.kept;
  const Layout &src = forward ? t.from : t.to;
  const Layout &dst = forward ? t.to : t.from;
  const std::array<int, 3> &sender_order = forward ? t.from_order : t.to_order;
  const std::size_t m = t.pieces.size();
  std::vector<MPI_Request> req(m, MPI_REQUEST_NULL);
  auto poke = [&](std::size_t from, std::size_t to) {  // progress on req[from, to)
    if (from >= to) return;
    const double t0 = now();
    int flag = 0;
    check_mpi(PCOLL_Testall(static_cast<int>(to - from), req.data() + from, &flag,
                            MPI_STATUSES_IGNORE),
              "PCOLL_Testall");
    times_.alltoall += now() - t0;
  };

  for (std::size_t c = 0; c < m; ++c) {
    const Transpose::Piece &p = t.pieces[c];
    if (fft_before) fft_piece(before, forward, axis, p.rows.lo, p.rows.n);
    PCOLL_Trace_phase_begin("pack");
    double t0 = now();
    Complex *message = send_ + p.soff[d];
    pack_exchange(p.x[d], src, field_, message);
    double t1 = now();
    times_.pack += t1 - t0;
    PCOLL_Trace_phase_end("pack");
    PCOLL_Trace_phase_begin("alltoall");
    Complex *into = recv_ + p.roff[d];
    if (p.x[d].even)
      check_mpi(PCOLL_Ialltoall(message, p.block[d], MPI_C_DOUBLE_COMPLEX, into, p.block[d],
                                MPI_C_DOUBLE_COMPLEX, t.comm, &req[c]),
                "PCOLL_Ialltoall");
    else
      check_mpi(PCOLL_Ialltoallv(message, p.counts[d][0].data(), p.counts[d][1].data(),
                                 MPI_C_DOUBLE_COMPLEX, into, p.counts[d][2].data(),
                                 p.counts[d][3].data(), MPI_C_DOUBLE_COMPLEX, t.comm, &req[c]),
                "PCOLL_Ialltoallv");
    times_.alltoall += now() - t1;
    poke(0, c);  // the earlier pieces (the new one has just made its first move)
    PCOLL_Trace_phase_end("alltoall");
  }
  const char *served = "";
  PCOLL_Get_last_algorithm(t.comm, &served);
  info_[index].served = served;

  std::swap(field_, spare_);  // the next stage's field fills as the pieces arrive
  for (std::size_t c = 0; c < m; ++c) {
    const Transpose::Piece &p = t.pieces[c];
    PCOLL_Trace_phase_begin("alltoall");
    double t0 = now();
    check_mpi(PCOLL_Wait(&req[c], MPI_STATUS_IGNORE), "PCOLL_Wait");
    times_.alltoall += now() - t0;
    PCOLL_Trace_phase_end("alltoall");
    PCOLL_Trace_phase_begin("unpack");
    t0 = now();
    unpack_exchange(p.x[d], sender_order, dst, recv_ + p.roff[d], field_);
    times_.unpack += now() - t0;
    PCOLL_Trace_phase_end("unpack");
    if (fft_after) {
      fft_piece(after, forward, axis, p.rows.lo, p.rows.n);
      poke(c + 1, m);
    }
  }
}

// Forward: stages 0, 1, (2) with transpose t between stages t and t + 1; backward the other way.
// `done` is the last stage whose FFT has run (a pipelined transpose may run the next one).
void DistributedFft::run(bool forward) {
  const int stages = static_cast<int>(plans_->fwd.size());
  const int step = forward ? 1 : -1, first = forward ? 0 : stages - 1;
  int done = first - step;
  auto pending = [&](int stage) { return forward ? done < stage : done > stage; };
  for (int k = 0; k + 1 < stages; ++k) {
    const int before = first + step * k, after = before + step;
    const int index = forward ? before : after;  // transpose t joins stages t and t + 1
    const int axis = transposes_[index]->kept;
    if (overlap_ > 1 && axis >= 0) {
      const bool fft_before = pending(before) && chunkable(before, axis);
      if (pending(before) && !fft_before) fft(before, forward);
      const bool fft_after = chunkable(after, axis);
      pipelined_transpose(index, forward, before, fft_before, after, fft_after);
      done = fft_after ? after : before;
    } else {
      if (pending(before)) fft(before, forward);
      transpose(index, forward);
      done = before;
    }
  }
  const int last = forward ? stages - 1 : 0;
  if (pending(last)) fft(last, forward);
}

void DistributedFft::forward() {
  PCOLL_Trace_phase_begin("fft3d_forward");
  run(true);
  PCOLL_Trace_phase_end("fft3d_forward");
}

void DistributedFft::backward() {
  PCOLL_Trace_phase_begin("fft3d_backward");
  run(false);
  PCOLL_Trace_phase_end("fft3d_backward");
}

}  // namespace pcoll::fft3d

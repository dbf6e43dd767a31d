#include "chiara_phases.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "../../config.hpp"
#include "../patterns/fold.hpp"
#include "../patterns/swing.hpp"

namespace pcoll {

namespace {

// Largest power of k not above b, and its exponent.
std::pair<int, int> largest_power(int k, int b) {
  int p = 1, e = 0;
  while (static_cast<long long>(p) * k <= b) p *= k, ++e;
  return {p, e};
}

// Effective radix: a radix above b behaves like b (one round among all ranks).
int radix(int k, int b) {
  return std::max(2, std::min(k, b));
}

std::size_t claim(ChiaraBuffers &buf, std::size_t &cursor, std::size_t len) {
  const std::size_t at = cursor;
  cursor += len;
  buf.scratch_max = std::max(buf.scratch_max, cursor);
  return buf.scratch_base + at;
}

}  // namespace

std::pair<std::size_t, std::size_t> ChiaraShape::lanes(int t, int j0, int j1) const {
  const int d0 = std::min(t * b + j0, B), d1 = std::min(t * b + j1, B);
  return {blocks.offset(static_cast<std::size_t>(d0)), blocks.offset(static_cast<std::size_t>(d1))};
}

std::pair<std::size_t, std::size_t> ChiaraShape::block(int d) const {
  return {blocks.offset(static_cast<std::size_t>(d)),
          blocks.offset(static_cast<std::size_t>(d + 1))};
}

std::pair<std::size_t, std::size_t> ChiaraShape::segment(int r) const {
  const auto [lo, hi] = block(batch(r));
  const BlockSplit seg{hi - lo, static_cast<std::size_t>(b)};
  const auto j = static_cast<std::size_t>(lane(r));
  return {lo + seg.offset(j), lo + seg.offset(j) + seg.length(j)};
}

int chiara_batch_rule(int P, int b_max, std::string *note) {
  const double root = std::sqrt(static_cast<double>(P));
  int best = 1;
  for (int d = 1; d <= P; ++d) {
    if (P % d != 0 || d > b_max) continue;
    const double dist = std::fabs(d - root), best_dist = std::fabs(best - root);
    if (dist < best_dist || (dist == best_dist && d > best)) best = d;
  }
  if (best == 1 && P > 1) {
    // b = 1 means no intra-batch phase at all and P stages of lane operations (P-1 messages at
    // each stage's root): the batch-lane structure degenerates. Use the smallest divisor >= 2
    // within b_max instead, or, when there is none (prime P), one batch of all ranks.
    int alt = 0;
    for (int d = 2; d <= std::min(P - 1, b_max) && alt == 0; ++d)
      if (P % d == 0) alt = d;
    std::ostringstream os;
    os << "the paper's batch rule gives b=1 for P=" << P << " (b_max=" << b_max
       << "), i.e. P stages of lane operations and no intra-batch phase; ";
    if (alt) {
      os << "using b=" << alt << ", the smallest divisor >= 2 instead";
    } else {
      os << "P has no divisor in [2, min(P-1, b_max)]: using one batch of all " << P
         << " ranks (b=P: intra-batch phases only"
         << (P > b_max ? ", crossing node boundaries" : "") << ")";
      alt = P;
    }
    if (note) *note = os.str();
    return alt;
  }
  return best;
}

ChiaraShape chiara_shape(const PlanRequest &req, std::size_t m) {
  ChiaraShape s;
  s.P = req.size;
  s.m = m;
  const long long bmax = req.param("chiara_bmax");
  s.b_max = bmax != kAuto ? static_cast<int>(bmax)
                          : (req.ranks_per_node > 0 ? req.ranks_per_node : req.size);
  const long long b = req.param("chiara_batch");
  s.b = b != kAuto ? static_cast<int>(b) : chiara_batch_rule(s.P, s.b_max, &s.note);
  if (s.b < 1 || s.P % s.b != 0) s.b = 1;  // chiara_check reports this; keep the shape sane
  s.B = s.P / s.b;
  s.I = (s.B + s.b - 1) / s.b;
  s.blocks = BlockSplit{m, static_cast<std::size_t>(s.B)};
  s.k_rs = static_cast<int>(req.param("chiara_krs"));
  const long long kag = req.param("chiara_kag");
  if (kag != kAuto) {
    s.k_ag = static_cast<int>(kag);
  } else {
    // Paper Sec. V-B: about sqrt(b) for small per-rank segments, close to b-1 for larger ones.
    const double seg_bytes = double(m * req.type_size) / double(s.P);
    const bool small = seg_bytes < double(req.param("chiara_kag_crossover"));
    s.k_ag = small ? static_cast<int>(std::lround(std::sqrt(double(s.b)))) : s.b - 1;
    s.k_ag = std::max(2, s.k_ag);
  }
  return s;
}

std::string chiara_check(const PlanRequest &req) {
  const long long b = req.param("chiara_batch");
  if (b != kAuto && req.size % b != 0) {
    std::ostringstream os;
    os << "PCOLL_CHIARA_BATCH=" << b << " does not divide P=" << req.size
       << " (CHiArA needs P = B*b)";
    return os.str();
  }
  return {};
}

std::string chiara_warning(const PlanRequest &req) {
  return chiara_shape(req, 0).note;
}

std::size_t chiara_length(const PlanRequest &req) {
  return collective_info(req.coll).vector_elems(req.count, req.size);
}

std::string chiara_explain_request(const PlanRequest &req) {
  return chiara_explain(chiara_shape(req, chiara_length(req)));
}

const std::vector<ParamSpec> &chiara_params() {
  static const std::vector<ParamSpec> specs = {
      ParamSpec::integer("chiara_batch", "auto")
          .range(1, 1 << 20)
          .or_auto()
          .about("CHiArA batch size b (ranks per batch, must divide P); auto = the paper's rule: "
                 "among the divisors of P, the b <= chiara_bmax closest to sqrt(P), ties to the "
                 "larger (one batch of all ranks when only b = 1 would qualify)"),
      ParamSpec::integer("chiara_bmax", "auto")
          .range(1, 1 << 20)
          .or_auto()
          .about("CHiArA largest batch size for auto (the paper's ranks per socket/node); auto = "
                 "ranks per node (PCOLL_RANKS_PER_NODE or MPI_COMM_TYPE_SHARED)"),
      ParamSpec::integer("chiara_krs", "2")
          .range(2, 1 << 20)
          .about(
              "CHiArA radix of the intra-batch reduce-scatter (the paper found 2 best everywhere); "
              "a radix above b acts as b"),
      ParamSpec::integer("chiara_kag", "auto")
          .range(2, 1 << 20)
          .or_auto()
          .about(
              "CHiArA radix of the intra-batch allgather; auto = round(sqrt(b)) for per-rank "
              "segments below chiara_kag_crossover bytes, b-1 above (paper Sec. V-B), at least 2"),
      ParamSpec::integer("chiara_kag_crossover", "4096")
          .range(0, 1LL << 40)
          .size_suffixes()
          .about("per-rank segment size in bytes (count * type size / P) at which auto k_AG moves "
                 "from sqrt(b) to b-1"),
  };
  return specs;
}

std::vector<std::vector<std::pair<std::string, std::string>>> chiara_batch_tunings(
    const PlanRequest &req) {
  const ChiaraShape s = chiara_shape(req, req.count);
  std::vector<std::vector<std::pair<std::string, std::string>>> out;
  for (int b = 2; b <= std::min(s.b_max, s.P); ++b)
    if (s.P % b == 0) out.push_back({{"chiara_batch", std::to_string(b)}});
  return out;
}

AlgorithmInfo chiara_info(Collective coll) {
  AlgorithmInfo a;
  a.coll = coll;
  a.params = chiara_params();
  a.check = chiara_check;
  a.explain = chiara_explain_request;
  a.model_exact = false;  // stages of different lanes overlap; the ledger has the exact count
  a.warning = chiara_warning;
  a.tunings = chiara_batch_tunings;
  return a;
}

std::string chiara_explain(const ChiaraShape &s) {
  std::ostringstream os;
  os << "b=" << s.b << " B=" << s.B << " I=" << s.I << " k_RS=" << s.k_rs << " k_AG=" << s.k_ag
     << " (b_max=" << s.b_max << ")";
  if (!s.note.empty()) os << "; " << s.note;
  return os.str();
}

// ---- Phase I: intra-batch radix-k_RS reduce-scatter (Algorithm 1) ------------------------------
void chiara_intra_rs(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf) {
  if (s.b == 1) return;
  const int ph = plan.phase_index("intra_rs");
  const int k = radix(s.k_rs, s.b);
  const auto [p, levels] = largest_power(k, s.b);
  const int x = s.batch(r), i = s.lane(r);
  // Participant q is responsible for the blocks of lanes q, q+p, q+2p, ... ("slots").
  auto slot_pieces = [&](int t, int q0, int q1) {  // element ranges of slots [q0, q1)
    std::vector<std::pair<std::size_t, std::size_t>> v;
    for (int row = 0; row * p < s.b; ++row) {
      const auto e = s.lanes(t, std::min(row * p + q0, s.b), std::min(row * p + q1, s.b));
      if (e.second > e.first) v.push_back(e);
    }
    return v;
  };
  for (int t = 0; t < s.I; ++t) {
    const auto stage = s.lanes(t, 0, s.b);
    if (stage.second == stage.first) continue;
    if (p < s.b) {  // fold the lanes beyond the largest power of k into the participants
      Round &rd = plan.new_round(ph);
      std::size_t cursor = 0;
      if (i >= p) {
        add_send(rd, s.rank_of(x, (i - p) % p), buf.work_range(stage.first, stage.second));
      } else {
        for (int e = p + i; e < s.b; e += p) {
          const Range slot =
              tmp_range(claim(buf, cursor, stage.second - stage.first), stage.second - stage.first);
          const int rv = add_recv(rd, s.rank_of(x, e), slot);
          add_reduce(rd, slot, buf.work_range(stage.first, stage.second), false, rv);
        }
      }
    }
    if (i < p) {  // recursive exchange among the p participants, most significant digit first
      int lo = 0, hi = p;
      for (int l = 0; l < levels; ++l) {
        const int sub = (hi - lo) / k, mine = (i - lo) / sub;
        Round &rd = plan.new_round(ph);
        std::size_t cursor = 0;
        for (int w = 0; w < k; ++w) {
          if (w == mine) continue;
          const int peer = s.rank_of(x, i + (w - mine) * sub);
          for (const auto &e : slot_pieces(t, lo + w * sub, lo + (w + 1) * sub))
            add_send(rd, peer, buf.work_range(e.first, e.second));
          for (const auto &e : slot_pieces(t, lo + mine * sub, lo + (mine + 1) * sub)) {
            const Range slot =
                tmp_range(claim(buf, cursor, e.second - e.first), e.second - e.first);
            const int rv = add_recv(rd, peer, slot);
            add_reduce(rd, slot, buf.work_range(e.first, e.second), w < mine, rv);
          }
        }
        lo += mine * sub;
        hi = lo + sub;
      }
    } else {
      plan.idle(ph, levels);  // folded lanes wait out the exchange (Round::step)
    }
    if (p < s.b) {  // unfold: each folded lane gets its reduced block back
      Round &rd = plan.new_round(ph);
      if (i >= p) {
        const auto e = s.lanes(t, i, i + 1);
        add_recv(rd, s.rank_of(x, (i - p) % p), buf.work_range(e.first, e.second));
      } else {
        for (int e = p + i; e < s.b; e += p) {
          const auto blk = s.lanes(t, e, e + 1);
          add_send(rd, s.rank_of(x, e), buf.work_range(blk.first, blk.second));
        }
      }
    }
  }
}

// ---- Phase II: LaneOp (Algorithm 2) -------------------------------------------------------------
void chiara_lane_reduce(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf) {
  if (s.B == 1) return;
  const int ph = plan.phase_index("lane_reduce");
  const int x = s.batch(r), i = s.lane(r);
  for (int t = 0; t < s.I; ++t) {
    const int d = t * s.b + i;  // also the root batch rho
    Round &rd = plan.new_round(ph);  // one step per stage, empty without a block (Round::step)
    if (d >= s.B) continue;
    const auto blk = s.block(d);
    const std::size_t len = blk.second - blk.first;
    if (len == 0) continue;
    if (x == d) {
      std::size_t cursor = 0;
      for (int y = 0; y < s.B; ++y) {
        if (y == x) continue;
        const Range slot = tmp_range(claim(buf, cursor, len), len);
        const int rv = add_recv(rd, s.rank_of(y, i), slot);
        add_reduce(rd, slot, buf.work_range(blk.first, blk.second), y < x, rv);
      }
    } else {
      add_send(rd, s.rank_of(d, i), buf.work_range(blk.first, blk.second));
    }
  }
}

void chiara_lane_bcast(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf) {
  if (s.B == 1) return;
  const int ph = plan.phase_index("lane_bcast");
  const int x = s.batch(r), i = s.lane(r);
  for (int t = 0; t < s.I; ++t) {
    const int d = t * s.b + i;
    Round &rd = plan.new_round(ph);  // one step per stage, empty without a block (Round::step)
    if (d >= s.B) continue;
    const auto blk = s.block(d);
    if (blk.second == blk.first) continue;
    const Range v = buf.work_range(blk.first, blk.second);
    if (x == d) {
      for (int y = 0; y < s.B; ++y)
        if (y != x) add_send(rd, s.rank_of(y, i), v);
    } else {
      add_recv(rd, s.rank_of(d, i), v);
    }
  }
}

// ---- Phase II with a logarithmic LaneOp (chiara_loglane) ----------------------------------------
const char *chiara_lane_name(ChiaraLane lane) {
  switch (lane) {
    case ChiaraLane::automatic:
      return "auto";
    case ChiaraLane::flat:
      return "flat";
    case ChiaraLane::doubling:
      return "doubling";
    case ChiaraLane::halving:
      return "halving";
    case ChiaraLane::swing:
      return "swing";
    case ChiaraLane::bine:
      return "bine";
  }
  return "?";
}

ChiaraLane chiara_lane_mode(const PlanRequest &req, const ChiaraShape &s) {
  const auto lane = static_cast<ChiaraLane>(req.param("chiara_lane"));
  if (lane != ChiaraLane::automatic) return lane;
  const std::size_t smallest = s.m / static_cast<std::size_t>(s.B);  // elements
  const auto pof2 = static_cast<std::size_t>(PowerOfTwoFold(s.B).pof2);
  const bool big =
      smallest * req.type_size >= static_cast<std::size_t>(req.param("chiara_lane_crossover"));
  return big && smallest >= pof2 ? ChiaraLane::halving : ChiaraLane::doubling;
}

namespace {

// The schedule a lane runs on a block of `len` elements: Swing's blocks need one element per
// new rank (pof2 of them), smaller blocks take the butterfly (the same choice on every member
// of the lane: they all hold the block).
ChiaraLane lane_for(ChiaraLane lane, std::size_t len, int pof2) {
  return lane == ChiaraLane::swing && len < static_cast<std::size_t>(pof2) ? ChiaraLane::doubling
                                                                            : lane;
}

// One stage's lane allreduce part for rank r's lane: the reduce half (reduce = true) or the
// broadcast half.
void loglane_part(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, ChiaraLane lane,
                  int t, bool reduce, int ph) {
  const int x = s.batch(r), i = s.lane(r);
  const int d = t * s.b + i;
  if (d >= s.B) return;
  const auto blk = s.block(d);
  const std::size_t len = blk.second - blk.first;
  if (len == 0) return;
  const PowerOfTwoFold f(s.B);
  const RankMap lane_ranks{i, s.b};  // member x of lane i is rank x*b + i
  const Range work = buf.work_range(blk.first, blk.second);
  std::size_t cursor = 0;  // scratch is reused from stage to stage: rounds run in order
  const Range scratch = tmp_range(claim(buf, cursor, len), len);
  lane = lane_for(lane, len, f.pof2);
  const int root = d % f.pof2;  // bine: the tree's root rotates with the block
  if (reduce) {
    f.fold(plan, x, work, scratch, ph, lane_ranks);
    f.run(plan, x, ph, [&](Plan &pl, int nr) {
      switch (lane) {
        case ChiaraLane::halving:
          return halving_reduce_scatter(pl, f, nr, work, scratch, ph, lane_ranks);
        case ChiaraLane::swing:
          return swing_reduce_scatter(pl, f, nr, work, scratch, ph, lane_ranks);
        case ChiaraLane::bine:
          return bine_reduce(pl, f, nr, root, work, scratch, ph, lane_ranks);
        default:
          return butterfly_allreduce(pl, f, nr, work, scratch, ph, lane_ranks);
      }
    });
  } else {
    f.run(plan, x, ph, [&](Plan &pl, int nr) {
      if (lane == ChiaraLane::halving) doubling_allgather(pl, f, nr, work, ph, lane_ranks);
      if (lane == ChiaraLane::swing) swing_allgather(pl, f, nr, work, ph, lane_ranks);
      if (lane == ChiaraLane::bine) bine_bcast(pl, f, nr, root, work, ph, lane_ranks);
    });
    f.unfold(plan, x, work, ph, lane_ranks);
  }
}

// loglane_part, and as many empty rounds after it as the lane with the most steps in the stage
// has more (Round::step): the lanes' blocks differ by at most one element, so that is the first
// lane's or the last one's (a block too small for Swing takes the butterfly, a missing one
// nothing).
void loglane_stage(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, ChiaraLane lane,
                   int t, bool reduce, int ph) {
  const std::size_t first = plan.rounds.size();
  loglane_part(plan, s, r, buf, lane, t, reduce, ph);
  // Every lane of a full stage whose blocks all take the same schedule has as many steps as
  // this one (the common case: nothing to build).
  const int lanes = std::min(s.b, s.B - t * s.b);
  const auto big = s.block(t * s.b), small = s.block(t * s.b + lanes - 1);
  const std::size_t big_len = big.second - big.first, small_len = small.second - small.first;
  const int pof2 = PowerOfTwoFold(s.B).pof2;
  if (lanes == s.b && small_len > 0 &&
      lane_for(lane, small_len, pof2) == lane_for(lane, big_len, pof2))
    return;
  std::size_t most = 0;
  for (int j : {0, lanes - 1}) {
    Plan part;
    ChiaraBuffers scratch = buf;
    loglane_part(part, s, s.rank_of(s.batch(r), j), scratch, lane, t, reduce, ph);
    most = std::max(most, part.rounds.size());
  }
  plan.idle(ph, static_cast<int>(most - std::min(most, plan.rounds.size() - first)));
}

}  // namespace

void chiara_loglane_reduce(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf,
                           ChiaraLane lane) {
  if (lane == ChiaraLane::flat) return chiara_lane_reduce(plan, s, r, buf);
  if (s.B == 1) return;
  const int ph = plan.phase_index("lane_reduce");
  for (int t = 0; t < s.I; ++t) loglane_stage(plan, s, r, buf, lane, t, true, ph);
}

void chiara_loglane_bcast(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf,
                          ChiaraLane lane) {
  if (lane == ChiaraLane::flat) return chiara_lane_bcast(plan, s, r, buf);
  if (s.B == 1) return;
  const int ph = plan.phase_index("lane_bcast");
  for (int t = 0; t < s.I; ++t) loglane_stage(plan, s, r, buf, lane, t, false, ph);
}

// ---- Phase III: intra-batch radix-k_AG allgather (Algorithm 3) ----------------------------------
void chiara_intra_ag(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf) {
  if (s.b == 1) return;
  const int ph = plan.phase_index("intra_ag");
  const int k = radix(s.k_ag, s.b);
  const int x = s.batch(r), i = s.lane(r);
  // Lanes [a, a + n) taken modulo b, as element ranges of stage t (at most two pieces).
  auto cyclic = [&](int t, int a, int n) {
    std::vector<std::pair<std::size_t, std::size_t>> v;
    a %= s.b;
    const int first = std::min(n, s.b - a);
    v.push_back(s.lanes(t, a, a + first));
    if (n > first) v.push_back(s.lanes(t, 0, n - first));
    return v;
  };
  for (int t = 0; t < s.I; ++t) {
    const auto stage = s.lanes(t, 0, s.b);
    if (stage.second == stage.first) continue;
    for (int dist = 1; dist < s.b; dist *= k) {
      Round &rd = plan.new_round(ph);
      // Hold lanes [i, i + dist); get [i + j*dist, +cnt) from lane i + j*dist, j = 1..k-1,
      // clipped so that no lane arrives twice.
      for (int j = 1; j < k && j * dist < s.b; ++j) {
        const int cnt = std::min(dist, s.b - j * dist);
        const int to = s.rank_of(x, ((i - j * dist) % s.b + s.b) % s.b);
        const int from = s.rank_of(x, (i + j * dist) % s.b);
        for (const auto &e : cyclic(t, i, cnt)) add_send(rd, to, buf.work_range(e.first, e.second));
        for (const auto &e : cyclic(t, i + j * dist, cnt))
          add_recv(rd, from, buf.work_range(e.first, e.second));
      }
      if (static_cast<long long>(dist) * k >= s.b) break;
    }
  }
}

// ---- standalone reduce-scatter / allgather boundary phases --------------------------------------
namespace {

// The one round in which the root lane of block x (rank x*b + (x mod b)) scatters the block's b
// segments to the ranks of batch x (scatter = true) or gathers them from those ranks. `own` is
// where this rank's segment goes (scatter) or comes from (gather); at the root it is copied
// from/to its place in the work vector when it lives elsewhere.
void root_segments(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, Range own,
                   bool scatter, const char *phase) {
  const int x = s.batch(r), i = s.lane(r), root_lane = x % s.b;
  Round &rd = plan.new_round(plan.phase_index(phase));
  if (i == root_lane) {
    for (int j = 0; j < s.b; ++j) {
      if (j == i) continue;
      const auto seg = s.segment(s.rank_of(x, j));
      const Range v = buf.work_range(seg.first, seg.second);
      if (scatter)
        add_send(rd, s.rank_of(x, j), v);
      else
        add_recv(rd, s.rank_of(x, j), v);
    }
    const auto mine = s.segment(r);
    const Range in_work = buf.work_range(mine.first, mine.second);
    if (own.buf != in_work.buf || own.off != in_work.off) {
      if (scatter)
        add_copy(rd, in_work, own);
      else
        add_copy(rd, own, in_work);
    }
  } else if (scatter) {
    add_recv(rd, s.rank_of(x, root_lane), own);
  } else {
    add_send(rd, s.rank_of(x, root_lane), own);
  }
}

}  // namespace

void chiara_redistribute(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, Range dst) {
  root_segments(plan, s, r, buf, dst, /*scatter=*/true, "intra_redistribute");
}

void chiara_align(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, Range src) {
  root_segments(plan, s, r, buf, src, /*scatter=*/false, "intra_align");
}

double chiara_model(const ChiaraShape &s, std::size_t ts, const CostParams &c, bool composed,
                    ChiaraLane lane) {
  const PowerOfTwoFold f(s.B);
  const double lg = f.log2_pof2(), fo = f.rem > 0 ? 1 : 0, q = f.pof2;
  const double blk = double(s.m * ts) / double(s.B);  // bytes per block
  double t_total = 0;
  for (int t = 0; t < s.I; ++t) {
    const double stage = blk * s.active(t);
    if (s.b > 1) {
      const int k = radix(s.k_rs, s.b);
      const auto [p, levels] = largest_power(k, s.b);
      double part = stage;
      if (p < s.b) t_total += 2 * c.alpha + c.beta * (stage + blk) + c.gamma * stage;
      for (int l = 0; l < levels; ++l) {
        part /= k;
        t_total += (k - 1) * (c.alpha + c.beta * part) + (k - 1) * c.gamma * part;
      }
      const int kg = radix(s.k_ag, s.b);
      for (long long dist = 1; dist < s.b; dist *= kg)
        for (long long j = 1; j < kg && j * dist < s.b; ++j)  // clipped like the plan
          t_total += c.alpha + c.beta * blk * double(std::min<long long>(dist, s.b - j * dist));
    }
    if (s.B > 1) {
      switch (lane) {
        case ChiaraLane::doubling:  // fold, butterfly, unfold (as recursive_doubling)
          t_total += (lg + 2 * fo) * (c.alpha + c.beta * blk) + (lg + fo) * c.gamma * blk;
          break;
        case ChiaraLane::bine:  // fold, up and down the tree, unfold (as bine)
          t_total += 2 * (lg + fo) * (c.alpha + c.beta * blk) + (lg + fo) * c.gamma * blk;
          break;
        case ChiaraLane::swing:    // as halving: the same rounds and volumes
        case ChiaraLane::halving:  // fold, halving, doubling, unfold (as rabenseifner)
          t_total += (2 * lg + 2 * fo) * c.alpha + (2 * (q - 1) / q + 2 * fo) * c.beta * blk +
                     ((q - 1) / q + fo) * c.gamma * blk;
          break;
        default:  // the paper's flat LaneOp: 2(B-1) messages serialised at the lane root
          t_total += 2 * (s.B - 1) * (c.alpha + c.beta * blk) + (s.B - 1) * c.gamma * blk;
      }
    }
  }
  if (composed && s.b > 1) t_total += 2 * (s.b - 1) * (c.alpha + c.beta * blk / s.b);
  return t_total;
}

}  // namespace pcoll

// CHiArA building blocks (the CHiArA paper, "Configurable and Hierarchical Allreduce", Sections III
// and IV): the batch-lane topology, the block/stage decomposition and the phases every CHiArA
// collective is assembled from, as plan builders.
//
// Topology: rank r = x*b + i (batch x, lane i), B = P/b batches. The vector X[0:m) is split into
// B contiguous blocks (the larger ones first when B does not divide m). Stage t (0 <= t < I,
// I = ceil(B/b)) activates blocks d = t*b + i, one per lane; lanes with d >= B hold zero-length
// blocks in that stage. Phases (the trace phase names are in quotes):
//   "intra_rs"   Algorithm 1: intra-batch reduce-scatter of the stage's blocks, radix-k_RS
//                recursive exchange; lanes beyond the largest power of k_RS fold into the
//                participants first and get their reduced block back after (unfold);
//   "lane_reduce" Algorithm 2 REDUCE: block d goes along lane i to the rotating root batch
//                rho = d, root rank rho*b + i, which reduces the B-1 contributions;
//   "lane_bcast" Algorithm 2 BCAST: the root sends block d back along the lane;
//   "intra_ag"   Algorithm 3: intra-batch allgather of the stage's blocks, radix-k_AG recursive
//                exchange (Bruck's schedule generalised to radix k, with the last exchange clipped
//                when b is not a power of k_AG); blocks land directly in their natural position, so
//                the paper's final reindexing is not needed;
//   "intra_redistribute" (standalone reduce-scatter) the root of block x scatters it to the ranks
//                of batch x, the owners of its b segments;
//   "intra_align" (standalone allgather) the ranks of batch x gather their segments at the root
//                lane of block x.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "../../plan.hpp"
#include "../../registry.hpp"

namespace pcoll {

struct ChiaraShape {
  int P = 1, b = 1, B = 1, I = 1;
  int k_rs = 2, k_ag = 2;
  int b_max = 1;
  std::size_t m = 0;  // elements of the whole vector
  BlockSplit blocks;  // m into B blocks
  std::string note;   // why b differs from the paper's rule, if it does

  int batch(int r) const { return r / b; }
  int lane(int r) const { return r % b; }
  int rank_of(int x, int i) const { return x * b + i; }
  int active(int t) const { return b < B - t * b ? b : B - t * b; }  // blocks in stage t
  // Elements of the lane blocks [j0, j1) of stage t (empty lanes have empty ranges).
  std::pair<std::size_t, std::size_t> lanes(int t, int j0, int j1) const;
  // Elements of block d.
  std::pair<std::size_t, std::size_t> block(int d) const;
  // Rank r's segment of the reduce-scatter/allgather layout: part (r mod b) of block (r / b).
  std::pair<std::size_t, std::size_t> segment(int r) const;
};

// The paper's batch rule: among the divisors of P, the b <= b_max closest to sqrt(P), ties to the
// larger. When the only such divisor is 1 (prime P, or no divisor in [2, b_max]) the batch-lane
// structure degenerates into P stages of lane operations; CHiArA then uses one batch of all P
// ranks (note says so).
int chiara_batch_rule(int P, int b_max, std::string *note);
// Resolves b, B, I, k_RS, k_AG for a request (parameters chiara_batch, chiara_bmax, chiara_krs,
// chiara_kag, chiara_kag_crossover; req.ranks_per_node for the default b_max).
ChiaraShape chiara_shape(const PlanRequest &req, std::size_t m);
// Why the request cannot run (explicit batch that does not divide P), or empty.
std::string chiara_check(const PlanRequest &req);
// The batch-rule note for this request (empty when the paper's rule applies as is).
std::string chiara_warning(const PlanRequest &req);
// "b=4 B=4 I=1 k_RS=2 k_AG=2 (b_max=8)" plus the note, for pcoll-info and warnings.
std::string chiara_explain(const ChiaraShape &s);
// The length of the vector CHiArA splits for a request: count for allreduce, P * count for the
// reduce-scatter and allgather (count per rank there).
std::size_t chiara_length(const PlanRequest &req);
// chiara_explain of the request's shape: the `explain` entry of every CHiArA algorithm.
std::string chiara_explain_request(const PlanRequest &req);

// Where the working vector lives, and a scratch allocator in tmp for receive buffers.
struct ChiaraBuffers {
  Buf work = Buf::out;
  std::size_t work_base = 0;     // element offset of X[0] in `work`
  std::size_t scratch_base = 0;  // first tmp element available for receive buffers
  std::size_t scratch_max = 0;   // high-water mark (elements past scratch_base)
  Range work_range(std::size_t lo, std::size_t hi) const {
    return Range{work, work_base + lo, hi - lo};
  }
};

// Phase builders: append the rounds of one phase for rank `r` (all stages, in stage order).
void chiara_intra_rs(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf);
void chiara_lane_reduce(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf);
void chiara_lane_bcast(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf);
void chiara_intra_ag(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf);
// Standalone reduce-scatter's last phase: each rank's segment goes from the root of its block to
// `dst` (dst.len must equal the segment; dst may be the work range itself).
void chiara_redistribute(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, Range dst);
// Standalone allgather's first phase: the segments of batch x are gathered at the root of block
// x; `src` is where rank r's own segment is (its input).
void chiara_align(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf, Range src);

// ---- Phase II with a logarithmic LaneOp (chiara_loglane; beyond the paper) ----------------------
// The paper's LaneOp gathers block d at one lane root and broadcasts it back: 2(B-1) block
// messages serialised through that rank per stage. Every rank of lane i holds block d of stage t
// after Phase I, so Phase II is an allreduce of block d among the B lane ranks x*b + i (lane
// member x = batch x), which the fold-based power-of-two schedules (../patterns/fold.hpp) do in
// logarithmically many rounds:
//   doubling  "lane_reduce": fold (B not a power of two) + butterfly, log2 B' rounds of whole
//             blocks; "lane_bcast": unfold;
//   halving   "lane_reduce": fold + recursive-halving reduce-scatter of the block;
//             "lane_bcast": recursive-doubling allgather + unfold; 2 log2 B' rounds, 2 blocks
//             sent and received per rank instead of 2(B-1) at the root;
//   flat      the paper's LaneOp (chiara_lane_reduce / chiara_lane_bcast above);
//   swing     "lane_reduce": fold + Swing's reduce-scatter of the block; "lane_bcast": Swing's
//             allgather + unfold (../patterns/swing.hpp): halving's rounds and volumes with
//             partners at distances 1, 1, 3, 5, 11, ... lane ranks instead of 1, 2, 4, ...;
//             blocks of fewer than B' elements: doubling;
//   bine      "lane_reduce": fold + reduction up a Bine tree to new rank d mod B' (the root
//             rotates with the block, as the paper's lane root does); "lane_bcast": down the
//             same tree + unfold; 2 log2 B' rounds of whole blocks, half the bytes of doubling.
// The order matches the choices of the parameter chiara_lane (its integer value is the index).
enum class ChiaraLane : int { automatic = 0, flat = 1, doubling = 2, halving = 3, swing = 4, bine = 5 };
const char *chiara_lane_name(ChiaraLane lane);
// chiara_lane of the request with auto resolved: halving when the smallest block has at least
// chiara_lane_crossover bytes and at least B' (largest power of two <= B) elements, so that no
// piece of the halving is empty; doubling otherwise.
ChiaraLane chiara_lane_mode(const PlanRequest &req, const ChiaraShape &s);
// Phase II-a / II-b with the given (resolved) LaneOp, all stages in stage order.
void chiara_loglane_reduce(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf,
                           ChiaraLane lane);
void chiara_loglane_bcast(Plan &plan, const ChiaraShape &s, int r, ChiaraBuffers &buf,
                          ChiaraLane lane);

// The parameters of every CHiArA algorithm (batch size, its bound, the radices).
const std::vector<ParamSpec> &chiara_params();

// The batch sizes `auto` tries for CHiArA: every divisor b of P in [2, b_max] (b_max = ranks per
// node: one stage of lanes when b = b_max), each as a chiara_batch setting; the paper's rule stays
// the configured value (and what an explicit PCOLL_ALLREDUCE=chiara uses).
std::vector<std::vector<std::pair<std::string, std::string>>> chiara_batch_tunings(
    const PlanRequest &req);

// An AlgorithmInfo with what every CHiArA algorithm shares: the CHiArA parameters, the batch-size
// check, the shape explanation and rule warning, and a model that is an estimate. Each algorithm
// file adds its name, description, source, restrictions, builder and model.
AlgorithmInfo chiara_info(Collective coll);

// Closed-form alpha-beta-gamma estimate of the semi-composed (composed = false) or naively
// composed allreduce; an estimate (stages of different lanes overlap in practice).
double chiara_model(const ChiaraShape &s, std::size_t type_size, const CostParams &c, bool composed,
                    ChiaraLane lane = ChiaraLane::flat);

}  // namespace pcoll

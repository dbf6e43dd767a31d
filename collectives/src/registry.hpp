// The two tables (registry.cpp): CollectiveInfo, one row per collective, and AlgorithmInfo, one
// row per algorithm. Everything else (api, select, config, verify, pcoll-info, collbench, tests)
// reads them instead of switching on the collective.
//
// Each algorithm file describes itself with an
// AlgorithmInfo: its name (the string users type, the trace log stores and plots show), what it
// is, where it comes from, its restrictions as data, the parameters it reads, its plan builder
// and its closed-form alpha-beta-gamma cost (used by `auto` and checked against the ledger).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "plan.hpp"

namespace pcoll {

// The key of a CollectiveInfo row (the row holds everything else).
enum class Collective : std::uint8_t {
  allreduce,
  reduce_scatter_block,
  reduce_scatter,
  allgather,
  allgatherv,
  alltoall,
  alltoallv,
  bcast,
  reduce,
  barrier
};

// What the symbolic verifier (verify.hpp) expects of the output of every rank r, for the
// collective's `count` argument n at P ranks:
//   gathered: out holds P blocks of n elements, block q a copy of elements [s, s + n) of rank q's
//             input, s = by_rank ? r*n : 0 (allgather; alltoall is by_rank: block q of rank r
//             is block r of rank q's input);
//   reduced:  out holds n elements, element j the reduction over all ranks of input element
//             (by_rank ? r*n : 0) + j, each rank's contribution exactly once (allreduce,
//             reduce_scatter_block);
//   identical: all ranks hold the same result with the same expression (bit-identical).
//   broadcast: out holds n elements, a copy of the root's input (bcast);
//   root_only: only the root's output is checked (reduce: other ranks have no result);
//   synchronises: no data; every rank leaves only after every rank has entered (barrier: a
//             chain of messages leads from each rank's start to each rank's end).
struct Expect {
  bool reduced = true;
  bool gathered = false;
  bool by_rank = false;
  bool identical = true;
  bool broadcast = false;
  bool root_only = false;
  bool synchronises = false;
};

struct PlanRequest;

// One collective: its shape, its semantics for the verifier, how to call it (our C entry point
// and the vendor's, with one signature) and what the benchmark needs. Rows are written by named
// assignment, like AlgorithmInfo.
struct CollectiveInfo {
  using CallFn = int (*)(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm);  // op ignored when !takes_op
  Collective id{};
  const char *name = "";  // PCOLL_<NAME>, pcoll-info, the trace log, collbench --coll
  const char *mpi_name = "";
  const char *select_description = "";  // the PCOLL_<NAME> parameter's description
  bool takes_op = true;
  // The call names a root rank (bcast, reduce): PlanRequest::root, part of every cache key.
  bool takes_root = false;
  // Elements of the send (`in`) and receive (`out`) buffers for the `count` argument at P ranks,
  // in the uniform layout. nullptr for collectives that have none (alltoallv: every rank knows
  // only its own counts): their plan builders set Plan::in_elems and out_elems, and the
  // benchmark data fields below are nullptr too (collbench says it has no benchmark for them;
  // tests/unit/plan_matrix_test.cpp checks them on count matrices).
  std::size_t (*in_elems)(std::size_t count, int P) = nullptr;
  std::size_t (*out_elems)(std::size_t count, int P) = nullptr;
  // The call passes counts (and displacements) per peer (alltoallv, allgatherv, reduce_scatter):
  // plans are built
  // per layout (PlanRequest::layout), and with one the builder sets Plan::in_elems and
  // out_elems. Without a layout the builders use the uniform one (`count` per peer in rank
  // order), which is what the model, pcoll-info and the uniform benchmark call see.
  bool layout_args = false;
  // Plans work in `out` only: the executor first copies `in` to `out` (allreduce-like).
  bool copy_in_to_out = false;
  // MPI_IN_PLACE: rank r's input is read from the receive buffer at this element offset.
  std::size_t (*in_place_offset)(int rank, std::size_t count, int P) = nullptr;
  // MPI_IN_PLACE: the input is first copied to scratch memory and read from there, because the
  // plans write parts of the receive buffer whose old content they still have to send
  // (alltoall: block j is overwritten by rank j's block while block j is still to go to rank j).
  bool in_place_staged = false;
  // `auto`, when the collective has its own rule (the size dispatch of HPX's pull request "Add
  // size-based pairwise dispatch to all_to_all" for alltoall): the name of the algorithm to use,
  // from a request carrying only `auto_params` (resolved like an algorithm's parameters; count,
  // type size and P are values every rank knows identically). The rule's choice must serve the
  // call; if its restrictions fail, or the rule returns nullptr (not a shape it knows), the
  // model-based choice is used. Without a rule, auto is the lowest model time.
  const char *(*auto_rule)(const PlanRequest &req) = nullptr;
  std::vector<ParamSpec> auto_params;  // declared here: the parameters of the rule
  Expect expect;
  CallFn call = nullptr;                  // PCOLL_<Collective>
  CallFn vendor = nullptr;                // PMPI_<Collective>
  double (*bus_factor)(int P) = nullptr;  // busBw = algBw * bus_factor (nccl-tests)
  // Benchmark data (collbench, tests): the `count` argument for a message of `bytes` (nccl-tests'
  // size, the larger buffer) and for a per-rank segment of S elements; send element i of rank r
  // and receive element i of rank r, exactly (small integers: exact in every type).
  std::size_t (*count_for_bytes)(std::size_t bytes, std::size_t type_size, int P) = nullptr;
  std::size_t (*count_for_segment)(std::size_t S, int P) = nullptr;
  long long (*input)(int r, std::size_t i, std::size_t count, int P) = nullptr;
  long long (*expected)(int r, std::size_t i, std::size_t count, int P) = nullptr;

  // The larger of the two buffers (the vector a plan moves), in elements; 0 without in_elems.
  std::size_t vector_elems(std::size_t count, int P) const;
  // The row's buffers come from each call's layout (alltoallv, allgatherv, reduce_scatter).
  bool per_rank_layout() const { return layout_args; }
  // collbench can run it (the data generators and the uniform call adapter are there).
  bool benchmarkable() const {
    return call != nullptr && in_elems != nullptr && out_elems != nullptr &&
           count_for_bytes != nullptr && input != nullptr && expected != nullptr;
  }
};

const std::vector<CollectiveInfo> &collective_table();
const CollectiveInfo &collective_info(Collective c);
const CollectiveInfo *find_collective(const std::string &name);
const char *collective_name(Collective c);
const std::vector<Collective> &all_collectives();

// alltoallv: one rank's counts and displacements per peer, in elements of the (contiguous)
// datatype, displacements made non-negative (api.cpp rebases the buffer pointers). With
// MPI_IN_PLACE the send side is the receive side.
// allgatherv: recvcounts are every rank's block (the same on all ranks), rdispls where each
// lands in this rank's output; sendcounts and sdispls have one entry, this rank's block in the
// input (in place: its place in the output).
// reduce_scatter: recvcounts are every rank's block in units (the same on all ranks), the input
// those blocks packed in rank order; the other three are empty.
struct Layout {
  std::vector<std::size_t> sendcounts, sdispls, recvcounts, rdispls;
  bool operator==(const Layout &o) const {
    return sendcounts == o.sendcounts && sdispls == o.sdispls && recvcounts == o.recvcounts &&
           rdispls == o.rdispls;
  }
};

// Everything a plan builder may depend on. Builders are pure functions of this.
struct PlanRequest {
  Collective coll{};
  int rank = 0;
  int size = 1;
  std::size_t count = 0;
  std::size_t type_size = 1;  // bytes per element (for byte-sized parameters such as segments)
  int ranks_per_node = 0;     // consecutive ranks sharing a node (0: all on one node)
  int root = 0;               // collectives with a root (CollectiveInfo::takes_root)
  // Shared-memory plans: bytes per rank of one channel of the node segment (0: no segment), and
  // whether the call is persistent (CallShape).
  std::size_t node_segment = 0;
  bool persistent = false;
  // The algorithm's declared parameters, resolved to integers (kAuto for "auto").
  std::vector<std::pair<std::string, long long>> params;
  // Collectives with a per-call layout (alltoallv, allgatherv, reduce_scatter): the counts and
  // displacements, not
  // owned (valid while the plan is built). nullptr: the uniform layout, `count` elements to and
  // from every peer in rank order (what pcoll-info and the plan matrix use).
  const Layout *layout = nullptr;

  long long param(const char *name) const;  // throws std::logic_error if not declared
};

struct CostParams {
  double alpha = 0;  // s per message
  double beta = 0;   // s per byte sent
  double gamma = 0;  // s per byte reduced
};

struct Restrictions {
  // The algorithm combines contributions out of rank order: only commutative ops may use it.
  bool needs_commutative = false;
};

// Every field has a default, and entries are written as named assignments (C++17 has no
// designated initialisers):
//   static const AlgorithmInfo info = [] { AlgorithmInfo a; a.name = "ring"; ...; return a; }();
struct AlgorithmInfo;

// A request an algorithm serves with another registered algorithm's schedule (ring at count < P
// runs recursive doubling's, as Open MPI's ring does): that algorithm and why. The trace and
// pcoll-info name both, "ring (recursive_doubling: count < P)", so a row never names a schedule
// that did not run.
struct Delegation {
  const AlgorithmInfo *to = nullptr;
  const char *why = "";
  explicit operator bool() const { return to != nullptr; }
};

struct AlgorithmInfo {
  Collective coll{};
  const char *name = "";
  const char *description = "";
  const char *source = "";  // where the schedule comes from (papers cited by title)
  Restrictions restrictions;
  // The parameters the plan builder reads, declared where they are read (name, default, range,
  // description: config.hpp); param_table() collects them. A parameter several algorithms read
  // (the HPX tree's, CHiArA's) is declared once in the shared file and listed by each.
  std::vector<ParamSpec> params;
  Plan (*build)(const PlanRequest &) = nullptr;  // nullptr: the vendor MPI is called directly
  // Closed-form model time for P = req.size ranks and req.count * req.type_size bytes.
  double (*model)(const PlanRequest &, const CostParams &) = nullptr;
  // Why this request cannot run (a parameter that does not fit this P, ...), or empty.
  std::string (*check)(const PlanRequest &) = nullptr;
  // What the algorithm resolved for this request (batch size, radices ...) and any warning.
  std::string (*explain)(const PlanRequest &) = nullptr;
  // The model reproduces the plan's ledger exactly (tested); otherwise it is an estimate.
  bool model_exact = true;
  // `auto` may choose it (baselines kept for measurement only say false).
  bool auto_candidate = true;
  // Its plans move data through the node segment (Buf::node): PCOLL_SHM=auto maps one for a
  // communicator whose configured algorithm is such an algorithm (context.cpp).
  bool uses_node_segment = false;
  // The parameter values that matter, which `auto`'s cost model tries besides the configured
  // ones: each entry a set of (parameter, value) settings (CHiArA's batch size among the divisors
  // of P up to b_max, say). nullptr: the configured values only.
  std::vector<std::vector<std::pair<std::string, std::string>>> (*tunings)(const PlanRequest &) =
      nullptr;
  // Bandwidth-optimal schedules: true where the plan for this request keeps the promise that
  // each rank sends at most 2 (P-1)/P x n elements outside its fold and unfold phases (block
  // rounding aside), and only whole vectors in those (false where it falls back to a latency
  // schedule for small counts). tests/unit/volume_test.cpp holds every plan to it. nullptr: no
  // such promise.
  bool (*bandwidth_optimal)(const PlanRequest &) = nullptr;
  // A warning for shapes the algorithm handles poorly (said once per communicator), or empty.
  std::string (*warning)(const PlanRequest &) = nullptr;
  // The requests it hands to another algorithm's schedule (its build and model ask the same
  // function, so the label and the plan cannot disagree). nullptr: none.
  Delegation (*delegate)(const PlanRequest &) = nullptr;

  bool is_vendor() const { return build == nullptr; }
};

const std::vector<const AlgorithmInfo *> &all_algorithms();
std::vector<const AlgorithmInfo *> algorithms_of(Collective c);
const AlgorithmInfo *find_algorithm(Collective c, const std::string &name);

// The vendor MPI's own implementation of collective c, called through PMPI (not a plan).
const AlgorithmInfo &vendor_info(Collective c);

// "ring (recursive_doubling: count < P)" where `algo` delegates `req` (a non-empty plan), else
// empty.
std::string delegation_label(const AlgorithmInfo &algo, const PlanRequest &req);

}  // namespace pcoll

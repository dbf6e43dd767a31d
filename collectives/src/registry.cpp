#include "registry.hpp"

#include <pcoll/pcoll.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace pcoll {

namespace {

std::size_t same(std::size_t n, int) {
  return n;
}
std::size_t times_p(std::size_t n, int P) {
  return n * static_cast<std::size_t>(P);
}
std::size_t at_zero(int, std::size_t, int) {
  return 0;
}

// Benchmark inputs. Rank r's i-th value: 1..13, so sums over up to 2^20 ranks stay exact even
// in float.
long long value(int r, std::size_t i) {
  return static_cast<long long>((static_cast<std::size_t>(r) * 7 + i) % 13) + 1;
}
// reduce_scatter_block: element j of rank q's P*n input; the term 14*(block mod 64) makes the
// result blocks differ, so a block delivered to the wrong rank is caught. At most 895 per rank:
// sums stay exact in float up to 2^24/895 (about 18700) ranks.
long long rsb_value(int q, std::size_t j, std::size_t n) {
  return value(q, j) + 14 * static_cast<long long>((j / n) % 64);
}
// allgather: element i of rank r's block; different for every rank (1021 is invertible modulo
// the prime 65521), so a misplaced block is caught; below 2^24, so exact in float.
long long gather_value(int r, std::size_t i) {
  return static_cast<long long>((static_cast<std::size_t>(r) * 1021 + i) % 65521) + 1;
}
// alltoall: element o of the block rank `src` sends to rank `dst`. Different for every (src, dst)
// pair up to 1021 ranks (131 and 1021 are coprime), so a block delivered to the wrong rank or slot
// is caught; below 2^24, so exact in float.
long long pair_value(int src, int dst, std::size_t o) {
  return static_cast<long long>(
             (static_cast<std::size_t>(src) * 1021 + static_cast<std::size_t>(dst) * 131 + o) %
             65521) +
         1;
}
// nccl-tests' size (the P blocks) -> per-rank count.
std::size_t per_rank_count(std::size_t bytes, std::size_t ts, int P) {
  return bytes / (ts * static_cast<std::size_t>(P));
}
// nccl-tests' busBw factors: allreduce 2(P-1)/P; reduce_scatter and allgather (P-1)/P of the
// total size.
double allreduce_bus(int P) {
  return P > 1 ? 2.0 * (P - 1) / P : 1.0;
}
double scatter_gather_bus(int P) {
  return P > 1 ? double(P - 1) / P : 1.0;
}

CollectiveInfo allreduce_row() {
  CollectiveInfo c;
  c.id = Collective::allreduce;
  c.name = "allreduce";
  c.mpi_name = "MPI_Allreduce";
  c.select_description =
      "allreduce algorithm; auto = the first matching rule of PCOLL_RULES (measured choices, "
      "vendor included), else the lowest time of the cost model that reads each candidate's plan "
      "on the machine description PCOLL_MACHINE (nodes, shared links, tiers, torus), among the "
      "algorithms and parameter values whose restrictions hold";
  c.in_elems = c.out_elems = same;  // count: the whole vector
  c.copy_in_to_out = true;
  c.in_place_offset = at_zero;
  c.call = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    return PCOLL_Allreduce(s, r, n, t, op, comm);
  };
  c.vendor = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    return PMPI_Allreduce(s, r, n, t, op, comm);
  };
  c.bus_factor = allreduce_bus;
  c.count_for_bytes = [](std::size_t bytes, std::size_t ts, int) { return bytes / ts; };
  c.count_for_segment = times_p;
  c.input = [](int r, std::size_t i, std::size_t, int) { return value(r, i); };
  c.expected = [](int, std::size_t i, std::size_t, int P) {
    long long s = 0;
    for (int q = 0; q < P; ++q) s += value(q, i);
    return s;
  };
  return c;
}

CollectiveInfo reduce_scatter_block_row() {
  CollectiveInfo c;
  c.id = Collective::reduce_scatter_block;
  c.name = "reduce_scatter_block";
  c.mpi_name = "MPI_Reduce_scatter_block";
  c.select_description =
      "reduce_scatter_block algorithm; auto as for allreduce (rules, then the model)";
  c.in_elems = times_p;  // count = recvcount, the per-rank block; input P*count
  c.out_elems = same;
  c.in_place_offset = at_zero;  // the whole P*count input, the result in front
  c.expect.by_rank = true;
  c.expect.identical = false;  // every rank holds a different block
  c.call = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    return PCOLL_Reduce_scatter_block(s, r, n, t, op, comm);
  };
  c.vendor = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    return PMPI_Reduce_scatter_block(s, r, n, t, op, comm);
  };
  c.bus_factor = scatter_gather_bus;
  c.count_for_bytes = per_rank_count;
  c.count_for_segment = same;
  c.input = [](int q, std::size_t j, std::size_t n, int) { return rsb_value(q, j, n); };
  c.expected = [](int r, std::size_t i, std::size_t n, int P) {
    long long s = 0;
    for (int q = 0; q < P; ++q) s += rsb_value(q, static_cast<std::size_t>(r) * n + i, n);
    return s;
  };
  return c;
}

// reduce_scatter (MPI_Reduce_scatter): every rank knows every block's count (recvcounts is the
// same on all ranks), so as for allgatherv the decision is made on the mean block and the plans
// are built on the real counts per call. The uniform call below is reduce_scatter_block's.
CollectiveInfo reduce_scatter_row() {
  CollectiveInfo c = reduce_scatter_block_row();
  c.id = Collective::reduce_scatter;
  c.name = "reduce_scatter";
  c.mpi_name = "MPI_Reduce_scatter";
  c.select_description =
      "reduce_scatter algorithm; auto as for allreduce (rules, then the model), decided on the "
      "mean block (the total over P), planned on the real counts";
  c.layout_args = true;
  c.call = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    int P = 1;
    MPI_Comm_size(comm, &P);
    const std::vector<int> counts(static_cast<std::size_t>(P), n);
    return PCOLL_Reduce_scatter(s, r, counts.data(), t, op, comm);
  };
  c.vendor = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    int P = 1;
    MPI_Comm_size(comm, &P);
    const std::vector<int> counts(static_cast<std::size_t>(P), n);
    return PMPI_Reduce_scatter(s, r, counts.data(), t, op, comm);
  };
  return c;
}

CollectiveInfo allgather_row() {
  CollectiveInfo c;
  c.id = Collective::allgather;
  c.name = "allgather";
  c.mpi_name = "MPI_Allgather";
  c.select_description = "allgather algorithm; auto as for allreduce (rules, then the model)";
  c.takes_op = false;
  c.in_elems = same;  // count = sendcount = recvcount, the per-rank block; result P*count
  c.out_elems = times_p;
  // MPI_IN_PLACE: the own contribution already sits at its place in the receive buffer.
  c.in_place_offset = [](int r, std::size_t n, int) { return static_cast<std::size_t>(r) * n; };
  c.expect.reduced = false;
  c.expect.gathered = true;
  c.call = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm comm) {
    return PCOLL_Allgather(s, n, t, r, n, t, comm);
  };
  c.vendor = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm comm) {
    return PMPI_Allgather(s, n, t, r, n, t, comm);
  };
  c.bus_factor = scatter_gather_bus;
  c.count_for_bytes = per_rank_count;
  c.count_for_segment = same;
  c.input = [](int r, std::size_t i, std::size_t, int) { return gather_value(r, i); };
  c.expected = [](int, std::size_t i, std::size_t n, int) {
    return gather_value(static_cast<int>(i / n), i % n);
  };
  return c;
}

// allgatherv: every rank knows every block's count (MPI requires the same recvcounts on all
// ranks), so the plans are built from the real counts (PlanRequest::layout, per call) and the
// decision from their mean: the uniform layout of ceil(total / P) bytes per rank is what the
// model and the rules see. The uniform call below is what collbench and the generic tests run.
CollectiveInfo allgatherv_row() {
  CollectiveInfo c;
  c.id = Collective::allgatherv;
  c.name = "allgatherv";
  c.mpi_name = "MPI_Allgatherv";
  c.select_description =
      "allgatherv algorithm; auto as for allreduce (rules, then the model), decided on the mean "
      "block (the total over P), planned on the real counts";
  c.takes_op = false;
  c.in_elems = same;  // uniform layout: count per rank; result P*count
  c.out_elems = times_p;
  c.layout_args = true;
  // MPI_IN_PLACE: the own block already sits at displs[rank] (the layout's send entry says so).
  c.in_place_offset = at_zero;
  c.expect.reduced = false;
  c.expect.gathered = true;
  c.call = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm comm) {
    int P = 1;
    MPI_Comm_size(comm, &P);
    std::vector<int> counts(static_cast<std::size_t>(P), n), displs(static_cast<std::size_t>(P));
    for (int q = 0; q < P; ++q) displs[static_cast<std::size_t>(q)] = q * n;
    return PCOLL_Allgatherv(s, n, t, r, counts.data(), displs.data(), t, comm);
  };
  c.vendor = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm comm) {
    int P = 1;
    MPI_Comm_size(comm, &P);
    std::vector<int> counts(static_cast<std::size_t>(P), n), displs(static_cast<std::size_t>(P));
    for (int q = 0; q < P; ++q) displs[static_cast<std::size_t>(q)] = q * n;
    return PMPI_Allgatherv(s, n, t, r, counts.data(), displs.data(), t, comm);
  };
  c.bus_factor = scatter_gather_bus;
  c.count_for_bytes = per_rank_count;
  c.count_for_segment = same;
  c.input = [](int r, std::size_t i, std::size_t, int) { return gather_value(r, i); };
  c.expected = [](int, std::size_t i, std::size_t n, int) {
    return gather_value(static_cast<int>(i / n), i % n);
  };
  return c;
}

CollectiveInfo alltoall_row() {
  CollectiveInfo c;
  c.id = Collective::alltoall;
  c.name = "alltoall";
  c.mpi_name = "MPI_Alltoall";
  c.select_description =
      "alltoall algorithm; auto = a matching rule of PCOLL_RULES, else on one node without a "
      "node segment the size dispatch of HPX's pull request \"Add size-based pairwise dispatch "
      "to all_to_all\": pairwise when the bytes per destination (recvcount * type size) are at "
      "least pairwise_threshold, else routed (measured fastest below the threshold at P = 4 and "
      "8 on the development machine); on one node with a segment, and across nodes, the lowest "
      "time of the cost model on PCOLL_MACHINE (shm, node_aware with its leaders, linear, "
      "pairwise, bruck, ...)";
  c.takes_op = false;
  c.in_elems = c.out_elems = times_p;  // count = sendcount = recvcount, per destination
  c.in_place_offset = at_zero;         // MPI_IN_PLACE: the P blocks to send are in recvbuf
  c.in_place_staged = true;
  c.expect.reduced = false;
  c.expect.gathered = true;
  c.expect.by_rank = true;
  c.expect.identical = false;
  c.auto_params = {
      ParamSpec::integer("pairwise_threshold", "4096")
          .range(0, 1LL << 40)
          .size_suffixes()
          .about("alltoall auto: bytes per destination (recvcount * type size) from which the "
                 "direct pairwise exchange is used instead of routed; 0 = always pairwise. 4096 is "
                 "the smallest threshold without a regression in HPX's 16-node sweep (pull "
                 "request \"Add size-based pairwise dispatch to all_to_all\")")};
  // Every rank knows count and type size identically (MPI requires equal type signatures).
  // Below the threshold: routed, as in that pull request, and it measured fastest of routed,
  // bruck and pairwise at 4 B, 256 B and 4 KiB per destination at P = 4 and 8 here: two message
  // rounds whatever P, where bruck needs log2 P and pairwise P-1. That is evidence for one node
  // only: across nodes routed sends every block through one rank and pairwise waits P-1 times,
  // and in simulations at P = 256 (results/2026-12-01-simulation-alltoall) node_aware beat both
  // and the vendor by up to 2.7x, so there the cost model decides (nullptr). The rule also
  // predates the node segment: where the call could use it (one node, a segment, not
  // persistent), the model weighs alltoall shm against routed and pairwise.
  c.auto_rule = [](const PlanRequest &req) -> const char * {
    if (req.ranks_per_node > 0 && req.ranks_per_node < req.size) return nullptr;
    if (req.node_segment > 0 && !req.persistent) return nullptr;
    const long long threshold = req.param("pairwise_threshold");
    const auto bytes = static_cast<long long>(req.count * req.type_size);
    return bytes >= threshold ? "pairwise" : "routed";
  };
  c.call = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm comm) {
    return PCOLL_Alltoall(s, n, t, r, n, t, comm);
  };
  c.vendor = [](const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm comm) {
    return PMPI_Alltoall(s, n, t, r, n, t, comm);
  };
  c.bus_factor = scatter_gather_bus;  // nccl-tests: alltoall busBw = algBw (P-1)/P
  c.count_for_bytes = per_rank_count;
  c.count_for_segment = same;
  // Send element i of rank r is element i % n of its block for rank i / n; receive element i of
  // rank r is element i % n of the block rank i / n sent to r.
  c.input = [](int r, std::size_t i, std::size_t n, int) {
    return pair_value(r, static_cast<int>(i / n), i % n);
  };
  c.expected = [](int r, std::size_t i, std::size_t n, int) {
    return pair_value(static_cast<int>(i / n), r, i % n);
  };
  return c;
}

// alltoallv: every rank gives its own counts and displacements (PlanRequest::layout), so the
// buffer sizes come from the plan builder and there is no uniform benchmark call here (collbench
// says so; the plan matrix checks it on count matrices, tests/mpi/alltoallv_test.cpp under MPI).
CollectiveInfo alltoallv_row() {
  CollectiveInfo c;
  c.id = Collective::alltoallv;
  c.name = "alltoallv";
  c.mpi_name = "MPI_Alltoallv";
  c.select_description =
      "alltoallv algorithm; auto = pairwise (each rank knows only its own counts, so no size "
      "dispatch is possible without an extra collective)";
  c.takes_op = false;
  c.layout_args = true;
  c.in_place_offset = at_zero;  // MPI_IN_PLACE: sent from recvbuf with recvcounts and rdispls
  c.in_place_staged = true;
  // Without a layout the builders use the uniform one (count per peer): then the verifier's
  // alltoall expectation holds; count matrices have their own check (VerifyOptions::segments).
  c.expect.reduced = false;
  c.expect.gathered = true;
  c.expect.by_rank = true;
  c.expect.identical = false;
  c.auto_rule = [](const PlanRequest &) -> const char * { return "pairwise"; };
  c.vendor = nullptr;  // not the uniform signature: PCOLL_Alltoallv calls PMPI_Alltoallv itself
  c.bus_factor = scatter_gather_bus;
  return c;
}

// bcast, reduce, barrier: the calls have no uniform (send, recv, count, type, op) form without a
// root, so collbench has no benchmark for them (it says so); the tests cover every root.
CollectiveInfo bcast_row() {
  CollectiveInfo c;
  c.id = Collective::bcast;
  c.name = "bcast";
  c.mpi_name = "MPI_Bcast";
  c.select_description =
      "bcast algorithm; auto = a matching rule of PCOLL_RULES, else the lowest model time";
  c.takes_op = false;
  c.takes_root = true;
  c.in_elems = c.out_elems = same;
  // One buffer: the root's input is its output, and every other rank's output (PCOLL_Bcast
  // calls in place; plans work in `out` only).
  c.copy_in_to_out = true;
  c.in_place_offset = at_zero;
  c.expect.reduced = false;
  c.expect.broadcast = true;
  return c;
}

CollectiveInfo reduce_row() {
  CollectiveInfo c;
  c.id = Collective::reduce;
  c.name = "reduce";
  c.mpi_name = "MPI_Reduce";
  c.select_description =
      "reduce algorithm; auto = a matching rule of PCOLL_RULES, else the lowest model time";
  c.takes_root = true;
  c.in_elems = c.out_elems = same;  // the receive buffer is the root's only
  c.in_place_offset = at_zero;      // MPI_IN_PLACE (the root only): input in the receive buffer
  c.expect.root_only = true;
  c.expect.identical = false;
  return c;
}

CollectiveInfo barrier_row() {
  CollectiveInfo c;
  c.id = Collective::barrier;
  c.name = "barrier";
  c.mpi_name = "MPI_Barrier";
  c.select_description =
      "barrier algorithm; auto = a matching rule of PCOLL_RULES, else the lowest model time";
  c.takes_op = false;
  c.in_elems = c.out_elems = [](std::size_t, int) -> std::size_t { return 0; };  // scratch only
  c.in_place_offset = at_zero;
  c.expect.reduced = false;
  c.expect.identical = false;
  c.expect.synchronises = true;
  return c;
}

}  // namespace

// The table of collectives, one row each, in the order pcoll-info and the benchmarks list them.
const std::vector<CollectiveInfo> &collective_table() {
  static const std::vector<CollectiveInfo> table = {
      allreduce_row(),  // one row per line
      reduce_scatter_block_row(),
      reduce_scatter_row(),
      allgather_row(),
      allgatherv_row(),
      alltoall_row(),
      alltoallv_row(),
      bcast_row(),
      reduce_row(),
      barrier_row(),
  };
  return table;
}

std::size_t CollectiveInfo::vector_elems(std::size_t count, int P) const {
  if (in_elems == nullptr || out_elems == nullptr) return 0;
  return std::max(in_elems(count, P), out_elems(count, P));
}

const CollectiveInfo &collective_info(Collective c) {
  for (const auto &row : collective_table())
    if (row.id == c) return row;
  throw std::logic_error("pcoll: a Collective without a CollectiveInfo row");
}

const CollectiveInfo *find_collective(const std::string &name) {
  for (const auto &row : collective_table())
    if (name == row.name) return &row;
  return nullptr;
}

const char *collective_name(Collective c) {
  return collective_info(c).name;
}

const std::vector<Collective> &all_collectives() {
  static const std::vector<Collective> v = [] {
    std::vector<Collective> ids;
    for (const auto &row : collective_table()) ids.push_back(row.id);
    return ids;
  }();
  return v;
}

long long PlanRequest::param(const char *name) const {
  for (const auto &p : params)
    if (p.first == name) return p.second;
  throw std::logic_error(std::string("pcoll: plan builder read undeclared parameter ") + name);
}

// vendor: the MPI library's own implementation, called through PMPI. Whatever algorithm the
// vendor's selection logic picks (Open MPI: coll/tuned fixed decision rules; MPICH: CVAR-driven)
// is used unchanged. It is the reference every measurement is compared with and the fallback for
// calls our algorithms cannot serve. Restrictions: none. Cost: unknown (not a plan), so `auto`
// never picks it by model.
const AlgorithmInfo &vendor_info(Collective c) {
  struct Row {
    std::string description;
    AlgorithmInfo info;
  };
  static const std::vector<Row> rows = [] {
    std::vector<Row> v;
    v.reserve(collective_table().size());  // no reallocation: info.description points into v
    for (const CollectiveInfo &k : collective_table()) {
      Row r;
      r.description = std::string("the MPI library's own ") + k.mpi_name + " (via PMPI)";
      r.info.coll = k.id;
      r.info.name = "vendor";
      r.info.source = "the MPI implementation";
      v.push_back(std::move(r));
      v.back().info.description = v.back().description.c_str();
    }
    return v;
  }();
  for (const Row &r : rows)
    if (r.info.coll == c) return r.info;
  throw std::logic_error("pcoll: vendor_info of an unknown collective");
}

// The descriptions the algorithm files provide, from the one list (algorithms/list.def).
#define PCOLL_ALGORITHM(x) const AlgorithmInfo &x##_info();
#include "algorithms/list.def"
#undef PCOLL_ALGORITHM

// The one table: per collective, vendor first, then the list's algorithms of that collective in
// the list's order.
const std::vector<const AlgorithmInfo *> &all_algorithms() {
  static const std::vector<const AlgorithmInfo *> table = [] {
    const std::vector<const AlgorithmInfo *> listed = {
#define PCOLL_ALGORITHM(x) &x##_info(),
#include "algorithms/list.def"
#undef PCOLL_ALGORITHM
    };
    std::vector<const AlgorithmInfo *> t;
    for (const CollectiveInfo &row : collective_table()) {
      t.push_back(&vendor_info(row.id));
      for (const AlgorithmInfo *a : listed)
        if (a->coll == row.id) t.push_back(a);
    }
    return t;
  }();
  return table;
}

std::vector<const AlgorithmInfo *> algorithms_of(Collective c) {
  std::vector<const AlgorithmInfo *> v;
  for (const auto *a : all_algorithms())
    if (a->coll == c) v.push_back(a);
  return v;
}

const AlgorithmInfo *find_algorithm(Collective c, const std::string &name) {
  for (const auto *a : all_algorithms())
    if (a->coll == c && name == a->name) return a;
  return nullptr;
}

std::string delegation_label(const AlgorithmInfo &algo, const PlanRequest &req) {
  if (algo.delegate == nullptr || req.size <= 1 || req.count == 0) return {};
  const Delegation d = algo.delegate(req);
  if (!d) return {};
  return std::string(algo.name) + " (" + d.to->name + ": " + d.why + ")";
}

}  // namespace pcoll

// routed: all-to-all through one site, the flat communicator of HPX (Rings, Trees, and
// Butterflies: HPX Collectives, "all-to-all transposed ownership": "a flat HPX all-to-all stores
// every source row at one communicator server before constructing destination columns"; the
// routed path of HPX's pull request "Add size-based pairwise dispatch to all_to_all"). Every rank
// sends its whole row (its P blocks) to root 0 (phase gather); as each row arrives the root copies
// its blocks into the destination columns (column d = block d of every row, in source order, which
// is exactly rank d's receive buffer), then sends every column to its rank (phase scatter). Each
// rank sends and receives one message; the root carries all P^2 blocks twice.
//
// Restrictions: none (any P, any count).
// Cost (n = bytes per destination): T = 2 (P-1)(alpha + beta P n), all of it at the root.
// Temporary: 2 (P-1) P n bytes at the root (the rows received and the columns to send).
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int gather = plan.phase_index("gather"), scatter = plan.phase_index("scatter");
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count, row = n * static_cast<std::size_t>(P);
  if (n == 0) return plan;
  auto blk = [n](int q) { return static_cast<std::size_t>(q) * n; };
  if (me != 0) {
    add_send(plan.new_round(gather), 0, in_range(0, row));
    add_recv(plan.new_round(scatter), 0, out_range(0, row));
    return plan;
  }
  // The root: rows of ranks 1..P-1 at (s-1)*row, the columns of ranks 1..P-1 after them.
  const std::size_t cols = static_cast<std::size_t>(P - 1) * row;
  auto row_of = [&](int s) { return tmp_range(static_cast<std::size_t>(s - 1) * row, row); };
  auto col_of = [&](int d) { return tmp_range(cols + static_cast<std::size_t>(d - 1) * row, row); };
  Round &g = plan.new_round(gather);
  for (int s = 1; s < P; ++s) {
    const Range r = row_of(s);
    const int rv = add_recv(g, s, r);
    for (int d = 0; d < P; ++d) {
      const Range dst = d == 0 ? out_range(blk(s), n) : tmp_range(col_of(d).off + blk(s), n);
      add_copy(g, tmp_range(r.off + blk(d), n), dst, rv);
    }
  }
  // The own row (after the others, so no copy waits for more than its own row): block d goes to
  // slot 0 of column d; the own column is the output itself.
  for (int d = 0; d < P; ++d) {
    const Range dst = d == 0 ? out_range(0, n) : tmp_range(col_of(d).off, n);
    add_copy(g, in_range(blk(d), n), dst);
  }
  Round &sc = plan.new_round(scatter);
  for (int d = 1; d < P; ++d) add_send(sc, d, col_of(d));
  plan.tmp_elems = 2 * cols;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double row = double(req.count * req.type_size) * req.size;
  return 2.0 * (req.size - 1) * (c.alpha + c.beta * row);
}

}  // namespace

const AlgorithmInfo &routed_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "routed";
    a.description =
        "every row to root 0, which builds the destination columns and sends them back (HPX flat "
        "communicator)";
    a.source = "HPX flat communicator (Rings, Trees, and Butterflies: HPX Collectives)";
    a.build = build;
    a.model = model;
    // The one-node size rule chooses it; the cost model (across nodes) does not consider it: the
    // root's plan holds P^2 block copies (4 million at P = 2048, seconds to build at a first
    // call), and every block through one rank is never competitive across nodes, where
    // node_aware is the same gather, exchange and scatter with one root per node.
    a.auto_candidate = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll

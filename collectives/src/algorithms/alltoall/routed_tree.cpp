// routed_tree: the hierarchical all-to-all of HPX's hierarchical communicator (Rings, Trees, and
// Butterflies: HPX Collectives: "the hierarchical version gathers within subtrees, exchanges
// between representatives, and scatters downward"), on the balanced k-ary groups of
// patterns/hpx_tree.hpp with arity tree_arity.
//   gather:   inside every top-level group, rows climb the tree (a representative receives the
//             rows of its subgroups' representatives, in rank order, after its own), so the
//             representative of top-level group A holds the |A| rows of its members;
//   exchange: the top-level representatives exchange directly: A's sends B's the blocks
//             (s in A, d in B), packed destination by destination, and unpacks what it receives
//             into destination columns (column d = the P blocks rank d receives, in source
//             order);
//   scatter:  the columns go down the same tree; a leaf receives its column into its output.
// As in HPX, a communicator with fewer than tree_flat_below ranks uses one flat communicator: the
// plan is then exactly `routed` (phases gather and scatter only). tree_flat_below = 0 always
// builds the tree; tree_arity >= P is then one round of direct exchange.
//
// Restrictions: none (any P, any count).
// Cost (n = bytes per destination, a = arity, G = P/a ranks per top-level group, levels l >= 1
// of rank 0's path with subgroups of s_l ranks): T ~ 2 sum_l (a_l - 1)(alpha + beta P n s_l)
//   + (a-1) alpha + beta n G (P - G); an estimate (model_exact = false): the ledger follows the
//   slowest group. Temporary: 2 G P n + 2 G (P - G) n bytes at a top-level representative.
#include <algorithm>
#include <vector>

#include "../../registry.hpp"
#include "../patterns/hpx_tree.hpp"

namespace pcoll {

const AlgorithmInfo &routed_alltoall_info();  // the schedule it uses for small calls
namespace {

int arity_of(const PlanRequest &req) {
  return static_cast<int>(std::min<long long>(req.param("tree_arity"), 1 << 30));
}
int flat_of(const PlanRequest &req) {
  return static_cast<int>(std::min<long long>(req.param("tree_flat_below"), 1 << 30));
}

// HPX's flat fallback: below tree_flat_below ranks the tree buys nothing.
Delegation delegate(const PlanRequest &req) {
  if (req.size < flat_of(req)) return {&routed_alltoall_info(), "P < tree_flat_below"};
  return {};
}

Plan build(const PlanRequest &req) {
  const int P = req.size, me = req.rank;
  if (const Delegation d = delegate(req)) return d.to->build(req);
  Plan plan;
  const int gather = plan.phase_index("gather"), exchange = plan.phase_index("exchange"),
            scatter = plan.phase_index("scatter");
  const std::size_t n = req.count, row = n * static_cast<std::size_t>(P);
  if (n == 0) return plan;
  const std::vector<TreeLevel> path = tree_path(me, P, arity_of(req), 0);
  if (path.empty()) {  // P = 1
    add_copy(plan.new_round(gather), in_range(0, n), out_range(0, n));
    return plan;
  }
  const int L = static_cast<int>(path.size());
  // `top`: the highest level at which the rank represents its subgroup; it leads the G ranks
  // [me, me + G). With G = 1 it keeps no rows or columns: it sends its input and receives into
  // its output directly.
  int top = L - 1;
  while (top > 0 && path[top - 1].reps[path[top - 1].my_sub] == me) --top;
  const int G = path[top].sizes[path[top].my_sub];
  const bool keeps = G > 1;
  const std::size_t rows0 = 0, cols0 = keeps ? G * row : 0;
  auto blk = [n](int q) { return static_cast<std::size_t>(q) * n; };
  // Block (s -> d) for s in the rank's group, and column slot (s -> d) for d in it.
  auto row_blk = [&](int s, int d) {
    return keeps ? tmp_range(rows0 + (s - me) * row + blk(d), n) : in_range(blk(d), n);
  };
  auto col_blk = [&](int d, int s, std::size_t len) {
    return keeps ? tmp_range(cols0 + (d - me) * row + blk(s), len) : out_range(blk(s), len);
  };

  // Steps (Round::step), the same on every rank, empty where it has nothing to do: the copy,
  // one per level below the top on the way up (the tree's D levels, deepest first), the
  // exchange's two, the levels on the way down, the copy.
  const int D = tree_depth(P, arity_of(req), 0), low = std::max(top, 1);
  Round &start = plan.new_round(gather);
  if (keeps) add_copy(start, in_range(0, row), tmp_range(rows0, row));
  // gather: levels below the top, deepest first.
  plan.idle(gather, D - L);
  for (int l = L - 1; l >= 1 && l >= top; --l) {
    const TreeLevel &lv = path[l];
    Round &r = plan.new_round(gather);
    if (lv.reps[0] == me) {
      for (std::size_t g = 1; g < lv.reps.size(); ++g)
        add_recv(r, lv.reps[g], tmp_range(rows0 + (lv.reps[g] - me) * row, lv.sizes[g] * row));
    } else {
      add_send(r, lv.reps[0], keeps ? tmp_range(rows0, G * row) : in_range(0, row));
    }
  }

  plan.idle(gather, low - 1);
  // exchange among the top-level representatives.
  if (top != 0) plan.idle(exchange, 2);
  if (top == 0) {
    const TreeLevel &lv = path[0];
    const int ga = lv.my_sub;
    // Own group: rows to columns directly.
    Round &own = plan.new_round(exchange);
    for (int d = me; d < me + G; ++d)
      for (int s = me; s < me + G; ++s) add_copy(own, row_blk(s, d), col_blk(d, s, n));
    std::size_t pack0 = cols0 + G * row, unpack0 = pack0 + blk(G * (P - G));
    if (keeps) {  // pack: for each other group B, destination by destination, sources in order
      std::size_t at = pack0;
      for (std::size_t gb = 0; gb < lv.reps.size(); ++gb) {
        if (static_cast<int>(gb) == ga) continue;
        for (int d = lv.reps[gb]; d < lv.reps[gb] + lv.sizes[gb]; ++d)
          for (int s = me; s < me + G; ++s, at += n) add_copy(own, row_blk(s, d), tmp_range(at, n));
      }
    }
    Round &x = plan.new_round(exchange);
    std::size_t out_at = pack0, in_at = unpack0;
    for (std::size_t gb = 0; gb < lv.reps.size(); ++gb) {
      if (static_cast<int>(gb) == ga) continue;
      const int lo_b = lv.reps[gb], Gb = lv.sizes[gb];
      const std::size_t len = blk(G * Gb);
      add_send(x, lo_b, keeps ? tmp_range(out_at, len) : in_range(blk(lo_b), len));
      if (keeps) {
        const int rv = add_recv(x, lo_b, tmp_range(in_at, len));
        for (int d = me; d < me + G; ++d)
          add_copy(x, tmp_range(in_at + (d - me) * blk(Gb), blk(Gb)), col_blk(d, lo_b, blk(Gb)),
                   rv);
      } else {
        add_recv(x, lo_b, out_range(blk(lo_b), len));
      }
      out_at += len;
      in_at += len;
    }
    if (keeps) plan.tmp_elems = unpack0 + blk(G * (P - G));
  } else if (keeps) {
    plan.tmp_elems = cols0 + G * row;
  }

  // scatter: the same tree, top down.
  plan.idle(scatter, low - 1);
  for (int l = low; l < L; ++l) {
    const TreeLevel &lv = path[l];
    Round &r = plan.new_round(scatter);
    if (lv.reps[0] == me) {
      for (std::size_t g = 1; g < lv.reps.size(); ++g)
        add_send(r, lv.reps[g], tmp_range(cols0 + (lv.reps[g] - me) * row, lv.sizes[g] * row));
    } else {
      add_recv(r, lv.reps[0], keeps ? tmp_range(cols0, G * row) : out_range(0, row));
    }
  }
  plan.idle(scatter, D - L);
  if (keeps) add_copy(plan.new_round(scatter), tmp_range(cols0, row), out_range(0, row));
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const int P = req.size;
  if (const Delegation d = delegate(req)) return d.to->model(req, c);
  const double n = double(req.count * req.type_size);
  const std::vector<TreeLevel> path = tree_path(0, P, arity_of(req), 0);
  if (path.empty()) return 0;
  double t = 0;
  for (std::size_t l = 1; l < path.size(); ++l)
    for (std::size_t g = 1; g < path[l].reps.size(); ++g)
      t += 2 * (c.alpha + c.beta * n * P * path[l].sizes[g]);
  const double G = path[0].sizes[0];
  t += double(path[0].reps.size() - 1) * c.alpha + c.beta * n * G * (P - G);
  return t;
}

}  // namespace

const AlgorithmInfo &routed_tree_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "routed_tree";
    a.description =
        "rows gathered up a k-ary tree, exchanged among the top-level representatives, columns "
        "scattered down; flat (routed) below tree_flat_below ranks (HPX hierarchical "
        "communicator)";
    a.source = "HPX hierarchical_communicator (Rings, Trees, and Butterflies: HPX Collectives)";
    a.params = hpx_tree_params();
    a.build = build;
    a.delegate = delegate;
    a.model = model;
    a.model_exact = false;
    // Not a cost-model candidate, as routed: its top-level representatives' plans hold
    // O(P^2 / arity) block copies, and node_aware is the same scheme with groups aligned to nodes.
    a.auto_candidate = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll

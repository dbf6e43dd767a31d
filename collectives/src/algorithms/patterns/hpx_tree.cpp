#include "hpx_tree.hpp"

#include <algorithm>

#include "../../plan.hpp"

namespace pcoll {

const std::vector<ParamSpec> &hpx_tree_params() {
  static const std::vector<ParamSpec> specs = {
      ParamSpec::integer("tree_arity", "2")
          .range(2, 1 << 20)
          .about("fan-out of the k-ary tree (reduce up, broadcast down); groups are balanced as in "
                 "HPX's hierarchical communicator"),
      ParamSpec::integer("tree_flat_below", "16")
          .range(0, 1LL << 31)
          .about(
              "communicators with fewer ranks than this use one flat group (root gathers from all) "
              "instead of a tree, as HPX's flat_fallback_threshold; 0 = always a tree"),
  };
  return specs;
}

std::vector<std::vector<std::pair<std::string, std::string>>> hpx_tree_tunings(
    const PlanRequest &) {
  return {{{"tree_arity", "2"}}, {{"tree_arity", "4"}}, {{"tree_arity", "8"}}};
}

std::vector<TreeLevel> tree_path(int rank, int size, int arity, int flat_below) {
  std::vector<TreeLevel> path;
  int lo = 0, hi = size;
  bool top = true;
  while (hi - lo > 1) {
    const int n = hi - lo;
    const int a = (top && n < flat_below) ? n : std::min(arity, n);
    top = false;
    const BlockSplit split{static_cast<std::size_t>(n), static_cast<std::size_t>(a)};
    TreeLevel lv;
    for (int g = 0; g < a; ++g) {
      const int glo = lo + static_cast<int>(split.offset(g));
      const int ghi = glo + static_cast<int>(split.length(g));
      lv.reps.push_back(glo);
      lv.sizes.push_back(ghi - glo);
      if (rank >= glo && rank < ghi) lv.my_sub = g;
    }
    lo = lv.reps[lv.my_sub];
    hi = lo + lv.sizes[lv.my_sub];
    path.push_back(std::move(lv));
  }
  return path;
}

bool tree_receives(const std::vector<TreeLevel> &path, int me) {
  // The reduction starts at the deepest level, where the rank's subgroup is the rank alone: it
  // receives iff it leads that level's group (which always has at least two subgroups).
  return !path.empty() && path.back().my_sub == 0 && path.back().reps[0] == me;
}

std::size_t add_tree_reduce(Plan &plan, const std::vector<TreeLevel> &path, int me, Range acc,
                            std::size_t slot_off, int phase, int depth) {
  const std::size_t n = acc.len;
  std::size_t max_children = 0;
  // A path shorter than the tree's starts where its deepest level meets the longest paths.
  const std::size_t first = plan.rounds.size();
  plan.idle(phase, depth - static_cast<int>(path.size()));
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const TreeLevel &lv = *it;
    if (lv.reps[lv.my_sub] != me) break;  // not a representative at this level or above
    Round &r = plan.new_round(phase);
    if (lv.my_sub == 0) {
      for (std::size_t g = 1; g < lv.reps.size(); ++g) {
        const Range slot = tmp_range(slot_off + (g - 1) * n, n);
        const int rv = add_recv(r, lv.reps[g], slot);
        add_reduce(r, slot, acc, /*src_is_left=*/false, rv);
      }
      max_children = std::max(max_children, lv.reps.size() - 1);
    } else {
      add_send(r, lv.reps[0], acc);
      break;  // handed the partial result up; done reducing
    }
  }
  plan.idle(phase, depth - static_cast<int>(plan.rounds.size() - first));
  return max_children * n;
}

void add_tree_bcast(Plan &plan, const std::vector<TreeLevel> &path, int me, Range buf, int phase) {
  for (const TreeLevel &lv : path) {
    Round &r = plan.new_round(phase);  // empty below the rank's level (Round::step)
    if (lv.reps[lv.my_sub] != me) continue;
    if (lv.my_sub == 0) {
      for (std::size_t g = 1; g < lv.reps.size(); ++g) add_send(r, lv.reps[g], buf);
    } else {
      add_recv(r, lv.reps[0], buf);
    }
  }
}

int tree_depth(int size, int arity, int flat_below) {
  return static_cast<int>(tree_path(0, size, arity, flat_below).size());
}

double tree_fanin(int size, int arity, int flat_below) {
  double fanin = 0;
  for (const TreeLevel &lv : tree_path(0, size, arity, flat_below))
    fanin += double(lv.reps.size() - 1);
  return fanin;
}

}  // namespace pcoll

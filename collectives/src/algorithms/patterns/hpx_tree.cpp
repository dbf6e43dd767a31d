#include "hpx_tree.hpp"

#include <algorithm>

#include "../../plan.hpp"

namespace pcoll {

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

}  // namespace pcoll

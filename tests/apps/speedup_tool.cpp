// speedup_ci from apps/common/speedup.hpp on samples read from stdin, for
// tests/scripts/speedup_agree.py, which compares it with scripts/lib/speedup.py on the same
// samples. Input: two lines of whitespace-separated times (baseline, then candidate).
// Output: "ratio lo hi verdict" with full precision (lo, hi: nan without an interval).
#include "common/speedup.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

int main() {
  std::vector<double> sets[2];
  for (auto &set : sets) {
    std::string line;
    if (!std::getline(std::cin, line)) {
      std::cerr << "speedup_tool: expected two lines of times (baseline, candidate)\n";
      return 2;
    }
    std::istringstream in(line);
    for (double x; in >> x;) set.push_back(x);
  }
  const auto s = pcoll::apps::speedup_ci(sets[0], sets[1]);
  std::printf("%.17g %.17g %.17g %s\n", s.ratio, s.lo, s.hi, s.verdict.c_str());
  return 0;
}

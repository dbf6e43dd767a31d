// Sharding of the unit tests' long sweeps over P (tests/unit/CMakeLists.txt).
//
// PCOLL_UNIT_SHARD=k/n makes every sweep run only its items whose key (their position in the
// sweep: a P, a (P, b) or a (P, variant) pair) is k modulo n, so that n processes run the whole
// sweep between them, in parallel. Unset (the normal `unit` test) every item runs. The sanitizer
// build registers the shards as unit.shardKofN: the sweep is the same, only spread over processes
// short enough for ctest's timeout at the sanitizers' slowdown.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace pcoll_test {

struct Shard {
  int index = 0, count = 1;
};

inline Shard unit_shard() {
  static const Shard s = [] {
    Shard r;
    const char *v = std::getenv("PCOLL_UNIT_SHARD");
    if (v == nullptr || *v == '\0') return r;
    char slash = 0, extra = 0;
    if (std::sscanf(v, "%d%c%d%c", &r.index, &slash, &r.count, &extra) != 3 || slash != '/' ||
        r.count < 1 || r.index < 0 || r.index >= r.count) {
      std::fprintf(stderr, "PCOLL_UNIT_SHARD='%s' is not valid; allowed: k/n with 0 <= k < n\n", v);
      std::exit(2);
    }
    return r;
  }();
  return s;
}

// Whether this process runs the sweep item with this key.
inline bool in_shard(long long key) {
  const Shard s = unit_shard();
  return key % s.count == s.index;
}

// The items of one sweep in the order it meets them, dealt to the shards in turn (so that each
// gets about as much of the work whatever its distribution over P): `if (!mine()) continue;`.
class Dealer {
 public:
  bool operator()() { return in_shard(next_++); }

 private:
  long long next_ = 0;
};

}  // namespace pcoll_test

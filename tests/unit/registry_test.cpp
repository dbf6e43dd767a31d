// The registry's lists and what an algorithm says about itself (collectives/src/registry.hpp):
// collectives.def, from which every C entry point is generated, lists the collectives of the
// registry's table; an algorithm that hands a request to another's schedule (Delegation) builds
// exactly that schedule, and the decision names it.
#include <catch2/catch.hpp>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"

using namespace pcoll;

namespace {

struct Listed {
  std::string Name, name;
};
const std::vector<Listed> kListed = {
#define PCOLL_COLLECTIVE(Name, name, Params, Args) {#Name, #name},
#include "collectives.def"
};

// Every round of the plan as text: what moves where, in which phase.
std::string text_of(const Plan &p) {
  std::ostringstream o;
  auto range = [&o](const Range &r) {
    o << static_cast<int>(r.buf) << ":" << r.off << "+" << r.len << " ";
  };
  o << "tmp " << p.tmp_elems << "\n";
  for (const Round &r : p.rounds) {
    o << p.phases[static_cast<std::size_t>(r.phase)] << " |";
    for (const Xfer &x : r.sends) o << " s" << x.peer << "@", range(x.range);
    for (const Xfer &x : r.recvs) o << " r" << x.peer << "@", range(x.range);
    for (const LocalOp &x : r.ops) {
      o << (x.kind == OpKind::reduce ? " red " : " cpy ") << x.src_is_left << x.after_recv;
      range(x.src), range(x.dst);
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace

TEST_CASE("collectives.def lists the registry's collectives, in its order", "[registry]") {
  const std::vector<Collective> &all = all_collectives();
  REQUIRE(kListed.size() == all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string name = collective_name(all[i]);
    INFO(kListed[i].Name << " / " << name);
    CHECK(kListed[i].name == name);
    std::string mpi = name;
    mpi[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(mpi[0])));
    CHECK(kListed[i].Name == mpi);  // MPI_Allreduce, MPI_Reduce_scatter_block, ...
  }
}

TEST_CASE("an algorithm that delegates builds the other's schedule and the decision says so",
          "[registry]") {
  const Config cfg = load_config();
  int delegating = 0, delegated = 0;
  for (const AlgorithmInfo *a : all_algorithms()) {
    if (a->delegate == nullptr) continue;
    ++delegating;
    for (int P = 1; P <= 9; ++P) {
      for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(P - 1 > 0 ? P - 1 : 1),
                            std::size_t(P), std::size_t(P + 1), std::size_t(97)}) {
        const CallShape shape = CallShape::in_units(a->coll, P, n, 8);
        const PlanRequest req = plan_request(*a, cfg, 0, shape);
        const Delegation d = a->delegate(req);
        const std::string label = delegation_label(*a, req);
        INFO(a->name << " P=" << P << " n=" << n << " label '" << label << "'");
        if (!d || P == 1 || n == 0) {
          CHECK(label.empty());
          continue;
        }
        ++delegated;
        CHECK(label == std::string(a->name) + " (" + d.to->name + ": " + d.why + ")");
        const PlanRequest theirs = plan_request(*d.to, cfg, 0, shape);
        const std::vector<Plan> mine = build_all(*a, req), other = build_all(*d.to, theirs);
        REQUIRE(mine.size() == other.size());
        for (std::size_t r = 0; r < mine.size(); ++r) CHECK(text_of(mine[r]) == text_of(other[r]));
      }
    }
  }
  CHECK(delegating >= 5);  // ring, rabenseifner, swing, recexch_rsag, routed_tree
  CHECK(delegated > 0);

  // The names a trace row carries.
  const auto label_at = [&](const char *algo, int P, std::size_t n) {
    const AlgorithmInfo *a = find_algorithm(Collective::allreduce, algo);
    REQUIRE(a != nullptr);
    Config c = cfg;
    c.values[static_cast<std::size_t>(param_index("allreduce"))] = algo;
    const Decision dec = decide(CallShape::in_units(Collective::allreduce, P, n, 8), c, nullptr, 0);
    return std::string(dec.label());
  };
  CHECK(label_at("ring", 4, 3) == "ring (recursive_doubling: count < P)");
  CHECK(label_at("ring", 4, 4) == "ring");
  CHECK(label_at("rabenseifner", 6, 3) ==
        "rabenseifner (recursive_doubling: count < 2^floor(log2 P))");
  CHECK(label_at("rabenseifner", 6, 4) == "rabenseifner");
  CHECK(label_at("recursive_doubling", 4, 1) == "recursive_doubling");
}

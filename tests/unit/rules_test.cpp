// Rules files (collectives/src/rules.hpp): what parses, what is rejected with which line and
// reason, and what `auto` then selects. No MPI calls: selection is a pure function.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "rules.hpp"
#include "select.hpp"

using namespace pcoll;

namespace {

std::string error_of(const std::string &text) {
  std::string e;
  const auto r = parse_rules(text, "t.toml", &e);
  return r ? std::string() : e;
}

CallShape allreduce_shape(int P, std::size_t count) {
  CallShape s = CallShape::in_units(Collective::allreduce, P, count, 8);
  return s;
}

const char *kGood = R"(
[origin]
tool = "test"
[[allreduce]]
ranks = [2, 4]
bytes = [0, "1k"]
algorithm = "vendor"
evidence = { median_us = 0.8, n = 31 }
[[allreduce]]
ranks = [2, 4]
bytes = [1025, "inf"]
algorithm = "ring"
params = { ring_segment = "64k" }
[[alltoall]]
ranks = 3
bytes = [0, 100]
algorithm = "bruck"
params = { bruck_radix = 3 }
)";

}  // namespace

TEST_CASE("a rules file parses into ranges, algorithms and parameters", "[rules]") {
  std::string e;
  const auto r = parse_rules(kGood, "t.toml", &e);
  REQUIRE(r);
  CHECK(e.empty());
  REQUIRE(r->rules.size() == 3);
  CHECK(r->origin == "tool=test");
  CHECK(r->rules[0].algo->is_vendor());
  CHECK(r->rules[0].evidence == "median_us=0.8, n=31");
  CHECK(r->rules[1].bytes_hi == static_cast<std::size_t>(-1));
  CHECK(r->rules[2].ranks_lo == 3);
  CHECK(r->rules[2].ranks_hi == 3);
  CHECK(r->match(Collective::allreduce, 3, 1024) == &r->rules[0]);
  CHECK(r->match(Collective::allreduce, 3, 1025) == &r->rules[1]);
  CHECK(r->match(Collective::allreduce, 5, 8) == nullptr);
  CHECK(r->match(Collective::alltoall, 3, 100) == &r->rules[2]);
  CHECK(r->match(Collective::alltoall, 3, 101) == nullptr);
}

TEST_CASE("bad rules files are rejected whole, with the line and the reason", "[rules]") {
  const std::string head = "[[allreduce]]\nranks = 2\nbytes = [0, 10]\n";
  CHECK(error_of(head + "algorithm = \"rign\"\n").find("t.toml:4: algorithm 'rign' is not") == 0);
  CHECK(error_of(head + "algorithm = \"auto\"\n").find("auto is not a rule") != std::string::npos);
  CHECK(error_of(head).find("missing 'algorithm'") != std::string::npos);
  CHECK(error_of(head + "algorithm = \"ring\"\nfoo = 1\n").find("t.toml:5: ") == 0);
  CHECK(error_of(head + "algorithm = \"ring\"\nparams = { tree_arity = 3 }\n")
            .find("ring has no parameter 'tree_arity'") != std::string::npos);
  CHECK(error_of(head + "algorithm = \"tree\"\nparams = { tree_arity = 1 }\n")
            .find("PCOLL_TREE_ARITY") != std::string::npos);
  CHECK(error_of("[[allreduce]]\nranks = 0\nbytes = 1\nalgorithm = \"ring\"\n").find("t.toml:2:") ==
        0);
  CHECK(error_of("[[allreduce]]\nranks = 2\nbytes = [10, 1]\nalgorithm = \"ring\"\n")
            .find("low > high") != std::string::npos);
  CHECK(error_of("[[allreduce]]\nranks = 2\nbytes = \"lots\"\nalgorithm = \"ring\"\n")
            .find("is not a byte count") != std::string::npos);
  CHECK(error_of("[[allreduuce]]\nranks = 2\n").find("unknown table 'allreduuce'") !=
        std::string::npos);
  CHECK(error_of("[allreduce]\nranks = 2\n").find("written [[allreduce]]") != std::string::npos);
  CHECK(error_of("[[allreduce]\nranks = 2\n").find("t.toml:1: ") == 0);  // TOML syntax
  // Overlap: P 3 and bytes 5..10 are in both rules.
  const std::string two = head + "algorithm = \"ring\"\n[[allreduce]]\nranks = [3, 4]\n" +
                          "bytes = [5, 20]\nalgorithm = \"tree\"\n";
  CHECK(error_of(two).empty());  // P ranges 2 and 3..4 do not overlap
  const std::string clash =
      "[[allreduce]]\nranks = [2, 3]\nbytes = [0, 10]\nalgorithm = "
      "\"ring\"\n[[allreduce]]\nranks = [3, 4]\nbytes = [5, 20]\n"
      "algorithm = \"tree\"\n";
  CHECK(error_of(clash).find("overlaps the rule at line") != std::string::npos);
  std::string e;
  CHECK_FALSE(load_rules("/no/such/rules.toml", &e));
  CHECK(e.find("cannot read") != std::string::npos);
  // A file that loads but is rejected: the variable that named it, then file:line: reason.
  const std::string path = "pcoll_rules_test_bad.toml";
  {
    std::ofstream bad(path);
    bad << "[[allreduce]]\nranks = 2\nbytes = 1\nalgorithm = \"rign\"\n";
  }
  CHECK_FALSE(load_rules(path, &e));
  CHECK(e.find("PCOLL_RULES=" + path + ": " + path + ":4: algorithm 'rign'") == 0);
  std::remove(path.c_str());
}

TEST_CASE("the built-in rules parse", "[rules]") {
  std::string e;
  const auto r = load_rules("builtin", &e);
  INFO(e);
  REQUIRE(r);
  CHECK_FALSE(r->origin.empty());
  const auto none = load_rules("none", &e);
  REQUIRE(none);
  CHECK(none->rules.empty());
}

TEST_CASE("auto follows a matching rule, its parameters, and skips one that cannot serve",
          "[rules]") {
  std::string e;
  const auto r = parse_rules(kGood, "t.toml", &e);
  REQUIRE(r);
  Config cfg = load_config();
  cfg.values[static_cast<std::size_t>(param_index("allreduce"))] = "auto";
  Selection s = select_algorithm(cfg, r.get(), allreduce_shape(2, 1));
  CHECK(std::string(s.algo->name) == "vendor");
  CHECK(s.rule == &r->rules[0]);
  s = select_algorithm(cfg, r.get(), allreduce_shape(4, 1000));
  CHECK(std::string(s.algo->name) == "ring");
  CHECK(effective_config(cfg, s).get("ring_segment") == "64k");
  // ring needs a commutative op: the rule is skipped and the model decides.
  CallShape nc = allreduce_shape(4, 1000);
  nc.commutative = false;
  s = select_algorithm(cfg, r.get(), nc);
  CHECK(s.rule == nullptr);
  CHECK(s.why.find("skipped") != std::string::npos);
  CHECK_FALSE(s.algo->restrictions.needs_commutative);
  // A call pcoll's algorithms cannot take (a type issue every rank shares): no rule is
  // consulted, the vendor serves it (and the fallback says why).
  CallShape mixed = allreduce_shape(4, 1000);
  mixed.issue = TypeIssue::mixed_base;
  s = select_algorithm(cfg, r.get(), mixed);
  CHECK(s.rule == nullptr);
  CHECK(s.algo->is_vendor());
  // No rule for P = 7: the model.
  s = select_algorithm(cfg, r.get(), allreduce_shape(7, 1000));
  CHECK(s.rule == nullptr);
  CHECK(s.algo == auto_choice(Collective::allreduce, cfg, allreduce_shape(7, 1000)).algo);
}

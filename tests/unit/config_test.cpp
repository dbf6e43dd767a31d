// The parameter table: env names, validation messages, defaults.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "config.hpp"
#include "registry.hpp"
#include "select.hpp"

using namespace pcoll;

TEST_CASE("env names derive from parameter names", "[config]") {
  REQUIRE(env_name(param_table()[param_index("tree_arity")]) == "PCOLL_TREE_ARITY");
  REQUIRE(env_name(param_table()[param_index("allreduce")]) == "PCOLL_ALLREDUCE");
}

TEST_CASE("bad values are rejected with the variable, value and allowed values", "[config]") {
  const auto &algo = param_table()[param_index("allreduce")];
  const std::string e = validate_param(algo, "rng");
  REQUIRE(e.find("PCOLL_ALLREDUCE='rng'") != std::string::npos);
  REQUIRE(e.find("recursive_doubling") != std::string::npos);
  REQUIRE(validate_param(algo, "ring").empty());
  REQUIRE(validate_param(algo, "auto").empty());
  const auto &arity = param_table()[param_index("tree_arity")];
  REQUIRE_FALSE(validate_param(arity, "1").empty());
  REQUIRE_FALSE(validate_param(arity, "two").empty());
  REQUIRE(validate_param(arity, "8").empty());
  const auto &seg = param_table()[param_index("ring_segment")];
  REQUIRE(validate_param(seg, "64k").empty());
  REQUIRE(parse_integer(seg, "64k") == 65536);
  REQUIRE(parse_integer(seg, "2MiB") == 2 * 1024 * 1024);
  REQUIRE_FALSE(validate_param(seg, "-1").empty());
  REQUIRE_FALSE(validate_param(seg, "12q").empty());
  const auto &fb = param_table()[param_index("fallback")];
  REQUIRE(validate_param(fb, "silent").empty());
  REQUIRE(validate_param(fb, "loud").find("error|warn|silent") != std::string::npos);
}

TEST_CASE("every default is valid and every algorithm parameter is declared", "[config]") {
  for (const auto &p : param_table()) REQUIRE(validate_param(p, p.default_value).empty());
  for (const AlgorithmInfo *a : all_algorithms())
    for (const ParamSpec &p : a->params) REQUIRE(param_index(p.name) >= 0);
}

TEST_CASE("restrictions: non-commutative ops never reach ring", "[select]") {
  CallShape s = CallShape::in_units(Collective::allreduce, 4, 100, 8);
  s.commutative = false;
  Config cfg = load_config();
  REQUIRE_FALSE(
      restriction_failure(*find_algorithm(Collective::allreduce, "ring"), s, cfg).empty());
  REQUIRE(
      restriction_failure(*find_algorithm(Collective::allreduce, "rabenseifner"), s, cfg).empty());
  for (int P : {2, 3, 8, 64})
    for (std::size_t n : {1, 1000, 1000000}) {
      s.size = P;
      s.count = n;
      const AlgorithmInfo *a = auto_choice(Collective::allreduce, cfg, s).algo;
      REQUIRE_FALSE(a->restrictions.needs_commutative);
    }
  s.issue = TypeIssue::user_op_layout;
  REQUIRE_FALSE(
      restriction_failure(*find_algorithm(Collective::allreduce, "naive"), s, cfg).empty());
}

TEST_CASE("a PCOLL_ variable no parameter reads is reported, with the closest name", "[config]") {
  setenv("PCOLL_ALLREDUC", "ring", 1);
  setenv("PCOLL_RING_SEGMNT", "5", 1);
  setenv("PCOLL_NOTHING_LIKE_IT", "1", 1);
  setenv("PCOLL_BUILD_DIR", "/tmp/x", 1);  // a script's variable: not a typo
  setenv("PCOLL_TRACE", "", 1);            // a real one
  const std::vector<std::string> said = unknown_variables();
  auto has = [&](const std::string &needle) {
    for (const auto &m : said)
      if (m.find(needle) != std::string::npos) return true;
    return false;
  };
  CHECK(
      has("PCOLL_ALLREDUC is set but no pcoll parameter reads it (did you mean PCOLL_ALLREDUCE?)"));
  CHECK(
      has("PCOLL_RING_SEGMNT is set but no pcoll parameter reads it (did you mean "
          "PCOLL_RING_SEGMENT?)"));
  CHECK(has("PCOLL_NOTHING_LIKE_IT is set"));
  CHECK_FALSE(has("PCOLL_NOTHING_LIKE_IT is set but no pcoll parameter reads it (did you"));
  CHECK_FALSE(has("PCOLL_BUILD_DIR"));
  CHECK_FALSE(has("PCOLL_TRACE "));
  for (const char *v : {"PCOLL_ALLREDUC", "PCOLL_RING_SEGMNT", "PCOLL_NOTHING_LIKE_IT",
                        "PCOLL_BUILD_DIR", "PCOLL_TRACE"})
    unsetenv(v);
}

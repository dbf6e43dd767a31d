// Decks and flags of apps/cg: the shipped decks load, every deck key has a flag that overrides
// it, and a bad deck or value is rejected with a message naming the key, the value and what is
// allowed. Runs in the MPI test binary (the options use pcoll's algorithm list), on every rank
// with its own files.
#include <mpi.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "options.hpp"

using namespace pcoll::cg;

namespace {

std::string deck_file(const std::string &body) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static int serial = 0;
  const std::string path =
      "cg_options_test_r" + std::to_string(rank) + "_" + std::to_string(serial++) + ".toml";
  std::ofstream(path) << body;
  return path;
}

// The message of the exception load_deck + validate throw for this deck ("" if none).
std::string rejection(const std::string &body) {
  const std::string path = deck_file(body);
  std::string what;
  try {
    Options o;
    load_deck(path, o);
    validate(o);
  } catch (const std::exception &e) {
    what = e.what();
  }
  std::remove(path.c_str());
  return what;
}

bool parse(std::vector<std::string> args, Options &o) {
  args.insert(args.begin(), "cg");
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  int code = 0;
  return parse_options(static_cast<int>(argv.size()), argv.data(), o, code, false);
}

}  // namespace

TEST_CASE("the shipped decks load and validate") {
  for (const char *name : {"quick", "medium", "weak"}) {
    CAPTURE(name);
    Options o;
    REQUIRE_NOTHROW(load_deck(resolve_deck(name), o));
    REQUIRE_NOTHROW(validate(o));
    REQUIRE(o.deck_name == name);
  }
  Options weak;
  load_deck(resolve_deck("weak"), weak);
  REQUIRE(weak.local_nx > 0);
}

TEST_CASE("flags override the deck, one flag per key") {
  Options o;
  REQUIRE(parse({"--deck",
                 "quick",
                 "--solver",
                 "pipecg",
                 "--pc",
                 "jacobi",
                 "--tol",
                 "1e-6",
                 "--max-iterations",
                 "77",
                 "--reduction",
                 "exact",
                 "--overlap",
                 "false",
                 "--nx",
                 "5",
                 "--local-nx",
                 "0",
                 "--allreduce",
                 "ring,vendor",
                 "--runs",
                 "2",
                 "--warmup",
                 "1",
                 "--refine",
                 "1"},
                o));
  REQUIRE(o.deck_name == "quick");
  REQUIRE(o.solver == "pipecg");
  REQUIRE(o.pc == "jacobi");
  REQUIRE(o.tol == 1e-6);
  REQUIRE(o.max_iterations == 77);
  REQUIRE(o.reduction == "reproducible");  // "exact": its old name
  REQUIRE_FALSE(o.overlap);
  REQUIRE(o.nx == 5);
  REQUIRE(o.allreduce == std::vector<std::string>{"ring", "vendor"});
  REQUIRE(o.runs == 2);
  REQUIRE(o.refine == 1);
}

TEST_CASE("bad decks and values are rejected naming the key, the value and what is allowed") {
  using Catch::Contains;
  CHECK_THAT(rejection("[solver]\nsolvr = \"cg\"\n"),
             Contains("unknown key 'solvr'") && Contains("known: solver"));
  CHECK_THAT(rejection("[slover]\n"), Contains("unknown section [slover]"));
  CHECK_THAT(rejection("[solver]\nsolver = \"gmres\"\n"),
             Contains("solver = 'gmres' is not allowed") && Contains("cg, cg1, pipecg"));
  CHECK_THAT(rejection("[solver]\npc = \"ilu\"\n"), Contains("pc = 'ilu'") && Contains("jacobi"));
  CHECK_THAT(rejection("[solver]\ntol = 0\n"), Contains("tol = 0") && Contains("> 0"));
  CHECK_THAT(rejection("[solver]\ntol = \"small\"\n"), Contains("tol") && Contains("a number"));
  CHECK_THAT(rejection("[grid]\nnx = -3\n"), Contains("nx = -3") && Contains(">= 1"));
  CHECK_THAT(rejection("[grid]\nnx = 2.5\n"), Contains("nx = 2.5") && Contains("an integer"));
  CHECK_THAT(rejection("[solver]\noverlap = 1\n"),
             Contains("overlap") && Contains("true or false"));
  CHECK_THAT(rejection("[run]\nallreduce = [\"vendor\", \"rings\"]\n"),
             Contains("allreduce = 'rings'") && Contains("recursive_doubling"));
  CHECK_THAT(rejection("[grid]\nlocal_nx = 4\n"), Contains("local_ny"));
  CHECK_THAT(rejection("[solver\n"), Contains("line 1"));
  // The same checks on flags, naming the flag.
  Options o;
  try {
    parse({"--solver", "bicg"}, o);
    FAIL("no exception");
  } catch (const std::exception &e) {
    CHECK_THAT(e.what(), Contains("--solver") && Contains("'bicg'") && Contains("cg1"));
  }
}

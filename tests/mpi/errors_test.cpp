// Bad input gets a clear error (an MPI error code through the communicator's error handler and
// a message naming the variable, value and allowed values) and nothing else breaks.
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "context.hpp"
#include "harness.hpp"

namespace {

int g_handler_calls = 0;
void counting_handler(MPI_Comm *, int *, ...) {
  ++g_handler_calls;
}

// A fresh communicator whose errors return (and are counted) instead of aborting.
MPI_Comm fresh_comm() {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(counting_handler, &eh);
  MPI_Comm_set_errhandler(c, eh);
  MPI_Errhandler_free(&eh);
  return c;
}

int error_class(int code) {
  int cls = code;
  MPI_Error_class(code, &cls);
  return cls;
}

}  // namespace

TEST_CASE("bad override names and values are rejected", "[errors]") {
  MPI_Comm c = fresh_comm();
  g_handler_calls = 0;
  CHECK(error_class(PCOLL_Config_push(c, "allreduce", "rng")) == MPI_ERR_ARG);
  CHECK(error_class(PCOLL_Config_push(c, "no_such_parameter", "1")) == MPI_ERR_ARG);
  CHECK(error_class(PCOLL_Config_push(c, "tree_arity", "1")) == MPI_ERR_ARG);
  CHECK(error_class(PCOLL_Config_push(c, "ring_segment", "-5")) == MPI_ERR_ARG);
  CHECK(error_class(PCOLL_Config_pop(c)) != MPI_SUCCESS);  // nothing was pushed
  CHECK(g_handler_calls == 5);  // every error went through the communicator's handler
  CHECK_THROWS_AS(pcoll::ScopedConfig(c, "allreduce", "nope"), std::invalid_argument);
  // The communicator still works afterwards.
  double x = 1, y = 0;
  CHECK(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
  int P = 1;
  MPI_Comm_size(c, &P);
  CHECK(y == P);
  MPI_Comm_free(&c);
}

TEST_CASE("bad arguments give MPI error classes", "[errors]") {
  MPI_Comm c = fresh_comm();
  double x = 1, y = 0;
  CHECK(error_class(PCOLL_Allreduce(&x, &y, -1, MPI_DOUBLE, MPI_SUM, c)) == MPI_ERR_COUNT);
  CHECK(error_class(PCOLL_Allreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, c)) == MPI_ERR_TYPE);
  CHECK(error_class(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_OP_NULL, c)) == MPI_ERR_OP);
  CHECK(error_class(PCOLL_Allreduce(&x, &x, 1, MPI_DOUBLE, MPI_SUM, c)) == MPI_ERR_BUFFER);
  MPI_Comm_free(&c);
}

TEST_CASE("an invalid PCOLL_ variable fails every call on the communicator", "[errors]") {
  setenv("PCOLL_ALLREDUCE", "ringg", 1);
  MPI_Comm c = fresh_comm();
  double x = 1, y = 0;
  CHECK(error_class(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c)) == MPI_ERR_ARG);
  CHECK(error_class(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c)) == MPI_ERR_ARG);
  unsetenv("PCOLL_ALLREDUCE");
  MPI_Comm_free(&c);
  MPI_Comm ok = fresh_comm();  // the environment is read when a communicator is first used
  CHECK(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, ok) == MPI_SUCCESS);
  MPI_Comm_free(&ok);
}

TEST_CASE("ranks that disagree on the configuration get an error, not a hang", "[errors]") {
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P == 1) return;
  setenv("PCOLL_TREE_ARITY", rank == 0 ? "2" : "3", 1);
  MPI_Comm c = fresh_comm();
  double x = 1, y = 0;
  CHECK(error_class(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c)) == MPI_ERR_ARG);
  unsetenv("PCOLL_TREE_ARITY");
  MPI_Comm_free(&c);
}

TEST_CASE("restrictions fall back to vendor, or fail with PCOLL_FALLBACK=error", "[errors]") {
  MPI_Comm c = fresh_comm();
  int P = 1, rank = 0;
  MPI_Comm_size(c, &P);
  MPI_Comm_rank(c, &rank);
  // A non-contiguous datatype: an int followed by a 4-byte gap (extent 8). Open MPI only takes
  // user ops on derived types, so the sum is a user op that knows the stride.
  MPI_Datatype strided;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
  MPI_Type_commit(&strided);
  MPI_Op strided_sum;
  MPI_Op_create(
      [](void *a, void *b, int *len, MPI_Datatype *) {
        for (int i = 0; i < *len; ++i) static_cast<int *>(b)[2 * i] += static_cast<int *>(a)[2 * i];
      },
      1, &strided_sum);
  std::vector<int> in(8), out(8, 0);
  for (int i = 0; i < 8; ++i) in[i] = i + rank;
  {
    pcoll::ScopedConfig use(c, "allreduce", "rabenseifner");
    CHECK(PCOLL_Allreduce(in.data(), out.data(), 4, strided, strided_sum, c) == MPI_SUCCESS);
    const char *used = "";
    PCOLL_Get_last_algorithm(c, &used);
    CHECK(std::string(used) == "vendor");
    for (int i = 0; i < 8; i += 2) CHECK(out[i] == P * i + P * (P - 1) / 2);
    pcoll::ScopedConfig strict(c, "fallback", "error");
    g_handler_calls = 0;
    CHECK(error_class(PCOLL_Allreduce(in.data(), out.data(), 4, strided, strided_sum, c)) ==
          MPI_ERR_ARG);
    CHECK(g_handler_calls == 1);
  }
  MPI_Op_free(&strided_sum);
  MPI_Type_free(&strided);
  MPI_Comm_free(&c);
}

TEST_CASE("PCOLL_Config_get returns the effective value", "[api]") {
  MPI_Comm c = fresh_comm();
  const char *v = nullptr;
  REQUIRE(PCOLL_Config_get(c, "tree_arity", &v) == MPI_SUCCESS);
  CHECK(std::string(v) == "2");
  {
    pcoll::ScopedConfig use(c, "tree_arity", "5");
    REQUIRE(PCOLL_Config_get(c, "tree_arity", &v) == MPI_SUCCESS);
    CHECK(std::string(v) == "5");
  }
  REQUIRE(PCOLL_Config_get(c, "tree_arity", &v) == MPI_SUCCESS);
  CHECK(std::string(v) == "2");
  CHECK(error_class(PCOLL_Config_get(c, "no_such_parameter", &v)) == MPI_ERR_ARG);
  MPI_Comm_free(&c);
}

TEST_CASE("decisions survive scoped overrides: a repeated push finds its cached decision",
          "[api]") {
  // collbench and codes that switch algorithms per phase push an override around every call;
  // the call under a push seen before must take the cached path (no selection, no planning).
  MPI_Comm c = fresh_comm();
  const int P = pcoll_test::size_of(c);
  int err = MPI_SUCCESS;
  pcoll::Context *ctx = pcoll::Context::get(c, &err);
  REQUIRE(ctx != nullptr);
  const std::size_t before = ctx->decisions_made();
  const std::vector<std::string> algos = {"ring", "recursive_doubling", "vendor"};
  for (int rep = 0; rep < 4; ++rep) {
    for (const std::string &a : algos) {
      pcoll::ScopedConfig use(c, "allreduce", a);
      double x = pcoll_test::rank_of(c) + 1, y = 0;
      REQUIRE(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
      CHECK(y == P * (P + 1) / 2.0);
      const char *used = nullptr;
      PCOLL_Get_last_algorithm(c, &used);
      CHECK(std::string(used) == a);
    }
    double x = 1, y = 0;  // and the base configuration between the pushes
    REQUIRE(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
  }
  CHECK(ctx->decisions_made() - before == algos.size() + 1);
  MPI_Comm_free(&c);
}

TEST_CASE("auto's cost model runs once per size class of the count, the same choice on every rank",
          "[api]") {
  MPI_Comm c = fresh_comm();
  const int P = pcoll_test::size_of(c), me = pcoll_test::rank_of(c);
  int err = MPI_SUCCESS;
  pcoll::Context *ctx = pcoll::Context::get(c, &err);
  REQUIRE(ctx != nullptr);
  // One algorithm per rank as a number every rank can compare: its index in the list.
  auto used_index = [&]() {
    const char *used = nullptr;
    PCOLL_Get_last_algorithm(c, &used);
    const auto &all = pcoll::algorithms_of(pcoll::Collective::allreduce);
    for (std::size_t i = 0; i < all.size(); ++i)
      if (std::string(all[i]->name) == used) return static_cast<int>(i);
    return -1;
  };
  auto call = [&](int n) {  // one allreduce of n doubles; checks the sums; the algorithm used
    std::vector<double> x(static_cast<std::size_t>(n)), y(x.size());
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = me + 1 + i;
    REQUIRE(PCOLL_Allreduce(x.data(), y.data(), n, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
    for (int i = 0; i < n; ++i) REQUIRE(y[static_cast<std::size_t>(i)] == P * (P + 1) / 2.0 + double(P) * i);
    const int u = used_index();
    int lo = 0, hi = 0;
    MPI_Allreduce(&u, &lo, 1, MPI_INT, MPI_MIN, c);
    MPI_Allreduce(&u, &hi, 1, MPI_INT, MPI_MAX, c);
    CHECK(lo == hi);  // every rank ran the same algorithm
    return u;
  };
  {
    pcoll::ScopedConfig none(c, "rules", "none");  // the model decides every count
    const std::size_t before = ctx->model_runs();
    // 900..1023 are one class (896..1023, 4 per octave): one model run for all four counts.
    const int first = call(900);
    for (int n : {950, 1000, 1023}) CHECK(call(n) == first);
    CHECK(ctx->model_runs() - before == (P > 1 && me == 0 ? 1u : 0u));
    call(1024);  // the next class
    CHECK(ctx->model_runs() - before == (P > 1 && me == 0 ? 2u : 0u));
    {
      pcoll::ScopedConfig exact(c, "model_size_classes", "0");  // every count its own class
      const std::size_t at = ctx->model_runs();
      for (int n : {900, 950, 1000}) call(n);
      CHECK(ctx->model_runs() - at == (P > 1 && me == 0 ? 3u : 0u));
    }
  }
  MPI_Comm_free(&c);
}

TEST_CASE("auto follows the rules file; a bad rules file is rejected with its line", "[rules]") {
  MPI_Comm c = fresh_comm();
  const int P = pcoll_test::size_of(c);
  // One file, written by rank 0, read by all: ring for this P up to 1 KiB, vendor above.
  char path[64] = "";
  if (pcoll_test::rank_of(c) == 0) {
    std::snprintf(path, sizeof path, "/tmp/pcoll-rules-test-%d.toml", static_cast<int>(getpid()));
    std::FILE *f = std::fopen(path, "w");
    REQUIRE(f != nullptr);
    std::fprintf(f,
                 "[origin]\ntool = \"errors_test\"\n[[allreduce]]\nranks = %d\nbytes = [0, "
                 "\"1k\"]\nalgorithm = \"ring\"\n[[allreduce]]\nranks = %d\nbytes = [1025, "
                 "\"inf\"]\nalgorithm = \"vendor\"\n",
                 P, P);
    std::fclose(f);
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, c);
  {
    pcoll::ScopedConfig use(c, "rules", path);
    pcoll::ScopedConfig automatic(c, "allreduce", "auto");
    for (int count : {1, 128, 129, 4096}) {
      std::vector<double> x(static_cast<std::size_t>(count), 1.0), y(x.size());
      REQUIRE(PCOLL_Allreduce(x.data(), y.data(), count, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
      CHECK(y.back() == P);
      const char *used = nullptr;
      PCOLL_Get_last_algorithm(c, &used);
      CHECK(std::string(used) == (count * 8 <= 1024 ? "ring" : "vendor"));
    }
  }
  MPI_Barrier(c);
  if (pcoll_test::rank_of(c) == 0) {  // now break it: an unknown algorithm on line 6
    std::FILE *f = std::fopen(path, "w");
    std::fprintf(f,
                 "[[allreduce]]\nranks = 2\nbytes = 8\nalgorithm = \"ring\"\n[[allreduce]]\n"
                 "ranks = 3\nbytes = 8\nalgorithm = \"warp_drive\"\n");
    std::fclose(f);
  }
  MPI_Barrier(c);
  // A fresh communicator reads the file again (the old one keeps its parsed copy).
  MPI_Comm d = fresh_comm();
  g_handler_calls = 0;
  CHECK(error_class(PCOLL_Config_push(d, "rules", path)) == MPI_ERR_ARG);
  CHECK(g_handler_calls == 1);
  const char *v = nullptr;
  REQUIRE(PCOLL_Config_get(d, "rules", &v) == MPI_SUCCESS);
  CHECK(std::string(v) == "builtin");  // the failed push left nothing behind
  MPI_Comm_free(&d);
  MPI_Barrier(c);
  if (pcoll_test::rank_of(c) == 0) std::remove(path);
  MPI_Comm_free(&c);
}

TEST_CASE("the algorithm list is available without MPI calls", "[api]") {
  std::vector<std::string> names;
  for (int i = 0; const char *n = PCOLL_Algorithm_name("allreduce", i); ++i) names.push_back(n);
  REQUIRE(names.size() >= 8);
  CHECK(names.front() == "vendor");
  CHECK(std::find(names.begin(), names.end(), "chiara") != names.end());
  CHECK(PCOLL_Algorithm_name("allgather", 0) != nullptr);
  CHECK(PCOLL_Algorithm_name("no_such_collective", 0) == nullptr);
  CHECK(PCOLL_Algorithm_name("allreduce", 1000) == nullptr);
}

TEST_CASE("a reduction that fails strands no peer (errflag)", "[errors]") {
  // MPI_BAND is not defined on MPI_DOUBLE: every reduction of this call fails in
  // MPI_Reduce_local. Ranks that reduce get the error; the executor must still post and
  // complete the rest of their schedule, or ranks that only receive (the naive and tree
  // broadcast, the last rounds of every algorithm) would wait forever. Reaching the final
  // allreduce on every rank is the test; a hang is the failure (ctest's timeout).
  MPI_Comm c = fresh_comm();
  MPI_Errhandler self_eh, world_eh;
  MPI_Comm_get_errhandler(MPI_COMM_SELF, &self_eh);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_eh);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int size = 1;
  MPI_Comm_size(c, &size);
  std::vector<double> in(64, 1.0), out(64);
  for (const auto &a : pcoll_test::variants_of("allreduce", pcoll_test::mpi)) {
    if (!a.set.empty()) continue;
    pcoll::ScopedConfig use(c, "allreduce", a.algo);
    pcoll::ScopedConfig quiet(c, "fallback", "silent");
    const int rc = PCOLL_Allreduce(in.data(), out.data(), 64, MPI_DOUBLE, MPI_BAND, c);
    int failed = rc != MPI_SUCCESS, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    INFO(a.algo << ": rc " << rc);
    if (size > 1) CHECK(any == 1);  // some rank reduced and reported it
    if (rc != MPI_SUCCESS) CHECK(error_class(rc) == MPI_ERR_OP);
  }
  MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_eh);
  MPI_Errhandler_free(&self_eh);
  MPI_Errhandler_free(&world_eh);
  MPI_Comm_free(&c);
}

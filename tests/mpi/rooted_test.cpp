// PCOLL_Bcast and PCOLL_Reduce for every registered algorithm (tests/common/variants.hpp: the
// trees with arity 3 below their flat threshold too) and auto, at every root, and PCOLL_Barrier:
//   bcast: int and a contiguous 3-int type x counts {0, 17, 1000}, exact;
//   reduce: int and double sums x counts {0, 17, 1000}, in place at the root with a null receive
//     buffer off the root, and not (the receive buffer off the root untouched), compared
//     exactly; a non-commutative op (2x2 matrix product) reduced in rank order;
// (compact: ~1 s per rank count; the symbolic tests cover counts and roots widely)
//   barrier: a rank that arrives 40 ms late holds every other rank in the barrier;
//   error classes (MPI_ERR_ROOT, MPI_ERR_COUNT, ...).
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Overrides;
using pcoll_test::rank_of;
using pcoll_test::size_of;
using Set = std::vector<std::pair<std::string, std::string>>;

namespace {

long long value(int r, std::size_t i) {
  return static_cast<long long>((static_cast<std::size_t>(r) * 7 + i) % 13) + 1;
}

struct Variant {
  std::string label;
  Set set;
  std::string want;  // the algorithm that must serve the call ("" for auto: any but vendor)
};

std::vector<Variant> variants(const char *coll) {
  std::vector<Variant> v;
  for (const auto &a : pcoll_test::variants_of(coll, pcoll_test::mpi))
    v.push_back({a.label, a.overrides(coll), a.algo});
  v.push_back({"auto", {{coll, "auto"}}, ""});
  return v;
}

void check_used(MPI_Comm comm, const Variant &v, const std::string &what, Failures &f) {
  const char *used = "";
  PCOLL_Get_last_algorithm(comm, &used);
  if (v.want.empty() ? std::string(used) == "vendor" : v.want != used)
    f.add("served by " + std::string(used) + ": " + what);
}

template <class B>
void bcast_type(MPI_Comm comm, MPI_Datatype type, int width, const char *name, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  for (const Variant &v : variants("bcast")) {
    Overrides use(comm, v.set);
    for (int count : {0, 17, 1000})
      for (int root = 0; root < P; ++root) {
        const std::size_t n = static_cast<std::size_t>(count) * width;
        std::vector<B> buf(n, B(-1)), want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = static_cast<B>(value(root, i));
        if (me == root) buf = want;
        const int rc = PCOLL_Bcast(buf.data(), count, type, root, comm);
        std::ostringstream w;
        w << "bcast " << v.label << " " << name << " P=" << P << " count " << count << " root "
          << root;
        if (rc != MPI_SUCCESS || buf != want) f.add("wrong: " + w.str());
        if (count > 0) check_used(comm, v, w.str(), f);
      }
  }
}

template <class B>
void reduce_type(MPI_Comm comm, MPI_Datatype type, const char *name, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  for (const Variant &v : variants("reduce")) {
    Overrides use(comm, v.set);
    for (int count : {0, 17, 1000})
      for (int root = 0; root < P; ++root)
        for (int mode = 0; mode < 2; ++mode) {  // 1: in place at the root, null off the root
          const auto n = static_cast<std::size_t>(count);
          std::vector<B> in(n), got(n, B(-3)), want(n, B(-3));
          for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<B>(value(me, i));
          if (me == root)
            for (std::size_t i = 0; i < n; ++i) {
              long long s = 0;
              for (int q = 0; q < P; ++q) s += value(q, i);
              want[i] = static_cast<B>(s);
            }
          const bool in_place = mode == 1 && me == root;
          if (in_place) got = in;
          void *recv = mode == 1 && me != root ? nullptr : got.data();
          const int rc = PCOLL_Reduce(in_place ? MPI_IN_PLACE : in.data(), recv, count, type,
                                      MPI_SUM, root, comm);
          std::ostringstream w;
          w << "reduce " << v.label << " " << name << " P=" << P << " count " << count << " root "
            << root << " mode " << mode;
          // Off the root the receive buffer must be left as it was (-3).
          if (rc != MPI_SUCCESS || got != want) f.add("wrong: " + w.str());
          if (count > 0) check_used(comm, v, w.str(), f);
        }
  }
}

using pcoll_test::Mat;  // the 2x2 matrix product op, shared in harness.hpp
using pcoll_test::mat_input;
using pcoll_test::matmul;
using pcoll_test::matmul_fn;

}  // namespace

TEST_CASE("bcast: every algorithm, type, count and root", "[bcast]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  bcast_type<int>(comm, MPI_INT, 1, "int", f);  // a byte copy: double would add nothing
  bcast_type<int>(comm, triple, 3, "contiguous(3, int)", f);
  MPI_Type_free(&triple);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("reduce: every algorithm, type, count and root, in place", "[reduce]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  reduce_type<int>(comm, MPI_INT, "int", f);
  reduce_type<double>(comm, MPI_DOUBLE, "double", f);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("reduce: a non-commutative op is reduced in rank order at every root", "[reduce]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  MPI_Datatype mat_t;
  MPI_Type_contiguous(4, MPI_UINT32_T, &mat_t);
  MPI_Type_commit(&mat_t);
  MPI_Op op;
  MPI_Op_create(matmul_fn, /*commute=*/0, &op);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  for (const Variant &v : variants("reduce")) {
    Overrides use(comm, v.set);
    // An algorithm that declares it needs a commutative op (bine) refuses the call under
    // PCOLL_FALLBACK=error and hands it to the vendor otherwise: then the vendor must serve it
    // (in rank order, as MPI says); every other algorithm serves it itself.
    bool refuses = false;
    if (!v.want.empty()) {
      pcoll::ScopedConfig strict(comm, "fallback", "error");
      std::vector<Mat> in(17, mat_input(me, 0)), out(17);
      refuses = PCOLL_Reduce(in.data(), out.data(), 17, mat_t, op, 0, comm) == MPI_ERR_ARG;
    }
    pcoll::ScopedConfig quiet(comm, "fallback", "silent");
    for (std::size_t count : {17})
      for (int root = 0; root < P; ++root)
        for (bool in_place : {false, true}) {
          std::vector<Mat> in(count), got(count, Mat{7, 7, 7, 7}), want = got;
          for (std::size_t j = 0; j < count; ++j) {
            in[j] = mat_input(me, j);
            if (me != root) continue;
            Mat acc = mat_input(0, j);
            for (int r = 1; r < P; ++r) acc = matmul(acc, mat_input(r, j));
            want[j] = acc;
          }
          const bool ip = in_place && me == root;
          if (ip) std::copy(in.begin(), in.end(), got.begin());
          const int rc = PCOLL_Reduce(ip ? MPI_IN_PLACE : in.data(), got.data(),
                                      static_cast<int>(count), mat_t, op, root, comm);
          std::ostringstream w;
          w << "non-commutative " << v.label << " P=" << P << " count " << count << " root " << root
            << (in_place ? " in-place" : "");
          if (rc != MPI_SUCCESS || got != want) f.add("wrong: " + w.str());
          if (refuses) {
            const char *used = "";
            PCOLL_Get_last_algorithm(comm, &used);
            if (std::string(used) != "vendor") f.add("served by " + std::string(used) + ": " + w.str());
          } else {
            check_used(comm, v, w.str(), f);
          }
        }
  }
  MPI_Op_free(&op);
  MPI_Type_free(&mat_t);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("barrier: a late rank holds every other rank", "[barrier]") {
  // Rank `late` enters 40 ms after a vendor barrier; every other rank must leave the tested
  // barrier at least 20 ms after that vendor barrier (no shared clock needed). A barrier that lets
  // a rank out early fails here however the scheduler runs the oversubscribed ranks.
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  std::vector<Variant> vars;
  for (const Variant &v : variants("barrier"))
    if (v.want != "vendor") vars.push_back(v);
  for (const Variant &v : vars) {
    Overrides use(comm, v.set);
    PCOLL_Barrier(comm);  // warm: context, decision and plan outside the measured call
    for (int late : {0, P - 1}) {
      if (late == P - 1 && P == 1) continue;
      PMPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      if (me == late) std::this_thread::sleep_for(std::chrono::milliseconds(40));
      const int rc = PCOLL_Barrier(comm);
      const double waited = MPI_Wtime() - t0;
      std::ostringstream w;
      w << "barrier " << v.label << " P=" << P << " late rank " << late;
      if (rc != MPI_SUCCESS) f.add("error: " + w.str());
      if (P > 1 && waited < 0.020)
        f.add("left after " + std::to_string(waited * 1e3) + " ms: " + w.str());
      check_used(comm, v, w.str(), f);
    }
  }
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("bcast, reduce, barrier: errors are MPI error classes", "[errors]") {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int P = size_of(comm);
  std::vector<int> a(4), b(4);
  auto cls = [](int code) {
    int k = code;
    MPI_Error_class(code, &k);
    return k;
  };
  CHECK(cls(PCOLL_Bcast(a.data(), 4, MPI_INT, P, comm)) == MPI_ERR_ROOT);
  CHECK(cls(PCOLL_Bcast(a.data(), 4, MPI_INT, -1, comm)) == MPI_ERR_ROOT);
  CHECK(cls(PCOLL_Bcast(a.data(), -1, MPI_INT, 0, comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Bcast(a.data(), 4, MPI_DATATYPE_NULL, 0, comm)) == MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Bcast(nullptr, 4, MPI_INT, 0, comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Bcast(a.data(), 4, MPI_INT, 0, MPI_COMM_NULL)) == MPI_ERR_COMM);
  CHECK(cls(PCOLL_Reduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, P, comm)) == MPI_ERR_ROOT);
  CHECK(cls(PCOLL_Reduce(a.data(), b.data(), -1, MPI_INT, MPI_SUM, 0, comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Reduce(a.data(), b.data(), 4, MPI_INT, MPI_OP_NULL, 0, comm)) == MPI_ERR_OP);
  CHECK(cls(PCOLL_Reduce(nullptr, b.data(), 4, MPI_INT, MPI_SUM, 0, comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Barrier(MPI_COMM_NULL)) == MPI_ERR_COMM);
  // Still usable afterwards.
  CHECK(PCOLL_Bcast(a.data(), 4, MPI_INT, 0, comm) == MPI_SUCCESS);
  CHECK(PCOLL_Reduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, 0, comm) == MPI_SUCCESS);
  CHECK(PCOLL_Barrier(comm) == MPI_SUCCESS);
  MPI_Comm_free(&comm);
}

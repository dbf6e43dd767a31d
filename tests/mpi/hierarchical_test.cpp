// CHiArA and the standalone building blocks under MPI: PCOLL_Allreduce with chiara,
// chiara_composed and chiara_loglane (every chiara_lane) for every batch size that divides P,
// several radices and emulated node sizes;
// PCOLL_Reduce_scatter_block and PCOLL_Allgather with every algorithm, compared bit for bit with
// exact expected values and with the vendor result, in place and not.
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Overrides;
using pcoll_test::rank_of;
using pcoll_test::size_of;
using Set = std::vector<std::pair<std::string, std::string>>;

namespace {

std::vector<int> counts(int P) {
  return {0, 1, P > 1 ? P - 1 : 2, P + 1, 13, 97, 1000};
}

// Small integers: sums are exact in int and double.
template <class T>
T value(int r, std::size_t j) {
  return static_cast<T>(static_cast<int>((r * 29 + j * 7) % 17) - 8);
}

void user_sum(void *in, void *inout, int *len, MPI_Datatype *) {
  for (int i = 0; i < *len; ++i) static_cast<int *>(inout)[i] += static_cast<int *>(in)[i];
}

std::string describe(const std::string &what, const Set &set, int count, bool in_place) {
  std::ostringstream os;
  os << what;
  for (const auto &s : set) os << " " << s.first << "=" << s.second;
  os << " count " << count << (in_place ? " in-place" : "");
  return os.str();
}

template <class T>
void check_allreduce(MPI_Comm comm, const Set &set, MPI_Datatype dt, MPI_Op op, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  Overrides use(comm, set);
  for (int count : counts(P)) {
    std::vector<T> in(count), expected(count), got(count);
    for (int j = 0; j < count; ++j) {
      in[j] = value<T>(me, j);
      T e = 0;
      for (int r = 0; r < P; ++r)
        e = op == MPI_MAX ? (r == 0 || value<T>(r, j) > e ? value<T>(r, j) : e)
                          : e + value<T>(r, j);
      expected[j] = e;
    }
    for (bool in_place : {false, true}) {
      if (in_place) got = in;
      const int rc =
          PCOLL_Allreduce(in_place ? MPI_IN_PLACE : in.data(), got.data(), count, dt, op, comm);
      const char *used = "";
      PCOLL_Get_last_algorithm(comm, &used);
      const std::string w =
          describe(std::string("allreduce served by ") + used, set, count, in_place);
      if (rc != MPI_SUCCESS)
        f.add("error from " + w);
      else if (count && std::memcmp(got.data(), expected.data(), count * sizeof(T)) != 0)
        f.add("wrong result: " + w);
      if (std::string(used) != set[0].second) f.add("fell back: " + w);
    }
  }
}

}  // namespace

TEST_CASE("chiara allreduce: every batch size dividing P, radices, node sizes", "[chiara]") {
  Failures f;
  const MPI_Comm w = MPI_COMM_WORLD;
  const int P = size_of(w);
  MPI_Op usum;
  MPI_Op_create(user_sum, 1, &usum);
  for (int b = 1; b <= P; ++b) {
    if (P % b) continue;
    for (const char *algo : {"chiara", "chiara_composed"}) {
      for (const char *krs : {"2", "3"}) {
        for (const char *kag : {"2", "auto"}) {
          const Set set = {{"allreduce", algo},
                           {"chiara_batch", std::to_string(b)},
                           {"chiara_krs", krs},
                           {"chiara_kag", kag}};
          check_allreduce<double>(w, set, MPI_DOUBLE, MPI_SUM, f);
          check_allreduce<int>(w, set, MPI_INT, MPI_MAX, f);
          check_allreduce<int>(w, set, MPI_INT, usum, f);
        }
      }
    }
  }
  for (const char *rpn : {"1", "2", "3", "4"}) {
    const Set set = {{"allreduce", "chiara"}, {"ranks_per_node", rpn}};
    check_allreduce<double>(w, set, MPI_DOUBLE, MPI_SUM, f);
  }
  MPI_Op_free(&usum);
  f.check_all(w);
}

TEST_CASE("chiara_loglane allreduce: every batch size, LaneOp, radices, node sizes",
          "[chiara][loglane]") {
  Failures f;
  const MPI_Comm w = MPI_COMM_WORLD;
  const int P = size_of(w);
  MPI_Op usum;
  MPI_Op_create(user_sum, 1, &usum);
  const std::vector<std::pair<const char *, const char *>> radices = {{"2", "2"}, {"3", "auto"}};
  for (int b = 1; b <= P; ++b) {
    if (P % b) continue;
    for (const char *lane : {"auto", "flat", "doubling", "halving", "swing", "bine"}) {
      for (const auto &k : radices) {
        const Set set = {{"allreduce", "chiara_loglane"},
                         {"chiara_batch", std::to_string(b)},
                         {"chiara_lane", lane},
                         {"chiara_krs", k.first},
                         {"chiara_kag", k.second}};
        check_allreduce<double>(w, set, MPI_DOUBLE, MPI_SUM, f);
        check_allreduce<int>(w, set, MPI_INT, MPI_MAX, f);
        check_allreduce<int>(w, set, MPI_INT, usum, f);
      }
    }
  }
  // auto LaneOp on both sides of the crossover (2 doubles = 16 B), auto batch under node sizes.
  for (const char *rpn : {"1", "2", "3", "4"})
    for (const char *cross : {"16", "8k"}) {
      const Set set = {{"allreduce", "chiara_loglane"},
                       {"ranks_per_node", rpn},
                       {"chiara_lane_crossover", cross}};
      check_allreduce<double>(w, set, MPI_DOUBLE, MPI_SUM, f);
    }
  MPI_Op_free(&usum);
  f.check_all(w);
}

TEST_CASE("chiara with a batch size that does not divide P falls back visibly", "[chiara]") {
  const MPI_Comm w = MPI_COMM_WORLD;
  const int P = size_of(w);
  if (P < 3 || P % 2 == 0) return;  // odd P >= 3: b = 2 does not divide it
  Overrides use(w, {{"allreduce", "chiara"}, {"chiara_batch", "2"}, {"fallback", "silent"}});
  double x = 1, y = 0;
  REQUIRE(PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, w) == MPI_SUCCESS);
  const char *used = "";
  PCOLL_Get_last_algorithm(w, &used);
  CHECK(std::string(used) == "vendor");
  CHECK(y == P);
}

namespace {

template <class T>
void check_reduce_scatter(MPI_Comm comm, const Set &set, MPI_Datatype dt, MPI_Op op, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  Overrides use(comm, set);
  for (int rc : counts(P)) {
    const std::size_t m = static_cast<std::size_t>(rc) * P;
    std::vector<T> in(m), vendor(rc), got(rc), inplace(m), expected(rc);
    for (std::size_t j = 0; j < m; ++j) in[j] = value<T>(me, j);
    for (int j = 0; j < rc; ++j) {
      const std::size_t g = static_cast<std::size_t>(me) * rc + j;
      T e = 0;
      for (int r = 0; r < P; ++r)
        e = op == MPI_MAX ? (r == 0 || value<T>(r, g) > e ? value<T>(r, g) : e)
                          : e + value<T>(r, g);
      expected[j] = e;
    }
    if (op == MPI_SUM || op == MPI_MAX) {
      PMPI_Reduce_scatter_block(in.data(), vendor.data(), rc, dt, op, comm);
      if (rc && std::memcmp(vendor.data(), expected.data(), rc * sizeof(T)) != 0)
        f.add("vendor reduce_scatter_block differs from the exact result");
    }
    const int e1 = PCOLL_Reduce_scatter_block(in.data(), got.data(), rc, dt, op, comm);
    const char *used = "";
    PCOLL_Get_last_algorithm(comm, &used);
    const std::string w = describe(std::string("reduce_scatter_block ") + used, set, rc, false);
    if (e1 != MPI_SUCCESS || (rc && std::memcmp(got.data(), expected.data(), rc * sizeof(T))))
      f.add("wrong: " + w);
    if (std::string(used) != set[0].second) f.add("fell back: " + w);
    inplace = in;
    const int e2 = PCOLL_Reduce_scatter_block(MPI_IN_PLACE, inplace.data(), rc, dt, op, comm);
    if (e2 != MPI_SUCCESS || (rc && std::memcmp(inplace.data(), expected.data(), rc * sizeof(T))))
      f.add("wrong in place: " + w);
  }
}

template <class T>
void check_allgather(MPI_Comm comm, const Set &set, MPI_Datatype dt, int width, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  Overrides use(comm, set);
  for (int n : counts(P)) {
    const std::size_t per = static_cast<std::size_t>(n) * width, m = per * P;
    std::vector<T> in(per), got(m, T(-1)), vendor(m, T(-1)), expected(m);
    for (std::size_t j = 0; j < per; ++j) in[j] = value<T>(me, j);
    for (int r = 0; r < P; ++r)
      for (std::size_t j = 0; j < per; ++j) expected[r * per + j] = value<T>(r, j);
    PMPI_Allgather(in.data(), n, dt, vendor.data(), n, dt, comm);
    if (m && std::memcmp(vendor.data(), expected.data(), m * sizeof(T)) != 0)
      f.add("vendor allgather differs from the exact result");
    const int e1 = PCOLL_Allgather(in.data(), n, dt, got.data(), n, dt, comm);
    const char *used = "";
    PCOLL_Get_last_algorithm(comm, &used);
    const std::string w = describe(std::string("allgather ") + used, set, n, false);
    if (e1 != MPI_SUCCESS || (m && std::memcmp(got.data(), expected.data(), m * sizeof(T))))
      f.add("wrong: " + w);
    if (std::string(used) != set[0].second) f.add("fell back: " + w);
    std::vector<T> inplace(m, T(-1));
    std::copy(in.begin(), in.end(), inplace.begin() + static_cast<std::ptrdiff_t>(me * per));
    const int e2 = PCOLL_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), n, dt, comm);
    if (e2 != MPI_SUCCESS || (m && std::memcmp(inplace.data(), expected.data(), m * sizeof(T))))
      f.add("wrong in place: " + w);
  }
}

// Every registered algorithm of coll, vendor included, with its defaults and the MPI variants of
// tests/common/variants.hpp; then CHiArA for every batch size that divides P.
std::vector<Set> block_variants(const char *coll, int P) {
  std::vector<Set> v;
  for (const auto &a : pcoll_test::variants_of(coll, pcoll_test::mpi, /*with_vendor=*/true))
    v.push_back(a.overrides(coll));
  for (int b = 1; b <= P; ++b)
    if (P % b == 0)
      for (const char *k : {"2", "3"})
        v.push_back({{coll, "chiara"},
                     {"chiara_batch", std::to_string(b)},
                     {"chiara_krs", k},
                     {"chiara_kag", k}});
  return v;
}

}  // namespace

TEST_CASE("reduce_scatter_block: every algorithm is exact", "[reduce_scatter_block]") {
  Failures f;
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Op usum;
  MPI_Op_create(user_sum, 1, &usum);
  MPI_Comm split;
  MPI_Comm_split(w, rank_of(w) % 2, size_of(w) - rank_of(w), &split);
  for (MPI_Comm c : {w, split}) {
    for (const Set &set : block_variants("reduce_scatter_block", size_of(c))) {
      check_reduce_scatter<double>(c, set, MPI_DOUBLE, MPI_SUM, f);
      check_reduce_scatter<int>(c, set, MPI_INT, MPI_MAX, f);
      check_reduce_scatter<int>(c, set, MPI_INT, usum, f);
    }
  }
  MPI_Comm_free(&split);
  MPI_Op_free(&usum);
  f.check_all(w);
}

TEST_CASE("allgather: every algorithm is exact", "[allgather]") {
  Failures f;
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Datatype t3;
  MPI_Type_contiguous(3, MPI_INT, &t3);
  MPI_Type_commit(&t3);
  MPI_Comm split;
  MPI_Comm_split(w, rank_of(w) % 2, size_of(w) - rank_of(w), &split);
  for (MPI_Comm c : {w, split}) {
    for (const Set &set : block_variants("allgather", size_of(c))) {
      check_allgather<double>(c, set, MPI_DOUBLE, 1, f);
      check_allgather<unsigned char>(c, set, MPI_UNSIGNED_CHAR, 1, f);
      check_allgather<int>(c, set, t3, 3, f);
    }
  }
  MPI_Comm_free(&split);
  MPI_Type_free(&t3);
  f.check_all(w);
}

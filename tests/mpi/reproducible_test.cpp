// The reproducible mode (PCOLL_REPRODUCIBLE=on, collectives/src/binned.hpp) and binned sums
// (PCOLL_Binned) under MPI:
//   - allreduce, reduce (roots 0 and P-1) and reduce_scatter_block with MPI_SUM on MPI_DOUBLE,
//     MPI_FLOAT, MPI_C_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX and a strided derived datatype of
//     doubles, in place and not, at counts 0, 1, P-1, P+1, 13 and 1000, under every registered
//     algorithm, auto and the vendor: every rank's result has exactly the bits of the binned
//     sum of the P inputs computed serially (so the same bits for every algorithm), on
//     adversarial inputs (1e300 and cancelling 2^200s, subnormals, signed zeros, inf, NaN);
//   - the nonblocking and persistent forms give the same bits as the blocking one;
//   - PCOLL_Binned sums reduced with PCOLL_Binned_type / PCOLL_Binned_op over sub-communicators
//     of every size 1..P, the same global set of addends dealt to the ranks in a different
//     random way for each size and algorithm (and through the vendor's MPI_Allreduce): the same
//     bits as the serial sum every time, i.e. across algorithms, rank counts and decompositions;
//   - ops and types the mode leaves alone are computed as usual; a bad value is refused.
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Overrides;
using pcoll_test::rank_of;
using pcoll_test::size_of;

namespace {

std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL ^
                    (c + 7) * 0x94d049bb133111ebULL;
  h ^= h >> 31;
  h *= 0xd6e8feb86659fd39ULL;
  return h ^ (h >> 29);
}

// Adversarial addends whose plain sum depends on the order: huge and cancelling values,
// subnormals, signed zeros, and now and then inf or NaN. `small`: float range.
double adversarial(int r, std::size_t i, int seed, bool small) {
  const std::uint64_t h = mix(static_cast<std::uint64_t>(r), i, static_cast<std::uint64_t>(seed));
  const double frac = 1.0 + static_cast<double>(h >> 11) * 0x1p-53;
  const bool neg = ((h >> 3) & 1) != 0;
  const int top = small ? 100 : 990, bottom = small ? -148 : -1073;
  double v = 0;
  switch (h % 9) {
    case 0: v = std::ldexp(frac, top - static_cast<int>(h >> 40) % 20); break;
    case 1: v = std::ldexp(frac, bottom + static_cast<int>(h >> 40) % 30); break;  // subnormal
    case 2: v = -0.0; break;
    case 3: v = std::ldexp(1.0, (small ? 60 : 200) + static_cast<int>(i % 7)) * (r % 2 ? -1 : 1); break;
    default: v = std::ldexp(frac, static_cast<int>(h >> 40) % 60 - 30); break;
  }
  if (h % 9 != 2 && neg) v = -v;
  if (i % 97 == 5 && r == 0) v = std::numeric_limits<double>::infinity();
  if (i % 89 == 3 && r == 1) v = -std::numeric_limits<double>::infinity();
  if (i % 101 == 7 && r == 2) v = std::numeric_limits<double>::quiet_NaN();
  if (i % 53 == 11) v = -0.0;  // every rank: the sum is -0.0
  return v;
}

enum class Kind { dbl, flt, cdbl, cflt, strided };
const char *kind_name(Kind k) {
  switch (k) {
    case Kind::dbl: return "MPI_DOUBLE";
    case Kind::flt: return "MPI_FLOAT";
    case Kind::cdbl: return "MPI_C_DOUBLE_COMPLEX";
    case Kind::cflt: return "MPI_C_FLOAT_COMPLEX";
    case Kind::strided: return "strided doubles (resized MPI_DOUBLE, extent 16)";
  }
  return "?";
}
bool is_float(Kind k) { return k == Kind::flt || k == Kind::cflt; }
int parts(Kind k) { return k == Kind::cdbl || k == Kind::cflt ? 2 : 1; }
// Scalars (doubles or floats) in memory per element, data and gaps.
int stride(Kind k) { return k == Kind::strided ? 2 : parts(k); }

// A buffer of `count` elements of the kind: scalars at [e * stride + part].
struct Buffer {
  Kind kind;
  std::vector<double> d;
  std::vector<float> f;
  Buffer(Kind k, std::size_t count) : kind(k) {
    const std::size_t n = count * static_cast<std::size_t>(stride(k)) + 1;
    if (is_float(k)) f.assign(n, 7.0f); else d.assign(n, 7.0);  // 7: the gaps' sentinel
  }
  void *data() { return is_float(kind) ? static_cast<void *>(f.data()) : static_cast<void *>(d.data()); }
  void set(std::size_t e, int part, double v) {
    const std::size_t at = e * static_cast<std::size_t>(stride(kind)) + static_cast<std::size_t>(part);
    if (is_float(kind)) f[at] = static_cast<float>(v); else d[at] = v;
  }
  std::uint64_t bits(std::size_t e, int part) const {
    const std::size_t at = e * static_cast<std::size_t>(stride(kind)) + static_cast<std::size_t>(part);
    std::uint64_t u = 0;
    if (is_float(kind)) std::memcpy(&u, &f[at], sizeof(float)); else std::memcpy(&u, &d[at], sizeof(double));
    return u;
  }
  bool gaps_intact(std::size_t count) const {
    if (kind != Kind::strided) return d.empty() || d.back() == 7.0;
    for (std::size_t e = 0; e < count; ++e)
      if (d[2 * e + 1] != 7.0) return false;
    return d.back() == 7.0;
  }
};

MPI_Datatype mpi_of(Kind k, MPI_Datatype strided) {
  switch (k) {
    case Kind::dbl: return MPI_DOUBLE;
    case Kind::flt: return MPI_FLOAT;
    case Kind::cdbl: return MPI_C_DOUBLE_COMPLEX;
    case Kind::cflt: return MPI_C_FLOAT_COMPLEX;
    case Kind::strided: return strided;
  }
  return MPI_DATATYPE_NULL;
}

// The serial reference: the binned sum of the P ranks' scalar j, rounded to the kind's type.
std::uint64_t expected_bits(Kind k, int P, std::size_t j, int seed) {
  PCOLL_Binned b;
  PCOLL_Binned_clear(&b);
  for (int r = 0; r < P; ++r) {
    const double v = adversarial(r, j, seed, is_float(k));
    PCOLL_Binned_add(&b, is_float(k) ? static_cast<double>(static_cast<float>(v)) : v);
  }
  std::uint64_t u = 0;
  if (is_float(k)) {
    const float v = PCOLL_Binned_value_float(&b);
    std::memcpy(&u, &v, sizeof v);
  } else {
    const double v = PCOLL_Binned_value(&b);
    std::memcpy(&u, &v, sizeof v);
  }
  return u;
}

enum class Coll { allreduce, reduce, reduce_scatter_block };

// One call of `coll` in reproducible mode under the communicator's configuration; returns
// whether this rank's output has the reference bits (failures say why).
void check_call(Coll coll, Kind kind, int count, bool in_place, int root, MPI_Datatype strided,
                MPI_Comm comm, Failures &fail, const std::string &what, int form = 0) {
  const int P = size_of(comm), rank = rank_of(comm);
  const int seed = count * 7 + static_cast<int>(kind);
  const std::size_t in_elems = coll == Coll::reduce_scatter_block
                                   ? static_cast<std::size_t>(count) * static_cast<std::size_t>(P)
                                   : static_cast<std::size_t>(count);
  Buffer in(kind, in_elems), out(kind, in_elems);
  const int np = parts(kind);
  for (std::size_t e = 0; e < in_elems; ++e)
    for (int p = 0; p < np; ++p)
      (in_place ? out : in).set(e, p, adversarial(rank, e * static_cast<std::size_t>(np) + static_cast<std::size_t>(p), seed, is_float(kind)));
  const MPI_Datatype dt = mpi_of(kind, strided);
  const bool at_root = coll != Coll::reduce || rank == root;
  const void *send = in_place && at_root ? MPI_IN_PLACE : in.data();
  void *recv = in_place && !at_root ? nullptr : out.data();
  if (coll == Coll::reduce && in_place && !at_root) send = out.data();
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  switch (coll) {
    case Coll::allreduce:
      rc = form == 0   ? PCOLL_Allreduce(send, recv, count, dt, MPI_SUM, comm)
           : form == 1 ? PCOLL_Iallreduce(send, recv, count, dt, MPI_SUM, comm, &req)
                       : PCOLL_Allreduce_init(send, recv, count, dt, MPI_SUM, comm, MPI_INFO_NULL, &req);
      break;
    case Coll::reduce:
      rc = form == 0   ? PCOLL_Reduce(send, recv, count, dt, MPI_SUM, root, comm)
           : form == 1 ? PCOLL_Ireduce(send, recv, count, dt, MPI_SUM, root, comm, &req)
                       : PCOLL_Reduce_init(send, recv, count, dt, MPI_SUM, root, comm, MPI_INFO_NULL, &req);
      break;
    case Coll::reduce_scatter_block:
      rc = form == 0   ? PCOLL_Reduce_scatter_block(send, recv, count, dt, MPI_SUM, comm)
           : form == 1 ? PCOLL_Ireduce_scatter_block(send, recv, count, dt, MPI_SUM, comm, &req)
                       : PCOLL_Reduce_scatter_block_init(send, recv, count, dt, MPI_SUM, comm, MPI_INFO_NULL, &req);
      break;
  }
  if (rc == MPI_SUCCESS && form == 2) rc = PCOLL_Start(&req);
  if (rc == MPI_SUCCESS && form != 0) rc = PCOLL_Wait(&req, MPI_STATUS_IGNORE);
  if (form == 2 && rc == MPI_SUCCESS) rc = PCOLL_Request_free(&req);
  if (rc != MPI_SUCCESS) {
    fail.add(what + ": error " + std::to_string(rc));
    return;
  }
  if (!at_root) return;
  // The output: all of it (allreduce, reduce at the root), or this rank's block.
  const std::size_t first = coll == Coll::reduce_scatter_block
                                ? static_cast<std::size_t>(rank) * static_cast<std::size_t>(count)
                                : 0;
  for (std::size_t e = 0; e < static_cast<std::size_t>(count); ++e)
    for (int p = 0; p < np; ++p) {
      const std::size_t j = (first + e) * static_cast<std::size_t>(np) + static_cast<std::size_t>(p);
      if (out.bits(e, p) != expected_bits(kind, P, j, seed)) {
        fail.add(what + ": element " + std::to_string(e) + " part " + std::to_string(p) +
                 " differs from the serial binned sum");
        return;
      }
    }
  if (!out.gaps_intact(in_elems)) fail.add(what + ": wrote outside the datatype's data");
}

MPI_Datatype make_strided() {
  MPI_Datatype t;
  MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * static_cast<MPI_Aint>(sizeof(double)), &t);
  MPI_Type_commit(&t);
  return t;
}

// Every registered algorithm of the collective, auto and the vendor.
std::vector<pcoll_test::Variant> variants(const char *coll) {
  std::vector<pcoll_test::Variant> v;
  for (const pcoll_test::AlgoVariant &a : pcoll_test::variants_of(coll, pcoll_test::mpi, true))
    v.push_back({a.label, a.overrides(coll)});
  v.push_back({"auto", {{coll, "auto"}}});
  return v;
}

}  // namespace

TEST_CASE("reproducible mode: every algorithm gives the serial binned sum's bits", "[repro]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int P = size_of(comm);
  MPI_Datatype strided = make_strided();
  Failures fail;
  std::vector<int> counts = {0, 1, P - 1, P + 1, 13, 1000};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  pcoll::ScopedConfig on(comm, "reproducible", "on");
  for (const auto &v : variants("allreduce")) {
    Overrides use(comm, v.set);
    for (Kind k : {Kind::dbl, Kind::flt, Kind::cdbl, Kind::cflt, Kind::strided})
      for (int count : counts)
        for (bool in_place : {false, true})
          check_call(Coll::allreduce, k, count, in_place, 0, strided, comm, fail,
                     "allreduce " + v.label + " " + kind_name(k) + " count " +
                         std::to_string(count) + (in_place ? " in place" : ""));
  }
  for (const auto &v : variants("reduce")) {
    Overrides use(comm, v.set);
    for (Kind k : {Kind::dbl, Kind::cflt, Kind::strided})
      for (int count : {1, P + 1, 13})
        for (int root : {0, P - 1})
          for (bool in_place : {false, true})
            check_call(Coll::reduce, k, count, in_place, root, strided, comm, fail,
                       "reduce " + v.label + " " + kind_name(k) + " count " +
                           std::to_string(count) + " root " + std::to_string(root) +
                           (in_place ? " in place" : ""));
  }
  for (const auto &v : variants("reduce_scatter_block")) {
    Overrides use(comm, v.set);
    for (Kind k : {Kind::dbl, Kind::flt, Kind::strided})
      for (int count : {0, 1, P + 1, 13})
        for (bool in_place : {false, true})
          check_call(Coll::reduce_scatter_block, k, count, in_place, 0, strided, comm, fail,
                     "reduce_scatter_block " + v.label + " " + kind_name(k) + " count " +
                         std::to_string(count) + (in_place ? " in place" : ""));
  }
  fail.check_all(comm);
  MPI_Type_free(&strided);
}

TEST_CASE("reproducible mode: nonblocking and persistent forms give the same bits", "[repro]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int P = size_of(comm);
  MPI_Datatype strided = make_strided();
  Failures fail;
  pcoll::ScopedConfig on(comm, "reproducible", "on");
  for (const char *algo : {"ring", "recursive_doubling", "chiara", "vendor"}) {
    pcoll::ScopedConfig use(comm, "allreduce", algo);
    pcoll::ScopedConfig use_r(comm, "reduce", "auto");
    for (int form : {1, 2})
      for (Kind k : {Kind::dbl, Kind::cflt, Kind::strided})
        for (int count : {1, P + 1, 1000}) {
          const std::string what = std::string(form == 1 ? "nonblocking " : "persistent ") +
                                   algo + " " + kind_name(k) + " count " + std::to_string(count);
          check_call(Coll::allreduce, k, count, false, 0, strided, comm, fail, "allreduce " + what, form);
          check_call(Coll::allreduce, k, count, true, 0, strided, comm, fail,
                     "allreduce in place " + what, form);
          check_call(Coll::reduce, k, count, false, P - 1, strided, comm, fail, "reduce " + what, form);
          check_call(Coll::reduce_scatter_block, k, count, false, 0, strided, comm, fail,
                     "reduce_scatter_block " + what, form);
        }
  }
  fail.check_all(comm);
  MPI_Type_free(&strided);
}

TEST_CASE("binned sums: the same bits across algorithms, rank counts and decompositions",
          "[repro][binned]") {
  const int P = size_of(MPI_COMM_WORLD), rank = rank_of(MPI_COMM_WORLD);
  const int M = 37;           // addends per element, in the whole set
  const std::size_t n = 29;   // elements
  // The serial reference: every element's M addends, in index order.
  std::vector<double> reference(n);
  for (std::size_t e = 0; e < n; ++e) {
    PCOLL_Binned b;
    PCOLL_Binned_clear(&b);
    for (int a = 0; a < M; ++a) PCOLL_Binned_add(&b, adversarial(a, e, 99, false));
    reference[e] = PCOLL_Binned_value(&b);
  }
  Failures fail;
  auto variants_all = variants("allreduce");
  for (int k = 1; k <= P; ++k) {
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub == MPI_COMM_NULL) continue;
    for (std::size_t vi = 0; vi <= variants_all.size(); ++vi) {
      // Deal the addends to the k ranks: a permutation and an uneven split, seeded by (k, vi),
      // the same on every rank.
      std::mt19937_64 rng(static_cast<std::uint64_t>(k * 1000) + vi);
      std::vector<PCOLL_Binned> mine(n);
      for (auto &b : mine) PCOLL_Binned_clear(&b);
      for (std::size_t e = 0; e < n; ++e) {
        std::vector<int> order(M);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        for (int a : order) {
          const int owner = static_cast<int>(rng() % static_cast<std::uint64_t>(k * k)) % k;
          if (owner == rank) PCOLL_Binned_add(&mine[e], adversarial(a, e, 99, false));
        }
      }
      std::string label;
      int rc;
      if (vi < variants_all.size()) {
        label = variants_all[vi].label;
        Overrides use(sub, variants_all[vi].set);
        rc = PCOLL_Allreduce(MPI_IN_PLACE, mine.data(), static_cast<int>(n), PCOLL_Binned_type(),
                             PCOLL_Binned_op(), sub);
      } else {
        label = "the vendor's MPI_Allreduce";
        rc = MPI_Allreduce(MPI_IN_PLACE, mine.data(), static_cast<int>(n), PCOLL_Binned_type(),
                           PCOLL_Binned_op(), sub);
      }
      if (rc != MPI_SUCCESS) fail.add(label + ": error");
      for (std::size_t e = 0; e < n && rc == MPI_SUCCESS; ++e) {
        const double v = PCOLL_Binned_value(&mine[e]);
        if (std::memcmp(&v, &reference[e], sizeof v) != 0) {
          fail.add(label + " on " + std::to_string(k) + " ranks: element " + std::to_string(e) +
                   " differs from the serial sum");
          break;
        }
      }
    }
    MPI_Comm_free(&sub);
  }
  fail.check_all(MPI_COMM_WORLD);
}

TEST_CASE("reproducible mode: what it leaves alone, and bad values", "[repro]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int P = size_of(comm), rank = rank_of(comm);
  pcoll::ScopedConfig on(comm, "reproducible", "on");
  // Integer sums, max of doubles: computed as usual (order-independent already).
  int isum = rank + 1, itot = 0;
  REQUIRE(PCOLL_Allreduce(&isum, &itot, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
  CHECK(itot == P * (P + 1) / 2);
  double mx = rank, dmax = -1;
  REQUIRE(PCOLL_Allreduce(&mx, &dmax, 1, MPI_DOUBLE, MPI_MAX, comm) == MPI_SUCCESS);
  CHECK(dmax == P - 1);
  // A product of doubles: as usual (said once on stderr).
  double pr = 2.0, prod = 0;
  REQUIRE(PCOLL_Allreduce(&pr, &prod, 1, MPI_DOUBLE, MPI_PROD, comm) == MPI_SUCCESS);
  CHECK(prod == std::ldexp(1.0, P));
  // A bad value is refused and changes nothing.
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  CHECK(PCOLL_Config_push(comm, "reproducible", "yes") != MPI_SUCCESS);
  const char *value = nullptr;
  REQUIRE(PCOLL_Config_get(comm, "reproducible", &value) == MPI_SUCCESS);
  CHECK(std::string(value) == "on");
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
}

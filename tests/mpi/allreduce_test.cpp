// PCOLL_Allreduce against exact expected values and against the vendor MPI_Allreduce, for every
// algorithm and parameter variant x datatypes x ops x counts x in-place x communicators.
// Inputs are chosen so the arithmetic is exact (small integers, products of +-1 and 2), so the
// expected result is known bit for bit and every rank must hold exactly it.
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <type_traits>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Variant;

namespace {

enum class OpKind { sum, prod, max, min, band, bor, lxor, user_sum };

const char *op_name(OpKind k) {
  switch (k) {
    case OpKind::sum:
      return "sum";
    case OpKind::prod:
      return "prod";
    case OpKind::max:
      return "max";
    case OpKind::min:
      return "min";
    case OpKind::band:
      return "band";
    case OpKind::bor:
      return "bor";
    case OpKind::lxor:
      return "lxor";
    case OpKind::user_sum:
      return "user commutative sum";
  }
  return "?";
}

// Two's-complement wrapping arithmetic, the semantics MPI libraries implement.
template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(W(U(a)) * W(U(b))));
  } else {
    return a * b;
  }
}

template <class T>
T apply(OpKind k, T a, T b) {
  switch (k) {
    case OpKind::sum:
    case OpKind::user_sum:
      return add(a, b);
    case OpKind::prod:
      return mul(a, b);
    case OpKind::max:
      return a > b ? a : b;
    case OpKind::min:
      return a < b ? a : b;
    case OpKind::lxor:
      return static_cast<T>((a != 0) != (b != 0));
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (k == OpKind::band) return static_cast<T>(a & b);
    if (k == OpKind::bor) return static_cast<T>(a | b);
  }
  return a;
}

// Input of rank r at position j, chosen so that the reduction is exact in T.
template <class T>
T input(OpKind k, int r, std::size_t j) {
  const long long x = static_cast<long long>(j % 1009);
  const bool is_signed = std::is_signed_v<T>;
  switch (k) {
    case OpKind::sum:
    case OpKind::user_sum:
      return static_cast<T>((r * 31 + x * 17) % 13 - (is_signed ? 6 : 0));
    case OpKind::prod:
      if ((r + x) % 5 == 0) return static_cast<T>(2);
      return static_cast<T>(((r * 3 + x) % 7 == 0 && is_signed) ? -1 : 1);
    case OpKind::max:
    case OpKind::min:
      return static_cast<T>((r * 37 + x * 11) % 101 - (is_signed ? 50 : 0));
    case OpKind::band:
    case OpKind::bor:
      return static_cast<T>((r * 7919 + x * 104729 + 12345) & 0x7f);
    case OpKind::lxor:
      return static_cast<T>((r + x) % 3 == 0 ? 0 : r + 1);
  }
  return T{};
}

// The commutative user op works on raw T values; it is created per T with the element width.
template <class T>
struct UserSum {
  static int &width() {
    static int w = 1;
    return w;
  }
  static void fn(void *in, void *inout, int *len, MPI_Datatype *) {
    const T *a = static_cast<const T *>(in);
    T *b = static_cast<T *>(inout);
    for (int i = 0; i < *len * width(); ++i) b[i] = add(a[i], b[i]);
  }
};

MPI_Op predefined(OpKind k) {
  switch (k) {
    case OpKind::sum:
      return MPI_SUM;
    case OpKind::prod:
      return MPI_PROD;
    case OpKind::max:
      return MPI_MAX;
    case OpKind::min:
      return MPI_MIN;
    case OpKind::band:
      return MPI_BAND;
    case OpKind::bor:
      return MPI_BOR;
    case OpKind::lxor:
      return MPI_LXOR;
    case OpKind::user_sum:
      break;
  }
  return MPI_OP_NULL;
}

std::vector<std::size_t> counts(int P, bool large) {
  std::vector<std::size_t> c = {
      0, 1, std::size_t(P > 1 ? P - 1 : 2), std::size_t(P), std::size_t(P + 1), 13, 97, 1000};
  if (large) c.push_back(100003);  // a large prime
  return c;
}

struct Ctx {
  MPI_Comm comm;
  std::string comm_name;
  Failures *fails;
};

// Runs every variant on one (T, width, datatype, op, count) case and compares bit for bit.
template <class T>
void run_case(const Ctx &c, MPI_Datatype dt, int width, OpKind k, std::size_t count,
              bool vendor_accepts) {
  int rank = 0, P = 1;
  MPI_Comm_rank(c.comm, &rank);
  MPI_Comm_size(c.comm, &P);
  const std::size_t n = count * static_cast<std::size_t>(width);  // T values
  std::vector<T> in(n), expected(n), got(n), vendor(n);
  for (std::size_t j = 0; j < n; ++j) {
    in[j] = input<T>(k, rank, j);
    T acc = input<T>(k, 0, j);
    for (int r = 1; r < P; ++r) acc = apply(k, acc, input<T>(k, r, j));
    expected[j] = acc;
  }
  MPI_Op op = predefined(k);
  if (k == OpKind::user_sum) {
    UserSum<T>::width() = width;
    MPI_Op_create(&UserSum<T>::fn, 1, &op);
  }
  std::ostringstream what;
  what << c.comm_name << " P=" << P << " " << op_name(k) << " width " << width << " count "
       << count;
  auto same = [&](const std::vector<T> &v) {
    return n == 0 || std::memcmp(v.data(), expected.data(), n * sizeof(T)) == 0;
  };
  if (vendor_accepts) {
    pcoll::ScopedConfig use(c.comm, "allreduce", "vendor");
    PCOLL_Allreduce(in.data(), vendor.data(), static_cast<int>(count), dt, op, c.comm);
    if (!same(vendor)) c.fails->add("vendor differs from the exact result: " + what.str());
  }
  for (const Variant &v : pcoll_test::allreduce_variants()) {
    std::vector<std::unique_ptr<pcoll::ScopedConfig>> cfg;
    for (const auto &s : v.set)
      cfg.push_back(std::make_unique<pcoll::ScopedConfig>(c.comm, s.first, s.second));
    for (bool in_place : {false, true}) {
      std::fill(got.begin(), got.end(), T{});
      int rc;
      if (in_place) {
        got = in;
        rc = PCOLL_Allreduce(MPI_IN_PLACE, got.data(), static_cast<int>(count), dt, op, c.comm);
      } else {
        rc = PCOLL_Allreduce(in.data(), got.data(), static_cast<int>(count), dt, op, c.comm);
      }
      const char *used = "";
      PCOLL_Get_last_algorithm(c.comm, &used);
      const std::string where =
          v.label + (in_place ? " in-place " : " ") + what.str() + " (served by " + used + ")";
      if (rc != MPI_SUCCESS)
        c.fails->add("error code from " + where);
      else if (!same(got))
        c.fails->add("wrong result: " + where);
      if (v.set[0].second != "auto" && v.set[0].second != used)
        c.fails->add("fell back unexpectedly: " + where);
    }
  }
  if (k == OpKind::user_sum) MPI_Op_free(&op);
}

template <class T>
void run_type(const Ctx &c, MPI_Datatype dt, int width, const std::vector<OpKind> &ops,
              bool large) {
  int P = 1;
  MPI_Comm_size(c.comm, &P);
  // Open MPI rejects predefined ops on derived datatypes (MPI_ERR_OP), which MPI 4.1 Sec. 6.9.2
  // permits it to; pcoll computes them exactly, so only the exact expectation is checked there.
  for (OpKind k : ops)
    for (std::size_t count : counts(P, large && k == OpKind::sum))
      run_case<T>(c, dt, width, k, count, width == 1 || k == OpKind::user_sum);
}

const std::vector<OpKind> kIntOps = {OpKind::sum,  OpKind::prod, OpKind::max,  OpKind::min,
                                     OpKind::band, OpKind::bor,  OpKind::lxor, OpKind::user_sum};
const std::vector<OpKind> kFloatOps = {OpKind::sum, OpKind::prod, OpKind::max, OpKind::min,
                                       OpKind::user_sum};

}  // namespace

TEST_CASE("allreduce: every algorithm, type, op, count and in-place is exact", "[allreduce]") {
  Failures fails;
  Ctx c{MPI_COMM_WORLD, "world", &fails};
  SECTION("int") {
    run_type<int>(c, MPI_INT, 1, kIntOps, true);
  }
  SECTION("long") {
    run_type<long>(c, MPI_LONG, 1, kIntOps, false);
  }
  SECTION("unsigned char") {
    run_type<unsigned char>(c, MPI_UNSIGNED_CHAR, 1, kIntOps, false);
  }
  SECTION("float") {
    run_type<float>(c, MPI_FLOAT, 1, kFloatOps, false);
  }
  SECTION("double") {
    run_type<double>(c, MPI_DOUBLE, 1, kFloatOps, true);
  }
  SECTION("contiguous derived type: 3 x int") {
    MPI_Datatype t3;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    run_type<int>(c, t3, 3, {OpKind::sum, OpKind::max, OpKind::band, OpKind::user_sum}, false);
    MPI_Type_free(&t3);
  }
  fails.check_all(MPI_COMM_WORLD);
}

TEST_CASE("allreduce on split and duplicated communicators", "[allreduce]") {
  Failures fails;
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm split, dup;
  // Two colours, reversed key: the sub-communicator's rank order differs from world's.
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, P - rank, &split);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  for (auto [comm, name] : {std::pair{split, "split"}, std::pair{dup, "dup"}}) {
    Ctx c{comm, name, &fails};
    run_type<int>(c, MPI_INT, 1, {OpKind::sum, OpKind::max, OpKind::user_sum}, false);
    run_type<double>(c, MPI_DOUBLE, 1, {OpKind::sum, OpKind::min}, false);
  }
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  fails.check_all(MPI_COMM_WORLD);
}

// ---- a non-commutative user op: 2x2 matrix product over uint32 (wrapping) -------------------
namespace {

using pcoll_test::Mat;  // the 2x2 matrix product op, shared in harness.hpp
using pcoll_test::mat_input;
using pcoll_test::matmul;
using pcoll_test::matmul_fn;

}  // namespace

TEST_CASE("allreduce with a non-commutative user op keeps rank order", "[allreduce]") {
  Failures fails;
  MPI_Datatype mat_t;
  MPI_Type_contiguous(4, MPI_UINT32_T, &mat_t);
  MPI_Type_commit(&mat_t);
  MPI_Op op;
  MPI_Op_create(matmul_fn, /*commute=*/0, &op);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, P - rank, &split);
  for (auto [comm, name] : {std::pair{MPI_COMM_WORLD, "world"}, std::pair{split, "split"}}) {
    int crank = 0, cP = 1;
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &cP);
    for (std::size_t count : counts(cP, false)) {
      std::vector<Mat> in(count), expected(count), got(count);
      for (std::size_t j = 0; j < count; ++j) {
        in[j] = mat_input(crank, j);
        Mat acc = mat_input(0, j);
        for (int r = 1; r < cP; ++r) acc = matmul(acc, mat_input(r, j));
        expected[j] = acc;
      }
      for (const Variant &v : pcoll_test::allreduce_variants()) {
        std::vector<std::unique_ptr<pcoll::ScopedConfig>> cfg;
        for (const auto &s : v.set)
          cfg.push_back(std::make_unique<pcoll::ScopedConfig>(comm, s.first, s.second));
        pcoll::ScopedConfig quiet(comm, "fallback", "silent");
        for (bool in_place : {false, true}) {
          if (in_place) got = in;
          const int rc = PCOLL_Allreduce(in_place ? MPI_IN_PLACE : in.data(), got.data(),
                                         static_cast<int>(count), mat_t, op, comm);
          const char *used = "";
          PCOLL_Get_last_algorithm(comm, &used);
          std::ostringstream w;
          w << name << " " << v.label << " count " << count << (in_place ? " in-place" : "")
            << " served by " << used;
          if (rc != MPI_SUCCESS ||
              (count && std::memcmp(got.data(), expected.data(), count * sizeof(Mat)) != 0))
            fails.add("non-commutative: " + w.str());
          // ring needs commutativity: it must have handed the call to the vendor.
          if (v.set[0].second == "ring" && cP > 1 && std::string(used) != "vendor")
            fails.add("ring served a non-commutative op: " + w.str());
        }
      }
    }
  }
  MPI_Comm_free(&split);
  MPI_Op_free(&op);
  MPI_Type_free(&mat_t);
  fails.check_all(MPI_COMM_WORLD);
}

TEST_CASE("inexact floating-point sums: all ranks bit-identical, close to vendor", "[allreduce]") {
  Failures fails;
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::mt19937_64 gen(1234 + static_cast<unsigned>(rank));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (std::size_t count : {std::size_t(1), std::size_t(P + 1), std::size_t(4099)}) {
    std::vector<double> in(count), vendor(count), got(count);
    for (auto &x : in) x = dist(gen) * 1e3;
    {
      pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", "vendor");
      PCOLL_Allreduce(in.data(), vendor.data(), int(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    for (const Variant &v : pcoll_test::allreduce_variants()) {
      std::vector<std::unique_ptr<pcoll::ScopedConfig>> cfg;
      for (const auto &s : v.set)
        cfg.push_back(std::make_unique<pcoll::ScopedConfig>(MPI_COMM_WORLD, s.first, s.second));
      PCOLL_Allreduce(in.data(), got.data(), int(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      for (std::size_t j = 0; j < count; ++j)
        if (std::abs(got[j] - vendor[j]) > 1e-9 * P * 1e3)
          fails.add(v.label + ": far from vendor at " + std::to_string(j));
      // Bit-identical across ranks: compare every rank's bytes with rank 0's.
      std::vector<double> root = got;
      MPI_Bcast(root.data(), int(count), MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (std::memcmp(root.data(), got.data(), count * sizeof(double)) != 0)
        fails.add(v.label + ": ranks hold different bits");
      // Repeated runs give the same bits.
      std::vector<double> again(count);
      PCOLL_Allreduce(in.data(), again.data(), int(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      if (std::memcmp(again.data(), got.data(), count * sizeof(double)) != 0)
        fails.add(v.label + ": not reproducible");
    }
  }
  fails.check_all(MPI_COMM_WORLD);
}

TEST_CASE("a pending wildcard receive of the application is never matched", "[allreduce]") {
  Failures fails;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int app_buf = -1;
  MPI_Request req;
  MPI_Irecv(&app_buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
  std::vector<double> x(1000, 1.0), y(1000);
  for (const Variant &v : pcoll_test::allreduce_variants()) {
    std::vector<std::unique_ptr<pcoll::ScopedConfig>> cfg;
    for (const auto &s : v.set)
      cfg.push_back(std::make_unique<pcoll::ScopedConfig>(MPI_COMM_WORLD, s.first, s.second));
    PCOLL_Allreduce(x.data(), y.data(), 1000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int flag = 0;
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      fails.add(v.label + ": the application's wildcard receive matched a pcoll message");
      MPI_Irecv(&app_buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    }
  }
  // Complete it with the application's own message.
  const int mine = 4242 + rank;
  MPI_Send(&mine, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (app_buf != mine) fails.add("the application's own message did not arrive intact");
  fails.check_all(MPI_COMM_WORLD);
}

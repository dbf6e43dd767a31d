// PCOLL_Reduce_scatter, PCOLL_Ireduce_scatter and PCOLL_Reduce_scatter_init (MPI_Reduce_scatter:
// blocks of any length) for every registered algorithm (tests/common/variants.hpp) and auto x
// int, float, double and a contiguous derived type of doubles (the vendor then called in units of
// double, as pcoll does) x MPI_SUM and MPI_MAX x block
// lengths (uneven with zeros, one rank receiving everything, growing, all empty) x in place and
// not x blocking, nonblocking and persistent, compared bit for bit with exact expected values and
// with the vendor. Then the plan cache (other counts, same total), a non-contiguous datatype,
// a non-commutative op (the vendor's, or an error under PCOLL_FALLBACK=error), the reproducible
// mode (the same bits for every algorithm and the vendor) and the MPI error classes.
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>
#include <cmath>
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

// Element j of rank q's input: small integers, exact in every type (sums of 16 ranks < 2^24).
long long input_value(int q, long long j) {
  return (q * 7 + j * 3) % 13 + 1 + (j % 5) * 16;
}

using LengthFn = int (*)(int q, int P);
struct Lengths {
  const char *name;
  LengthFn len;
};
const Lengths kLengths[] = {
    {"uneven", [](int q, int) { return (q * 7 + 1) % 5 * 9; }},
    {"one rank gets all", [](int q, int P) { return q == P / 2 ? 1000 : 0; }},
    {"growing", [](int q, int) { return q + 1; }},
    {"zero", [](int, int) { return 0; }},
};

std::vector<std::pair<std::string, Set>> variants() {
  std::vector<std::pair<std::string, Set>> v;
  for (const auto &a : pcoll_test::variants_of("reduce_scatter", pcoll_test::mpi))
    v.emplace_back(a.label, a.overrides("reduce_scatter"));
  v.push_back({"auto", {{"reduce_scatter", "auto"}}});
  return v;
}

using pcoll_test::Form;
using pcoll_test::form_name;

// One call in the given form (a persistent request is started twice, `refill` run before the
// second start).
template <class Refill>
int call(Form form, const void *send, void *recv, const int *counts, MPI_Datatype t, MPI_Op op,
         MPI_Comm comm, Refill refill) {
  return pcoll_test::call_in_form(
      form, [&] { return PCOLL_Reduce_scatter(send, recv, counts, t, op, comm); },
      [&](MPI_Request *q) { return PCOLL_Ireduce_scatter(send, recv, counts, t, op, comm, q); },
      [&](MPI_Request *q) {
        return PCOLL_Reduce_scatter_init(send, recv, counts, t, op, comm, MPI_INFO_NULL, q);
      },
      refill);
}

// B values, `width` per element of `type`.
template <class B>
void check_type(MPI_Comm comm, MPI_Datatype type, MPI_Datatype base, int width,
                const char *type_name, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  for (MPI_Op op : {MPI_SUM, MPI_MAX}) {
    const char *op_name = op == MPI_SUM ? "sum" : "max";
    for (const Lengths &l : kLengths) {
      std::vector<int> counts(P);
      int total = 0, first = 0;
      for (int q = 0; q < P; ++q) {
        counts[q] = l.len(q, P);
        if (q < me) first += counts[q];
        total += counts[q];
      }
      const std::size_t vals = static_cast<std::size_t>(total) * width;
      const std::size_t mine = static_cast<std::size_t>(counts[me]) * width;
      std::vector<B> in(vals + 1);
      for (std::size_t j = 0; j < vals; ++j) in[j] = static_cast<B>(input_value(me, j));
      std::vector<B> expected(mine + 1, B(-7));  // one element past the block: untouched
      for (std::size_t k = 0; k < mine; ++k) {
        long long acc = op == MPI_SUM ? 0 : input_value(0, first * width + k);
        for (int q = 0; q < P; ++q) {
          const long long x = input_value(q, static_cast<long long>(first * width + k));
          acc = op == MPI_SUM ? acc + x : std::max(acc, x);
        }
        expected[k] = static_cast<B>(acc);
      }
      // The vendor on the base type (Open MPI 4.1 refuses predefined ops on derived types).
      std::vector<B> vendor(mine + 1, B(-7));
      std::vector<int> base_counts(counts);
      for (int &x : base_counts) x *= width;
      PMPI_Reduce_scatter(in.data(), vendor.data(), base_counts.data(), base, op, comm);
      if (std::memcmp(vendor.data(), expected.data(), (mine + 1) * sizeof(B)) != 0)
        f.add(std::string("vendor differs from the exact result: ") + type_name + " " + l.name);
      for (const auto &[label, set] : variants()) {
        Overrides use(comm, set);
        for (Form form : {Form::blocking, Form::nonblocking, Form::persistent})
          for (bool in_place : {false, true}) {
            if (form != Form::blocking && op != MPI_SUM) continue;
            // In place: the whole vector in the receive buffer, the result in front.
            std::vector<B> got(std::max(vals, mine) + 1, B(-7));
            auto fill = [&] {
              got.assign(std::max(vals, mine) + 1, B(-7));
              if (in_place) std::copy(in.begin(), in.begin() + static_cast<long>(vals), got.begin());
            };
            fill();
            const int rc = call(form, in_place ? MPI_IN_PLACE : static_cast<void *>(in.data()),
                                got.data(), counts.data(), type, op, comm, fill);
            const char *used = "";
            PCOLL_Get_last_algorithm(comm, &used);
            std::ostringstream w;
            w << label << " (" << used << ") " << type_name << " " << op_name << " P=" << P << " "
              << l.name << (in_place ? " in-place" : "") << form_name(form);
            const std::size_t cmp = (in_place ? mine : mine + 1) * sizeof(B);
            if (rc != MPI_SUCCESS)
              f.add("error from " + w.str());
            else if (std::memcmp(got.data(), expected.data(), cmp) != 0)
              f.add("wrong result: " + w.str());
            else if (std::memcmp(got.data(), vendor.data(), cmp) != 0)
              f.add("differs from the vendor: " + w.str());
            const std::string want = set[0].second;
            if (total > 0 && (want == "auto" ? std::string(used) == "vendor" : want != used))
              f.add("served by " + std::string(used) + ": " + w.str());
          }
      }
    }
  }
}

// A non-commutative op on ints: a * 3 + b (so order matters); MPI defines the result as
// in_0 op in_1 op ... in rank order.
void affine(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<int *>(in);
  auto *b = static_cast<int *>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] * 3 + b[i];
}

}  // namespace

TEST_CASE("reduce_scatter: every algorithm, types, ops, lengths, in place, forms",
          "[reduce_scatter]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Datatype triple;  // a contiguous derived type: 3 doubles (reduced per double)
  MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
  MPI_Type_commit(&triple);
  check_type<int>(comm, MPI_INT, MPI_INT, 1, "int", f);
  check_type<float>(comm, MPI_FLOAT, MPI_FLOAT, 1, "float", f);
  check_type<double>(comm, MPI_DOUBLE, MPI_DOUBLE, 1, "double", f);
  check_type<double>(comm, triple, MPI_DOUBLE, 3, "contiguous(3, double)", f);
  MPI_Type_free(&triple);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("reduce_scatter: cached plans follow the counts", "[reduce_scatter]") {
  // The same total (so the same decision) split differently from call to call, and back.
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  for (const char *algo : {"ring", "recursive_halving"})
    for (int rep = 0; rep < 2; ++rep)
      for (int shift = 0; shift < 4; ++shift) {
        Overrides use(comm, {{"reduce_scatter", algo}});
        std::vector<int> counts(P);
        int total = 0, first = 0;
        for (int q = 0; q < P; ++q) {
          counts[q] = (q + shift) % 4 * 3;
          if (q < me) first += counts[q];
          total += counts[q];
        }
        std::vector<int> in(total + 1), got(counts[me] + 1, -1), want(counts[me] + 1, -1);
        for (int j = 0; j < total; ++j) in[j] = int(input_value(me, j + shift));
        for (int k = 0; k < counts[me]; ++k) {
          want[k] = 0;
          for (int q = 0; q < P; ++q) want[k] += int(input_value(q, first + k + shift));
        }
        const int err =
            PCOLL_Reduce_scatter(in.data(), got.data(), counts.data(), MPI_INT, MPI_SUM, comm);
        if (err != MPI_SUCCESS || got != want)
          f.add(std::string(algo) + " shift " + std::to_string(shift) + " rep " +
                std::to_string(rep) + " wrong");
      }
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("reduce_scatter: strided type, non-commutative op, reproducible mode",
          "[reduce_scatter]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  std::vector<int> counts(P);
  int total = 0, first = 0;
  for (int q = 0; q < P; ++q) {
    counts[q] = q % 3 + 1;
    if (q < me) first += counts[q];
    total += counts[q];
  }
  // A strided type: 2 ints with a gap of one, reduced per int.
  MPI_Datatype gappy;
  MPI_Type_vector(2, 1, 2, MPI_INT, &gappy);
  MPI_Type_commit(&gappy);
  std::vector<int> in(3 * total, -3), want(3 * counts[me], -9);
  for (int e = 0; e < total; ++e)
    for (int h = 0; h < 2; ++h) in[3 * e + 2 * h] = int(input_value(me, 2 * e + h));
  for (int e = 0; e < counts[me]; ++e)
    for (int h = 0; h < 2; ++h) {
      int s = 0;
      for (int q = 0; q < P; ++q) s += int(input_value(q, 2 * (first + e) + h));
      want[3 * e + 2 * h] = s;
    }
  for (const char *algo : {"ring", "recursive_halving", "vendor"}) {
    Overrides use(comm, {{"reduce_scatter", algo}, {"fallback", "error"}});
    std::vector<int> got(3 * counts[me], -9);
    const int err = PCOLL_Reduce_scatter(in.data(), got.data(), counts.data(), gappy, MPI_SUM, comm);
    const char *used = "";
    PCOLL_Get_last_algorithm(comm, &used);
    if (err != MPI_SUCCESS || got != want) f.add(std::string("strided wrong: ") + algo);
    if (std::string(used) != algo) f.add(std::string("strided served by ") + used);
  }
  // A non-commutative op: both algorithms need a commutative one, so the call is the vendor's
  // (silently here), or an error under PCOLL_FALLBACK=error.
  MPI_Op op;
  MPI_Op_create(affine, 0, &op);
  std::vector<int> vin(total), vref(counts[me] + 1, -1);
  for (int j = 0; j < total; ++j) vin[j] = int(input_value(me, j)) % 5;
  PMPI_Reduce_scatter(vin.data(), vref.data(), counts.data(), MPI_INT, op, comm);
  for (const char *algo : {"ring", "recursive_halving"}) {
    {
      Overrides use(comm, {{"reduce_scatter", algo}, {"fallback", "silent"}});
      std::vector<int> got(counts[me] + 1, -1);
      const int err = PCOLL_Reduce_scatter(vin.data(), got.data(), counts.data(), MPI_INT, op, comm);
      const char *used = "";
      PCOLL_Get_last_algorithm(comm, &used);
      if (err != MPI_SUCCESS || got != vref) f.add(std::string("non-commutative wrong: ") + algo);
      if (std::string(used).rfind("vendor", 0) != 0)
        f.add(std::string("non-commutative served by ") + used);
    }
    {
      Overrides use(comm, {{"reduce_scatter", algo}, {"fallback", "error"}});
      MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
      std::vector<int> got(counts[me] + 1, -1);
      if (PCOLL_Reduce_scatter(vin.data(), got.data(), counts.data(), MPI_INT, op, comm) ==
          MPI_SUCCESS)
        f.add(std::string("non-commutative op under fallback=error accepted by ") + algo);
    }
  }
  MPI_Op_free(&op);
  // The reproducible mode: values whose plain sums depend on the order give the same bits
  // under every algorithm and the vendor.
  std::vector<double> din(total);
  for (int j = 0; j < total; ++j)
    din[j] = (j + me) % 2 ? 1e16 / (me + 1 + j) : -1e16 / (me + 2 + j) + 1.0 / (3 + me);
  std::vector<std::vector<double>> results;
  for (const char *algo : {"ring", "recursive_halving", "vendor"}) {
    Overrides use(comm, {{"reduce_scatter", algo}, {"reproducible", "on"}});
    std::vector<double> got(counts[me] + 1, -1.0);
    if (PCOLL_Reduce_scatter(din.data(), got.data(), counts.data(), MPI_DOUBLE, MPI_SUM, comm) !=
        MPI_SUCCESS)
      f.add(std::string("reproducible: error from ") + algo);
    results.push_back(got);
  }
  for (std::size_t k = 1; k < results.size(); ++k)
    if (std::memcmp(results[k].data(), results[0].data(), results[0].size() * sizeof(double)) != 0)
      f.add("reproducible: bits differ between algorithms");
  MPI_Type_free(&gappy);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("reduce_scatter: errors are MPI error classes", "[reduce_scatter][errors]") {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int P = size_of(comm), me = rank_of(comm);
  std::vector<int> a(2 * P, 1), b(2 * P), c(P, 2), neg(P, 2);
  neg[P - 1] = -1;
  auto cls = [](int code) {
    int k = code;
    MPI_Error_class(code, &k);
    return k;
  };
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), b.data(), neg.data(), MPI_INT, MPI_SUM, comm)) ==
        MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), b.data(), nullptr, MPI_INT, MPI_SUM, comm)) ==
        MPI_ERR_ARG);
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), b.data(), c.data(), MPI_DATATYPE_NULL, MPI_SUM,
                                 comm)) == MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), b.data(), c.data(), MPI_INT, MPI_OP_NULL, comm)) ==
        MPI_ERR_OP);
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), a.data(), c.data(), MPI_INT, MPI_SUM, comm)) ==
        MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), nullptr, c.data(), MPI_INT, MPI_SUM, comm)) ==
        MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Reduce_scatter(a.data(), b.data(), c.data(), MPI_INT, MPI_SUM,
                                 MPI_COMM_NULL)) == MPI_ERR_COMM);
  CHECK(cls(PCOLL_Ireduce_scatter(a.data(), b.data(), c.data(), MPI_INT, MPI_SUM, comm,
                                  nullptr)) == MPI_ERR_REQUEST);
  // Still usable afterwards, and right: every element sums to P.
  MPI_Request r;
  CHECK(PCOLL_Ireduce_scatter(a.data(), b.data(), c.data(), MPI_INT, MPI_SUM, comm, &r) ==
        MPI_SUCCESS);
  CHECK(PCOLL_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK((b[0] == P && b[1] == P));
  (void)me;
  MPI_Comm_free(&comm);
}

// PCOLL_Allgatherv, PCOLL_Iallgatherv and PCOLL_Allgatherv_init for every registered algorithm
// (tests/common/variants.hpp) and auto x int, double and a contiguous derived type x block
// lengths (uneven with zeros, one rank holding everything, all empty) x displacements (packed in
// rank order, reverse order with gaps that must stay untouched, mixed by rank, negative) x in
// place and not, compared bit for bit with exact expected values and with the vendor. Then the
// plan cache (the same call shape with other counts), non-contiguous types, send and receive
// types of one signature, and the MPI error classes.
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

// Element o of rank q's block: distinct per (q, o), exact in int and double.
long long block_value(int q, long long o) {
  return (q * 1021 + o) % 65521 + 1;
}

constexpr long long kUntouched = -7;  // what receive-buffer gaps hold before and after

using LengthFn = int (*)(int q, int P);
struct Lengths {
  const char *name;
  LengthFn len;
};
const Lengths kLengths[] = {
    {"uneven", [](int q, int) { return (q * 7 + 1) % 5 * 9; }},
    {"one rank has all", [](int q, int P) { return q == P / 2 ? 1000 : 0; }},
    {"growing", [](int q, int) { return q + 1; }},
    {"zero", [](int, int) { return 0; }},
};

// Rank me's displacements: `kind` 0 packed in rank order, 1 reverse rank order with gaps of 2,
// 2 = kind 0 on even ranks and 1 on odd ones; all start at `base` (negative: the buffer pointer
// is moved up).
struct Layout {
  std::vector<int> counts, displs;
  int recv_elems = 0;
};
Layout layout(const Lengths &l, int me, int P, int kind, int base) {
  Layout g;
  g.counts.resize(P);
  g.displs.resize(P);
  const bool reverse = kind == 1 || (kind == 2 && me % 2 == 1);
  int off = 0;
  for (int k = 0; k < P; ++k) {
    const int q = reverse ? P - 1 - k : k;
    g.counts[q] = l.len(q, P);
    g.displs[q] = base + off;
    off += g.counts[q] + (reverse ? 2 : 0);
  }
  g.recv_elems = off;
  return g;
}

std::vector<std::pair<std::string, Set>> variants() {
  std::vector<std::pair<std::string, Set>> v;
  for (const auto &a : pcoll_test::variants_of("allgatherv", pcoll_test::mpi))
    v.emplace_back(a.label, a.overrides("allgatherv"));
  v.push_back({"auto", {{"allgatherv", "auto"}}});
  return v;
}

using pcoll_test::Form;
using pcoll_test::form_name;

// One call in the given form (a persistent request is started twice, its buffer refilled by
// `refill` before the second start).
template <class Refill>
int call(Form form, const void *send, int sc, MPI_Datatype st, void *recv, const int *counts,
         const int *displs, MPI_Datatype rt, MPI_Comm comm, Refill refill) {
  return pcoll_test::call_in_form(
      form, [&] { return PCOLL_Allgatherv(send, sc, st, recv, counts, displs, rt, comm); },
      [&](MPI_Request *r) {
        return PCOLL_Iallgatherv(send, sc, st, recv, counts, displs, rt, comm, r);
      },
      [&](MPI_Request *r) {
        return PCOLL_Allgatherv_init(send, sc, st, recv, counts, displs, rt, comm,
                                     MPI_INFO_NULL, r);
      },
      refill);
}

// B values, `width` per element of `type`.
template <class B>
void check_type(MPI_Comm comm, MPI_Datatype type, int width, const char *type_name, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  for (const Lengths &l : kLengths) {
    for (int kind = 0; kind < 3; ++kind) {
      for (int base : {0, -3}) {
        if (base != 0 && kind != 1) continue;
        const Layout g = layout(l, me, P, kind, base);
        const int shift = -base;  // elements the receive pointer moves up
        const int mine = g.counts[me];
        std::vector<B> in(static_cast<std::size_t>(mine) * width + 1, B(-5));
        std::vector<B> expected(static_cast<std::size_t>(g.recv_elems) * width, B(kUntouched));
        for (long long o = 0; o < static_cast<long long>(mine) * width; ++o)
          in[o] = static_cast<B>(block_value(me, o));
        for (int q = 0; q < P; ++q)
          for (long long o = 0; o < static_cast<long long>(g.counts[q]) * width; ++o)
            expected[(g.displs[q] + shift) * width + o] = static_cast<B>(block_value(q, o));
        const std::size_t bytes = expected.size() * sizeof(B);
        auto at = [&](std::vector<B> &v) { return v.data() + shift * width; };
        std::vector<B> vendor(expected.size(), B(kUntouched));
        PMPI_Allgatherv(in.data(), mine, type, at(vendor), g.counts.data(), g.displs.data(), type,
                        comm);
        if (std::memcmp(vendor.data(), expected.data(), bytes) != 0)
          f.add(std::string("vendor differs from the exact result: ") + type_name + " " + l.name);
        for (const auto &[label, set] : variants()) {
          Overrides use(comm, set);
          for (Form form : {Form::blocking, Form::nonblocking, Form::persistent})
            for (bool in_place : {false, true}) {
              if (form != Form::blocking && kind != 2) continue;
              std::vector<B> got(expected.size(), B(kUntouched));
              auto fill_own = [&] {
                for (long long o = 0; o < static_cast<long long>(mine) * width; ++o)
                  got[(g.displs[me] + shift) * width + o] = static_cast<B>(block_value(me, o));
              };
              if (in_place) fill_own();
              // Before a persistent request's second start: everything stale but the input.
              auto refill = [&] {
                got.assign(expected.size(), B(kUntouched));
                if (in_place) fill_own();
              };
              const int rc = call(form, in_place ? MPI_IN_PLACE : static_cast<void *>(in.data()),
                                  mine, type, at(got), g.counts.data(), g.displs.data(), type,
                                  comm, refill);
              const char *used = "";
              PCOLL_Get_last_algorithm(comm, &used);
              std::ostringstream w;
              w << label << " (" << used << ") " << type_name << " P=" << P << " " << l.name
                << " displs " << kind << " base " << base << (in_place ? " in-place" : "")
                << form_name(form);
              if (rc != MPI_SUCCESS)
                f.add("error from " + w.str());
              else if (std::memcmp(got.data(), expected.data(), bytes) != 0)
                f.add("wrong result: " + w.str());
              else if (std::memcmp(got.data(), vendor.data(), bytes) != 0)
                f.add("differs from the vendor: " + w.str());
              const std::string want = set[0].second;
              if (want == "auto" ? std::string(used) == "vendor" : want != used)
                f.add("served by " + std::string(used) + ": " + w.str());
            }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("allgatherv: every algorithm, types, lengths, displacements, in place, forms",
          "[allgatherv]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Datatype triple;  // a contiguous derived type: 3 ints
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  check_type<int>(comm, MPI_INT, 1, "int", f);
  check_type<double>(comm, MPI_DOUBLE, 1, "double", f);
  check_type<int>(comm, triple, 3, "contiguous(3, int)", f);
  MPI_Type_free(&triple);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("allgatherv: cached plans follow the counts", "[allgatherv]") {
  // Same communicator, datatype and algorithm, counts that change from call to call (and come
  // back) with the same total (so the same decision): a plan cached for one layout must never
  // serve another.
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  for (const char *algo : {"ring", "recursive_doubling"})
    for (int rep = 0; rep < 2; ++rep)
      for (int shift = 0; shift < 4; ++shift) {
        Overrides use(comm, {{"allgatherv", algo}});
        std::vector<int> counts(P), displs(P);
        int off = 0;
        for (int q = 0; q < P; ++q) {
          counts[q] = (q + shift) % 4 * 3;
          displs[q] = off;
          off += counts[q];
        }
        std::vector<int> in(counts[me] + 1), got(off, -1), want(off);
        for (int o = 0; o < counts[me]; ++o) in[o] = int(block_value(me, o + shift));
        for (int q = 0; q < P; ++q)
          for (int o = 0; o < counts[q]; ++o) want[displs[q] + o] = int(block_value(q, o + shift));
        const int err = PCOLL_Allgatherv(in.data(), counts[me], MPI_INT, got.data(), counts.data(),
                                         displs.data(), MPI_INT, comm);
        if (err != MPI_SUCCESS || got != want)
          f.add(std::string(algo) + " shift " + std::to_string(shift) + " rep " +
                std::to_string(rep) + " wrong");
      }
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("allgatherv: non-contiguous types, and types of one signature", "[allgatherv]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  MPI_Datatype gappy, pair;  // 2 ints with a gap of one; 2 ints contiguous
  MPI_Type_vector(2, 1, 2, MPI_INT, &gappy);
  MPI_Type_commit(&gappy);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  // Rank q contributes q % 3 + 1 pairs of ints.
  std::vector<int> pairs(P), ints(P), pdispl(P), idispl(P);
  int total = 0;
  for (int q = 0; q < P; ++q) {
    pairs[q] = q % 3 + 1;
    ints[q] = 2 * pairs[q];
    pdispl[q] = total / 2;
    idispl[q] = total;
    total += ints[q];
  }
  std::vector<int> want(total);
  for (int q = 0; q < P; ++q)
    for (int o = 0; o < ints[q]; ++o) want[idispl[q] + o] = int(block_value(q, o));
  std::vector<int> strided(3 * pairs[me], -3);  // my block as `gappy` elements
  for (int k = 0; k < pairs[me]; ++k) {
    strided[3 * k] = int(block_value(me, 2 * k));
    strided[3 * k + 2] = int(block_value(me, 2 * k + 1));
  }
  for (const char *algo : {"ring", "recursive_doubling", "vendor"}) {
    Overrides use(comm, {{"allgatherv", algo}, {"fallback", "error"}});
    // Strided send side, ints received.
    std::vector<int> got(total, -1);
    int err = PCOLL_Allgatherv(strided.data(), pairs[me], gappy, got.data(), ints.data(),
                               idispl.data(), MPI_INT, comm);
    const char *used = "";
    PCOLL_Get_last_algorithm(comm, &used);
    if (err != MPI_SUCCESS || got != want) f.add(std::string("strided -> int wrong: ") + algo);
    if (std::string(used) != algo) f.add(std::string("strided served by ") + used);
    // Pairs sent, received as gappy elements (every other int of 3): gaps untouched.
    std::vector<int> spread(3 * (total / 2), -7), spread_want(3 * (total / 2), -7);
    for (int k = 0; k < total / 2; ++k) {
      spread_want[3 * k] = want[2 * k];
      spread_want[3 * k + 2] = want[2 * k + 1];
    }
    std::vector<int> mine(want.begin() + idispl[me], want.begin() + idispl[me] + ints[me]);
    err = PCOLL_Allgatherv(mine.data(), pairs[me], pair, spread.data(), pairs.data(),
                           pdispl.data(), gappy, comm);
    if (err != MPI_SUCCESS || spread != spread_want) f.add(std::string("pair -> strided: ") + algo);
    // In place, strided: the own block is read from the strided receive buffer.
    std::vector<int> inplace(3 * (total / 2), -7);
    for (int k = pdispl[me]; k < pdispl[me] + pairs[me]; ++k) {
      inplace[3 * k] = spread_want[3 * k];
      inplace[3 * k + 2] = spread_want[3 * k + 2];
    }
    err = PCOLL_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), pairs.data(),
                           pdispl.data(), gappy, comm);
    if (err != MPI_SUCCESS || inplace != spread_want) f.add(std::string("in place strided: ") + algo);
    // Ranks passing different datatypes of one signature: even ranks receive ints, odd ranks
    // pairs (counts halved), every rank sends pairs.
    std::vector<int> mixed(total, -1);
    err = me % 2 == 0 ? PCOLL_Allgatherv(mine.data(), pairs[me], pair, mixed.data(), ints.data(),
                                         idispl.data(), MPI_INT, comm)
                      : PCOLL_Allgatherv(mine.data(), pairs[me], pair, mixed.data(), pairs.data(),
                                         pdispl.data(), pair, comm);
    if (err != MPI_SUCCESS || mixed != want) f.add(std::string("mixed types: ") + algo);
  }
  MPI_Type_free(&gappy);
  MPI_Type_free(&pair);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("allgatherv: errors are MPI error classes", "[allgatherv][errors]") {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int P = size_of(comm), me = rank_of(comm);
  std::vector<int> a(2 * P), b(2 * P), c(P, 2), d(P), neg(P, 2);
  for (int q = 0; q < P; ++q) d[q] = 2 * q;
  neg[P - 1] = -1;
  auto cls = [](int code) {
    int k = code;
    MPI_Error_class(code, &k);
    return k;
  };
  const int *n = nullptr;
  CHECK(cls(PCOLL_Allgatherv(a.data(), 2, MPI_INT, b.data(), neg.data(), d.data(), MPI_INT,
                             comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Allgatherv(a.data(), -1, MPI_INT, b.data(), c.data(), d.data(), MPI_INT,
                             comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Allgatherv(a.data(), 2, MPI_DATATYPE_NULL, b.data(), c.data(), d.data(),
                             MPI_INT, comm)) == MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Allgatherv(a.data(), 2, MPI_INT, b.data(), c.data(), d.data(),
                             MPI_DATATYPE_NULL, comm)) == MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Allgatherv(a.data(), 2, MPI_INT, b.data(), n, d.data(), MPI_INT, comm)) ==
        MPI_ERR_ARG);
  CHECK(cls(PCOLL_Allgatherv(b.data(), 2, MPI_INT, b.data(), c.data(), d.data(), MPI_INT,
                             comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Allgatherv(a.data(), 2, MPI_INT, nullptr, c.data(), d.data(), MPI_INT,
                             comm)) == MPI_ERR_BUFFER);
  // The own block must carry what recvcounts[rank] says (checked locally, before any message).
  CHECK(cls(PCOLL_Allgatherv(a.data(), 1, MPI_INT, b.data(), c.data(), d.data(), MPI_INT,
                             comm)) == MPI_ERR_ARG);
  CHECK(cls(PCOLL_Allgatherv(a.data(), 2, MPI_INT, b.data(), c.data(), d.data(), MPI_INT,
                             MPI_COMM_NULL)) == MPI_ERR_COMM);
  MPI_Request r;
  CHECK(cls(PCOLL_Iallgatherv(a.data(), 2, MPI_INT, b.data(), c.data(), d.data(), MPI_INT, comm,
                              nullptr)) == MPI_ERR_REQUEST);
  // Still usable afterwards, and right.
  for (int o = 0; o < 2; ++o) a[o] = 10 * me + o;
  CHECK(PCOLL_Iallgatherv(a.data(), 2, MPI_INT, b.data(), c.data(), d.data(), MPI_INT, comm, &r) ==
        MPI_SUCCESS);
  CHECK(PCOLL_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  for (int q = 0; q < P; ++q) CHECK((b[2 * q] == 10 * q && b[2 * q + 1] == 10 * q + 1));
  MPI_Comm_free(&comm);
}

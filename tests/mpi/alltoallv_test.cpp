// PCOLL_Alltoallv for every registered algorithm (tests/common/variants.hpp) and auto x int,
// double and a contiguous derived type x count matrices (uneven with zeros, an empty row and
// column, all zero) x in place (symmetric counts) and not, compared bit for bit with exact
// expected values and with the vendor; displacements out of order, with gaps that must stay
// untouched, and negative. Then the plan cache (the same call shape with other counts), a
// non-contiguous type (vendor through the fallback policy) and the MPI error classes.
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

// Base value o of the block src sends to dst: distinct per (src, dst) pair, exact in int/double.
long long pair_value(int src, int dst, long long o) {
  return (src * 1021 + dst * 131 + o) % 65521 + 1;
}

constexpr long long kUntouched = -7;  // what receive-buffer gaps hold before and after

// Elements rank i sends to rank j (in elements of the datatype).
using CountFn = int (*)(int i, int j, int P);
struct Matrix {
  const char *name;
  CountFn count;
  bool symmetric;  // usable in place (count(i, j) == count(j, i))
};
const Matrix kMatrices[] = {
    {"uneven", [](int i, int j, int) { return (i * 7 + j * 3 + 1) % 5 * 9; }, false},
    {"symmetric", [](int i, int j, int) { return (i + j) % 3 == 0 ? 0 : (i + 1) * (j + 1) % 23; },
     true},
    {"empty row and column", [](int i, int j, int) { return i == 1 || j == 2 ? 0 : 40; }, false},
    {"zero", [](int, int, int) { return 0; }, true},
};

// Rank me's layout: send blocks in reverse destination order with one element of gap, receive
// blocks in rank order with two; displacements start at `base` (negative: the buffer pointer is
// moved up so that they stay inside the buffer).
struct Layout {
  std::vector<int> sc, sd, rc, rd;
  int send_elems = 0, recv_elems = 0;
};
Layout layout(const Matrix &m, int me, int P, int base) {
  Layout l;
  l.sc.resize(P);
  l.sd.resize(P);
  int off = 0;
  for (int k = P - 1; k >= 0; --k) {
    l.sc[k] = m.count(me, k, P);
    l.sd[k] = base + off;
    off += l.sc[k] + 1;
  }
  l.send_elems = off;
  off = 0;
  for (int q = 0; q < P; ++q) {
    l.rc.push_back(m.count(q, me, P));
    l.rd.push_back(base + off);
    off += l.rc.back() + 2;
  }
  l.recv_elems = off;
  return l;
}

std::vector<std::pair<std::string, Set>> variants() {
  std::vector<std::pair<std::string, Set>> v;
  for (const auto &a : pcoll_test::variants_of("alltoallv", pcoll_test::mpi))
    v.emplace_back(a.label, a.overrides("alltoallv"));
  v.push_back({"auto", {{"alltoallv", "auto"}}});
  return v;
}

// B values, `width` per element of `type`.
template <class B>
void check_type(MPI_Comm comm, MPI_Datatype type, int width, const char *type_name, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  for (const Matrix &m : kMatrices) {
    for (int base : {0, -3}) {
      const Layout l = layout(m, me, P, base);
      const int shift = -base;  // elements the buffer pointers move up
      std::vector<B> in(static_cast<std::size_t>(l.send_elems) * width, B(-5));
      std::vector<B> expected(static_cast<std::size_t>(l.recv_elems) * width, B(kUntouched));
      for (int q = 0; q < P; ++q) {
        for (long long o = 0; o < static_cast<long long>(l.sc[q]) * width; ++o)
          in[(l.sd[q] + shift) * width + o] = static_cast<B>(pair_value(me, q, o));
        for (long long o = 0; o < static_cast<long long>(l.rc[q]) * width; ++o)
          expected[(l.rd[q] + shift) * width + o] = static_cast<B>(pair_value(q, me, o));
      }
      const std::size_t bytes = expected.size() * sizeof(B);
      auto send_ptr = [&](std::vector<B> &v) { return v.data() + shift * width; };
      std::vector<B> vendor(expected.size(), B(kUntouched));
      PMPI_Alltoallv(send_ptr(in), l.sc.data(), l.sd.data(), type, send_ptr(vendor), l.rc.data(),
                     l.rd.data(), type, comm);
      if (std::memcmp(vendor.data(), expected.data(), bytes) != 0)
        f.add(std::string("vendor differs from the exact result: ") + type_name + " " + m.name);
      for (const auto &[label, set] : variants()) {
        Overrides use(comm, set);
        for (bool in_place : {false, true}) {
          if (in_place && !m.symmetric) continue;
          // In place: the send data sits in the receive buffer as recvcounts/rdispls lay it out.
          std::vector<B> got(expected.size(), B(kUntouched));
          if (in_place)
            for (int q = 0; q < P; ++q)
              for (long long o = 0; o < static_cast<long long>(l.rc[q]) * width; ++o)
                got[(l.rd[q] + shift) * width + o] = static_cast<B>(pair_value(me, q, o));
          const int rc =
              PCOLL_Alltoallv(in_place ? MPI_IN_PLACE : send_ptr(in), l.sc.data(), l.sd.data(),
                              type, send_ptr(got), l.rc.data(), l.rd.data(), type, comm);
          const char *used = "";
          PCOLL_Get_last_algorithm(comm, &used);
          std::ostringstream w;
          w << label << " (" << used << ") " << type_name << " P=" << P << " " << m.name << " base "
            << base << (in_place ? " in-place" : "");
          if (rc != MPI_SUCCESS)
            f.add("error from " + w.str());
          else if (std::memcmp(got.data(), expected.data(), bytes) != 0)
            f.add("wrong result: " + w.str());
          else if (std::memcmp(got.data(), vendor.data(), bytes) != 0)
            f.add("differs from the vendor: " + w.str());
          const std::string want = set[0].second == "auto" ? "pairwise" : set[0].second;
          if (want != used)
            f.add("served by " + std::string(used) + ", not " + want + ": " + w.str());
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("alltoallv: every algorithm, types, count matrices, in place", "[alltoallv]") {
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

TEST_CASE("alltoallv: cached plans follow the counts", "[alltoallv]") {
  // Same communicator, collective, datatype and algorithm, counts that change from call to call
  // (and come back): a plan cached for one layout must never serve another.
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  for (int rep = 0; rep < 2; ++rep)
    for (int scale = 1; scale <= 6; ++scale) {
      Overrides use(comm, {{"alltoallv", "pairwise"}});
      // Rank i sends (i + j + scale) % 4 * scale elements to j; same displacement rule.
      std::vector<int> sc(P), sd(P), rc(P), rd(P);
      int so = 0, ro = 0;
      for (int q = 0; q < P; ++q) {
        sc[q] = (me + q + scale) % 4 * scale;
        rc[q] = (q + me + scale) % 4 * scale;
        sd[q] = so;
        rd[q] = ro;
        so += sc[q];
        ro += rc[q];
      }
      std::vector<int> in(so), got(ro, -1), want(ro);
      for (int q = 0; q < P; ++q) {
        for (int o = 0; o < sc[q]; ++o) in[sd[q] + o] = int(pair_value(me, q, o + scale));
        for (int o = 0; o < rc[q]; ++o) want[rd[q] + o] = int(pair_value(q, me, o + scale));
      }
      const int err = PCOLL_Alltoallv(in.data(), sc.data(), sd.data(), MPI_INT, got.data(),
                                      rc.data(), rd.data(), MPI_INT, comm);
      if (err != MPI_SUCCESS || got != want)
        f.add("scale " + std::to_string(scale) + " rep " + std::to_string(rep) + " wrong");
    }
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("alltoallv: non-contiguous types are packed, block by block", "[alltoallv]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  MPI_Datatype gappy;  // 2 ints with a gap of one
  MPI_Type_vector(2, 1, 2, MPI_INT, &gappy);
  MPI_Type_commit(&gappy);
  std::vector<int> sc(P, 1), sd(P), rc(P, 2), rd(P);
  std::vector<int> in(3 * P, -3), got(2 * P, -1), want(2 * P);
  for (int q = 0; q < P; ++q) {
    sd[q] = q;  // in extents of gappy (3 ints)
    rd[q] = 2 * q;
    in[3 * q] = int(pair_value(me, q, 0));
    in[3 * q + 2] = int(pair_value(me, q, 1));
    want[2 * q] = int(pair_value(q, me, 0));
    want[2 * q + 1] = int(pair_value(q, me, 1));
  }
  for (const char *algo : {"pairwise", "vendor"}) {
    Overrides use(comm, {{"alltoallv", algo}, {"fallback", "error"}});
    got.assign(2 * P, -1);
    int err = PCOLL_Alltoallv(in.data(), sc.data(), sd.data(), gappy, got.data(), rc.data(),
                              rd.data(), MPI_INT, comm);
    const char *used = "";
    PCOLL_Get_last_algorithm(comm, &used);
    if (err != MPI_SUCCESS || got != want) f.add(std::string("strided -> int wrong: ") + algo);
    if (std::string(used) != algo) f.add(std::string("strided served by ") + used);
    // The receive side strided: every other int of 3 per peer, the rest untouched.
    std::vector<int> spread(3 * P, -7), spread_want(3 * P, -7);
    for (int q = 0; q < P; ++q) {
      spread_want[3 * q] = want[2 * q];
      spread_want[3 * q + 2] = want[2 * q + 1];
    }
    std::vector<int> ones(P, 1), dq(P), flat(2 * P);
    for (int q = 0; q < P; ++q) {
      dq[q] = q;
      flat[2 * q] = in[3 * q];
      flat[2 * q + 1] = in[3 * q + 2];
    }
    err = PCOLL_Alltoallv(flat.data(), rc.data(), rd.data(), MPI_INT, spread.data(), ones.data(),
                          dq.data(), gappy, comm);
    if (err != MPI_SUCCESS || spread != spread_want) f.add(std::string("int -> strided: ") + algo);
    // In place, strided: the input is read from the strided receive buffer.
    std::vector<int> inplace(3 * P, -7);
    for (int q = 0; q < P; ++q) {
      inplace[3 * q] = in[3 * q];
      inplace[3 * q + 2] = in[3 * q + 2];
    }
    err = PCOLL_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, inplace.data(),
                          ones.data(), dq.data(), gappy, comm);
    if (err != MPI_SUCCESS || inplace != spread_want)
      f.add(std::string("in place strided: ") + algo);
  }
  MPI_Type_free(&gappy);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("alltoallv: errors are MPI error classes", "[alltoallv][errors]") {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int P = size_of(comm);
  std::vector<int> a(2 * P), b(2 * P), c(P, 2), d(P), neg(P, 2);
  for (int q = 0; q < P; ++q) d[q] = 2 * q;
  neg[P - 1] = -1;
  auto cls = [](int code) {
    int k = code;
    MPI_Error_class(code, &k);
    return k;
  };
  const int *n = nullptr;
  CHECK(cls(PCOLL_Alltoallv(a.data(), c.data(), d.data(), MPI_INT, b.data(), neg.data(), d.data(),
                            MPI_INT, comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Alltoallv(a.data(), neg.data(), d.data(), MPI_INT, b.data(), c.data(), d.data(),
                            MPI_INT, comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Alltoallv(a.data(), c.data(), d.data(), MPI_DATATYPE_NULL, b.data(), c.data(),
                            d.data(), MPI_INT, comm)) == MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Alltoallv(a.data(), c.data(), d.data(), MPI_INT, b.data(), c.data(), d.data(),
                            MPI_DATATYPE_NULL, comm)) == MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Alltoallv(a.data(), n, d.data(), MPI_INT, b.data(), c.data(), d.data(), MPI_INT,
                            comm)) == MPI_ERR_ARG);
  CHECK(cls(PCOLL_Alltoallv(b.data(), c.data(), d.data(), MPI_INT, b.data(), c.data(), d.data(),
                            MPI_INT, comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Alltoallv(a.data(), c.data(), d.data(), MPI_INT, nullptr, c.data(), d.data(),
                            MPI_INT, comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Alltoallv(a.data(), c.data(), d.data(), MPI_INT, b.data(), c.data(), d.data(),
                            MPI_INT, MPI_COMM_NULL)) == MPI_ERR_COMM);
  // Still usable afterwards.
  CHECK(PCOLL_Alltoallv(a.data(), c.data(), d.data(), MPI_INT, b.data(), c.data(), d.data(),
                        MPI_INT, comm) == MPI_SUCCESS);
  MPI_Comm_free(&comm);
}

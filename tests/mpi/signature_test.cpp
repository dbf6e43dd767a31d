// Type signatures, not datatypes: MPI matches the sequence of basic types across ranks, so ranks
// may pass different (count, datatype) pairs for one call: 1 x contiguous(b, int) on one rank,
// b x MPI_INT on another, a strided vector, a reversed indexed type, a struct with a gap, a
// resized type, a non-zero lower bound, MPI_BOTTOM with absolute addresses. Every collective,
// under every algorithm (the registry's, plus auto and vendor), with each rank picking its own
// representation (send and receive sides different where MPI allows it), at counts 0, 1, P-1,
// P+1, a prime and a larger one, in place and not:
//   - every rank's result is exactly the expected value, and the same as the vendor's on plain
//     types (MPI_Allreduce etc. through PMPI);
//   - the memory a datatype does not cover (its gaps) is untouched;
//   - every rank served the call with the same algorithm (a decision taken from one rank's
//     layout would differ between ranks, and then the call hangs or delivers wrong data).
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Overrides;
using pcoll_test::rank_of;
using pcoll_test::size_of;

namespace {

constexpr int kSentinel = -99;

// How one rank lays out a side of `blocks` blocks of `b` values of base type T: the datatype it
// passes, the count per block, and where value j of block i sits in memory (in units of T).
enum class Kind { plain, contig, vector, reversed, gapped_struct, spaced, shifted };
const Kind kKinds[] = {Kind::plain,         Kind::contig, Kind::vector, Kind::reversed,
                       Kind::gapped_struct, Kind::spaced, Kind::shifted};
const char *kind_name(Kind k) {
  switch (k) {
    case Kind::plain:
      return "plain";
    case Kind::contig:
      return "contiguous(b)";
    case Kind::vector:
      return "vector(b, stride 2)";
    case Kind::reversed:
      return "indexed(reversed)";
    case Kind::gapped_struct:
      return "struct(gap)";
    case Kind::spaced:
      return "resized(extent 2)";
    case Kind::shifted:
      return "resized(lb -1, extent 2)";
  }
  return "?";
}

struct Rep {
  Kind kind = Kind::plain;
  std::size_t b = 0;
  int per_block = 0;  // count argument per block
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool owned = false;
  std::size_t block_extent = 0;  // units of T per block in memory
  std::size_t pos(std::size_t i, std::size_t j) const {
    switch (kind) {
      case Kind::plain:
      case Kind::contig:
        return i * b + j;
      case Kind::vector:
      case Kind::spaced:
      case Kind::shifted:
        return i * 2 * b + 2 * j;
      case Kind::reversed:
        return i * b + (b - 1 - j);
      case Kind::gapped_struct:
        return i * (b + 1) + (j == 0 ? 0 : j + 1);
    }
    return 0;
  }
  Rep() = default;
  Rep(const Rep &) = delete;
  Rep &operator=(const Rep &) = delete;
  ~Rep() {
    if (owned) MPI_Type_free(&type);
  }
};

// Whether kind k can describe blocks of b values (some need a value to have a gap after).
bool usable(Kind k, std::size_t b) {
  if (b == 0) return k == Kind::plain || k == Kind::contig || k == Kind::spaced;
  if (k == Kind::gapped_struct) return b >= 2;
  return true;
}

std::unique_ptr<Rep> make_rep(Kind k, std::size_t b, MPI_Datatype base, MPI_Aint tsize) {
  auto r = std::make_unique<Rep>();
  r->kind = k;
  r->b = b;
  const int n = static_cast<int>(b);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  switch (k) {
    case Kind::plain:
      r->type = base;
      r->per_block = n;
      r->block_extent = b;
      return r;
    case Kind::contig:
      MPI_Type_contiguous(n, base, &t);
      r->per_block = 1;
      r->block_extent = b;
      break;
    case Kind::vector: {
      MPI_Datatype v;
      MPI_Type_vector(n, 1, 2, base, &v);
      MPI_Type_create_resized(v, 0, 2 * n * tsize, &t);
      MPI_Type_free(&v);
      r->per_block = 1;
      r->block_extent = 2 * b;
      break;
    }
    case Kind::reversed: {
      std::vector<int> len(b, 1), disp(b);
      for (std::size_t j = 0; j < b; ++j) disp[j] = n - 1 - static_cast<int>(j);
      MPI_Datatype v;
      MPI_Type_indexed(n, len.data(), disp.data(), base, &v);
      MPI_Type_create_resized(v, 0, n * tsize, &t);
      MPI_Type_free(&v);
      r->per_block = 1;
      r->block_extent = b;
      break;
    }
    case Kind::gapped_struct: {
      int len[2] = {1, n - 1};
      MPI_Aint disp[2] = {0, 2 * tsize};
      MPI_Datatype types[2] = {base, base}, v;
      MPI_Type_create_struct(2, len, disp, types, &v);
      MPI_Type_create_resized(v, 0, (n + 1) * tsize, &t);
      MPI_Type_free(&v);
      r->per_block = 1;
      r->block_extent = b + 1;
      break;
    }
    case Kind::spaced:
      MPI_Type_create_resized(base, 0, 2 * tsize, &t);
      r->per_block = n;
      r->block_extent = 2 * b;
      break;
    case Kind::shifted:
      MPI_Type_create_resized(base, -tsize, 2 * tsize, &t);
      r->per_block = n;
      r->block_extent = 2 * b;
      break;
  }
  MPI_Type_commit(&t);
  r->type = t;
  r->owned = true;
  return r;
}

// A side's memory: `blocks` blocks in the representation, gaps holding the sentinel.
template <class T>
struct Buffer {
  const Rep *rep;
  std::size_t blocks;
  std::vector<T> mem;
  Buffer(const Rep &r, std::size_t nblocks, T sentinel)
      : rep(&r), blocks(nblocks), mem(nblocks * r.block_extent + 2, sentinel) {}
  T &at(std::size_t i, std::size_t j) { return mem[rep->pos(i, j)]; }
  int count() const { return rep->per_block * static_cast<int>(blocks); }
  void *data() { return mem.data(); }
};

// The memory the representation does not cover still holds the sentinel.
template <class T>
bool gaps_untouched(Buffer<T> &buf, const T &sentinel) {
  std::vector<char> covered(buf.mem.size(), 0);
  for (std::size_t i = 0; i < buf.blocks; ++i)
    for (std::size_t j = 0; j < buf.rep->b; ++j) covered[buf.rep->pos(i, j)] = 1;
  for (std::size_t k = 0; k < buf.mem.size(); ++k)
    if (!covered[k] && std::memcmp(&buf.mem[k], &sentinel, sizeof(T)) != 0) return false;
  return true;
}

// Every rank served its last call with the same algorithm.
bool same_algorithm_everywhere(MPI_Comm comm) {
  const char *used = "";
  PCOLL_Get_last_algorithm(comm, &used);
  const std::uint64_t h = std::hash<std::string>{}(used);
  std::uint64_t v[2] = {h, ~h}, r[2] = {0, 0};
  MPI_Allreduce(v, r, 2, MPI_UINT64_T, MPI_MAX, comm);
  return r[0] == ~r[1];
}

// The algorithms of a collective as the tests run them: auto, vendor, and every registered one.
std::vector<std::string> algorithms(const char *coll) {
  std::vector<std::string> v{"auto", "vendor"};
  for (const auto &a : pcoll_test::variants_of(coll, pcoll_test::symbolic))
    if (a.set.empty()) v.push_back(a.algo);
  return v;
}

std::vector<std::size_t> counts(int P) {
  std::vector<std::size_t> c = {0, 1, static_cast<std::size_t>(P + 1), 7, 130};
  if (P > 2) c.push_back(static_cast<std::size_t>(P - 1));
  return c;
}

int value(int r, std::size_t j) {
  return static_cast<int>((static_cast<std::size_t>(r) * 7 + j * 3) % 23) - 11;
}
int pair_value(int src, int dst, std::size_t j) {
  return static_cast<int>(
             (static_cast<std::size_t>(src) * 1021 + static_cast<std::size_t>(dst) * 131 + j) %
             65521) +
         1;
}

// Rank r's choice of representation for a side: every rank a different one (seed rotates).
Kind kind_for(int rank, int seed, std::size_t b) {
  const int n = static_cast<int>(sizeof kKinds / sizeof kKinds[0]);
  for (int k = 0; k < n; ++k) {
    const Kind kind = kKinds[(rank * 3 + seed + k) % n];
    if (usable(kind, b)) return kind;
  }
  return Kind::plain;
}

struct Context {
  MPI_Comm comm;
  int P, me;
  Failures &f;
  std::string what;
  std::string algo;
  void check(bool ok, const std::string &msg) {
    if (!ok) f.add(what + ": " + msg);
  }
};

// --- reductions: one datatype per rank for both sides (MPI), different between ranks ----------

void allreduce_case(Context &cx, std::size_t n, int seed, bool in_place) {
  const auto rep = make_rep(kind_for(cx.me, seed, n), n, MPI_INT, sizeof(int));
  Buffer<int> in(*rep, 1, kSentinel), out(*rep, 1, kSentinel);
  for (std::size_t j = 0; j < n; ++j) (in_place ? out : in).at(0, j) = value(cx.me, j);
  std::vector<int> plain(n), ref(n, 0);
  for (std::size_t j = 0; j < n; ++j) plain[j] = value(cx.me, j);
  PMPI_Allreduce(plain.data(), ref.data(), static_cast<int>(n), MPI_INT, MPI_SUM, cx.comm);
  const int rc = PCOLL_Allreduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), out.count(),
                                 rep->type, MPI_SUM, cx.comm);
  cx.check(rc == MPI_SUCCESS, "error " + std::to_string(rc));
  bool ok = true;
  for (std::size_t j = 0; j < n; ++j) {
    int want = 0;
    for (int q = 0; q < cx.P; ++q) want += value(q, j);
    ok = ok && out.at(0, j) == want && ref[j] == want;
  }
  cx.check(ok, std::string("wrong result with ") + kind_name(rep->kind));
  cx.check(gaps_untouched(out, kSentinel), "gaps overwritten");
}

// Pair types for MINLOC: MPI_DOUBLE_INT has padding in memory (12 bytes of data, extent 16).
struct DoubleInt {
  double v;
  int i;
};

void minloc_case(Context &cx, std::size_t n, int seed, bool in_place) {
  const DoubleInt sentinel{-99.5, -99};
  const Kind kinds[] = {Kind::plain, Kind::contig, Kind::vector};
  const Kind k = n == 0 ? Kind::plain : kinds[(cx.me + seed) % 3];
  const auto rep = make_rep(k, n, MPI_DOUBLE_INT, sizeof(DoubleInt));
  Buffer<DoubleInt> in(*rep, 1, sentinel), out(*rep, 1, sentinel);
  auto v = [](int r, std::size_t j) {  // ties between ranks, so the index rule matters
    return DoubleInt{static_cast<double>((r * 5 + static_cast<int>(j)) % 4), r};
  };
  for (std::size_t j = 0; j < n; ++j) (in_place ? out : in).at(0, j) = v(cx.me, j);
  const int rc = PCOLL_Allreduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), out.count(),
                                 rep->type, MPI_MINLOC, cx.comm);
  cx.check(rc == MPI_SUCCESS, "minloc error " + std::to_string(rc));
  std::vector<DoubleInt> plain(n), ref(n);
  for (std::size_t j = 0; j < n; ++j) plain[j] = v(cx.me, j);
  PMPI_Allreduce(plain.data(), ref.data(), static_cast<int>(n), MPI_DOUBLE_INT, MPI_MINLOC,
                 cx.comm);
  bool ok = true;
  for (std::size_t j = 0; j < n; ++j) {
    DoubleInt want = v(0, j);
    for (int q = 1; q < cx.P; ++q)
      if (v(q, j).v < want.v) want = v(q, j);
    ok = ok && out.at(0, j).v == want.v && out.at(0, j).i == want.i && ref[j].v == want.v &&
         ref[j].i == want.i;
  }
  cx.check(ok, std::string("minloc wrong with ") + kind_name(k));
}

void reduce_scatter_block_case(Context &cx, std::size_t n, int seed, bool in_place) {
  const auto rep = make_rep(kind_for(cx.me, seed, n), n, MPI_INT, sizeof(int));
  const auto P = static_cast<std::size_t>(cx.P);
  Buffer<int> in(*rep, P, kSentinel), out(*rep, in_place ? P : 1, kSentinel);
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < n; ++j) (in_place ? out : in).at(i, j) = value(cx.me, i * n + j);
  const int rc = PCOLL_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in.data(), out.data(),
                                            rep->per_block, rep->type, MPI_SUM, cx.comm);
  cx.check(rc == MPI_SUCCESS, "error " + std::to_string(rc));
  std::vector<int> plain(P * n), ref(n + 1);
  for (std::size_t k = 0; k < P * n; ++k) plain[k] = value(cx.me, k);
  PMPI_Reduce_scatter_block(plain.data(), ref.data(), static_cast<int>(n), MPI_INT, MPI_SUM,
                            cx.comm);
  bool ok = true;
  for (std::size_t j = 0; j < n; ++j) {
    int want = 0;
    for (int q = 0; q < cx.P; ++q) want += value(q, static_cast<std::size_t>(cx.me) * n + j);
    ok = ok && out.at(0, j) == want && ref[j] == want;
  }
  cx.check(ok, std::string("wrong result with ") + kind_name(rep->kind));
  if (!in_place) cx.check(gaps_untouched(out, kSentinel), "gaps overwritten");
}

void reduce_case(Context &cx, std::size_t n, int seed, bool in_place) {
  const int root = (seed + 1) % cx.P;
  const bool at_root = cx.me == root;
  in_place = in_place && at_root;
  const auto rep = make_rep(kind_for(cx.me, seed, n), n, MPI_INT, sizeof(int));
  Buffer<int> in(*rep, 1, kSentinel), out(*rep, 1, kSentinel);
  for (std::size_t j = 0; j < n; ++j) (in_place ? out : in).at(0, j) = value(cx.me, j);
  const int rc = PCOLL_Reduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), in.count(),
                              rep->type, MPI_SUM, root, cx.comm);
  cx.check(rc == MPI_SUCCESS, "error " + std::to_string(rc));
  std::vector<int> plain(n), ref(n);
  for (std::size_t j = 0; j < n; ++j) plain[j] = value(cx.me, j);
  PMPI_Reduce(plain.data(), ref.data(), static_cast<int>(n), MPI_INT, MPI_SUM, root, cx.comm);
  bool ok = true;
  for (std::size_t j = 0; j < n; ++j) {
    int want = 0;
    for (int q = 0; q < cx.P; ++q) want += value(q, j);
    if (at_root) ok = ok && out.at(0, j) == want && ref[j] == want;
  }
  cx.check(ok, std::string("wrong result with ") + kind_name(rep->kind));
  if (!at_root) {  // not significant off the root: untouched
    bool clean = true;
    for (const int x : out.mem) clean = clean && x == kSentinel;
    cx.check(clean, "receive buffer written off the root");
  }
}

// --- data movement: send and receive sides may differ too --------------------------------------

void bcast_case(Context &cx, std::size_t n, int seed, bool) {
  const int root = seed % cx.P;
  const auto rep = make_rep(kind_for(cx.me, seed, n), n, MPI_INT, sizeof(int));
  Buffer<int> buf(*rep, 1, kSentinel);
  for (std::size_t j = 0; j < n; ++j) buf.at(0, j) = cx.me == root ? pair_value(root, 0, j) : -1;
  const int rc = PCOLL_Bcast(buf.data(), buf.count(), rep->type, root, cx.comm);
  cx.check(rc == MPI_SUCCESS, "error " + std::to_string(rc));
  std::vector<int> ref(n, -1);
  if (cx.me == root)
    for (std::size_t j = 0; j < n; ++j) ref[j] = pair_value(root, 0, j);
  PMPI_Bcast(ref.data(), static_cast<int>(n), MPI_INT, root, cx.comm);
  bool ok = true;
  for (std::size_t j = 0; j < n; ++j)
    ok = ok && buf.at(0, j) == pair_value(root, 0, j) && ref[j] == buf.at(0, j);
  cx.check(ok, std::string("wrong result with ") + kind_name(rep->kind));
  cx.check(gaps_untouched(buf, kSentinel), "gaps overwritten");
}

void allgather_case(Context &cx, std::size_t n, int seed, bool in_place) {
  const auto P = static_cast<std::size_t>(cx.P);
  const auto srep = make_rep(kind_for(cx.me, seed, n), n, MPI_INT, sizeof(int));
  const auto rrep = make_rep(kind_for(cx.me, seed + 2, n), n, MPI_INT, sizeof(int));
  Buffer<int> in(*srep, 1, kSentinel), out(*rrep, P, kSentinel);
  for (std::size_t j = 0; j < n; ++j) {
    in.at(0, j) = pair_value(cx.me, 0, j);
    if (in_place) out.at(static_cast<std::size_t>(cx.me), j) = pair_value(cx.me, 0, j);
  }
  const int rc = PCOLL_Allgather(in_place ? MPI_IN_PLACE : in.data(), in.count(), srep->type,
                                 out.data(), rrep->per_block, rrep->type, cx.comm);
  cx.check(rc == MPI_SUCCESS, "error " + std::to_string(rc));
  std::vector<int> mine(n), ref(P * n + 1);
  for (std::size_t j = 0; j < n; ++j) mine[j] = pair_value(cx.me, 0, j);
  PMPI_Allgather(mine.data(), static_cast<int>(n), MPI_INT, ref.data(), static_cast<int>(n),
                 MPI_INT, cx.comm);
  bool ok = true;
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < n; ++j)
      ok = ok && out.at(i, j) == pair_value(static_cast<int>(i), 0, j) &&
           ref[i * n + j] == out.at(i, j);
  cx.check(ok, std::string("wrong result, send ") + kind_name(srep->kind) + ", receive " +
                   kind_name(rrep->kind));
  cx.check(gaps_untouched(out, kSentinel), "gaps overwritten");
}

// Whether the MPI library is Open MPI (MPI_Get_library_version), for its alltoall below.
bool open_mpi() {
  static const bool yes = [] {
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(v, &len);
    return std::string(v, static_cast<std::size_t>(len)).find("Open MPI") != std::string::npos;
  }();
  return yes;
}

void alltoall_case(Context &cx, std::size_t n, int seed, bool in_place) {
  const auto P = static_cast<std::size_t>(cx.P);
  // Open MPI 4.1's own alltoall at P > 12 (its bruck for small blocks) hangs or corrupts its
  // heap when ranks pass different datatypes: the vendor column gets plain types there, under
  // Open MPI only (MPICH 4.0's takes them). That is the vendor's; pcoll's algorithms take every
  // representation.
  const bool plain = cx.algo == "vendor" && cx.P > 12 && open_mpi();
  const auto srep =
      make_rep(plain ? Kind::plain : kind_for(cx.me, seed, n), n, MPI_INT, sizeof(int));
  const auto rrep =
      make_rep(plain ? Kind::plain : kind_for(cx.me, seed + 3, n), n, MPI_INT, sizeof(int));
  Buffer<int> in(*srep, P, kSentinel), out(*rrep, P, kSentinel);
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < n; ++j)
      (in_place ? out : in).at(i, j) = pair_value(cx.me, static_cast<int>(i), j);
  const int rc = PCOLL_Alltoall(in_place ? MPI_IN_PLACE : in.data(), srep->per_block, srep->type,
                                out.data(), rrep->per_block, rrep->type, cx.comm);
  cx.check(rc == MPI_SUCCESS, "error " + std::to_string(rc));
  std::vector<int> mine(P * n + 1), ref(P * n + 1);
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < n; ++j) mine[i * n + j] = pair_value(cx.me, static_cast<int>(i), j);
  PMPI_Alltoall(mine.data(), static_cast<int>(n), MPI_INT, ref.data(), static_cast<int>(n), MPI_INT,
                cx.comm);
  bool ok = true;
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t j = 0; j < n; ++j)
      ok = ok && out.at(i, j) == pair_value(static_cast<int>(i), cx.me, j) &&
           ref[i * n + j] == out.at(i, j);
  cx.check(ok, std::string("wrong result, send ") + kind_name(srep->kind) + ", receive " +
                   kind_name(rrep->kind));
  cx.check(gaps_untouched(out, kSentinel), "gaps overwritten");
}

// alltoallv: elements of one or two ints (b = 1 or 2 values per element), per-pair counts that
// differ (zeros included), blocks in peer order with a gap of one element between them.
void alltoallv_case(Context &cx, std::size_t scale, int seed, bool in_place) {
  const auto P = static_cast<std::size_t>(cx.P);
  const std::size_t eb = 1 + static_cast<std::size_t>((cx.me + seed) % 2);  // ints per element
  const std::size_t rb = in_place ? eb : 1 + static_cast<std::size_t>((cx.me + seed + 1) % 2);
  // ints from src to dst: a multiple of 2, so both element sizes divide it; symmetric in place
  // (MPI: the receive counts are the send counts then).
  auto ints = [&](int src, int dst) {
    const int mix = in_place ? (src + dst) * 4 : src * 3 + dst * 5;
    return 2 * (static_cast<std::size_t>(mix + seed) % 4) * scale;
  };
  const Kind sk = kind_for(cx.me, seed, eb), rk = in_place ? sk : kind_for(cx.me, seed + 1, rb);
  const auto srep = make_rep(sk, eb, MPI_INT, sizeof(int));
  const auto rrep = make_rep(rk, rb, MPI_INT, sizeof(int));
  // An element here is one block of the representation (b values); peer q's elements follow
  // each other, then one element of gap.
  std::vector<int> sc(P), sd(P), rc(P), rd(P);
  std::size_t s_at = 0, r_at = 0;
  for (std::size_t q = 0; q < P; ++q) {
    sc[q] = static_cast<int>(ints(cx.me, static_cast<int>(q)) / eb);
    sd[q] = static_cast<int>(s_at);
    s_at += static_cast<std::size_t>(sc[q]) + 1;
    rc[q] = static_cast<int>(ints(static_cast<int>(q), cx.me) / rb);
    rd[q] = static_cast<int>(r_at);
    r_at += static_cast<std::size_t>(rc[q]) + 1;
  }
  Buffer<int> in(*srep, s_at, kSentinel), out(*rrep, r_at, kSentinel);
  // Value k of the block to peer q is element k / b, value k % b of that element.
  for (std::size_t q = 0; q < P; ++q) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(sc[q]) * eb; ++k)
      in.at(static_cast<std::size_t>(sd[q]) + k / eb, k % eb) =
          pair_value(cx.me, static_cast<int>(q), k);
    if (in_place)
      for (std::size_t k = 0; k < static_cast<std::size_t>(rc[q]) * rb; ++k)
        out.at(static_cast<std::size_t>(rd[q]) + k / rb, k % rb) =
            pair_value(cx.me, static_cast<int>(q), k);
  }
  // Counts and displacements are in elements of the datatype: per_block of them per block (one
  // for the kinds whose datatype spans the block, b for those of one value).
  auto elems = [](const Rep &r, std::vector<int> v) {
    for (int &x : v) x *= r.per_block;
    return v;
  };
  const std::vector<int> scE = elems(*srep, sc), sdE = elems(*srep, sd), rcE = elems(*rrep, rc),
                         rdE = elems(*rrep, rd);
  const int err =
      PCOLL_Alltoallv(in_place ? MPI_IN_PLACE : in.data(), scE.data(), sdE.data(), srep->type,
                      out.data(), rcE.data(), rdE.data(), rrep->type, cx.comm);
  cx.check(err == MPI_SUCCESS, "error " + std::to_string(err));
  bool ok = true;
  for (std::size_t q = 0; q < P; ++q)
    for (std::size_t k = 0; k < static_cast<std::size_t>(rc[q]) * rb; ++k)
      ok = ok && out.at(static_cast<std::size_t>(rd[q]) + k / rb, k % rb) ==
                     pair_value(static_cast<int>(q), cx.me, k);
  cx.check(ok, std::string("wrong result, send ") + kind_name(srep->kind) + " of " +
                   std::to_string(eb) + ", receive " + kind_name(rrep->kind) + " of " +
                   std::to_string(rb));
  cx.check(gaps_untouched(out, kSentinel), "gaps overwritten");
}

using CaseFn = void (*)(Context &, std::size_t, int, bool);

void sweep(const char *coll, CaseFn fn, bool has_in_place, const std::vector<std::size_t> &ns) {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  Context cx{comm, size_of(comm), rank_of(comm), f, "", ""};
  for (const std::string &algo : algorithms(coll)) {
    // fallback=error: a fallback decided on one rank's layout would fail the call loudly.
    Overrides use(comm, {{coll, algo}, {"fallback", algo == "auto" ? "silent" : "error"}});
    cx.algo = algo;
    for (std::size_t n : ns)
      for (int seed : {0, 1})
        for (bool in_place : {false, true}) {
          if (in_place && !has_in_place) continue;
          cx.what = std::string(coll) + " " + algo + " n=" + std::to_string(n) +
                    " seed=" + std::to_string(seed) + (in_place ? " in place" : "");
          if (std::getenv("PCOLL_TEST_VERBOSE") != nullptr)
            std::fprintf(stderr, "rank %d: %s\n", cx.me, cx.what.c_str());
          fn(cx, n, seed, in_place);
          cx.check(same_algorithm_everywhere(comm), "ranks served the call differently");
        }
  }
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

}  // namespace

TEST_CASE("signatures: allreduce", "[signature]") {
  sweep("allreduce", allreduce_case, true, counts(size_of(MPI_COMM_WORLD)));
}

TEST_CASE("signatures: allreduce MINLOC on a padded pair type", "[signature]") {
  sweep("allreduce", minloc_case, true, {0, 1, 5, 64});
}

TEST_CASE("signatures: reduce_scatter_block", "[signature]") {
  sweep("reduce_scatter_block", reduce_scatter_block_case, true, {0, 1, 7});
}

TEST_CASE("signatures: reduce", "[signature]") {
  sweep("reduce", reduce_case, true, counts(size_of(MPI_COMM_WORLD)));
}

TEST_CASE("signatures: bcast", "[signature]") {
  sweep("bcast", bcast_case, false, counts(size_of(MPI_COMM_WORLD)));
}

TEST_CASE("signatures: allgather", "[signature]") {
  sweep("allgather", allgather_case, true, {0, 1, 7, 33});
}

TEST_CASE("signatures: alltoall", "[signature]") {
  sweep("alltoall", alltoall_case, true, {0, 1, 7, 33});
}

TEST_CASE("signatures: alltoallv", "[signature]") {
  sweep("alltoallv", alltoallv_case, true, {0, 1, 5});
}

TEST_CASE("signatures: MPI_BOTTOM with absolute addresses", "[signature]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  for (const std::string &algo : algorithms("allreduce")) {
    Overrides use(comm, {{"allreduce", algo}});
    const int n = 5;
    std::vector<int> in(n), out(2 * n, kSentinel);
    for (int j = 0; j < n; ++j) in[j] = value(me, static_cast<std::size_t>(j));
    // Rank 0 works in place through MPI_BOTTOM and a strided absolute-address type (allreduce
    // has one datatype for both buffers), the others plainly.
    MPI_Datatype abs_type = MPI_DATATYPE_NULL;
    MPI_Aint where = 0;
    MPI_Get_address(out.data(), &where);
    std::vector<int> len(n, 1);
    std::vector<MPI_Aint> disp(n);
    for (int j = 0; j < n; ++j) disp[j] = where + 2 * j * static_cast<MPI_Aint>(sizeof(int));
    MPI_Type_create_hindexed(n, len.data(), disp.data(), MPI_INT, &abs_type);
    MPI_Type_commit(&abs_type);
    if (me == 0)
      for (int j = 0; j < n; ++j) out[2 * j] = in[j];
    const int rc = me == 0 ? PCOLL_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, abs_type, MPI_SUM, comm)
                           : PCOLL_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm);
    MPI_Type_free(&abs_type);
    if (rc != MPI_SUCCESS) f.add(algo + ": error");
    for (int j = 0; j < n; ++j) {
      int want = 0;
      for (int q = 0; q < P; ++q) want += value(q, static_cast<std::size_t>(j));
      const int got = me == 0 ? out[2 * j] : out[j];
      if (got != want) f.add(algo + ": MPI_BOTTOM wrong");
      if (me == 0 && out[2 * j + 1] != kSentinel) f.add(algo + ": MPI_BOTTOM gap written");
    }
    if (!same_algorithm_everywhere(comm)) f.add(algo + ": ranks served differently");
  }
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

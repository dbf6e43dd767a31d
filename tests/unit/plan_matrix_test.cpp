// Symbolic verification of every registered plan builder (enumerated, see
// tests/common/variants.hpp) over a matrix of shapes: P in 1..64,
// counts {0, 1, 3, P-1, P, P+1, primes, 1000, 10^5}, every parameter value that changes the
// schedule. For each case the plans of all ranks must pair up, be deadlock-free, reduce every
// element of every rank exactly once from all P inputs, keep rank order when the algorithm claims
// to, and give all ranks the same expression (bit-identical results).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "../common/variants.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "shard.hpp"
#include "verify.hpp"

using namespace pcoll;

namespace {

struct Variant {
  std::string algo;
  std::vector<std::pair<std::string, std::string>> set;
  Collective coll = Collective::allreduce;
};

// Every registered algorithm of every collective with its defaults, plus the symbolic variants of
// tests/common/variants.hpp (the CHiArA parameter sweep is in chiara_test.cpp).
std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (const CollectiveInfo &c : collective_table())
    for (const auto &a : pcoll_test::variants_of(c.name, pcoll_test::symbolic))
      v.push_back({a.algo, a.set, c.id});
  return v;
}

std::vector<std::size_t> counts_for(int P) {
  std::vector<std::size_t> c = {0, 1, 3, 7, 13, 97, 1000, 100000};
  for (int d : {-1, 0, 1})
    if (P + d >= 0) c.push_back(static_cast<std::size_t>(P + d));
  return c;
}

}  // namespace

std::string check_rooted(Collective coll, const std::string &algo_name,
                         const std::vector<std::pair<std::string, std::string>> &set, int P,
                         std::size_t count, std::size_t type_size, int ranks_per_node, int root);

// Also used by chiara_test.cpp.
std::string check_variant(Collective coll, const std::string &algo_name,
                          const std::vector<std::pair<std::string, std::string>> &set, int P,
                          std::size_t count, std::size_t type_size, int ranks_per_node) {
  return check_rooted(coll, algo_name, set, P, count, type_size, ranks_per_node, 0);
}

// The same at a root (collectives with CollectiveInfo::takes_root).
std::string check_rooted(Collective coll, const std::string &algo_name,
                         const std::vector<std::pair<std::string, std::string>> &set, int P,
                         std::size_t count, std::size_t type_size, int ranks_per_node, int root) {
  Config cfg = load_config();
  std::vector<std::pair<int, std::string>> ov;
  for (const auto &s : set) ov.emplace_back(param_index(s.first), s.second);
  cfg = with_overrides(cfg, ov);
  const AlgorithmInfo *algo = find_algorithm(coll, algo_name);
  if (algo == nullptr) return "no algorithm " + algo_name;
  CallShape shape = CallShape::in_units(coll, P, count, type_size);
  shape.ranks_per_node = ranks_per_node;
  shape.root = root;
  const Schedule s = make_schedule(build_all(*algo, plan_request(*algo, cfg, 0, shape)));
  VerifyOptions opt;
  opt.expect = collective_info(coll).expect;
  opt.count = count;
  opt.root = root;
  opt.require_order = !algo->restrictions.needs_commutative;
  return verify_schedule(s, opt);
}

namespace {

std::string check(const Variant &v, int P, std::size_t count, std::size_t type_size, int root = 0) {
  return check_rooted(v.coll, v.algo, v.set, P, count, type_size, 0, root);
}

// Whether the variant cuts the vector into tiny pieces: ring segments under 1000 bytes, or
// shared-memory slots under 4 KiB (alltoall shm splits its slot P ways: 1 KiB is one double per
// block at P = 64).
bool tiny_pieces(const Variant &v) {
  for (const auto &s : v.set) {
    const long long below = s.first == "ring_segment" ? 1000 : s.first == "shm_chunk" ? 4096 : 0;
    if (below == 0) continue;
    const long long bytes = parse_integer(param_table()[param_index(s.first)], s.second);
    if (bytes > 0 && bytes < below) return true;
  }
  return false;
}

// Pieces a shared-memory plan runs per rank (0 for other algorithms): the bytes one rank moves
// through its slot (alltoall: P blocks) over half a slot, the piece of the block-wise plans.
std::size_t shm_pieces(const Variant &v, int P, std::size_t count) {
  const AlgorithmInfo *a = find_algorithm(v.coll, v.algo);
  if (a == nullptr || !a->uses_node_segment) return 0;
  std::size_t slot = kDefaultNodeSegment;
  for (const auto &s : v.set)
    if (s.first == "shm_chunk") slot = static_cast<std::size_t>(parse_integer(
                                    param_table()[param_index("shm_chunk")], s.second));
  const std::size_t bytes = count * 8 * (v.coll == Collective::alltoall ? std::size_t(P) : 1);
  return bytes / std::max<std::size_t>(1, slot / 2);
}

// Roots the matrix tries for rooted collectives (every root: the test below, P <= 16).
std::vector<int> roots_for(const Variant &v, int P) {
  if (!collective_info(v.coll).takes_root) return {0};
  std::vector<int> r = {0};
  for (int x : {1, P / 2, P - 1})
    if (x > 0 && x < P && std::find(r.begin(), r.end(), x) == r.end()) r.push_back(x);
  return r;
}

}  // namespace

TEST_CASE("every plan is correct for P = 1..64 and odd counts", "[plan]") {
  pcoll_test::Dealer mine;  // the shard's (variant, P) pairs
  for (const Variant &v : variants()) {
    std::string label = std::string(collective_name(v.coll)) + "/" + v.algo;
    for (const auto &s : v.set) label += " " + s.first + "=" + s.second;
    for (int P = 1; P <= 64; ++P) {
      if (!mine()) continue;
      for (std::size_t count : counts_for(P)) {
        // One-element ring segments or shared-memory pieces of a 10^5 vector are 10^5 messages
        // or rounds per step: a shape nobody runs, and minutes of symbolic execution. Tiny
        // pieces are checked on counts up to 1000.
        if (count > 1000 && tiny_pieces(v)) continue;
        // Likewise shared-memory plans of more than 64 pieces beyond P = 16 (alltoall shm at
        // P = 64 and 10^5 doubles per destination: 1563 pieces of 63 copies, a minute of
        // symbolic execution): the pieces' protocol is the same at every P.
        if (P > 16 && shm_pieces(v, P, count) > 64) continue;
        for (int root : roots_for(v, P)) {
          const std::string err = check(v, P, count, 8, root);
          INFO(label << " P=" << P << " count=" << count << " root=" << root);
          REQUIRE(err.empty());
        }
      }
    }
  }
}

TEST_CASE("the matrix covers every algorithm of the registry", "[plan]") {
  // variants() enumerates the registry, so a new row is verified with its defaults; this guards
  // the enumeration itself, and the extra-variant table against names that no longer exist.
  for (const AlgorithmInfo *a : all_algorithms()) {
    if (a->is_vendor()) continue;
    bool found = false;
    for (const Variant &v : variants()) found = found || (v.coll == a->coll && v.algo == a->name);
    INFO(collective_name(a->coll) << "/" << a->name << " is missing from the plan matrix");
    CHECK(found);
  }
  for (const auto &e : pcoll_test::extra_variants()) {
    const CollectiveInfo *c = find_collective(e.coll);
    INFO("tests/common/variants.hpp names " << e.coll << "/" << e.algo);
    REQUIRE(c != nullptr);
    CHECK(find_algorithm(c->id, e.algo) != nullptr);
    for (const auto &s : e.set) CHECK(param_index(s.first) >= 0);
  }
}

TEST_CASE("ring segments are cut in bytes of the element size", "[plan][allreduce]") {
  // 24-byte segments are 24 one-byte, 6 four-byte or 3 eight-byte elements; all must verify.
  for (std::size_t ts : {1, 4, 8, 24, 40})
    for (int P : {2, 3, 5, 8})
      for (std::size_t count : {1, 5, 100, 1001}) {
        INFO("type size " << ts << " P=" << P << " count=" << count);
        REQUIRE(check({"ring", {{"ring_segment", "24"}}}, P, count, ts).empty());
      }
}

TEST_CASE("large P: plans pair up and cannot deadlock", "[plan][allreduce]") {
  pcoll_test::Dealer mine;  // the shard's (P, variant) pairs
  for (int P : {256, 1000, 1024}) {
    for (const Variant &v : variants()) {
      if (!mine()) continue;
      if ((v.algo == "ring" && !v.set.empty() && v.set[0].second != "0") || tiny_pieces(v)) continue;
      // All-to-all plans hold P^2 messages in all (a million at P = 1024): the defaults only
      // here; every parameter variant is verified at P = 1..64 above. Not alltoall shm: its
      // P^2 copies come once per piece of the slot, and at P = 1024 a 64 KiB slot holds 4
      // elements per block (1024 pieces, 10^9 copies; 23 GB of symbolic state).
      const AlgorithmInfo *algo = find_algorithm(v.coll, v.algo);
      if (v.coll == Collective::alltoall && (!v.set.empty() || algo->uses_node_segment)) continue;
      Config cfg = load_config();
      std::vector<std::pair<int, std::string>> ov;
      for (const auto &s : v.set) ov.emplace_back(param_index(s.first), s.second);
      cfg = with_overrides(cfg, ov);
      CallShape shape = CallShape::in_units(v.coll, P, 4096, 8);
      const Schedule s = make_schedule(build_all(*algo, plan_request(*algo, cfg, 0, shape)));
      INFO(v.algo << " P=" << P << ": " << s.error);
      REQUIRE(s.error.empty());
    }
  }
}

namespace {

// Count matrices for the per-rank-layout collectives (alltoallv): C[i][j] = elements rank i sends
// to rank j. Uneven, with zero rows, columns and diagonal entries.
using Matrix = std::vector<std::vector<std::size_t>>;

std::vector<Matrix> count_matrices(int P) {
  const auto n = static_cast<std::size_t>(P);
  std::vector<Matrix> m;
  Matrix a(n, std::vector<std::size_t>(n)), b = a, zero = a, c = a;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      a[i][j] = (i * 7 + j * 3 + 1) % 5;                               // 0..4, zeros scattered
      b[i][j] = (i + j) % 3 == 0 ? 0 : (i + 1) * (j + 2) * 13 % 1001;  // up to 1000
      c[i][j] = i == 1 || j == 2 ? 0 : 1;                              // an empty row and column
    }
  m.push_back(a);
  m.push_back(b);
  m.push_back(c);
  m.push_back(zero);
  return m;
}

// Rank r's layout for matrix C: send blocks in reverse destination order with one element of gap,
// receive blocks in rank order with two (displacements out of order, gaps never written).
std::vector<Layout> layouts_of(const Matrix &C) {
  const std::size_t P = C.size();
  std::vector<Layout> v(P);
  for (std::size_t r = 0; r < P; ++r) {
    Layout &l = v[r];
    l.sendcounts.resize(P);
    l.sdispls.resize(P);
    std::size_t off = 0;
    for (std::size_t k = 0; k < P; ++k) {
      const std::size_t j = P - 1 - k;
      l.sendcounts[j] = C[r][j];
      l.sdispls[j] = off;
      off += C[r][j] + 1;
    }
    off = 0;
    for (std::size_t q = 0; q < P; ++q) {
      l.recvcounts.push_back(C[q][r]);
      l.rdispls.push_back(off);
      off += C[q][r] + 2;
    }
  }
  return v;
}

}  // namespace

TEST_CASE("per-rank layouts: every plan delivers a count matrix exactly", "[plan][alltoallv]") {
  // Rows without uniform buffer sizes (CollectiveInfo::per_rank_layout) are in the matrix above
  // with the uniform layout; here every algorithm of theirs runs on uneven count matrices.
  int rows = 0;
  for (const CollectiveInfo &c : collective_table()) {
    // Count matrices are alltoallv's layouts; allgatherv and reduce_scatter have their own below.
    if (!c.per_rank_layout() || c.id != Collective::alltoallv) continue;
    ++rows;
    for (const auto &v : pcoll_test::variants_of(c.name, pcoll_test::symbolic)) {
      const AlgorithmInfo *algo = find_algorithm(c.id, v.algo);
      REQUIRE(algo != nullptr);
      Config cfg = load_config();
      std::vector<std::pair<int, std::string>> ov;
      for (const auto &s : v.set) ov.emplace_back(param_index(s.first), s.second);
      cfg = with_overrides(cfg, ov);
      for (int P = 1; P <= 40; P += P < 12 ? 1 : 7) {
        int m = 0;
        for (const Matrix &C : count_matrices(P)) {
          const std::vector<Layout> layouts = layouts_of(C);
          CallShape shape = CallShape::in_units(c.id, P, 1, 8);
          const Schedule s =
              make_schedule(build_all(*algo, plan_request(*algo, cfg, 0, shape), layouts));
          VerifyOptions opt;
          opt.segments.resize(static_cast<std::size_t>(P));
          for (int r = 0; r < P; ++r)
            for (int q = 0; q < P; ++q) {
              const auto R = static_cast<std::size_t>(r), Q = static_cast<std::size_t>(q);
              opt.segments[R].push_back({layouts[R].rdispls[Q], C[Q][R], q, layouts[Q].sdispls[R]});
            }
          INFO(c.name << "/" << v.label << " P=" << P << " matrix " << m++);
          REQUIRE(verify_schedule(s, opt) == "");
        }
      }
    }
  }
  CHECK(rows >= 1);
}

namespace {

// allgatherv: block lengths (the same on every rank), uneven with zeros, one big block among
// empty ones, all empty.
std::vector<std::vector<std::size_t>> block_lengths(int P) {
  const auto n = static_cast<std::size_t>(P);
  std::vector<std::vector<std::size_t>> v(4, std::vector<std::size_t>(n, 0));
  for (std::size_t q = 0; q < n; ++q) {
    v[0][q] = (q * 7 + 1) % 5;                // 0..4
    v[1][q] = (q + 1) * (q + 2) * 13 % 1001;  // up to 1000
  }
  v[2][n / 2] = 997;  // one rank has everything
  return v;
}

// Rank r's allgatherv layout: `kind` 0 packs the blocks in rank order (the plans gather in place),
// 1 places them in reverse rank order with gaps of 2 (they gather in scratch space and copy),
// 2 mixes the two by rank; the input block starts at element r % 3.
std::vector<Layout> gather_layouts(const std::vector<std::size_t> &len, int kind) {
  const std::size_t P = len.size();
  std::vector<Layout> v(P);
  for (std::size_t r = 0; r < P; ++r) {
    Layout &l = v[r];
    l.recvcounts = len;
    l.rdispls.assign(P, 0);
    const bool reverse = kind == 1 || (kind == 2 && r % 2 == 1);
    std::size_t off = 0;
    for (std::size_t k = 0; k < P; ++k) {
      const std::size_t q = reverse ? P - 1 - k : k;
      l.rdispls[q] = off;
      off += len[q] + (reverse ? 2 : 0);
    }
    l.sendcounts = {len[r]};
    l.sdispls = {r % 3};
  }
  return v;
}

}  // namespace

TEST_CASE("allgatherv: every plan gathers blocks of any length to any displacements",
          "[plan][allgatherv]") {
  for (const auto &v : pcoll_test::variants_of("allgatherv", pcoll_test::symbolic)) {
    const AlgorithmInfo *algo = find_algorithm(Collective::allgatherv, v.algo);
    REQUIRE(algo != nullptr);
    for (int P = 1; P <= 40; P += P < 12 ? 1 : 7) {
      int m = 0;
      for (const auto &len : block_lengths(P)) {
        for (int kind = 0; kind < 3; ++kind) {
          const std::vector<Layout> layouts = gather_layouts(len, kind);
          CallShape shape = CallShape::in_units(Collective::allgatherv, P, 1, 8);
          const Schedule s =
              make_schedule(build_all(*algo, plan_request(*algo, load_config(), 0, shape), layouts));
          VerifyOptions opt;
          opt.segments.resize(static_cast<std::size_t>(P));
          for (std::size_t r = 0; r < static_cast<std::size_t>(P); ++r)
            for (std::size_t q = 0; q < static_cast<std::size_t>(P); ++q)
              opt.segments[r].push_back(
                  {layouts[r].rdispls[q], len[q], static_cast<int>(q), layouts[q].sdispls[0]});
          INFO("allgatherv/" << v.label << " P=" << P << " lengths " << m << " kind " << kind);
          REQUIRE(verify_schedule(s, opt) == "");
        }
        ++m;
      }
    }
  }
}

TEST_CASE("allgatherv: recursive doubling gathers in place when displs are the packed order",
          "[plan][allgatherv]") {
  const AlgorithmInfo *algo = find_algorithm(Collective::allgatherv, "recursive_doubling");
  REQUIRE(algo != nullptr);
  const std::vector<std::size_t> len = block_lengths(6)[1];
  for (int kind : {0, 1}) {
    const std::vector<Layout> layouts = gather_layouts(len, kind);
    PlanRequest req = plan_request(*algo, load_config(), 2,
                                   CallShape::in_units(Collective::allgatherv, 6, 1, 8));
    req.layout = &layouts[2];
    const Plan p = make_plan(*algo, req);
    CHECK((p.tmp_elems == 0) == (kind == 0));
  }
}

TEST_CASE("reduce_scatter: every plan reduces blocks of any length to their rank",
          "[plan][reduce_scatter]") {
  for (const auto &v : pcoll_test::variants_of("reduce_scatter", pcoll_test::symbolic)) {
    const AlgorithmInfo *algo = find_algorithm(Collective::reduce_scatter, v.algo);
    REQUIRE(algo != nullptr);
    for (int P = 1; P <= 40; P += P < 12 ? 1 : 7) {
      int m = 0;
      for (const auto &len : block_lengths(P)) {
        Layout l;
        l.recvcounts = len;
        const std::vector<Layout> layouts(static_cast<std::size_t>(P), l);
        const Schedule s = make_schedule(build_all(
            *algo,
            plan_request(*algo, load_config(), 0, CallShape::in_units(Collective::reduce_scatter, P, 1, 8)),
            layouts));
        VerifyOptions opt;
        opt.segments.resize(static_cast<std::size_t>(P));
        std::size_t first = 0;
        for (std::size_t r = 0; r < static_cast<std::size_t>(P); ++r) {
          opt.segments[r].push_back({0, len[r], kAllRanks, first});
          first += len[r];
        }
        INFO("reduce_scatter/" << v.label << " P=" << P << " lengths " << m++);
        REQUIRE(verify_schedule(s, opt) == "");
      }
    }
  }
}

TEST_CASE("the reduced-segment check catches a block reduced without a rank",
          "[plan][reduce_scatter]") {
  // ring on lengths whose block 0 is expected where block 1 lies: fails, as does an
  // expectation that a reduced block came from one rank alone.
  const AlgorithmInfo *algo = find_algorithm(Collective::reduce_scatter, "ring");
  REQUIRE(algo != nullptr);
  Layout l;
  l.recvcounts = {3, 2, 4};
  const std::vector<Layout> layouts(3, l);
  const Schedule s = make_schedule(build_all(
      *algo, plan_request(*algo, load_config(), 0, CallShape::in_units(Collective::reduce_scatter, 3, 1, 8)),
      layouts));
  VerifyOptions good, shifted, alone;
  good.segments = {{{0, 3, kAllRanks, 0}}, {{0, 2, kAllRanks, 3}}, {{0, 4, kAllRanks, 5}}};
  REQUIRE(verify_schedule(s, good).empty());
  shifted = good;
  shifted.segments[1][0].src_off = 0;
  CHECK_FALSE(verify_schedule(s, shifted).empty());
  alone = good;
  alone.segments[2][0].src_rank = 2;
  CHECK_FALSE(verify_schedule(s, alone).empty());
}

TEST_CASE("the segment check catches a misdelivered block", "[plan][alltoallv]") {
  // The same schedule checked against a wrong expectation (blocks of ranks 0 and 1 swapped)
  // must fail: the check is not vacuous.
  const AlgorithmInfo *algo = find_algorithm(Collective::alltoallv, "pairwise");
  REQUIRE(algo != nullptr);
  const Matrix C = count_matrices(3)[0];
  const std::vector<Layout> layouts = layouts_of(C);
  CallShape shape = CallShape::in_units(Collective::alltoallv, 3, 1, 4);
  const Schedule s =
      make_schedule(build_all(*algo, plan_request(*algo, load_config(), 0, shape), layouts));
  VerifyOptions opt;
  opt.segments.resize(3);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t q = 0; q < 3; ++q)
      opt.segments[r].push_back(
          {layouts[r].rdispls[q], C[q][r], static_cast<int>(q ^ (q < 2)), layouts[q].sdispls[r]});
  CHECK_FALSE(verify_schedule(s, opt).empty());
}

TEST_CASE("rooted collectives: every root, non-commutative order", "[plan][bcast][reduce]") {
  // bcast and reduce at every root for P = 1..16 (the matrix above tries 4 roots up to P = 64);
  // the verifier checks rank order for every reduce algorithm (none declares needs_commutative).
  for (const Variant &v : variants()) {
    if (!collective_info(v.coll).takes_root) continue;
    for (int P = 1; P <= 16; ++P)
      for (int root = 0; root < P; ++root)
        for (std::size_t count : {1, 7, 1000}) {
          INFO(collective_name(v.coll)
               << "/" << v.algo << " P=" << P << " root=" << root << " count=" << count);
          REQUIRE(check(v, P, count, 4, root).empty());
        }
  }
}

TEST_CASE("the synchronisation check catches a barrier that lets a rank out early",
          "[plan][barrier]") {
  // Dissemination without its last round: some rank has not heard from every other.
  const AlgorithmInfo *algo = find_algorithm(Collective::barrier, "dissemination");
  REQUIRE(algo != nullptr);
  for (int P : {3, 5, 8}) {
    CallShape shape = CallShape::in_units(Collective::barrier, P, 1, 1);
    std::vector<Plan> plans = build_all(*algo, plan_request(*algo, load_config(), 0, shape));
    VerifyOptions opt;
    opt.expect = collective_info(Collective::barrier).expect;
    REQUIRE(verify_schedule(make_schedule(plans), opt).empty());
    for (Plan &p : plans) p.rounds.pop_back();
    INFO("P=" << P);
    CHECK_FALSE(verify_schedule(make_schedule(plans), opt).empty());
  }
}

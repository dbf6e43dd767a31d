// PCOLL_Alltoall for every registered algorithm (tests/common/variants.hpp, Bruck radix 2, 3 and
// P, auto at pairwise_threshold 0, 4096 and 2^40 so both sides of the dispatch run) x int, double
// and a contiguous derived type x counts {0, 1, 2, 17, 1024, 5000} x in place and not, compared
// bit for bit with exact expected values (block i -> j must arrive at j in slot i) and with the
// vendor. Then send and receive types that differ, and the MPI error classes.
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

// Base value o of the block src sends to dst: distinct per (src, dst) pair for the rank counts
// tested, exact in int and double.
long long pair_value(int src, int dst, std::size_t o) {
  return static_cast<long long>((src * 1021 + dst * 131 + static_cast<long long>(o)) % 65521) + 1;
}

struct Variant {
  std::string label;
  Set set;
  std::string expect_algo;  // what PCOLL_Get_last_algorithm must say ("" = decided per count)
};

std::vector<Variant> variants(int P) {
  std::vector<Variant> v;
  for (const auto &a : pcoll_test::variants_of("alltoall", pcoll_test::mpi))
    v.push_back({a.label, a.overrides("alltoall"), a.algo});
  const std::string radix_p = std::to_string(P < 2 ? 2 : P);
  v.push_back({"bruck radix=P", {{"alltoall", "bruck"}, {"bruck_radix", radix_p}}, "bruck"});
  for (const char *thr : {"0", "4096", "1099511627776"})
    v.push_back({std::string("auto threshold=") + thr,
                 {{"alltoall", "auto"}, {"pairwise_threshold", thr}},
                 ""});
  // Nodes of 2 ranks: across nodes the cost model chooses (any of pcoll's algorithms; one node
  // at P <= 2 keeps the size rule, which the "*" accepts too).
  v.push_back({"auto ranks_per_node=2", {{"alltoall", "auto"}, {"ranks_per_node", "2"}}, "*"});
  return v;
}

// Whether the communicator maps a node segment: the tests run on one node, so wherever P >= 2
// and PCOLL_SHM is not off (the suite sets on; alltoall_noshm runs this program with off, so
// that the size dispatch is checked at every count).
bool node_segment(MPI_Comm comm) {
  const char *mode = "";
  PCOLL_Config_get(comm, "shm", &mode);
  return size_of(comm) >= 2 && std::string(mode) != "off";
}

// One datatype case: `base` values of type B, `width` of them per element of `type`.
template <class B>
void check_type(MPI_Comm comm, MPI_Datatype type, int width, const char *type_name,
                const std::vector<Variant> &vars, Failures &f) {
  const int P = size_of(comm), me = rank_of(comm);
  int type_size = 0;
  MPI_Type_size(type, &type_size);
  for (int count : {0, 1, 2, 17, 1024, 5000}) {
    const std::size_t per = static_cast<std::size_t>(count) * width;  // B values per block
    const std::size_t total = per * P;
    std::vector<B> in(total), expected(total), vendor(total, B(-1));
    for (int d = 0; d < P; ++d)
      for (std::size_t o = 0; o < per; ++o) {
        in[d * per + o] = static_cast<B>(pair_value(me, d, o));
        expected[d * per + o] = static_cast<B>(pair_value(d, me, o));
      }
    {
      pcoll::ScopedConfig use(comm, "alltoall", "vendor");
      PMPI_Alltoall(in.data(), count, type, vendor.data(), count, type, comm);
      if (total && std::memcmp(vendor.data(), expected.data(), total * sizeof(B)) != 0)
        f.add(std::string("vendor differs from the exact result: ") + type_name);
    }
    for (const Variant &v : vars) {
      Overrides use(comm, v.set);
      for (bool in_place : {false, true}) {
        std::vector<B> got = in_place ? in : std::vector<B>(total, B(-7));
        const int rc = PCOLL_Alltoall(in_place ? MPI_IN_PLACE : in.data(), count, type, got.data(),
                                      count, type, comm);
        const char *used = "";
        PCOLL_Get_last_algorithm(comm, &used);
        std::ostringstream w;
        w << v.label << " (" << used << ") " << type_name << " P=" << P << " count " << count
          << (in_place ? " in-place" : "");
        std::string want = v.expect_algo;
        if (want == "shm" && size_of(comm) >= 2 && !node_segment(comm)) {
          want = "vendor";  // its fallback, where no segment was mapped
        } else if (want.empty() && node_segment(comm)) {
          want = "*";  // auto on one node with a segment: the cost model weighs shm too
        } else if (want.empty()) {  // auto: the dispatch on bytes per destination of "Add
                                    // size-based pairwise dispatch to all_to_all"
          const long long thr = std::stoll(v.set[1].second);
          want = static_cast<long long>(count) * type_size >= thr ? "pairwise" : "routed";
        }
        if (rc != MPI_SUCCESS)
          f.add("error from " + w.str());
        else if (total && std::memcmp(got.data(), expected.data(), total * sizeof(B)) != 0)
          f.add("wrong result: " + w.str());
        else if (total && std::memcmp(got.data(), vendor.data(), total * sizeof(B)) != 0)
          f.add("differs from the vendor: " + w.str());
        if (want == "*" ? std::string(used) == "vendor" : want != used)
          f.add("served by " + std::string(used) + ", not " + want + ": " + w.str());
      }
    }
  }
}

}  // namespace

TEST_CASE("alltoall: every algorithm, types, counts, in place, dispatch", "[alltoall]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const std::vector<Variant> vars = variants(size_of(comm));
  MPI_Datatype triple;  // a contiguous derived type: 3 ints
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  check_type<int>(comm, MPI_INT, 1, "int", vars, f);
  check_type<double>(comm, MPI_DOUBLE, 1, "double", vars, f);
  check_type<int>(comm, triple, 3, "contiguous(3, int)", vars, f);
  MPI_Type_free(&triple);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("alltoall: send and receive types that differ", "[alltoall]") {
  Failures f;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int P = size_of(comm), me = rank_of(comm);
  // 100 triples = 300 ints = 1200 bytes per block. Not smaller: with 15 ints per block, the
  // vendor call below (Open MPI 4.1, which picks its own bruck alltoall for small blocks at
  // P > 12) corrupted the heap inside ompi_coll_base_alltoall_intra_bruck at P = 16.
  const int count = 100, B = 3 * count;
  std::vector<int> in(B * P), expected(B * P);
  for (int d = 0; d < P; ++d)
    for (int o = 0; o < B; ++o) {
      in[d * B + o] = static_cast<int>(pair_value(me, d, o));
      expected[d * B + o] = static_cast<int>(pair_value(d, me, o));
    }
  MPI_Datatype triple, strided;  // same signature as 3 ints; the second with gaps
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  MPI_Type_vector(B, 1, 2, MPI_INT, &strided);  // a block of B ints, every other int
  MPI_Datatype strided_block;
  MPI_Type_create_resized(strided, 0, static_cast<MPI_Aint>(2 * B * sizeof(int)), &strided_block);
  MPI_Type_commit(&strided_block);
  MPI_Type_free(&strided);
  for (const char *algo : {"routed", "routed_tree", "pairwise", "bruck", "auto"}) {
    Overrides use(comm, {{"alltoall", algo}});
    // Contiguous on both sides, same size: our algorithm serves it.
    std::vector<int> got(B * P, -1);
    int rc = PCOLL_Alltoall(in.data(), count, triple, got.data(), B, MPI_INT, comm);
    const char *used = "";
    PCOLL_Get_last_algorithm(comm, &used);
    if (rc != MPI_SUCCESS || got != expected) f.add(std::string("triple -> int wrong: ") + algo);
    if (std::string(used) == "vendor") f.add(std::string("triple -> int fell back: ") + algo);
    // A non-contiguous send type with the same signature: packed, and served by the same
    // algorithm (a fallback decided on one rank's layout would leave its peers waiting).
    std::vector<int> spread(2 * B * P, -3);
    for (int i = 0; i < B * P; ++i) spread[2 * i] = in[i];
    {
      pcoll::ScopedConfig strict(comm, "fallback", "error");
      got.assign(B * P, -1);
      rc = PCOLL_Alltoall(spread.data(), 1, strided_block, got.data(), B, MPI_INT, comm);
      PCOLL_Get_last_algorithm(comm, &used);
      if (rc != MPI_SUCCESS || got != expected) f.add(std::string("strided -> int wrong: ") + algo);
      if (std::string(used) == "vendor") f.add(std::string("strided fell back: ") + algo);
      // And the other way round: contiguous send, strided receive.
      std::vector<int> spread_got(2 * B * P, -3), spread_want(2 * B * P, -3);
      for (int i = 0; i < B * P; ++i) spread_want[2 * i] = expected[i];
      rc = PCOLL_Alltoall(in.data(), B, MPI_INT, spread_got.data(), 1, strided_block, comm);
      if (rc != MPI_SUCCESS || spread_got != spread_want)
        f.add(std::string("int -> strided wrong: ") + algo);
    }
  }
  MPI_Type_free(&triple);
  MPI_Type_free(&strided_block);
  f.check_all(comm);
  MPI_Comm_free(&comm);
}

TEST_CASE("alltoall: errors are MPI error classes", "[alltoall][errors]") {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int P = size_of(comm);
  std::vector<int> a(2 * P), b(2 * P);
  auto cls = [](int code) {
    int c = code;
    MPI_Error_class(code, &c);
    return c;
  };
  CHECK(cls(PCOLL_Alltoall(a.data(), 2, MPI_INT, b.data(), -1, MPI_INT, comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Alltoall(a.data(), -2, MPI_INT, b.data(), 2, MPI_INT, comm)) == MPI_ERR_COUNT);
  CHECK(cls(PCOLL_Alltoall(a.data(), 2, MPI_DATATYPE_NULL, b.data(), 2, MPI_INT, comm)) ==
        MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Alltoall(a.data(), 2, MPI_INT, b.data(), 2, MPI_DATATYPE_NULL, comm)) ==
        MPI_ERR_TYPE);
  CHECK(cls(PCOLL_Alltoall(b.data(), 2, MPI_INT, b.data(), 2, MPI_INT, comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Alltoall(a.data(), 2, MPI_INT, nullptr, 2, MPI_INT, comm)) == MPI_ERR_BUFFER);
  CHECK(cls(PCOLL_Alltoall(a.data(), 2, MPI_INT, b.data(), 2, MPI_INT, MPI_COMM_NULL)) ==
        MPI_ERR_COMM);
  {  // A send side whose signature cannot match the receive side's: MPI_ERR_ARG on the rank
     // that passes it (here every rank, so no peer waits).
    MPI_Datatype gappy;
    MPI_Type_vector(2, 1, 2, MPI_INT, &gappy);
    MPI_Type_commit(&gappy);
    std::vector<int> big(4 * P);
    CHECK(cls(PCOLL_Alltoall(big.data(), 1, gappy, b.data(), 3, MPI_INT, comm)) == MPI_ERR_ARG);
    MPI_Type_free(&gappy);
  }
  // Still usable afterwards.
  CHECK(PCOLL_Alltoall(a.data(), 2, MPI_INT, b.data(), 2, MPI_INT, comm) == MPI_SUCCESS);
  MPI_Comm_free(&comm);
}

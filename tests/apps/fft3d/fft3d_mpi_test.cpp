// The distributed FFT (apps/fft3d) under mpiexec, registered at P = 1, 2, 3, 4, 6, 8, on grids
// that divide evenly by P (PCOLL_Alltoall) and grids that do not (PCOLL_Alltoallv), with the slab
// and the pencil decomposition (P = 6 and 8 give 3x2 and 4x2 process grids, so the transposes
// run on row and column sub-communicators of different sizes).
// Complex-to-complex and real-to-complex (the r2c half spectrum: even and odd N2).
//  - plane waves transform to the exactly known spikes (within 1e-12 of N max|a|), and back;
//  - the forward transform of a random field matches FFTW-MPI's fftw_mpi_plan_dft_3d on the same
//    grid within 1e-12 (the whole grid assembled on rank 0), and slab matches pencil;
//  - every all-to-all algorithm of pcoll's registry (and its MPI parameter variants,
//    tests/common/variants.hpp) gives BITWISE the same forward and backward result as vendor:
//    the transpose moves data, it does not compute;
//  - the bytes per destination reported are the exact block sizes;
//  - the transposes in overlapped pieces (set_overlap) give the same transforms, and bitwise the
//    same under every all-to-all algorithm.
#include <mpi.h>

#include <pcoll/pcoll.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../common/variants.hpp"
#include "checks.hpp"
#include "fftw_anchor.hpp"
#include "field.hpp"
#include "transform.hpp"

using namespace pcoll::fft3d;

namespace {

constexpr double kTolerance = 1e-12;

struct World {
  MPI_Comm comm;
  int rank = 0, size = 1;
  World() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  ~World() { MPI_Comm_free(&comm); }
};

// 12x10x9 and 9x8x7 divide evenly for almost no P; 16^3 divides for P = 1, 2, 4, 8.
const std::vector<std::array<int, 3>> &grids() {
  static const std::vector<std::array<int, 3>> g = {{12, 10, 9}, {16, 16, 16}, {9, 8, 7}};
  return g;
}

std::string label(const std::array<int, 3> &g, Decomp d, int p) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]) + " " +
         decomp_name(d) + " P=" + std::to_string(p);
}

bool everywhere(MPI_Comm comm, bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm);
  return v == 1;
}

// Overrides pushed on every communicator of the transform, popped on destruction.
class Use {
 public:
  void push(MPI_Comm c, const std::string &name, const std::string &value) {
    REQUIRE(PCOLL_Config_push(c, name.c_str(), value.c_str()) == MPI_SUCCESS);
    pushed_.push_back(c);
  }
  ~Use() {
    for (MPI_Comm c : pushed_) PCOLL_Config_pop(c);
  }

 private:
  std::vector<MPI_Comm> pushed_;
};

// Plane waves through fft: the exactly known spikes forward, N times the input back.
void check_plane_waves(MPI_Comm comm, DistributedFft &fft, Kind k, const std::array<int, 3> &g) {
  const auto waves = default_waves(g);
  REQUIRE(waves.size() >= 3);
  FieldOps<DistributedFft> ops(comm, fft, k, g, FieldKind::waves, waves);
  ops.fill_input();
  fft.forward();
  CHECK(ops.spectrum_error() <= kTolerance);
  fft.backward();
  CHECK(ops.roundtrip_error() <= kTolerance);
}

}  // namespace

TEST_CASE("plane waves transform to the exact spikes and back") {
  World w;
  for (Kind k : {Kind::c2c, Kind::r2c})
    for (const auto &g : grids())
      for (Decomp d : {Decomp::slab, Decomp::pencil}) {
        INFO(label(g, d, w.size) << " " << kind_name(k));
        DistributedFft fft(w.comm, g, d, Planner::estimate, k);
        check_plane_waves(w.comm, fft, k, g);
      }
}

TEST_CASE("the forward transform matches FFTW-MPI's, and slab matches pencil") {
  World w;
  REQUIRE(have_fftw_mpi());
  const std::vector<Wave> none;
  for (Kind k : {Kind::c2c, Kind::r2c})
    for (const auto &g : grids()) {
      INFO(label(g, Decomp::slab, w.size) << " " << kind_name(k));
      FftwMpi ref(w.comm, g, Planner::estimate, k);
      FieldOps<FftwMpi> theirs(w.comm, ref, k, g, FieldKind::random, none);
      theirs.fill_input();
      ref.forward();
      const auto expected = theirs.gather_spectrum();
      ref.backward();
      CHECK(theirs.roundtrip_error() <= kTolerance);
      for (Decomp d : {Decomp::slab, Decomp::pencil}) {
        INFO(decomp_name(d));
        DistributedFft fft(w.comm, g, d, Planner::estimate, k);
        FieldOps<DistributedFft> ours(w.comm, fft, k, g, FieldKind::random, none);
        ours.fill_input();
        fft.forward();
        auto mine = ours.gather_spectrum();
        double diff = 0, broken = 0;
        if (w.rank == 0) {
          diff = relative_difference(mine, expected);  // often 0: FFTW picks the same codelets
          // The comparison itself must see a change of one element in the 10th digit.
          mine[mine.size() / 2] += 1e-10 * std::abs(expected[0]);
          broken = relative_difference(mine, expected);
        }
        MPI_Bcast(&diff, 1, MPI_DOUBLE, 0, w.comm);
        MPI_Bcast(&broken, 1, MPI_DOUBLE, 0, w.comm);
        CHECK(diff <= kTolerance);
        CHECK(broken > 1e-12);
      }
    }
}

// Every all-to-all algorithm (and its variants) gives bitwise the same forward and backward
// transforms as vendor, with the transposes whole (overlap 1) or in pieces.
static void every_algorithm_same_bits(int overlap, std::size_t ngrids) {
  World w;
  const std::vector<Wave> none;
  for (Kind k : {Kind::c2c, Kind::r2c})
    for (const auto &g : std::vector(grids().begin(), grids().begin() + ngrids))
      for (Decomp d : {Decomp::slab, Decomp::pencil}) {
        INFO(label(g, d, w.size) << " " << kind_name(k) << " overlap " << overlap);
        DistributedFft fft(w.comm, g, d, Planner::estimate, k);
        fft.set_overlap(overlap);
        FieldOps<DistributedFft> ops(w.comm, fft, k, g, FieldKind::random, none);
        const auto comms = fft.comms();
        // The variants of the collective each transpose calls (registry order, vendor first).
        std::vector<std::vector<pcoll_test::AlgoVariant>> variants;
        std::size_t most = 0;
        for (const auto &t : fft.transposes()) {
          variants.push_back(pcoll_test::variants_of(t.collective, pcoll_test::mpi, true));
          variants.back().push_back({"auto", {}, "auto"});
          REQUIRE(variants.back().front().algo == "vendor");
          most = std::max(most, variants.back().size());
        }
        std::vector<Complex> ref_fwd;
        std::vector<unsigned char> ref_bwd;
        for (std::size_t i = 0; i < most; ++i) {
          Use use;
          std::string name;
          for (std::size_t t = 0; t < comms.size(); ++t) {
            const auto &v = variants[t][std::min(i, variants[t].size() - 1)];
            for (const auto &[key, value] : v.overrides(fft.transposes()[t].collective))
              use.push(comms[t], key, value);
            name += (name.empty() ? "" : " / ") + v.label;
          }
          INFO("algorithms " << name);
          ops.fill_input();
          fft.forward();
          std::vector<Complex> fwd(fft.data(), fft.data() + fft.output().volume());
          fft.backward();
          // The backward result: the complex field (c2c) or the real one (r2c), as bytes.
          const auto *b = k == Kind::r2c ? reinterpret_cast<const unsigned char *>(fft.real_data())
                                         : reinterpret_cast<const unsigned char *>(fft.data());
          const std::size_t nb = k == Kind::r2c ? fft.real_input().volume() * sizeof(double)
                                                : fft.input().volume() * sizeof(Complex);
          std::vector<unsigned char> bwd(b, b + nb);
          for (std::size_t t = 0; t < comms.size(); ++t) {
            const std::string &want = variants[t][std::min(i, variants[t].size() - 1)].algo;
            if (want != "auto") CHECK(fft.transposes()[t].served == want);
          }
          if (i == 0) {
            ref_fwd = fwd;
            ref_bwd = bwd;
            continue;
          }
          const bool same =
              std::memcmp(fwd.data(), ref_fwd.data(), fwd.size() * sizeof(Complex)) == 0 &&
              bwd == ref_bwd;
          CHECK(everywhere(w.comm, same));
        }
      }
}

TEST_CASE("every all-to-all algorithm gives bitwise the same transforms") {
  every_algorithm_same_bits(1, grids().size());
}

TEST_CASE("every all-to-all algorithm gives bitwise the same transforms in overlapped pieces") {
  // PCOLL_Ialltoall(v) per piece, tested between the pieces' FFTs; an uneven grid (Ialltoallv at
  // most P) and an even one (Ialltoall at P = 1, 2, 4, 8).
  every_algorithm_same_bits(3, 2);
}

// The overlapped transform computes the same transform: the pieces' FFTs are FFTW plans of their
// own (other loop counts, unaligned starts), so the bits may differ in the last place; the
// exchange is the same data. Every piece count: 2, 3 (uneven pieces on most axes), 1000 (one per
// row), and the plane waves' exact spikes through it.
TEST_CASE("overlapped transposes give the blocking transforms") {
  World w;
  const std::vector<Wave> none;
  for (Kind k : {Kind::c2c, Kind::r2c})
    for (const auto &g : grids())
      for (Decomp d : {Decomp::slab, Decomp::pencil}) {
        INFO(label(g, d, w.size) << " " << kind_name(k));
        DistributedFft whole(w.comm, g, d, Planner::estimate, k);
        FieldOps<DistributedFft> ref(w.comm, whole, k, g, FieldKind::random, none);
        ref.fill_input();
        whole.forward();
        const auto expected = ref.gather_spectrum();
        for (int pieces : {2, 3, 1000}) {
          INFO("overlap " << pieces);
          DistributedFft fft(w.comm, g, d, Planner::estimate, k);
          fft.set_overlap(pieces);
          REQUIRE(fft.overlap() == pieces);
          FieldOps<DistributedFft> ops(w.comm, fft, k, g, FieldKind::random, none);
          ops.fill_input();
          fft.forward();
          const auto mine = ops.gather_spectrum();
          double diff = 0;
          if (w.rank == 0) diff = relative_difference(mine, expected);
          MPI_Bcast(&diff, 1, MPI_DOUBLE, 0, w.comm);
          CHECK(diff <= kTolerance);
          fft.backward();
          CHECK(ops.roundtrip_error() <= kTolerance);
          check_plane_waves(w.comm, fft, k, g);
        }
      }
}

TEST_CASE("an overlap below one piece is rejected") {
  World w;
  DistributedFft fft(w.comm, {8, 8, 8}, Decomp::slab, Planner::estimate);
  CHECK_THROWS_WITH(fft.set_overlap(0), Catch::Matchers::Contains("at least 1"));
  CHECK(fft.overlap() == 1);
}

TEST_CASE("bytes per destination are the exact block sizes") {
  World w;
  // 16^3 slab over P | 16: every block is (16/P) x (16/P) x 16 complex doubles.
  if (16 % w.size == 0) {
    DistributedFft fft(w.comm, {16, 16, 16}, Decomp::slab, Planner::estimate);
    REQUIRE(fft.transposes().size() == 1);
    const auto &t = fft.transposes().front();
    const std::int64_t b = std::int64_t(16 / w.size) * (16 / w.size) * 16 * 16;
    CHECK(t.collective == "alltoall");
    CHECK(t.peers == w.size);
    CHECK(t.min_bytes == b);
    CHECK(t.max_bytes == b);
  }
  // 12x10x9 slab: blocks n0(r) x m1(j) x 9 with n0, m1 the balanced splits of 12 and 10.
  DistributedFft fft(w.comm, {12, 10, 9}, Decomp::slab, Planner::estimate);
  const auto &t = fft.transposes().front();
  const std::int64_t lo = std::int64_t(12 / w.size) * (10 / w.size) * 9 * 16;
  const std::int64_t hi =
      std::int64_t(12 / w.size + (12 % w.size != 0)) * (10 / w.size + (10 % w.size != 0)) * 9 * 16;
  CHECK(t.min_bytes == lo);
  CHECK(t.max_bytes == hi);
  CHECK(t.collective == ((12 % w.size == 0 && 10 % w.size == 0) ? "alltoall" : "alltoallv"));
}

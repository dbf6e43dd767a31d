// The shared-memory level through MPI: when a communicator gets a node segment (PCOLL_SHM), and
// the orders of calls its two channels must survive: three calls in flight on one communicator
// (the third waits for the first's channel), blocking calls made while nonblocking ones are
// outstanding, completion in any order, the communicator freed with calls outstanding, calls
// on several communicators at once, and a wait that must keep polling while another call's
// transfers are pending. Results are exact (small integers in doubles) and the same on every
// rank; requests are completed with PCOLL_Wait and its kin, as a linked
// program must. (Every algorithm's results at every count, type, op and in place are
// the allreduce and nonblocking tests' business: they run the shm variants.)
#include <mpi.h>
#include <unistd.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

int size_of(MPI_Comm c) {
  int p = 1;
  MPI_Comm_size(c, &p);
  return p;
}
int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}

// A communicator made after setting the environment the context reads at its creation.
MPI_Comm comm_with(const char *shm, const char *allreduce) {
  setenv("PCOLL_SHM", shm, 1);
  if (allreduce != nullptr) setenv("PCOLL_ALLREDUCE", allreduce, 1);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  double x = 0, y = 0;  // the first collective makes the context (and the segment)
  PCOLL_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
  unsetenv("PCOLL_ALLREDUCE");
  setenv("PCOLL_SHM", "on", 1);  // (what the suite's environment says)
  return c;
}

std::string last(MPI_Comm c) {
  const char *used = "";
  PCOLL_Get_last_algorithm(c, &used);
  return used;
}

// Rank r contributes r + 1 + k + i at element i of call k: the sum is P(P+1)/2 + P(k + i).
struct Sum {
  std::vector<double> in, out;
  int k;
  Sum(MPI_Comm c, std::size_t n, int k_) : in(n), out(n, -1), k(k_) {
    for (std::size_t i = 0; i < n; ++i) in[i] = rank_of(c) + 1 + k + double(i);
  }
  bool right(MPI_Comm c) const {
    const double P = size_of(c);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != P * (P + 1) / 2 + P * (k + double(i))) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("PCOLL_SHM decides which communicators map a node segment", "[shm]") {
  MPI_Comm world = MPI_COMM_WORLD;
  const int P = size_of(world);
  {
    // auto, and the algorithm named in the environment: a segment, shm serves.
    MPI_Comm c = comm_with("auto", "shm");
    Sum s(c, 100, 0);
    REQUIRE(PCOLL_Allreduce(s.in.data(), s.out.data(), 100, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
    CHECK(s.right(c));
    CHECK(last(c) == "shm");
    MPI_Comm_free(&c);
  }
  {
    // auto, every collective `auto` (whose model weighs the shared-memory algorithms): a
    // segment, so shm pushed on the communicator later serves.
    MPI_Comm c = comm_with("auto", "auto");
    {
      pcoll::ScopedConfig use(c, "allreduce", "shm");
      Sum s(c, 100, 0);
      REQUIRE(PCOLL_Allreduce(s.in.data(), s.out.data(), 100, MPI_DOUBLE, MPI_SUM, c) ==
              MPI_SUCCESS);
      CHECK(s.right(c));
      CHECK(last(c) == "shm");
    }  // (popped before the free)
    MPI_Comm_free(&c);
  }
  {
    // auto, every collective pinned to the vendor when the communicator is made: nothing could
    // use a segment, so none is made, and shm pushed later falls back to the vendor (visibly)
    // and is still right.
    const char *colls[] = {"ALLREDUCE", "BCAST", "REDUCE", "BARRIER", "ALLGATHER", "ALLGATHERV",
                           "ALLTOALL", "ALLTOALLV", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK"};
    for (const char *k : colls) setenv((std::string("PCOLL_") + k).c_str(), "vendor", 1);
    MPI_Comm c = comm_with("auto", "vendor");
    for (const char *k : colls) unsetenv((std::string("PCOLL_") + k).c_str());
    {
      pcoll::ScopedConfig use(c, "allreduce", "shm");
      Sum s(c, 100, 0);
      REQUIRE(PCOLL_Allreduce(s.in.data(), s.out.data(), 100, MPI_DOUBLE, MPI_SUM, c) ==
              MPI_SUCCESS);
      CHECK(s.right(c));
      CHECK(last(c) == (P > 1 ? "vendor" : "shm"));
    }
    MPI_Comm_free(&c);
  }
  {
    // off, although named: the vendor.
    MPI_Comm c = comm_with("off", "shm");
    Sum s(c, 7, 0);
    REQUIRE(PCOLL_Allreduce(s.in.data(), s.out.data(), 7, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
    CHECK(s.right(c));
    CHECK(last(c) == (P > 1 ? "vendor" : "shm"));
    MPI_Comm_free(&c);
  }
}

TEST_CASE("shared-memory calls in flight, blocking among them, completed in any order", "[shm]") {
  MPI_Comm c = comm_with("on", nullptr);
  {
    pcoll::ScopedConfig use(c, "allreduce", "shm");
    pcoll::ScopedConfig pieces(c, "shm_chunk", "64");  // 8 doubles a piece: many flag rounds
    pcoll::ScopedConfig barrier(c, "barrier", "shm");
    const int me = rank_of(c);
    for (int round = 0; round < 20; ++round) {
      // Three nonblocking calls (two channels: the third enters only when the first is done on
      // every rank), then two blocking ones and a barrier while they are outstanding, then the
      // waits in an order that differs by rank and round.
      // (odd rounds: every piece block by block, the path with three flag rounds a piece)
      pcoll::ScopedConfig path(c, "shm_small", round % 2 ? "0" : "2k");
      std::vector<Sum> s;
      for (int k = 0; k < 6; ++k) s.emplace_back(c, static_cast<std::size_t>(1 + 13 * k), k);
      MPI_Request r[3];
      for (int k = 0; k < 3; ++k)
        REQUIRE(PCOLL_Iallreduce(s[k].in.data(), s[k].out.data(), static_cast<int>(s[k].in.size()),
                                 MPI_DOUBLE, MPI_SUM, c, &r[k]) == MPI_SUCCESS);
      for (int k = 3; k < 5; ++k)
        REQUIRE(PCOLL_Allreduce(s[k].in.data(), s[k].out.data(), static_cast<int>(s[k].in.size()),
                                MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
      REQUIRE(PCOLL_Barrier(c) == MPI_SUCCESS);
      const int first = (me + round) % 3;
      REQUIRE(PCOLL_Wait(&r[first], MPI_STATUS_IGNORE) == MPI_SUCCESS);
      if ((me + round) % 2 == 0) {
        REQUIRE(PCOLL_Waitall(3, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
      } else {
        int done = 0;
        while (!done) REQUIRE(PCOLL_Testall(3, r, &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
      }
      REQUIRE(PCOLL_Allreduce(s[5].in.data(), s[5].out.data(), static_cast<int>(s[5].in.size()),
                              MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS);
      for (int k = 0; k < 6; ++k) {
        INFO("round " << round << " call " << k);
        CHECK(s[k].right(c));
      }
    }
    CHECK(last(c) == "shm");
  }  // (popped before the free)
  MPI_Comm_free(&c);
}

TEST_CASE("a communicator freed with shared-memory calls outstanding", "[shm]") {
  std::vector<Sum> s;
  MPI_Request r[2];
  {
    MPI_Comm c = comm_with("auto", "shm");
    for (int k = 0; k < 2; ++k) s.emplace_back(c, 1000, k);
    for (int k = 0; k < 2; ++k)
      REQUIRE(PCOLL_Iallreduce(s[k].in.data(), s[k].out.data(), 1000, MPI_DOUBLE, MPI_SUM, c,
                               &r[k]) == MPI_SUCCESS);
    MPI_Comm_free(&c);  // legal: the communicator lives until they complete
  }
  REQUIRE(PCOLL_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  for (int k = 0; k < 2; ++k) CHECK(s[k].right(MPI_COMM_WORLD));
}

TEST_CASE("shared-memory calls on several communicators at once", "[shm]") {
  // Two communicators, each with its segment, calls interleaved and completed crosswise: the
  // channels of one never wait for the other's.
  MPI_Comm a = comm_with("auto", "shm"), b = comm_with("auto", "shm");
  for (int round = 0; round < 10; ++round) {
    Sum sa(a, 77, round), sb(b, 5, round + 1);
    MPI_Request ra, rb;
    REQUIRE(PCOLL_Iallreduce(sa.in.data(), sa.out.data(), 77, MPI_DOUBLE, MPI_SUM, a, &ra) ==
            MPI_SUCCESS);
    REQUIRE(PCOLL_Iallreduce(sb.in.data(), sb.out.data(), 5, MPI_DOUBLE, MPI_SUM, b, &rb) ==
            MPI_SUCCESS);
    if ((rank_of(a) + round) % 2 == 0) {
      REQUIRE(PCOLL_Wait(&rb, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      REQUIRE(PCOLL_Wait(&ra, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
      REQUIRE(PCOLL_Wait(&ra, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      REQUIRE(PCOLL_Wait(&rb, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    CHECK(sa.right(a));
    CHECK(sb.right(b));
  }
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
}

TEST_CASE("a rank polling flags lets the program's point-to-point messages move", "[shm]") {
  // Rank 0 posts the receive of 4 MiB from the last rank (a rendezvous message: it is matched
  // and pulled only while rank 0 is inside MPI), then enters a shared-memory allreduce,
  // blocking and nonblocking; the last rank first waits for its send to complete. Rank 0 waits
  // on the last rank's flags while the last rank waits for rank 0 to take the message: unless
  // polling the flags also drives the vendor's progress, neither moves (MPICH's nonblocking3
  // hung so under the preload at P = 3).
  MPI_Comm c = comm_with("auto", "shm");
  const int P = size_of(c), me = rank_of(c);
  if (P < 2) {
    MPI_Comm_free(&c);
    return;
  }
  const std::vector<double> big(std::size_t(1) << 19, 1.5);
  for (const bool nonblocking : {false, true}) {
    std::vector<double> got(big.size(), 0);
    MPI_Request recv = MPI_REQUEST_NULL;
    if (me == 0) MPI_Irecv(got.data(), int(got.size()), MPI_DOUBLE, P - 1, 7, c, &recv);
    if (me == P - 1) {
      MPI_Request send;
      MPI_Isend(big.data(), int(big.size()), MPI_DOUBLE, 0, 7, c, &send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    }
    Sum s(c, 1000, nonblocking ? 1 : 0);
    if (nonblocking) {
      MPI_Request r;
      REQUIRE(PCOLL_Iallreduce(s.in.data(), s.out.data(), 1000, MPI_DOUBLE, MPI_SUM, c, &r) ==
              MPI_SUCCESS);
      REQUIRE(PCOLL_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
      REQUIRE(PCOLL_Allreduce(s.in.data(), s.out.data(), 1000, MPI_DOUBLE, MPI_SUM, c) ==
              MPI_SUCCESS);
    }
    CHECK(last(c) == "shm");
    CHECK(s.right(c));
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    if (me == 0) CHECK(got == big);
  }
  MPI_Comm_free(&c);
}

TEST_CASE("a wait for a shared-memory call never sleeps in the vendor's wait for another call",
          "[shm]") {
  // Rank 0 starts a shared-memory allreduce on `a` much larger than the segment (many pieces,
  // each needing every rank to move on) and a vendor allreduce on `b`, then waits for the first.
  // The other ranks start the vendor call on `b` only after the one on `a` is complete. A wait
  // that, finding the shared-memory call not ready, slept in the vendor's wait for the other
  // call's request would sleep for good: that request completes only when the others start
  // it, and they wait for rank 0's flags (MPICH's nonblocking3 hung so at P = 5..7).
  MPI_Comm a = comm_with("auto", "shm"), b = comm_with("off", "vendor");
  const int P = size_of(a), me = rank_of(a);
  if (P < 2) {
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    return;
  }
  const std::size_t n = std::size_t(1) << 21;  // 16 MiB: past any automatic segment size
  Sum big(a, n, 3), small(b, 9, 4);
  MPI_Request ra, rb = MPI_REQUEST_NULL;
  REQUIRE(PCOLL_Iallreduce(big.in.data(), big.out.data(), int(n), MPI_DOUBLE, MPI_SUM, a, &ra) ==
          MPI_SUCCESS);
  auto start_b = [&] {
    REQUIRE(PCOLL_Iallreduce(small.in.data(), small.out.data(), 9, MPI_DOUBLE, MPI_SUM, b,
                             &rb) == MPI_SUCCESS);
  };
  if (me == 0) start_b();
  REQUIRE(PCOLL_Wait(&ra, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(last(a) == "shm");
  if (me != 0) start_b();
  REQUIRE(PCOLL_Wait(&rb, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(big.right(a));
  CHECK(small.right(b));
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
}

TEST_CASE("blocking calls back to back skip the channel's entry wait and stay right", "[shm]") {
  // After two blocking calls a call knows its channel free (NodeSequence): a rank that raced
  // ahead into call n while a peer still read its slot of call n - 2 would change the peer's
  // result. Runs of blocking calls of both paths (all slots, block by block), with one rank
  // napping in turn, and nonblocking pairs between the runs.
  MPI_Comm c = comm_with("auto", "shm");
  const int P = size_of(c), me = rank_of(c);
  const std::size_t sizes[] = {1, 300, 5000, 2, 70000};
  for (int k = 0; k < 200; ++k) {
    const std::size_t n = sizes[k % 5];
    if (me == k % P && k % 3 == 0) usleep(200);
    if (k % 10 == 9) {
      Sum a(c, n, k), b(c, sizes[(k + 1) % 5], k + 1);
      MPI_Request r[2];
      REQUIRE(PCOLL_Iallreduce(a.in.data(), a.out.data(), int(a.in.size()), MPI_DOUBLE, MPI_SUM,
                               c, &r[0]) == MPI_SUCCESS);
      REQUIRE(PCOLL_Iallreduce(b.in.data(), b.out.data(), int(b.in.size()), MPI_DOUBLE, MPI_SUM,
                               c, &r[1]) == MPI_SUCCESS);
      REQUIRE(PCOLL_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
      CHECK(a.right(c));
      CHECK(b.right(c));
      continue;
    }
    Sum s(c, n, k);
    REQUIRE(PCOLL_Allreduce(s.in.data(), s.out.data(), int(n), MPI_DOUBLE, MPI_SUM, c) ==
            MPI_SUCCESS);
    if (!s.right(c)) FAIL("call " << k << " of " << n << " elements");
  }
  CHECK(last(c) == "shm");
  MPI_Comm_free(&c);
}

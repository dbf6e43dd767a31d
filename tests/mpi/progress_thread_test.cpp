// The progress thread (PCOLL_PROGRESS=thread, collectives/src/engine.hpp), run twice by ctest:
//   - "[thread]" under PCOLL_PROGRESS=thread: every allreduce algorithm's and every all-to-all
//     algorithm's nonblocking call completes while the program makes no pcoll call at all (it
//     watches the request with the vendor's MPI_Request_get_status, which knows nothing of
//     pcoll), and the vendor's own MPI_Wait / MPI_Waitall then complete pcoll's requests, mixed
//     with point-to-point ones; results bit-identical to the blocking calls. And a rank inside a
//     blocking vendor collective on one communicator while its peer waits for a nonblocking one
//     on another (the case that hangs without the thread, docs/architecture.md) completes;
//   - "[calls]" without it: the same ring allreduce does not complete while the program makes
//     no pcoll call (what the first case would see if the thread did nothing).
#include <mpi.h>
#include <pcoll/pcoll.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Overrides;
using pcoll_test::rank_of;
using pcoll_test::size_of;

namespace {

std::string config(MPI_Comm comm, const char *name) {
  const char *v = nullptr;
  REQUIRE(PCOLL_Config_get(comm, name, &v) == MPI_SUCCESS);
  return v != nullptr ? v : "";
}

// Order-sensitive doubles (their sum's bits depend on the order of the additions).
double value(int r, int i) {
  return ((i + r) % 3 == 0 ? 1e12 : 1.0) / static_cast<double>(1 + (r * 31 + i * 7) % 97);
}

// Waits up to `seconds` for the vendor to see the request complete, making no pcoll call.
bool completes_without_pcoll(MPI_Request r, double seconds) {
  const double until = MPI_Wtime() + seconds;
  int flag = 0;
  while (MPI_Wtime() < until) {
    PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
    if (flag) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return false;
}

std::vector<std::string> algorithms(const char *coll) {
  std::vector<std::string> v;
  for (int i = 0; const char *a = PCOLL_Algorithm_name(coll, i); ++i) v.emplace_back(a);
  return v;
}

}  // namespace

TEST_CASE("the progress thread completes collectives while the program computes", "[thread]") {
  MPI_Comm world = MPI_COMM_WORLD;
  REQUIRE(config(world, "progress") == "thread");
  int provided = 0;
  MPI_Query_thread(&provided);
  REQUIRE(provided == MPI_THREAD_MULTIPLE);  // PCOLL_Required_thread_level (mpi_main.cpp)
  const int P = size_of(world), me = rank_of(world);
  Failures f;
  const int n = 1000;
  std::vector<double> in(n), want(n), out(n);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(me, i);
  for (const std::string &algo : algorithms("allreduce")) {
    const Overrides o(world, {{"allreduce", algo.c_str()}});
    PCOLL_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, world);
    std::fill(out.begin(), out.end(), -1.0);
    MPI_Request r = MPI_REQUEST_NULL;
    REQUIRE(PCOLL_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, world, &r) ==
            MPI_SUCCESS);
    if (!completes_without_pcoll(r, 30.0)) {
      f.add("iallreduce " + algo + ": not complete after 30 s without pcoll calls");
      PCOLL_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&r, MPI_STATUS_IGNORE);  // the vendor's own wait
    }
    if (r != MPI_REQUEST_NULL) f.add("iallreduce " + algo + ": the request is not freed");
    // The vendor's nonblocking sum may add in another order than its blocking one (Open MPI's
    // libnbc against its tuned component): within 1e-12 there, bitwise for pcoll's plans.
    bool same = out == want;
    if (!same && algo == "vendor") {
      same = true;
      for (std::size_t i = 0; i < out.size(); ++i)
        same = same && std::abs(out[i] - want[i]) <= 1e-12 * std::abs(want[i]);
    }
    if (!same) f.add("iallreduce " + algo + ": differs from the blocking call");
  }
  // Every all-to-all algorithm, with a broadcast and point-to-point requests in one vendor
  // MPI_Waitall.
  const int per = 7;
  std::vector<int> a_in(static_cast<std::size_t>(per * P)), a_out(a_in.size());
  for (int d = 0; d < P; ++d)
    for (int k = 0; k < per; ++k) a_in[static_cast<std::size_t>(d * per + k)] = me * 1000 + d * 10 + k;
  for (const std::string &algo : algorithms("alltoall")) {
    const Overrides o(world, {{"alltoall", algo.c_str()}, {"bcast", "binomial"}});
    std::fill(a_out.begin(), a_out.end(), -1);
    int token = me == 0 ? 4242 : -1;
    int ring_in = me, ring_out = -1;
    MPI_Request reqs[4];
    REQUIRE(PCOLL_Ialltoall(a_in.data(), per, MPI_INT, a_out.data(), per, MPI_INT, world,
                            &reqs[0]) == MPI_SUCCESS);
    REQUIRE(PCOLL_Ibcast(&token, 1, MPI_INT, 0, world, &reqs[1]) == MPI_SUCCESS);
    MPI_Irecv(&ring_out, 1, MPI_INT, (me + P - 1) % P, 7, world, &reqs[2]);
    MPI_Isend(&ring_in, 1, MPI_INT, (me + 1) % P, 7, world, &reqs[3]);
    if (!completes_without_pcoll(reqs[0], 30.0) || !completes_without_pcoll(reqs[1], 30.0)) {
      f.add("ialltoall " + algo + " + ibcast: not complete after 30 s without pcoll calls");
      PCOLL_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    } else {
      MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);  // the vendor's
    }
    bool ok = token == 4242 && ring_out == (me + P - 1) % P;
    for (int s = 0; s < P; ++s)
      for (int k = 0; k < per; ++k)
        ok = ok && a_out[static_cast<std::size_t>(s * per + k)] == s * 1000 + me * 10 + k;
    if (!ok) f.add("ialltoall " + algo + " + ibcast + point-to-point: wrong data");
  }
  f.check_all(world);
}

TEST_CASE("a blocking vendor collective does not hold back a peer's wait on another communicator",
          "[thread]") {
  // Even ranks: Iallreduce(world, ring), Wait, then a blocking vendor allreduce on `other`. Odd
  // ranks: the vendor allreduce first, then Wait. The even ranks' wait needs the odd ranks to
  // advance the ring while they sit inside the vendor: their progress thread does.
  MPI_Comm world = MPI_COMM_WORLD, other = MPI_COMM_NULL;
  REQUIRE(config(world, "progress") == "thread");
  MPI_Comm_dup(world, &other);
  const int P = size_of(world), me = rank_of(world);
  Failures f;
  const int n = 257;
  std::vector<double> in(n), want(n), out(n, -1.0);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(me, i);
  {
  const Overrides ow(world, {{"allreduce", "ring"}});
  const Overrides oo(other, {{"allreduce", "vendor"}});
  PCOLL_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, world);
  MPI_Request r = MPI_REQUEST_NULL;
  REQUIRE(PCOLL_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, world, &r) == MPI_SUCCESS);
  long long mine = me + 1, total = 0;
  if (me % 2 == 0) {
    PCOLL_Wait(&r, MPI_STATUS_IGNORE);
    PCOLL_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, other);
  } else {
    PCOLL_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, other);
    PCOLL_Wait(&r, MPI_STATUS_IGNORE);
  }
  if (out != want) f.add("the outstanding ring allreduce differs from blocking");
  if (total != static_cast<long long>(P) * (P + 1) / 2) f.add("the vendor allreduce is wrong");
  }  // (the overrides end before the communicator)
  MPI_Comm_free(&other);
  f.check_all(world);
}

TEST_CASE("without the progress thread, a ring allreduce waits for pcoll calls", "[calls]") {
  MPI_Comm world = MPI_COMM_WORLD;
  REQUIRE(config(world, "progress") == "calls");
  const int P = size_of(world), me = rank_of(world);
  REQUIRE(P >= 2);  // (a ring of one rank completes at once)
  const int n = 1000;
  std::vector<double> in(n), want(n), out(n, -1.0);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(me, i);
  const Overrides o(world, {{"allreduce", "ring"}});
  PCOLL_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, world);
  MPI_Request r = MPI_REQUEST_NULL;
  REQUIRE(PCOLL_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, world, &r) == MPI_SUCCESS);
  int done = completes_without_pcoll(r, 0.2) ? 1 : 0, all_done = 1;
  PMPI_Allreduce(&done, &all_done, 1, MPI_INT, MPI_MIN, world);
  CHECK(all_done == 0);  // some rank's ring is stuck at a round it needs a call to post
  REQUIRE(PCOLL_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(out == want);
}

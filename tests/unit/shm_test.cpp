// The shared-memory level without MPI: the verifier must catch shared-memory plans that race
// (or it proves nothing about them), and the node segment's flags must order consecutive calls
// and calls in flight at once (shm/segment.hpp), with threads standing in for the ranks of a node
// and the real executor running the real plans on one mapping.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "config.hpp"
#include "executor.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "shm/segment.hpp"
#include "verify.hpp"

using namespace pcoll;

namespace {

using Set = std::vector<std::pair<std::string, std::string>>;

PlanRequest request(Collective coll, const char *algo, int P, std::size_t count, const Set &set) {
  std::vector<std::pair<int, std::string>> ov;
  for (const auto &s : set) ov.emplace_back(param_index(s.first), s.second);
  const Config cfg = with_overrides(load_config(), ov);
  return plan_request(*find_algorithm(coll, algo), cfg, 0, CallShape::in_units(coll, P, count, 8));
}

std::vector<Plan> plans_of(Collective coll, const char *algo, int P, std::size_t count,
                           const Set &set = {}) {
  return build_all(*find_algorithm(coll, algo), request(coll, algo, P, count, set));
}

std::string verify(Collective coll, std::vector<Plan> plans, std::size_t count) {
  VerifyOptions o;
  o.expect = collective_info(coll).expect;
  o.count = count;
  return verify_schedule(make_schedule(std::move(plans)), o);
}

// Drops every wait of rank r's rounds in phase `phase` (the n-th such round, or all: n < 0).
void drop_waits(Plan &p, const char *phase, int n = -1) {
  int seen = 0;
  for (Round &rd : p.rounds)
    if (p.phases[static_cast<std::size_t>(rd.phase)] == phase && !rd.waits.empty())
      if (n < 0 || seen++ == n) rd.waits.clear();
}

}  // namespace

TEST_CASE("shared-memory plans verify, and a missing wait is a race", "[shm][verify]") {
  const Collective ar = Collective::allreduce;
  for (const Set &set : {Set{}, Set{{"shm_small", "0"}}, Set{{"shm_chunk", "24"}}}) {
    for (int P : {2, 3, 5}) {
      const std::size_t n = 17;
      INFO("P=" << P << (set.empty() ? "" : " " + set[0].first + "=" + set[0].second));
      REQUIRE(verify(ar, plans_of(ar, "shm", P, n, set), n).empty());
      // The wait before the reduction: rank 1 reads slots another rank writes, unordered (a
      // race where the schedule's order has the write first, uninitialised memory where not).
      auto plans = plans_of(ar, "shm", P, n, set);
      drop_waits(plans[1], "shm_wait", 0);
      const std::string e = verify(ar, plans, n);
      INFO(e);
      REQUIRE((e.find("no flag or message ordering") != std::string::npos ||
               e.find("uninitialised") != std::string::npos));
    }
  }
  // With pieces: the wait before a rank reuses its slot (write after the others' reads).
  {
    const std::size_t n = 17;
    auto plans = plans_of(ar, "shm", 3, n, {{"shm_chunk", "24"}});
    int reuse = 0;
    for (Round &rd : plans[0].rounds)
      if (!rd.waits.empty() && reuse++ == 1) rd.waits.clear();  // (the 2nd: before piece 1 reuses the slot)
    const std::string e = verify(ar, plans, n);
    REQUIRE(e.find("writes node elements") != std::string::npos);
  }
  // A wait for a signal nobody raises, and two ranks waiting for each other.
  {
    auto plans = plans_of(ar, "shm", 2, 5);
    plans[0].rounds.back().waits.push_back(Wait{1, 99});
    REQUIRE(verify(ar, plans, 5).find("never raises its flag") != std::string::npos);
  }
  {
    auto plans = plans_of(ar, "shm", 2, 5);
    for (Plan &p : plans) std::swap(p.rounds[0].waits, p.rounds[1].waits);  // wait, then copy
    REQUIRE(verify(ar, plans, 5).find("deadlock") != std::string::npos);
  }
}

TEST_CASE("tiny vectors travel in the flags' own lines, and no plan reaches a flag",
          "[shm][verify]") {
  const Collective ar = Collective::allreduce;
  for (int P : {2, 3, 5, 9})
    for (std::size_t n : {1, 3, 7}) {  // 7 doubles: the 56-byte payload beside the 8-byte flag
      INFO("P=" << P << " n=" << n);
      auto plans = plans_of(ar, "shm", P, n);
      REQUIRE(plans[0].line_stride == 8);
      REQUIRE(plans[0].line_payload == 7);
      REQUIRE(plans[0].node_elems == 0);
      REQUIRE(verify(ar, plans, n).empty());
      drop_waits(plans[P - 1], "shm_wait");
      const std::string e = verify(ar, plans, n);
      INFO(e);
      REQUIRE((e.find("line elements") != std::string::npos ||
               e.find("uninitialised") != std::string::npos));
    }
  // Eight doubles do not fit: the slots of the data area.
  REQUIRE(plans_of(ar, "shm", 3, 8)[0].line_payload == 0);
  // A copy into the line's last element would overwrite the rank's flag.
  auto plans = plans_of(ar, "shm", 2, 7);
  LocalOp &in = plans[0].rounds[0].ops.at(0);
  REQUIRE(in.dst.buf == Buf::line);
  in.src.len = in.dst.len = 8;
  REQUIRE(check_plan(plans[0]).find("out of bounds") != std::string::npos);
  // A line range in a plan that declares no lines is out of bounds too (not a division by 0).
  in.src.len = in.dst.len = 7;
  REQUIRE(check_plan(plans[0]).empty());
  plans[0].line_stride = plans[0].line_payload = 0;
  REQUIRE(check_plan(plans[0]).find("out of bounds") != std::string::npos);
}

// A slot of one element has no halves: a binned sum's 48-byte element with shm_chunk = 48 once
// put odd pieces at slot offset 1, in the next rank's slot (the reproducible MPI test's wrong
// sums). Slots now hold at least two elements.
TEST_CASE("shared-memory pieces of elements as large as the chunk stay in their slots",
          "[shm][verify]") {
  for (const Collective coll : {Collective::allreduce, Collective::reduce, Collective::allgather})
    for (std::size_t ts : {24, 48, 100})
      for (int P : {2, 3, 5}) {
        const std::size_t n = 9;
        const AlgorithmInfo *a = find_algorithm(coll, "shm");
        std::vector<std::pair<int, std::string>> ov = {
            {param_index("shm_chunk"), std::to_string(ts)}, {param_index("shm_small"), "0"},
            {param_index("shm_reduce_small"), "0"}};
        const Config cfg = with_overrides(load_config(), ov);
        const PlanRequest req = plan_request(*a, cfg, 0, CallShape::in_units(coll, P, n, ts));
        INFO(collective_name(coll) << " type size " << ts << " P=" << P);
        REQUIRE(a->check(req).empty());
        REQUIRE(verify(coll, build_all(*a, req), n).empty());
      }
}

TEST_CASE("the shared-memory barrier holds every rank until all have entered", "[shm][verify]") {
  const Collective b = Collective::barrier;
  for (int P : {1, 2, 3, 7}) REQUIRE(verify(b, plans_of(b, "shm", P, 1), 1).empty());
  auto plans = plans_of(b, "shm", 4, 1);
  plans[2].rounds[1].waits.clear();
  REQUIRE(verify(b, plans, 1).find("may leave before") != std::string::npos);
}

namespace {

// One rank (a thread) of a node running `calls` allreduces through its view of the segment:
// call k has count counts[k] and input value (rank + 1) * (k + 1) + i; blocking calls run one at a
// time (after two of them a call skips its entry wait: NodeSequence), nonblocking ones two in
// flight, advanced alternately. Returns the first wrong element.
std::string run_rank(void *base, int me, int P, std::size_t slot, const std::vector<int> &counts,
                     const Set &set, bool two_in_flight, unsigned seed) {
  auto seg = NodeSegment::view(base, me, P, slot * static_cast<std::size_t>(P), 2);
  const Reducer sum(MPI_DOUBLE, sizeof(double), MPI_SUM);
  std::mt19937 rng(seed + static_cast<unsigned>(me));
  NodeSequence seq;  // (as Context's: blocking calls after blocking ones skip the entry wait)
  auto channel = [&](bool blocking, const Plan &plan) {
    return seq.next(seg.get(), 50, blocking, plan.waits_for_every_peer);
  };
  struct Call {
    std::vector<double> in, out;
    Plan plan;
    Cursor cur;
    std::vector<MPI_Request> req;
  };
  auto make = [&](std::size_t k, bool blocking) {
    auto c = std::make_unique<Call>();
    const std::size_t n = static_cast<std::size_t>(counts[k]);
    c->in.resize(n);
    c->out.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) c->in[i] = double((me + 1) * (int(k) + 1)) + double(i);
    PlanRequest req = request(Collective::allreduce, "shm", P, n, set);
    req.rank = me;
    req.node_segment = slot;
    c->plan = make_plan(*find_algorithm(Collective::allreduce, "shm"), req);
    // (as Context::next_node_channel: only calls whose plan uses the segment take a channel;
    // count 0 and P = 1 have no rounds)
    ExecBuffers b{c->in.data(), c->out.data(), nullptr, sizeof(double),
                  uses_node(c->plan) ? channel(blocking, c->plan) : NodeChannel{}};
    if (c->plan.copy_in_to_out) std::memcpy(c->out.data(), c->in.data(), n * sizeof(double));
    c->cur.reset(&c->plan, b, &sum, MPI_COMM_NULL, 0, &c->req);
    return c;
  };
  auto check = [&](const Call &c, std::size_t k) -> std::string {
    const double ranks = double(P) * (P + 1) / 2 * double(k + 1);
    for (std::size_t i = 0; i < c.out.size(); ++i)
      if (c.out[i] != ranks + double(P) * double(i))
        return "rank " + std::to_string(me) + " call " + std::to_string(k) + " element " +
               std::to_string(i) + ": " + std::to_string(c.out[i]);
    return {};
  };
  for (std::size_t k = 0; k < counts.size();) {
    if (rng() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
    // (two in flight: pairs of nonblocking calls and pairs of blocking ones in turn, so that a
    // pair starts after two blocking calls, knowing its first channel free)
    if (!two_in_flight || k + 1 == counts.size() || k % 4 >= 2) {
      auto c = make(k, true);
      if (c->cur.run_blocking(nullptr) != MPI_SUCCESS) return "error";
      if (std::string e = check(*c, k); !e.empty()) return e;
      ++k;
      continue;
    }
    auto a = make(k, false), b = make(k + 1, false);
    bool da = false, db = false;
    while (!da || !db) {
      if (!db && (rng() & 1)) db = b->cur.advance(nullptr);
      if (!da) da = a->cur.advance(nullptr);
    }
    if (std::string e = check(*a, k); !e.empty()) return e;
    if (std::string e = check(*b, k + 1); !e.empty()) return e;
    k += 2;
  }
  return {};
}

}  // namespace

TEST_CASE("the node segment's flags order consecutive calls and calls in flight", "[shm]") {
  const std::size_t slot = 256;  // bytes per rank per channel: 32 doubles
  const std::vector<int> counts = {1, 0, 5, 31, 32, 33, 100, 7, 64, 3, 200, 2, 1, 90};
  for (int P : {1, 2, 3, 4, 6}) {
    for (const Set &set : {Set{}, Set{{"shm_small", "0"}}, Set{{"shm_chunk", "24"}}}) {
      for (bool two : {false, true}) {
        const std::size_t bytes = NodeSegment::mapping_bytes(P, slot * std::size_t(P), 2);
        void *base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
        REQUIRE(base != MAP_FAILED);
        std::vector<std::string> errs(static_cast<std::size_t>(P));
        std::vector<std::thread> ranks;
        for (int r = 0; r < P; ++r)
          ranks.emplace_back([&, r] {
            errs[static_cast<std::size_t>(r)] = run_rank(base, r, P, slot, counts, set, two, 7);
          });
        for (auto &t : ranks) t.join();
        munmap(base, bytes);
        for (const std::string &e : errs) {
          INFO("P=" << P << " two in flight=" << two
                    << (set.empty() ? "" : " " + set[0].first + "=" + set[0].second));
          REQUIRE(e.empty());
        }
      }
    }
  }
}

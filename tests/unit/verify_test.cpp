// The verifier must catch broken plans, or the plan matrix proves nothing.
#include <catch2/catch.hpp>

#include "schedule.hpp"
#include "verify.hpp"

using namespace pcoll;

namespace {

// A correct 2-rank exchange: both send out, receive into tmp and reduce (lower rank left).
std::vector<Plan> two_rank_exchange(std::size_t n) {
  std::vector<Plan> plans(2);
  for (int r = 0; r < 2; ++r) {
    Plan &p = plans[r];
    p.rank = r;
    p.size = 2;
    p.in_elems = p.out_elems = p.tmp_elems = n;
    Round &rd = p.new_round(p.phase_index("x"));
    add_send(rd, 1 - r, out_range(0, n));
    const int rv = add_recv(rd, 1 - r, tmp_range(0, n));
    add_reduce(rd, tmp_range(0, n), out_range(0, n), r == 1, rv);
    finalize_plan(p);
  }
  return plans;
}

VerifyOptions opts(std::size_t n) {
  VerifyOptions o;
  o.count = n;
  return o;
}

}  // namespace

TEST_CASE("a correct plan verifies", "[verify]") {
  REQUIRE(verify_schedule(make_schedule(two_rank_exchange(10)), opts(10)).empty());
}

TEST_CASE("wrong operand order is caught", "[verify]") {
  auto plans = two_rank_exchange(10);
  plans[1].rounds[0].ops[0].src_is_left = false;  // rank 1 computes v1 op v0
  const std::string e = verify_schedule(make_schedule(plans), opts(10));
  REQUIRE(e.find("rank order") != std::string::npos);
}

TEST_CASE("results that differ between ranks are caught even for commutative ops", "[verify]") {
  auto plans = two_rank_exchange(10);
  plans[1].rounds[0].ops[0].src_is_left = false;
  VerifyOptions o = opts(10);
  o.require_order = false;
  const std::string e = verify_schedule(make_schedule(plans), o);
  REQUIRE(e.find("bit-identical") != std::string::npos);
}

TEST_CASE("a missing contribution is caught", "[verify]") {
  auto plans = two_rank_exchange(10);
  plans[0].rounds[0].ops[0].src.len = plans[0].rounds[0].ops[0].dst.len = 9;
  const std::string e = verify_schedule(make_schedule(plans), opts(10));
  REQUIRE(e.find("lacks the contribution") != std::string::npos);
}

TEST_CASE("double counting is caught", "[verify]") {
  auto plans = two_rank_exchange(4);
  plans[1].rounds[0].ops.push_back(plans[1].rounds[0].ops[0]);  // rank 1's src stays intact
  const std::string e = verify_schedule(make_schedule(plans), opts(4));
  REQUIRE(e.find("twice") != std::string::npos);
}

TEST_CASE("unmatched messages and deadlocks are caught", "[verify]") {
  auto plans = two_rank_exchange(4);
  plans[0].rounds[0].recvs[0].range.len = 3;
  plans[0].rounds[0].ops[0].src.len = plans[0].rounds[0].ops[0].dst.len = 3;
  REQUIRE(make_schedule(plans).error.find("expects") != std::string::npos);

  // Both ranks receive first in separate rounds: deadlock under the rendezvous model.
  std::vector<Plan> dl(2);
  for (int r = 0; r < 2; ++r) {
    dl[r].rank = r;
    dl[r].size = 2;
    dl[r].out_elems = dl[r].tmp_elems = 4;
    add_recv(dl[r].new_round(0), 1 - r, tmp_range(0, 4));
    add_send(dl[r].new_round(0), 1 - r, out_range(0, 4));
  }
  REQUIRE(make_schedule(dl).error.find("deadlock") != std::string::npos);
}

TEST_CASE("a message sent in one step and received in another is caught", "[verify]") {
  // Rank 0 sends in step 0; rank 1 receives in its first round, which its builder marked as
  // step 1 (as make_plan does when an empty round came first): the model would charge that
  // message's node link in the wrong step.
  std::vector<Plan> plans(2);
  for (int r = 0; r < 2; ++r) {
    plans[r].rank = r;
    plans[r].size = 2;
    plans[r].out_elems = 4;
  }
  add_send(plans[0].new_round(0), 1, out_range(0, 4));
  add_recv(plans[1].new_round(0), 0, out_range(0, 4));
  plans[0].rounds[0].step = 0;
  plans[1].rounds[0].step = 0;
  VerifyOptions bcast;
  bcast.count = 4;
  bcast.expect = collective_info(Collective::bcast).expect;
  REQUIRE(verify_schedule(make_schedule(plans), bcast).empty());
  plans[1].rounds[0].step = 1;
  REQUIRE(verify_schedule(make_schedule(plans), bcast)
              .find("in step 1 what rank 0 sends in step 0") != std::string::npos);
}

TEST_CASE("hazards inside a round are caught", "[verify]") {
  auto plans = two_rank_exchange(4);
  plans[0].rounds[0].recvs[0].range = out_range(0, 4);  // receive into the buffer being sent
  REQUIRE(make_schedule(plans).error.find("overlaps a pending send") != std::string::npos);
}

TEST_CASE("reading uninitialised scratch is caught", "[verify]") {
  auto plans = two_rank_exchange(4);
  plans[0].rounds[0].ops[0].src = tmp_range(0, 4);
  plans[0].rounds[0].recvs[0].range = tmp_range(0, 4);
  plans[0].tmp_elems = 8;
  plans[0].rounds[0].recvs[0].range.off = 4;
  plans[0].rounds[0].ops[0].after_recv = -1;
  const std::string e = verify_schedule(make_schedule(plans), opts(4));
  REQUIRE(e.find("uninitialised") != std::string::npos);
}

TEST_CASE("finalize_plan: an op waits for the round's sends of what it may write", "[plan]") {
  // The executor may compute a reduction whose src is not on the left into src (user ops,
  // reduce.cpp): a pending send of src must complete first, as one of dst must.
  Plan p;
  Round &r = p.new_round(0);
  add_send(r, 1, out_range(0, 4));
  const int rv = add_recv(r, 1, tmp_range(0, 4));
  add_reduce(r, out_range(0, 4), tmp_range(4, 4), false, rv);  // src sent, may be written
  add_reduce(r, out_range(0, 4), tmp_range(8, 4), true, rv);   // src sent, only read
  add_reduce(r, tmp_range(0, 4), out_range(0, 4), true, rv);   // dst sent
  add_copy(r, out_range(0, 4), tmp_range(12, 4));               // src sent, only read
  finalize_plan(p);
  CHECK(r.ops[0].after_sends);
  CHECK_FALSE(r.ops[1].after_sends);
  CHECK(r.ops[2].after_sends);
  CHECK_FALSE(r.ops[3].after_sends);
}

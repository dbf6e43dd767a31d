// Schedule: the plans of ALL ranks of one call, with every receive matched to its send and the
// rounds put in an order in which they can complete. Built without MPI; the basis of the ledger
// (ledger.hpp), of the symbolic verification (verify.hpp) and of `pcoll-info --plan`.
//
// Matching follows MPI's non-overtaking rule on one communicator and tag: the i-th message rank s
// sends to rank d is received by the i-th receive rank d posts from s. Completion follows a
// rendezvous model (the safest assumption): a round completes only when every peer it sends to
// or receives from has started the matching round; a schedule in which no round can complete is
// a deadlock and is reported as an error. A shared-memory wait (Round::waits) is satisfied once
// the round raising the awaited signal has completed.
#pragma once

#include <string>
#include <vector>

#include "plan.hpp"
#include "registry.hpp"

namespace pcoll {

struct MsgLink {
  int rank = -1;
  int round = -1;
  int index = -1;
};

struct Schedule {
  std::vector<Plan> plans;  // plans[r] is rank r's plan
  // recv_from[r][k][i]: the send matched with receive i of round k of rank r; send_to likewise.
  std::vector<std::vector<std::vector<MsgLink>>> recv_from, send_to;
  // wait_on[r][k][i]: the round (index -1) whose signal satisfies wait i of round k of rank r:
  // that round must have completed before this one begins.
  std::vector<std::vector<std::vector<MsgLink>>> wait_on;
  // (rank, round) pairs in an order in which they complete under the rendezvous model.
  std::vector<std::pair<int, int>> order;
  std::string error;  // empty when the plans pair up and cannot deadlock

  int size() const { return static_cast<int>(plans.size()); }
};

// Builds every rank's plan for `req` (req.rank is ignored) with make_plan (plan.hpp).
std::vector<Plan> build_all(const AlgorithmInfo &algo, const PlanRequest &req);
// The same with rank r's own layout layouts[r] (alltoallv; layouts.size() == req.size).
std::vector<Plan> build_all(const AlgorithmInfo &algo, const PlanRequest &req,
                            const std::vector<Layout> &layouts);
// Checks ranges against buffer sizes and hazards inside one plan; empty string when fine.
std::string check_plan(const Plan &plan);
Schedule make_schedule(std::vector<Plan> plans);

}  // namespace pcoll

// The completion calls of pcoll's requests, with MPI's signatures (PCOLL_Wait/Test and their
// -all, -any, -some forms, PCOLL_Request_get_status, PCOLL_Start(all), PCOLL_Request_free;
// libpcoll_mpi.so installs them as MPI's). Every call first moves the outstanding operations on
// (progress), then completes what it was given: the vendor's requests by the vendor, persistent
// pcoll tokens here (an MPI call that is not pcoll's treats a token as an inactive request), and
// a nonblocking operation's generalized request by the vendor once the engine completed it.
// A wait for pcoll's requests alone blocks on their transfers (block_once) instead of polling.
#include <pcoll/pcoll.h>

#include <vector>

#include "engine.hpp"
#include "request.hpp"
#include "trace/recorder.hpp"

namespace pcoll {
namespace {

// The requests of an array that are not persistent pcoll tokens, for the vendor's calls.
struct Split {
  std::vector<MPI_Request> rest;
  std::vector<int> where;  // rest[k] is array[where[k]]
  std::vector<int> mine;   // indices of pcoll tokens
  void make(int n, const MPI_Request *reqs) {
    for (int i = 0; i < n; ++i) {
      if (persistent_of(reqs[i]) != nullptr) {
        mine.push_back(i);
      } else {
        rest.push_back(reqs[i]);
        where.push_back(i);
      }
    }
  }
  void write_back(MPI_Request *reqs) const {
    for (std::size_t k = 0; k < rest.size(); ++k) reqs[where[k]] = rest[k];
  }
};

MPI_Status *status_at(MPI_Status *sts, int i) {
  return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : sts + i;
}

// Waitall/Testall over an array holding pcoll tokens: the tokens' operations complete first
// (Waitall) or must all be complete (Testall) before the vendor sees the rest, because MPI's
// Testall changes nothing unless every request is complete.
int all_with_tokens(int n, MPI_Request *reqs, int *flag, MPI_Status *sts, bool block) {
  Split s;
  s.make(n, reqs);
  for (;;) {
    progress();
    bool done = true;
    for (int i : s.mine)
      if (persistent_of(reqs[i])->active_) done = false;
    if (done) break;
    if (!block) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  std::vector<MPI_Status> rest_st(s.rest.size());
  int rc = MPI_SUCCESS, f = 1;
  const int nr = static_cast<int>(s.rest.size());
  if (nr > 0) {
    for (;;) {
      rc = PMPI_Testall(nr, s.rest.data(), &f, rest_st.data());
      if (rc != MPI_SUCCESS || f || !block) break;
      progress();
    }
  }
  if (!f) {
    *flag = 0;
    return rc;
  }
  s.write_back(reqs);
  bool failed = rc != MPI_SUCCESS;
  if (sts != MPI_STATUSES_IGNORE)
    for (std::size_t k = 0; k < s.rest.size(); ++k) sts[s.where[k]] = rest_st[k];
  for (int i : s.mine) {
    if (complete_persistent(persistent_of(reqs[i]), status_at(sts, i)) != MPI_SUCCESS)
      failed = true;
  }
  *flag = 1;
  return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

// Waitany/Testany over an array holding pcoll tokens.
int any_with_tokens(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *st, bool block) {
  Split s;
  s.make(n, reqs);
  for (;;) {
    progress();
    bool some_active = false;
    for (int i : s.mine) {
      Operation *op = persistent_of(reqs[i]);
      if (!op->mpi_active_) continue;
      some_active = true;
      if (!op->active_) {
        *index = i;
        *flag = 1;
        return complete_persistent(op, st);
      }
    }
    int k = MPI_UNDEFINED, f = 0;
    const int rc = s.rest.empty()
                       ? (f = 1, MPI_SUCCESS)
                       : PMPI_Testany(static_cast<int>(s.rest.size()), s.rest.data(), &k, &f, st);
    s.write_back(reqs);
    if (rc != MPI_SUCCESS || (f && k != MPI_UNDEFINED)) {
      *index = k == MPI_UNDEFINED ? MPI_UNDEFINED : s.where[static_cast<std::size_t>(k)];
      *flag = 1;
      return rc;
    }
    if (f && !some_active) {  // nothing active at all
      *index = MPI_UNDEFINED;
      *flag = 1;
      empty_status(st, MPI_SUCCESS);
      return MPI_SUCCESS;
    }
    if (!block) {
      *index = MPI_UNDEFINED;
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
}

// Waitsome/Testsome over an array holding pcoll tokens.
int some_with_tokens(int n, MPI_Request *reqs, int *outcount, int *indices, MPI_Status *sts,
                     bool block) {
  Split s;
  s.make(n, reqs);
  std::vector<int> k(s.rest.size());
  std::vector<MPI_Status> rest_st(s.rest.size());
  for (;;) {
    progress();
    int out = 0;
    bool some_active = false, failed = false;
    for (int i : s.mine) {
      Operation *op = persistent_of(reqs[i]);
      if (!op->mpi_active_) continue;
      some_active = true;
      if (op->active_) continue;
      indices[out] = i;
      if (complete_persistent(op, status_at(sts, out)) != MPI_SUCCESS) failed = true;
      ++out;
    }
    int m = 0;
    int rc = MPI_SUCCESS;
    if (!s.rest.empty()) {
      rc = PMPI_Testsome(static_cast<int>(s.rest.size()), s.rest.data(), &m, k.data(),
                         rest_st.data());
      s.write_back(reqs);
    } else {
      m = MPI_UNDEFINED;
    }
    if (m != MPI_UNDEFINED) {
      for (int j = 0; j < m; ++j) {
        indices[out] = s.where[static_cast<std::size_t>(k[static_cast<std::size_t>(j)])];
        if (sts != MPI_STATUSES_IGNORE) sts[out] = rest_st[static_cast<std::size_t>(j)];
        ++out;
      }
    }
    if (m == MPI_UNDEFINED && !some_active) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    if (out > 0 || rc != MPI_SUCCESS || !block) {
      *outcount = out;
      if (rc != MPI_SUCCESS || failed) return MPI_ERR_IN_STATUS;
      return MPI_SUCCESS;
    }
  }
}

// Whether every request of the array is pcoll's: a persistent token, or the handle of an
// outstanding nonblocking operation (null requests do not count). Then a wait for them may
// block on the operations' transfers (block_once).
bool only_pcoll(int n, const MPI_Request *reqs) {
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    if (persistent_of(reqs[i]) == nullptr && !outstanding_handle(reqs[i])) return false;
    any = true;
  }
  return any;
}

// Waits, blocking on the operations' transfers, until none of the n requests (all pcoll's) is
// active in the engine; the caller then completes them as usual (at once).
void wait_engine(int n, const MPI_Request *reqs) {
  auto active = [&] {
    for (int i = 0; i < n; ++i) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      if (Operation *op = persistent_of(reqs[i])) {
        if (op->active_) return true;
      } else if (outstanding_handle(reqs[i])) {
        return true;
      }
    }
    return false;
  };
  for (;;) {
    progress();
    if (!active()) return;
    block_once();
  }
}

}  // namespace
}  // namespace pcoll

using pcoll::operations_outstanding;
using pcoll::progress;

extern "C" {

int PCOLL_Wait(MPI_Request *request, MPI_Status *status) {
  const pcoll::EngineLock lock;           // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;  // the traced operations' "wait" phase
  if (pcoll::only_pcoll(1, request)) pcoll::wait_engine(1, request);
  if (pcoll::Operation *op = pcoll::persistent_of(*request))  // (inactive: wait_engine ran)
    return pcoll::op_error(op, pcoll::complete_persistent(op, status));
  return pcoll::wait_while_progressing(request, status);
}

int PCOLL_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  progress();
  if (pcoll::Operation *op = pcoll::persistent_of(*request)) {
    *flag = !op->active_;
    if (!*flag) return MPI_SUCCESS;
    return pcoll::op_error(op, pcoll::complete_persistent(op, status));
  }
  return PMPI_Test(request, flag, status);
}

int PCOLL_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  const pcoll::EngineLock lock;           // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;  // the traced operations' "wait" phase
  if (pcoll::only_pcoll(count, requests)) pcoll::wait_engine(count, requests);
  if (pcoll::any_persistent_token(count, requests)) {
    int flag = 0;
    return pcoll::all_with_tokens(count, requests, &flag, statuses, true);
  }
  while (operations_outstanding()) {
    progress();
    int flag = 0;
    const int rc = PMPI_Testall(count, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return PMPI_Waitall(count, requests, statuses);
}

int PCOLL_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::any_persistent_token(count, requests))
    return pcoll::all_with_tokens(count, requests, flag, statuses, false);
  progress();
  return PMPI_Testall(count, requests, flag, statuses);
}

int PCOLL_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  const pcoll::EngineLock lock;           // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;  // the traced operations' "wait" phase
  if (pcoll::any_persistent_token(count, requests)) {
    int flag = 0;
    return pcoll::any_with_tokens(count, requests, index, &flag, status, true);
  }
  while (operations_outstanding()) {
    progress();
    int flag = 0;
    const int rc = PMPI_Testany(count, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return PMPI_Waitany(count, requests, index, status);
}

int PCOLL_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::any_persistent_token(count, requests))
    return pcoll::any_with_tokens(count, requests, index, flag, status, false);
  progress();
  return PMPI_Testany(count, requests, index, flag, status);
}

int PCOLL_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;
  if (pcoll::any_persistent_token(incount, requests))
    return pcoll::some_with_tokens(incount, requests, outcount, indices, statuses, true);
  while (operations_outstanding()) {
    progress();
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
  }
  return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

int PCOLL_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::any_persistent_token(incount, requests))
    return pcoll::some_with_tokens(incount, requests, outcount, indices, statuses, false);
  progress();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int PCOLL_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  progress();
  if (pcoll::Operation *op = pcoll::persistent_of(request)) {
    *flag = !op->active_;
    if (*flag) pcoll::empty_status(status, op->mpi_active_ ? op->err_ : MPI_SUCCESS);
    return MPI_SUCCESS;
  }
  return PMPI_Request_get_status(request, flag, status);
}

int PCOLL_Start(MPI_Request *request) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  return pcoll::start_one(request);
}

int PCOLL_Startall(int count, MPI_Request requests[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  for (int i = 0; i < count; ++i)
    if (const int rc = pcoll::start_one(&requests[i]); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

int PCOLL_Request_free(MPI_Request *request) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::Operation *op = pcoll::persistent_of(*request))
    return pcoll::free_persistent(op, request);
  return PMPI_Request_free(request);
}

}  // extern "C"

// Shared pieces of the MPI tests: collective-safe failure accounting and the algorithm variants
// (enumerated from the registry, see tests/common/variants.hpp).
#pragma once

#include <mpi.h>

#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <array>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../common/variants.hpp"

namespace pcoll_test {

// A non-commutative user op for rank-order tests: 2x2 matrix product over uint32 (wrapping).
using Mat = std::array<std::uint32_t, 4>;
inline Mat matmul(const Mat &a, const Mat &b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
          a[2] * b[1] + a[3] * b[3]};
}
inline void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *) {
  // inout = in * inout: `in` holds the lower ranks' product (MPI 4.1 Sec. 6.9.5).
  auto *a = static_cast<const Mat *>(in);
  auto *b = static_cast<Mat *>(inout);
  for (int i = 0; i < *len; ++i) b[i] = matmul(a[i], b[i]);
}
inline Mat mat_input(int r, std::size_t j) {
  const auto x = static_cast<std::uint32_t>(j % 101);
  return {std::uint32_t(r + 1), std::uint32_t(2 * r + x), std::uint32_t(x + 3),
          std::uint32_t(r * x + 1)};
}

inline int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
inline int size_of(MPI_Comm c) {
  int p = 1;
  MPI_Comm_size(c, &p);
  return p;
}

// Inside loops of collective calls a failing REQUIRE on one rank would leave the others waiting
// in the next collective. Record failures instead and check them together at the end.
class Failures {
 public:
  void add(const std::string &what) {
    if (count_++ == 0) first_ = what;
  }
  // Collective over comm: all ranks learn whether any rank failed.
  void check_all(MPI_Comm comm) {
    int local = count_, total = 0, rank = 0;
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_rank(comm, &rank);
    INFO("rank " << rank << ": " << count_ << " local failures; first: " << first_);
    CHECK(local == 0);
    CHECK(total == 0);
    count_ = 0;
    first_.clear();
  }

 private:
  int count_ = 0;
  std::string first_;
};

struct Variant {
  std::string label;
  std::vector<std::pair<std::string, std::string>> set;  // parameter overrides
};

// Every registered allreduce algorithm (registry order, vendor aside: it is the reference) with
// its defaults and the MPI variants of tests/common/variants.hpp, then auto.
inline std::vector<Variant> allreduce_variants() {
  std::vector<Variant> v;
  for (const AlgoVariant &a : variants_of("allreduce", mpi))
    v.push_back({a.label, a.overrides("allreduce")});
  v.push_back({"auto", {{"allreduce", "auto"}}});
  return v;
}

// Applies a list of parameter overrides to a communicator for the lifetime of the object.
class Overrides {
 public:
  Overrides(MPI_Comm comm, const std::vector<std::pair<std::string, std::string>> &set) {
    for (const auto &s : set)
      guards_.emplace_back(new pcoll::ScopedConfig(comm, s.first, s.second));
  }
  ~Overrides() {
    while (!guards_.empty()) {  // pop in reverse order of the pushes
      delete guards_.back();
      guards_.pop_back();
    }
  }
  Overrides(const Overrides &) = delete;
  Overrides &operator=(const Overrides &) = delete;

 private:
  std::vector<pcoll::ScopedConfig *> guards_;
};

// The three forms of a collective call: blocking, nonblocking (completed by PCOLL_Wait) and
// persistent (started twice, `refill` run before the second start, then freed).
enum class Form { blocking, nonblocking, persistent };
inline const char *form_name(Form f) {
  return f == Form::blocking ? "" : f == Form::nonblocking ? " nonblocking" : " persistent";
}

// One call in `form`: blocking() returns the call's error code; nonblocking(&req) and
// init(&req) start the nonblocking call and create the persistent request.
template <class Blocking, class Nonblocking, class Init, class Refill>
int call_in_form(Form form, Blocking blocking, Nonblocking nonblocking, Init init,
                 Refill refill) {
  if (form == Form::blocking) return blocking();
  MPI_Request req = MPI_REQUEST_NULL;
  if (form == Form::nonblocking) {
    const int rc = nonblocking(&req);
    return rc != MPI_SUCCESS ? rc : PCOLL_Wait(&req, MPI_STATUS_IGNORE);
  }
  int rc = init(&req);
  for (int start = 0; rc == MPI_SUCCESS && start < 2; ++start) {
    if (start == 1) refill();
    rc = PCOLL_Start(&req);
    if (rc == MPI_SUCCESS) rc = PCOLL_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (req != MPI_REQUEST_NULL) PCOLL_Request_free(&req);
  return rc;
}

}  // namespace pcoll_test

// Nonblocking (PCOLL_I<coll>) and persistent (PCOLL_<Coll>_init) collectives against their
// blocking twins, under every registered algorithm of each collective (tests/common/variants.hpp)
// and the vendor:
//   - allreduce (also in place), reduce_scatter_block, reduce, allgather, alltoall, alltoallv,
//     bcast, barrier at counts 0, 1, P-1, P+1, 13, 1000: the nonblocking result is
//     bit-identical to the blocking one (double sums, whose bits depend on the order of the
//     additions), completed by PCOLL_Wait or by a PCOLL_Test polling loop;
//   - persistent requests started several times with new buffer contents each time (100 times
//     for one of them), each result bit-identical to the blocking call on the same contents;
//   - many collectives outstanding at once on two communicators with different algorithms,
//     mixed with point-to-point requests and persistent ones in one PCOLL_Waitall, in
//     PCOLL_Waitany / Waitsome / Testall loops, and completed in reverse order;
//   - a blocking collective called while a nonblocking one is outstanding, on ranks whose peers
//     wait for that nonblocking one first (legal MPI: the blocking call must not hold back the
//     outstanding one), for a pcoll algorithm and the vendor as the blocking call, on the same
//     and on another communicator;
//   - errors: a null request pointer, starting an active persistent request, freeing one.
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

using pcoll_test::Failures;
using pcoll_test::Overrides;
using pcoll_test::rank_of;
using pcoll_test::size_of;

namespace {

enum class Mode { blocking, nonblocking, polled, persistent };
const char *mode_name(Mode m) {
  switch (m) {
    case Mode::blocking:
      return "blocking";
    case Mode::nonblocking:
      return "nonblocking";
    case Mode::polled:
      return "nonblocking (PCOLL_Test loop)";
    case Mode::persistent:
      return "persistent";
  }
  return "?";
}

// Order-sensitive doubles: their sum's last bits depend on the order of the additions.
double value(int r, std::size_t i, int seed) {
  const double mag = (i + static_cast<std::size_t>(r) + static_cast<std::size_t>(seed)) % 3 == 0
                         ? 1e12
                         : ((i % 2) != 0U ? 1e-7 : 1.0);
  return mag / static_cast<double>(1 + (static_cast<std::size_t>(r) * 31 + i * 7 +
                                        static_cast<std::size_t>(seed) * 13) %
                                           97);
}

// One collective call: fill(seed) sets the inputs, issue(request) calls it (request null:
// blocking), out() is what the call produced on this rank.
struct Case {
  std::function<void(int seed)> fill;
  std::function<int(MPI_Request *request, bool persistent)> issue;
  std::function<std::vector<char>()> out;
  // The vendor's nonblocking reductions may add in another order than its blocking ones (Open
  // MPI's libnbc against its tuned component): compared to 1e-12 relative then, not bitwise.
  bool tolerant = false;
  // Persistent calls served by another algorithm than the blocking one (the shared-memory
  // algorithms fall back to the vendor for them): compared to 1e-12 relative, likewise.
  bool persistent_tolerant = false;
};

bool same(const Case &c, const std::vector<char> &a, const std::vector<char> &b,
          bool persistent = false) {
  const bool tolerant = c.tolerant || (persistent && c.persistent_tolerant);
  if (!tolerant || a.size() != b.size()) return a == b;
  for (std::size_t i = 0; i + sizeof(double) <= a.size(); i += sizeof(double)) {
    double x = 0, y = 0;
    std::memcpy(&x, a.data() + i, sizeof x);
    std::memcpy(&y, b.data() + i, sizeof y);
    if (!(std::abs(x - y) <= 1e-12 * (std::abs(x) + std::abs(y)))) return false;
  }
  return true;
}

// Runs one call in mode m and returns its error code.
int run_once(const Case &c, Mode m) {
  if (m == Mode::blocking) return c.issue(nullptr, false);
  MPI_Request r = MPI_REQUEST_NULL;
  if (m == Mode::persistent) {
    if (int rc = c.issue(&r, true); rc != MPI_SUCCESS) return rc;
    if (int rc = PCOLL_Start(&r); rc != MPI_SUCCESS) return rc;
    int rc = PCOLL_Wait(&r, MPI_STATUS_IGNORE);
    const int rf = PCOLL_Request_free(&r);
    return rc != MPI_SUCCESS ? rc : rf;
  }
  if (int rc = c.issue(&r, false); rc != MPI_SUCCESS) return rc;
  if (m == Mode::nonblocking) return PCOLL_Wait(&r, MPI_STATUS_IGNORE);
  int flag = 0;
  while (!flag)
    if (int rc = PCOLL_Test(&r, &flag, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
  return r == MPI_REQUEST_NULL ? MPI_SUCCESS : MPI_ERR_REQUEST;
}

// Every mode gives the blocking result; `served[m]` is the algorithm that served mode m.
void compare_modes(const Case &c, const std::string &what, Failures &f, MPI_Comm comm,
                   std::vector<std::string> &served) {
  c.fill(1);
  if (int rc = run_once(c, Mode::blocking); rc != MPI_SUCCESS) f.add("blocking failed: " + what);
  const char *used = "";
  PCOLL_Get_last_algorithm(comm, &used);
  served = {used};
  const std::vector<char> want = c.out();
  for (Mode m : {Mode::nonblocking, Mode::polled, Mode::persistent}) {
    c.fill(1);
    if (int rc = run_once(c, m); rc != MPI_SUCCESS)
      f.add(std::string(mode_name(m)) + " failed (" + std::to_string(rc) + "): " + what);
    else if (!same(c, c.out(), want, m == Mode::persistent))
      f.add(std::string(mode_name(m)) + " differs from blocking: " + what);
    PCOLL_Get_last_algorithm(comm, &used);
    served.push_back(used);
  }
}

// A persistent request started `starts` times, the inputs changed before each start.
void restart(const Case &c, int starts, const std::string &what, Failures &f) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (c.issue(&r, true) != MPI_SUCCESS) {
    f.add("init failed: " + what);
    return;
  }
  for (int s = 0; s < starts; ++s) {
    c.fill(s + 2);
    if (PCOLL_Start(&r) != MPI_SUCCESS || PCOLL_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      f.add("start/wait failed: " + what);
      break;
    }
    if (r == MPI_REQUEST_NULL) {
      f.add("the persistent request became MPI_REQUEST_NULL: " + what);
      return;
    }
    const std::vector<char> got = c.out();
    c.fill(s + 2);
    c.issue(nullptr, false);
    if (!same(c, c.out(), got, true)) {
      f.add("start " + std::to_string(s) + " differs from blocking: " + what);
      break;
    }
  }
  if (PCOLL_Request_free(&r) != MPI_SUCCESS || r != MPI_REQUEST_NULL)
    f.add("request free failed: " + what);
}

template <class T>
std::vector<char> bytes_of(const std::vector<T> &v) {
  std::vector<char> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<std::size_t> counts_for(int P) {
  return {0, 1, static_cast<std::size_t>(P - 1), static_cast<std::size_t>(P + 1), 13, 1000};
}

// The buffers of one collective at one count, and its Case.
struct Buffers {
  std::vector<double> dsend, drecv;
  std::vector<int> isend, irecv;
  std::vector<int> scounts, sdispls, rcounts, rdispls;
};

Case make_case(const std::string &coll, std::size_t n, MPI_Comm comm, Buffers &b, bool in_place) {
  const int P = size_of(comm), me = rank_of(comm);
  const int cnt = static_cast<int>(n);
  Case c;
  if (coll == "allreduce" || coll == "reduce_scatter_block" || coll == "reduce") {
    const std::size_t in = coll == "reduce_scatter_block" ? n * static_cast<std::size_t>(P) : n;
    const std::size_t out = coll == "reduce_scatter_block" && !in_place ? n : in;
    b.dsend.assign(in, 0.0);
    b.drecv.assign(out, 0.0);
    c.fill = [&b, me, in_place](int seed) {
      std::vector<double> &dst = in_place ? b.drecv : b.dsend;
      for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = value(me, i, seed);
      if (!in_place) std::fill(b.drecv.begin(), b.drecv.end(), -1.0);
    };
    const int root = P - 1;
    c.issue = [&b, coll, cnt, comm, in_place, root](MPI_Request *r, bool persistent) {
      const void *s = in_place ? MPI_IN_PLACE : b.dsend.data();
      void *d = b.drecv.data();
      if (coll == "allreduce")
        return !r ? PCOLL_Allreduce(s, d, cnt, MPI_DOUBLE, MPI_SUM, comm)
               : persistent
                   ? PCOLL_Allreduce_init(s, d, cnt, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, r)
                   : PCOLL_Iallreduce(s, d, cnt, MPI_DOUBLE, MPI_SUM, comm, r);
      if (coll == "reduce_scatter_block")
        return !r ? PCOLL_Reduce_scatter_block(s, d, cnt, MPI_DOUBLE, MPI_SUM, comm)
               : persistent ? PCOLL_Reduce_scatter_block_init(s, d, cnt, MPI_DOUBLE, MPI_SUM,
                                                              comm, MPI_INFO_NULL, r)
                            : PCOLL_Ireduce_scatter_block(s, d, cnt, MPI_DOUBLE, MPI_SUM, comm, r);
      return !r ? PCOLL_Reduce(s, d, cnt, MPI_DOUBLE, MPI_SUM, root, comm)
             : persistent
                 ? PCOLL_Reduce_init(s, d, cnt, MPI_DOUBLE, MPI_SUM, root, comm, MPI_INFO_NULL, r)
                 : PCOLL_Ireduce(s, d, cnt, MPI_DOUBLE, MPI_SUM, root, comm, r);
    };
    const bool has_out = coll != "reduce" || me == root;
    c.out = [&b, has_out] { return has_out ? bytes_of(b.drecv) : std::vector<char>{}; };
    return c;
  }
  if (coll == "allgather" || coll == "alltoall" || coll == "bcast") {
    const std::size_t per = n * static_cast<std::size_t>(P);
    b.isend.assign(coll == "alltoall" ? per : n, 0);
    b.irecv.assign(coll == "bcast" ? n : per, 0);
    const int root = 1 % P;
    c.fill = [&b, me, coll, root](int seed) {
      for (std::size_t i = 0; i < b.isend.size(); ++i)
        b.isend[i] = me * 100000 + static_cast<int>(i) * 7 + seed;
      for (std::size_t i = 0; i < b.irecv.size(); ++i)
        b.irecv[i] = coll == "bcast" && me == root ? static_cast<int>(i) * 3 + seed : -1;
    };
    c.issue = [&b, coll, cnt, comm, root](MPI_Request *r, bool persistent) {
      if (coll == "bcast")
        return !r ? PCOLL_Bcast(b.irecv.data(), cnt, MPI_INT, root, comm)
               : persistent
                   ? PCOLL_Bcast_init(b.irecv.data(), cnt, MPI_INT, root, comm, MPI_INFO_NULL, r)
                   : PCOLL_Ibcast(b.irecv.data(), cnt, MPI_INT, root, comm, r);
      const void *s = b.isend.data();
      void *d = b.irecv.data();
      if (coll == "allgather")
        return !r ? PCOLL_Allgather(s, cnt, MPI_INT, d, cnt, MPI_INT, comm)
               : persistent ? PCOLL_Allgather_init(s, cnt, MPI_INT, d, cnt, MPI_INT, comm,
                                                   MPI_INFO_NULL, r)
                            : PCOLL_Iallgather(s, cnt, MPI_INT, d, cnt, MPI_INT, comm, r);
      return !r ? PCOLL_Alltoall(s, cnt, MPI_INT, d, cnt, MPI_INT, comm)
             : persistent
                 ? PCOLL_Alltoall_init(s, cnt, MPI_INT, d, cnt, MPI_INT, comm, MPI_INFO_NULL, r)
                 : PCOLL_Ialltoall(s, cnt, MPI_INT, d, cnt, MPI_INT, comm, r);
    };
    c.out = [&b] { return bytes_of(b.irecv); };
    return c;
  }
  if (coll == "alltoallv") {
    b.scounts.assign(static_cast<std::size_t>(P), 0);
    b.rcounts = b.sdispls = b.rdispls = b.scounts;
    int st = 0, rt = 0;
    for (int q = 0; q < P; ++q) {
      b.scounts[static_cast<std::size_t>(q)] = static_cast<int>(n) * ((me + q) % 3);
      b.rcounts[static_cast<std::size_t>(q)] = static_cast<int>(n) * ((q + me) % 3);
      b.sdispls[static_cast<std::size_t>(q)] = st;
      b.rdispls[static_cast<std::size_t>(q)] = rt;
      st += b.scounts[static_cast<std::size_t>(q)];
      rt += b.rcounts[static_cast<std::size_t>(q)];
    }
    b.isend.assign(static_cast<std::size_t>(st), 0);
    b.irecv.assign(static_cast<std::size_t>(rt), 0);
    c.fill = [&b, me](int seed) {
      for (std::size_t i = 0; i < b.isend.size(); ++i)
        b.isend[i] = me * 100000 + static_cast<int>(i) + seed;
      std::fill(b.irecv.begin(), b.irecv.end(), -1);
    };
    c.issue = [&b, comm](MPI_Request *r, bool persistent) {
      const int *sc = b.scounts.data(), *sd = b.sdispls.data(), *rc = b.rcounts.data(),
                *rd = b.rdispls.data();
      return !r ? PCOLL_Alltoallv(b.isend.data(), sc, sd, MPI_INT, b.irecv.data(), rc, rd,
                                  MPI_INT, comm)
             : persistent ? PCOLL_Alltoallv_init(b.isend.data(), sc, sd, MPI_INT, b.irecv.data(),
                                                 rc, rd, MPI_INT, comm, MPI_INFO_NULL, r)
                          : PCOLL_Ialltoallv(b.isend.data(), sc, sd, MPI_INT, b.irecv.data(), rc,
                                             rd, MPI_INT, comm, r);
    };
    c.out = [&b] { return bytes_of(b.irecv); };
    return c;
  }
  // barrier
  c.fill = [](int) {};
  c.issue = [comm](MPI_Request *r, bool persistent) {
    return !r ? PCOLL_Barrier(comm)
           : persistent ? PCOLL_Barrier_init(comm, MPI_INFO_NULL, r) : PCOLL_Ibarrier(comm, r);
  };
  c.out = [] { return std::vector<char>{}; };
  return c;
}

void every_variant(const std::string &coll, bool in_place = false) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int P = size_of(comm);
  Failures f;
  int ran = 0;
  for (const auto &v : pcoll_test::variants_of(coll, pcoll_test::mpi, true)) {
    const Overrides o(comm, v.overrides(coll));
    const std::vector<std::size_t> counts =
        coll == "barrier" ? std::vector<std::size_t>{1} : counts_for(P);
    for (std::size_t n : counts) {
      Buffers b;
      Case c = make_case(coll, n, comm, b, in_place);
      c.tolerant = v.algo == "vendor";
      c.persistent_tolerant = v.algo == "shm" && P > 1;
      const std::string what = coll + (in_place ? " in place" : "") + " " + v.label + " P=" +
                               std::to_string(P) + " n=" + std::to_string(n);
      std::vector<std::string> served;
      compare_modes(c, what, f, comm, served);
      // The shared-memory algorithms do not serve persistent calls yet (their starts may come in
      // a different order on each rank): those fall back to the vendor, visibly, and must still
      // give the blocking result (above). (At P = 1 there is nothing to share: every call is
      // the local copy, served by the algorithm itself.)
      const bool persistent_served = v.algo != "shm" || P == 1;
      for (std::size_t m = 0; m < served.size(); ++m) {
        const std::string want = m == 3 && !persistent_served ? "vendor" : v.algo;
        if (want != served[m] && (n > 0 || coll == "barrier"))
          f.add("served by " + served[m] + " (mode " + std::to_string(m) + "): " + what);
      }
      ++ran;
      if (n == 13) restart(c, 3, what, f);
    }
  }
  CHECK(ran > 0);
  f.check_all(comm);
}

}  // namespace

TEST_CASE("nonblocking and persistent allreduce match blocking, every algorithm", "[nonblocking]") {
  every_variant("allreduce");
  every_variant("allreduce", true);
}
TEST_CASE("nonblocking and persistent reduce_scatter_block match blocking", "[nonblocking]") {
  every_variant("reduce_scatter_block");
}
TEST_CASE("nonblocking and persistent reduce match blocking", "[nonblocking]") {
  every_variant("reduce");
}
TEST_CASE("nonblocking and persistent allgather match blocking", "[nonblocking]") {
  every_variant("allgather");
}
TEST_CASE("nonblocking and persistent alltoall match blocking", "[nonblocking]") {
  every_variant("alltoall");
}
TEST_CASE("nonblocking and persistent alltoallv match blocking", "[nonblocking]") {
  every_variant("alltoallv");
}
TEST_CASE("nonblocking and persistent bcast match blocking", "[nonblocking]") {
  every_variant("bcast");
}
TEST_CASE("nonblocking and persistent barrier complete", "[nonblocking]") {
  every_variant("barrier");
}

TEST_CASE("a persistent allreduce restarted 100 times", "[nonblocking]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  Failures f;
  for (const char *algo : {"ring", "chiara", "vendor"}) {
    const Overrides o(comm, {{"allreduce", algo}});
    Buffers b;
    Case c = make_case("allreduce", 1000, comm, b, false);
    c.tolerant = std::string(algo) == "vendor";
    restart(c, 100, std::string("allreduce ") + algo, f);
  }
  f.check_all(comm);
}

TEST_CASE("many outstanding collectives, point-to-point and persistent requests in one Waitall",
          "[nonblocking]") {
  MPI_Comm world = MPI_COMM_WORLD, other = MPI_COMM_NULL;
  MPI_Comm_dup(world, &other);
  const int P = size_of(world), me = rank_of(world);
  Failures f;
  const std::vector<std::string> algos = {"ring", "recursive_doubling", "rabenseifner", "tree",
                                          "chiara", "vendor"};
  const int n = 1000;
  for (int order = 0; order < 4; ++order) {
    std::vector<std::vector<double>> in(algos.size(), std::vector<double>(n)),
        out(algos.size(), std::vector<double>(n, -1.0)),
        want(algos.size(), std::vector<double>(n, -2.0));
    for (std::size_t a = 0; a < algos.size(); ++a)
      for (int i = 0; i < n; ++i) in[a][static_cast<std::size_t>(i)] = value(me, i, int(a));
    // The blocking answers first, each under its algorithm.
    for (std::size_t a = 0; a < algos.size(); ++a) {
      const Overrides o(world, {{"allreduce", algos[a]}});
      PCOLL_Allreduce(in[a].data(), want[a].data(), n, MPI_DOUBLE, MPI_SUM, world);
    }
    std::vector<int> a2a_in(static_cast<std::size_t>(P) * 5), a2a_out(a2a_in.size(), -1);
    for (std::size_t i = 0; i < a2a_in.size(); ++i) a2a_in[i] = me * 1000 + static_cast<int>(i);
    std::vector<MPI_Request> reqs;
    // Every allreduce outstanding at once on one communicator, each with its algorithm (the
    // decision is made at the call), an alltoall on the other communicator, a ring of
    // point-to-point messages, and a persistent barrier.
    for (std::size_t a = 0; a < algos.size(); ++a) {
      const Overrides o(world, {{"allreduce", algos[a]}});
      reqs.emplace_back();
      if (PCOLL_Iallreduce(in[a].data(), out[a].data(), n, MPI_DOUBLE, MPI_SUM, world,
                           &reqs.back()) != MPI_SUCCESS)
        f.add("Iallreduce failed: " + algos[a]);
    }
    reqs.emplace_back();
    PCOLL_Ialltoall(a2a_in.data(), 5, MPI_INT, a2a_out.data(), 5, MPI_INT, other, &reqs.back());
    int token = me, got = -1;
    reqs.emplace_back();
    MPI_Irecv(&got, 1, MPI_INT, (me + P - 1) % P, 7, world, &reqs.back());
    reqs.emplace_back();
    MPI_Isend(&token, 1, MPI_INT, (me + 1) % P, 7, world, &reqs.back());
    MPI_Request barrier = MPI_REQUEST_NULL;
    PCOLL_Barrier_init(other, MPI_INFO_NULL, &barrier);
    PCOLL_Start(&barrier);
    reqs.push_back(barrier);
    const std::size_t barrier_at = reqs.size() - 1;
    std::vector<MPI_Status> st(reqs.size());
    int rc = MPI_SUCCESS;
    if (order == 0) {
      rc = PCOLL_Waitall(static_cast<int>(reqs.size()), reqs.data(), st.data());
    } else if (order == 1) {
      for (std::size_t i = reqs.size(); i-- > 0;)
        rc |= PCOLL_Wait(&reqs[i], MPI_STATUS_IGNORE);  // reverse order
    } else if (order == 2) {
      for (std::size_t done = 0; done < reqs.size(); ++done) {
        int idx = MPI_UNDEFINED;
        rc |= PCOLL_Waitany(static_cast<int>(reqs.size()), reqs.data(), &idx, MPI_STATUS_IGNORE);
        if (idx == MPI_UNDEFINED) {
          f.add("Waitany: MPI_UNDEFINED with requests left");
          break;
        }
      }
      int idx = 0;
      PCOLL_Waitany(static_cast<int>(reqs.size()), reqs.data(), &idx, MPI_STATUS_IGNORE);
      if (idx != MPI_UNDEFINED) f.add("Waitany on completed requests did not give MPI_UNDEFINED");
    } else {
      int flag = 0, outcount = 0;
      std::vector<int> idx(reqs.size());
      std::size_t done = 0;
      while (done < reqs.size()) {  // Testsome, then Testall, polling
        rc |= PCOLL_Testsome(static_cast<int>(reqs.size()), reqs.data(), &outcount, idx.data(),
                             MPI_STATUSES_IGNORE);
        if (outcount == MPI_UNDEFINED) break;
        done += static_cast<std::size_t>(outcount);
      }
      rc |= PCOLL_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE);
      if (!flag) f.add("Testall after Testsome completed everything: flag 0");
    }
    if (rc != MPI_SUCCESS) f.add("completion failed, order " + std::to_string(order));
    for (std::size_t a = 0; a < algos.size(); ++a)
      if (algos[a] != "vendor" && out[a] != want[a]) f.add("outstanding allreduce differs from blocking: " + algos[a]);
    for (int q = 0; q < P; ++q)
      for (int k = 0; k < 5; ++k)
        if (a2a_out[static_cast<std::size_t>(q * 5 + k)] != q * 1000 + me * 5 + k)
          f.add("outstanding alltoall wrong");
    if (got != (me + P - 1) % P) f.add("point-to-point message wrong");
    if (reqs[barrier_at] != barrier) f.add("the persistent request was not left as it was");
    PCOLL_Request_free(&barrier);
  }
  MPI_Comm_free(&other);
  f.check_all(world);
}

TEST_CASE("a blocking collective while a nonblocking one is outstanding that a peer waits for",
          "[nonblocking]") {
  // Even ranks: Iallreduce(A), blocking B, Wait(A). Odd ranks: Iallreduce(A), Wait(A), B. A has
  // several rounds (ring, chiara), so the odd ranks' Wait needs the even ranks to advance A
  // while they are inside B. (A vendor B on another communicator is not covered: pcoll cannot
  // advance its plans inside the vendor's blocking call; see docs/architecture.md.)
  MPI_Comm world = MPI_COMM_WORLD, other = MPI_COMM_NULL;
  MPI_Comm_dup(world, &other);
  const int P = size_of(world), me = rank_of(world);
  Failures f;
  const int n = 1000;
  std::vector<double> in(n), want(n, -2.0), out(n, -1.0), b_in(n), b_want(n, -2.0), b_out(n);
  for (int i = 0; i < n; ++i) {
    in[static_cast<std::size_t>(i)] = value(me, i, 3);
    b_in[static_cast<std::size_t>(i)] = value(me, i, 4);
  }
  for (const char *a_algo : {"ring", "chiara"})
    for (const char *b_algo : {"ring", "recursive_doubling", "chiara", "vendor"})
      for (const bool same_comm : {true, false}) {
        if (!same_comm && std::string(b_algo) == "vendor") continue;
        const MPI_Comm b_comm = same_comm ? world : other;
        const std::string what = std::string("A ") + a_algo + ", B " + b_algo +
                                 (same_comm ? " (same communicator)" : " (another communicator)");
        {
          const Overrides o(world, {{"allreduce", a_algo}});
          PCOLL_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, world);
        }
        const Overrides ob(b_comm, {{"allreduce", b_algo}, {"bcast", b_algo == std::string("vendor") ? "vendor" : "auto"}});
        PCOLL_Allreduce(b_in.data(), b_want.data(), n, MPI_DOUBLE, MPI_SUM, b_comm);
        std::fill(out.begin(), out.end(), -1.0);
        std::fill(b_out.begin(), b_out.end(), -1.0);
        MPI_Request r = MPI_REQUEST_NULL;
        {
          const Overrides o(world, {{"allreduce", a_algo}});
          if (PCOLL_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, world, &r) !=
              MPI_SUCCESS)
            f.add("Iallreduce failed: " + what);
        }
        int root_value = me == 0 ? 42 : -1;
        if (me % 2 == 0) {
          PCOLL_Allreduce(b_in.data(), b_out.data(), n, MPI_DOUBLE, MPI_SUM, b_comm);
          PCOLL_Bcast(&root_value, 1, MPI_INT, 0, b_comm);
          PCOLL_Wait(&r, MPI_STATUS_IGNORE);
        } else {
          PCOLL_Wait(&r, MPI_STATUS_IGNORE);
          PCOLL_Allreduce(b_in.data(), b_out.data(), n, MPI_DOUBLE, MPI_SUM, b_comm);
          PCOLL_Bcast(&root_value, 1, MPI_INT, 0, b_comm);
        }
        if (out != want) f.add("the outstanding allreduce differs from blocking: " + what);
        if (b_out != b_want) f.add("the blocking allreduce differs: " + what);
        if (root_value != 42) f.add("the blocking bcast is wrong: " + what);
        (void)P;
      }
  MPI_Comm_free(&other);
  f.check_all(world);
}

TEST_CASE("a blocking call the cost model decides while only some ranks have an operation "
          "outstanding", "[nonblocking]") {
  // Even ranks: Iallreduce(A, ring), blocking B, Wait(A); odd ranks: Iallreduce(A), Wait(A), B.
  // B is auto with no rules, at a count no call used before, so its algorithm is the model's,
  // decided at that call. Whether a rank has operations outstanding is its own, so it may not
  // choose how the ranks decide: when it did, the even ranks decided locally and ran B while the
  // odd ones waited for rank 0's broadcast of the choice (a hang at every P >= 2).
  MPI_Comm world = MPI_COMM_WORLD, other = MPI_COMM_NULL;
  MPI_Comm_dup(world, &other);
  const int me = rank_of(world);
  Failures f;
  const int n = 1000;
  std::vector<double> in(n), want(n), out(n);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(me, i, 5);
  {
    const Overrides o(world, {{"allreduce", "ring"}});
    PCOLL_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, world);
  }
  int k = 0;
  for (const bool same_comm : {true, false})
    for (int round = 0; round < 3; ++round, ++k) {
      const MPI_Comm b_comm = same_comm ? world : other;
      const int bn = 1 + 97 * k;  // a new shape each time: 1, 98, 195, ... elements
      std::vector<double> b_in(static_cast<std::size_t>(bn)), b_want(b_in.size()),
          b_out(b_in.size(), -1.0);
      for (int i = 0; i < bn; ++i) b_in[static_cast<std::size_t>(i)] = value(me, i, 6 + k);
      {
        const Overrides o(b_comm, {{"allreduce", "vendor"}});
        PCOLL_Allreduce(b_in.data(), b_want.data(), bn, MPI_DOUBLE, MPI_SUM, b_comm);
      }
      std::fill(out.begin(), out.end(), -1.0);
      MPI_Request r = MPI_REQUEST_NULL;
      {
        const Overrides o(world, {{"allreduce", "ring"}});
        if (PCOLL_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, world, &r) !=
            MPI_SUCCESS)
          f.add("Iallreduce failed");
      }
      const Overrides ob(b_comm, {{"allreduce", "auto"}, {"rules", "none"}});
      if (me % 2 == 0) {
        PCOLL_Allreduce(b_in.data(), b_out.data(), bn, MPI_DOUBLE, MPI_SUM, b_comm);
        PCOLL_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        PCOLL_Wait(&r, MPI_STATUS_IGNORE);
        PCOLL_Allreduce(b_in.data(), b_out.data(), bn, MPI_DOUBLE, MPI_SUM, b_comm);
      }
      const std::string what = std::to_string(bn) + " elements" +
                               (same_comm ? " (same communicator)" : " (another communicator)");
      if (out != want) f.add("the outstanding allreduce differs from blocking: " + what);
      for (int i = 0; i < bn; ++i)
        if (std::abs(b_out[static_cast<std::size_t>(i)] - b_want[static_cast<std::size_t>(i)]) >
            1e-12 * std::max(1.0, std::abs(b_want[static_cast<std::size_t>(i)]))) {
          f.add("the model-decided allreduce differs from the vendor's: " + what);
          break;
        }
    }
  MPI_Comm_free(&other);
  f.check_all(world);
}

TEST_CASE("nonblocking errors: null request, active persistent restarted or freed",
          "[nonblocking]") {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  double x = 1, y = 0;
  int cls = MPI_SUCCESS;
  MPI_Error_class(PCOLL_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, nullptr), &cls);
  CHECK(cls == MPI_ERR_REQUEST);
  MPI_Request r = MPI_REQUEST_NULL;
  REQUIRE(PCOLL_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
  REQUIRE(PCOLL_Start(&r) == MPI_SUCCESS);
  MPI_Error_class(PCOLL_Start(&r), &cls);
  CHECK(cls == MPI_ERR_REQUEST);
  MPI_Error_class(PCOLL_Request_free(&r), &cls);
  CHECK(cls == MPI_ERR_REQUEST);
  CHECK(PCOLL_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(y == static_cast<double>(size_of(comm)));
  int flag = 0;
  CHECK(PCOLL_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);  // inactive: complete
  CHECK(flag == 1);
  CHECK(PCOLL_Request_free(&r) == MPI_SUCCESS);
  CHECK(r == MPI_REQUEST_NULL);
  MPI_Comm_free(&comm);
}

// The trace recorder and writer: phases sum to no more than the call, clock offsets, bounded
// memory (summaries past trace_max_calls, and the file says so), application phases, a file
// written at P ranks read back with the HDF5 C API in the documented layout, and nonblocking and
// persistent operations recorded from start to completion with their progress and wait phases.
#include <hdf5.h>
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/trace.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "trace/recorder.hpp"

using pcoll::trace::recorder;

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

std::string test_file(const char *stem) {
  return std::string("trace_test_") + stem + "_np" + std::to_string(world_size()) + ".h5";
}

void some_calls(const std::vector<const char *> &algos, int n, int count) {
  std::vector<double> in(static_cast<std::size_t>(count), 1.0), out(in.size());
  for (int k = 0; k < n; ++k)
    for (const char *a : algos) {
      pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", a);
      REQUIRE(PCOLL_Allreduce(in.data(), out.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
    }
}

long long read_attr_ll(hid_t obj, const char *name) {
  long long v = -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_LLONG, &v);
  H5Aclose(a);
  return v;
}

hsize_t rows(hid_t file, const char *name) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(s, &n, nullptr);
  H5Sclose(s);
  H5Dclose(d);
  return n;
}

}  // namespace

TEST_CASE("log histogram median estimate") {
  pcoll::trace::LogHistogram h;
  for (int i = 1; i <= 1001; ++i) h.add(i * 1e-6);  // median 501 us
  CHECK(h.n() == 1001);
  CHECK(h.min() == Approx(1e-6));
  CHECK(h.max() == Approx(1001e-6));
  CHECK(std::fabs(h.quantile(0.5) - 501e-6) / 501e-6 < 0.03);
}

TEST_CASE("recorder: calls, phases within the call, clock offsets, app phases") {
  const std::string path = test_file("calls");
  REQUIRE(PCOLL_Trace_start(path.c_str()) == MPI_SUCCESS);
  REQUIRE(PCOLL_Trace_active() == 1);
  const auto &r = recorder();
  // Offsets: measured at start against MPI_COMM_WORLD rank 0.
  REQUIRE(r.start_offset.measured);
  if (world_rank() == 0) CHECK(r.start_offset.offset == 0.0);
  if (world_rank() != 0) CHECK(r.start_offset.rtt > 0.0);
  CHECK(std::isfinite(r.start_offset.offset));
  // After a barrier, every rank's clock corrected by its offset agrees with rank 0's to within
  // a generous bound (oversubscribed ranks may be descheduled).
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - r.start_offset.offset, t0 = t;
  MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  CHECK(std::fabs(t - t0) < 0.05);

  REQUIRE(PCOLL_Trace_iteration_begin(7) == MPI_SUCCESS);
  REQUIRE(PCOLL_Trace_phase_begin("compute") == MPI_SUCCESS);
  REQUIRE(PCOLL_Trace_phase_end("compute") == MPI_SUCCESS);
  CHECK(PCOLL_Trace_phase_end("never_opened") == MPI_ERR_ARG);
  some_calls({"vendor", "ring", "rabenseifner", "tree"}, 3, 1000);
  REQUIRE(PCOLL_Trace_record("io", 0.25) == MPI_SUCCESS);
  REQUIRE(PCOLL_Trace_iteration_end() == MPI_SUCCESS);

  REQUIRE(r.calls().size() == 12);
  for (std::size_t i = 0; i < r.calls().size(); ++i) {
    const auto &c = r.calls()[i];
    CHECK(c.seq == i);
    CHECK(c.comm_seq == i);
    CHECK(c.iteration == 7);
    CHECK(c.bytes == 8000);
    CHECK(c.count == 1000);
    CHECK(c.comm_size == world_size());
    CHECK(c.comm_root == 0);
    CHECK(r.names()[c.coll] == "allreduce");
    double sum = 0;
    for (std::uint32_t k = 0; k < c.nphases; ++k) sum += r.phases()[c.phase_first + k].seconds;
    CHECK(sum <= c.t_exit - c.t_enter);
    const std::string algo = r.names()[c.algo];
    if (algo == "vendor") CHECK(c.nphases == 0);
    if (algo == "ring" && world_size() > 1) CHECK(c.nphases == 2);
  }
  REQUIRE(r.app().size() == 3);  // compute, io, iteration
  CHECK(r.names()[r.app()[0].name] == "compute");
  CHECK(r.names()[r.app()[2].name] == "iteration");

  REQUIRE(PCOLL_Trace_stop() == MPI_SUCCESS);
  CHECK(PCOLL_Trace_active() == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    CHECK(std::fopen((path + ".tmp").c_str(), "r") == nullptr);  // renamed, nothing left
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const hsize_t P = static_cast<hsize_t>(world_size());
    CHECK(rows(f, "calls") == 12 * P);
    CHECK(rows(f, "app") == 3 * P);
    CHECK(rows(f, "clock") == P);
    CHECK(rows(f, "summary") == 0);
    hid_t run = H5Gopen2(f, "run", H5P_DEFAULT);
    CHECK(read_attr_ll(run, "nranks") == world_size());
    CHECK(read_attr_ll(run, "format_version") == 1);
    CHECK(read_attr_ll(run, "complete") == 1);
    CHECK(read_attr_ll(run, "per_call_records_complete") == 1);
    CHECK(read_attr_ll(run, "calls_total") == static_cast<long long>(12 * P));
    H5Gclose(run);
    // The documented fields of /calls, read by name (HDF5 converts by member name).
    struct Row {
      int rank;
      unsigned long long seq;
      char algorithm[32];
      double seconds, t_enter, t_exit;
      unsigned long long phase_first;
      unsigned nphases;
    };
    hid_t s32 = H5Tcopy(H5T_C_S1);
    H5Tset_size(s32, 32);
    hid_t row_t = H5Tcreate(H5T_COMPOUND, sizeof(Row));
    H5Tinsert(row_t, "rank", HOFFSET(Row, rank), H5T_NATIVE_INT);
    H5Tinsert(row_t, "seq", HOFFSET(Row, seq), H5T_NATIVE_ULLONG);
    H5Tinsert(row_t, "algorithm", HOFFSET(Row, algorithm), s32);
    H5Tinsert(row_t, "seconds", HOFFSET(Row, seconds), H5T_NATIVE_DOUBLE);
    H5Tinsert(row_t, "t_enter", HOFFSET(Row, t_enter), H5T_NATIVE_DOUBLE);
    H5Tinsert(row_t, "t_exit", HOFFSET(Row, t_exit), H5T_NATIVE_DOUBLE);
    H5Tinsert(row_t, "phase_first", HOFFSET(Row, phase_first), H5T_NATIVE_ULLONG);
    H5Tinsert(row_t, "nphases", HOFFSET(Row, nphases), H5T_NATIVE_UINT);
    std::vector<Row> v(12 * P);
    hid_t d = H5Dopen2(f, "calls", H5P_DEFAULT);
    REQUIRE(H5Dread(d, row_t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
    H5Dclose(d);
    for (hsize_t i = 0; i < v.size(); ++i) {
      CHECK(v[i].rank == static_cast<int>(i / 12));
      CHECK(v[i].seconds == Approx(v[i].t_exit - v[i].t_enter).margin(1e-9));
      CHECK(v[i].phase_first + v[i].nphases <= rows(f, "phases"));
    }
    H5Tclose(row_t);
    H5Tclose(s32);
    H5Fclose(f);
  }
}

TEST_CASE("nonblocking and persistent operations: one record from start to completion") {
  const std::string path = test_file("nonblocking");
  REQUIRE(PCOLL_Trace_start(path.c_str()) == MPI_SUCCESS);
  const auto &r = recorder();
  const std::size_t before = r.calls().size();
  const int n = 1000;
  std::vector<double> in(n, 1.0), out(n, 0.0);
  const double busy = 0.002;  // seconds of "compute" between the start and the wait
  auto compute = [busy] {
    const double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < busy) {
    }
  };
  for (const char *algo : {"ring", "vendor"}) {
    pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", algo);
    MPI_Request req = MPI_REQUEST_NULL;
    REQUIRE(PCOLL_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req) ==
            MPI_SUCCESS);
    compute();
    REQUIRE(PCOLL_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(out[0] == static_cast<double>(world_size()));
  }
  MPI_Request pers = MPI_REQUEST_NULL;
  {
    pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", "recursive_doubling");
    REQUIRE(PCOLL_Allreduce_init(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &pers) == MPI_SUCCESS);
  }
  for (int k = 0; k < 3; ++k) {
    REQUIRE(PCOLL_Start(&pers) == MPI_SUCCESS);
    REQUIRE(PCOLL_Wait(&pers, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  REQUIRE(PCOLL_Request_free(&pers) == MPI_SUCCESS);
  REQUIRE(r.calls().size() == before + 5);  // the calls themselves are not recorded
  std::vector<std::string> colls, algos;
  for (std::size_t i = before; i < r.calls().size(); ++i) {
    const auto &c = r.calls()[i];
    colls.push_back(r.names()[c.coll]);
    algos.push_back(r.names()[c.algo]);
    CHECK(c.bytes == 8000);
    if (i > before) CHECK(c.comm_seq == r.calls()[i - 1].comm_seq + 1);  // in issue order
    REQUIRE(c.nphases >= 1);
    const auto &last = r.phases()[c.phase_first + c.nphases - 1];
    CHECK(r.names()[last.name] == "wait");
    double sum = 0;
    for (std::uint32_t k = 0; k < c.nphases; ++k) sum += r.phases()[c.phase_first + k].seconds;
    CHECK(sum <= c.t_exit - c.t_enter);  // exact: differences of one monotonic clock
    CHECK(last.seconds >= 0.0);
    CHECK(c.t_exit >= c.t_enter);
    if (algos.back() == "ring" && world_size() > 1) CHECK(c.nphases == 3);  // 2 plan phases
    if (algos.back() == "vendor") CHECK(c.nphases == 1);
  }
  CHECK(colls == std::vector<std::string>{"iallreduce", "iallreduce", "allreduce_init",
                                          "allreduce_init", "allreduce_init"});
  CHECK(algos[0] == "ring");
  CHECK(algos[1] == "vendor");
  CHECK(algos[2] == "recursive_doubling");
  REQUIRE(PCOLL_Trace_stop() == MPI_SUCCESS);
}

// Under load a rank is descheduled anywhere, also between two clock readings of the trace: a
// record's phases must still sum to no more than its span, exactly (every phase and the span are
// differences of readings of one monotonic clock, the wait ends at the reading that ends the
// record). Many operations outstanding at once, advanced inside each other's waits, completed in
// an order that differs across ranks and rounds by every kind of completion call, with sleeps
// between the calls that stand in for the descheduling.
TEST_CASE("outstanding operations completed in any order: phases within each record") {
  const std::string path = test_file("outstanding");
  REQUIRE(PCOLL_Trace_start(path.c_str()) == MPI_SUCCESS);
  const auto &r = recorder();
  const std::size_t before = r.calls().size();
  const int nops = 6, n = 257;
  std::vector<std::vector<double>> in(nops, std::vector<double>(n, 1.0)),
      out(nops, std::vector<double>(n, 0.0));
  const char *algos[] = {"ring", "vendor", "recursive_doubling", "rabenseifner", "tree", "chiara"};
  unsigned seed = 12345u + 977u * static_cast<unsigned>(world_rank());
  auto next = [&seed] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
  std::size_t expected = 0;
  for (int round = 0; round < 4; ++round) {
    std::vector<MPI_Request> req(nops, MPI_REQUEST_NULL);
    for (int k = 0; k < nops; ++k) {
      pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", algos[k]);
      REQUIRE(PCOLL_Iallreduce(in[k].data(), out[k].data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                               &req[k]) == MPI_SUCCESS);
    }
    expected += nops;
    int left = nops;
    while (left > 0) {
      if (next() % 2) usleep(static_cast<useconds_t>(next() % 300));
      int idx = MPI_UNDEFINED, flag = 0;
      switch ((round + static_cast<int>(next())) % 4) {
        case 0: {  // one in a random place, by MPI_Wait
          int k = static_cast<int>(next() % nops);
          while (req[k] == MPI_REQUEST_NULL) k = (k + 1) % nops;
          REQUIRE(PCOLL_Wait(&req[k], MPI_STATUS_IGNORE) == MPI_SUCCESS);
          --left;
          break;
        }
        case 1:
          REQUIRE(PCOLL_Waitany(nops, req.data(), &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS);
          if (idx != MPI_UNDEFINED) --left;
          break;
        case 2:
          REQUIRE(PCOLL_Testany(nops, req.data(), &idx, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
          if (flag && idx != MPI_UNDEFINED) --left;
          break;
        default: {
          std::vector<int> done(nops);
          int outcount = 0;
          REQUIRE(PCOLL_Testsome(nops, req.data(), &outcount, done.data(), MPI_STATUSES_IGNORE) ==
                  MPI_SUCCESS);
          if (outcount != MPI_UNDEFINED) left -= outcount;
        }
      }
    }
    for (int k = 0; k < nops; ++k)
      for (int i = 0; i < n; ++i) REQUIRE(out[k][i] == static_cast<double>(world_size()));
  }
  REQUIRE(r.calls().size() == before + expected);
  for (std::size_t i = before; i < r.calls().size(); ++i) {
    const auto &c = r.calls()[i];
    double sum = 0;
    for (std::uint32_t k = 0; k < c.nphases; ++k) {
      CHECK(r.phases()[c.phase_first + k].seconds >= 0.0);
      sum += r.phases()[c.phase_first + k].seconds;
    }
    INFO("record " << i << " (" << r.names()[c.algo] << "): phases " << sum << " s, span "
                   << c.t_exit - c.t_enter << " s");
    CHECK(sum <= c.t_exit - c.t_enter);
  }
  REQUIRE(PCOLL_Trace_stop() == MPI_SUCCESS);
}

TEST_CASE("the reproducible mode is recorded with the algorithm, its conversions as phases") {
  const std::string path = test_file("reproducible");
  REQUIRE(PCOLL_Trace_start(path.c_str()) == MPI_SUCCESS);
  const auto &r = recorder();
  const std::size_t before = r.calls().size();
  std::vector<double> in(100, 0.5), out(100, 0.0);
  {
    pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", "ring");
    pcoll::ScopedConfig on(MPI_COMM_WORLD, "reproducible", "on");
    REQUIRE(PCOLL_Allreduce(in.data(), out.data(), 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) ==
            MPI_SUCCESS);
    int ints[3] = {1, 2, 3};
    REQUIRE(PCOLL_Allreduce(MPI_IN_PLACE, ints, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
            MPI_SUCCESS);  // integers: left alone, so not labelled
  }
  REQUIRE(r.calls().size() == before + 2);
  const auto &c = r.calls()[before];
  CHECK(r.names()[c.algo] == "ring reproducible=on");
  CHECK(c.bytes == 800);  // the user's bytes, not the binned ones
  std::vector<std::string> phases;
  for (std::uint32_t k = 0; k < c.nphases; ++k)
    phases.push_back(r.names()[r.phases()[c.phase_first + k].name]);
  CHECK(std::find(phases.begin(), phases.end(), "pack") != phases.end());
  CHECK(std::find(phases.begin(), phases.end(), "unpack") != phases.end());
  // Three elements: at P > 3 ring runs recursive doubling's schedule, and the row says so.
  CHECK(r.names()[r.calls()[before + 1].algo] ==
        (world_size() > 3 ? "ring (recursive_doubling: count < P)" : "ring"));
  CHECK(out[0] == 0.5 * world_size());
  REQUIRE(PCOLL_Trace_stop() == MPI_SUCCESS);
}

TEST_CASE("bounded memory: summaries past trace_max_calls, and the file says so") {
  const std::string path = test_file("bounded");
  REQUIRE(PCOLL_Config_push(MPI_COMM_WORLD, "trace_max_calls", "5") == MPI_SUCCESS);
  REQUIRE(PCOLL_Trace_start(path.c_str()) == MPI_SUCCESS);
  REQUIRE(PCOLL_Config_pop(MPI_COMM_WORLD) == MPI_SUCCESS);
  some_calls({"ring"}, 20, 64);
  const auto &r = recorder();
  CHECK(r.calls().size() == 5);
  CHECK(r.calls_summarized() == 15);
  std::uint64_t n_call = 0;
  for (const auto &kv : r.summaries())
    if (r.names()[std::get<4>(kv.first)] == "call") n_call += kv.second.n();
  CHECK(n_call == 15);
  REQUIRE(PCOLL_Trace_flush() == MPI_SUCCESS);  // a snapshot; recording goes on
  CHECK(PCOLL_Trace_active() == 1);
  REQUIRE(PCOLL_Trace_stop() == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    hid_t run = H5Gopen2(f, "run", H5P_DEFAULT);
    CHECK(read_attr_ll(run, "per_call_records_complete") == 0);
    CHECK(read_attr_ll(run, "calls_summarized") == 15 * world_size());
    CHECK(read_attr_ll(run, "max_calls_per_rank") == 5);
    H5Gclose(run);
    CHECK(rows(f, "calls") == static_cast<hsize_t>(5 * world_size()));
    CHECK(rows(f, "summary") > 0);
    H5Fclose(f);
  }
}

TEST_CASE("tracing off records nothing") {
  CHECK(PCOLL_Trace_active() == 0);
  some_calls({"ring"}, 2, 16);
  CHECK(recorder().calls().empty());
  CHECK(PCOLL_Trace_flush() == MPI_SUCCESS);  // no-ops when off
  CHECK(PCOLL_Trace_phase_begin("x") == MPI_SUCCESS);
}

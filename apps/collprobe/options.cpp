#include "../smpi_compat.hpp"  // first: see there

#include "options.hpp"

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace collprobe {

std::size_t parse_size(const std::string &text) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::exception &) {
    throw std::invalid_argument("bad size '" + text + "' (bytes, optional suffix k or m)");
  }
  std::string suf = text.substr(pos);
  for (auto &c : suf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t mul = 1;
  if (suf == "k" || suf == "kib" || suf == "kb")
    mul = std::size_t(1) << 10;
  else if (suf == "m" || suf == "mib" || suf == "mb")
    mul = std::size_t(1) << 20;
  else if (!suf.empty() && suf != "b")
    throw std::invalid_argument("bad size '" + text + "' (bytes, optional suffix k or m)");
  return static_cast<std::size_t>(v) * mul;
}

std::string human_bytes(std::size_t b) {
  char buf[32];
  if (b >= (std::size_t(1) << 20) && b % (std::size_t(1) << 20) == 0)
    std::snprintf(buf, sizeof buf, "%zu MiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%zu KiB", b >> 10);
  else
    std::snprintf(buf, sizeof buf, "%zu B", b);
  return buf;
}

namespace {

void positive(const char *flag, long long v, long long lo) {
  if (v < lo)
    throw std::invalid_argument(std::string(flag) + " " + std::to_string(v) +
                                ": must be >= " + std::to_string(lo));
}

}  // namespace

Options parse_options(int argc, char **argv, int rank) {
  Options o;
  CLI::App app{
      "collprobe: an OSU-style collective probe. In one launch it times PMPI_<coll>, "
      "PCOLL_<coll> with every pcoll algorithm of the collective (vendor and auto included) "
      "and, for the allreduce, Open MPI's coll/tuned forced to each of its algorithms through "
      "MPI_T (entries ompi:NAME), interleaved in blocks of back-to-back calls (doubles; the "
      "reductions sum)"};
  app.footer(
      "A block is a barrier then CALLS back-to-back calls; its per-call time is the block time / "
      "CALLS, and the maximum over ranks is one sample. Entries run in a new random order each "
      "block round (fixed seed; each entry opens a round equally often). Every entry's result is "
      "checked against PMPI's, and against the exact result, before the blocks and after "
      "each block, outside the timed region: a wrong result stops the run (exit 1). The ompi: "
      "entries need OMPI_MCA_coll_tuned_use_dynamic_rules=1 in the environment.");
  std::string sizes, entries, coll = "allreduce";
  app.add_option("--coll", coll,
                 "the collective: " + coll_names() +
                     " (roots are rank 0; reduce and allreduce sum)")
      ->capture_default_str();
  app.add_option("--sizes", sizes,
                 "comma-separated message sizes in bytes, multiples of 8 (k/m suffixes); "
                 "default 8,64,1k,8k,64k,1m. As OSU's benchmarks count them: the vector for "
                 "allreduce, reduce and bcast, each rank's contribution for allgather, what each "
                 "rank sends to each rank for alltoall; barrier takes none");
  app.add_option("--blocks", o.blocks, "timed blocks per entry and size")->capture_default_str();
  app.add_option("--calls", o.calls, "calls per block at most (small sizes use exactly this)")
      ->capture_default_str();
  app.add_option("--block-ms", o.block_ms,
                 "target block duration: fewer calls where CALLS times the entries' median "
                 "warm-up time per call (each entry's fastest warm-up chunk) would exceed it "
                 "(0: always CALLS)")
      ->capture_default_str();
  app.add_option("--min-calls", o.min_calls, "calls per block at least (at most --calls)")
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed calls per entry and size before the blocks")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the entry order")->capture_default_str();
  app.add_option("--entries", entries,
                 "comma-separated entries to run (default: all; pmpi is always run, it is the "
                 "reference): pmpi, vendor, the pcoll algorithms, auto, ompi:NAME");
  std::string forms;
  app.add_option("--forms", forms,
                 "comma-separated forms of each entry's call: blocking (default), nonblocking "
                 "(NAME/nb: PCOLL_Iallreduce + PCOLL_Wait; pmpi/nb: PMPI_Iallreduce + PMPI_Wait), "
                 "persistent (NAME/persistent: PCOLL_Allreduce_init once per block outside the "
                 "timing, then PCOLL_Start + PCOLL_Wait per call; pcoll entries only). pmpi "
                 "(blocking) always runs: the reference");
  app.add_flag("--reproducible", o.reproducible,
               "also run each pcoll entry (every form) with PCOLL_REPRODUCIBLE=on, as NAME+repro: "
               "the double sums travel as binned sums (the cost of the reproducible mode, side by "
               "side with the plain entries in the same run)");
  app.add_flag("--overlap", o.overlap,
               "also measure, for each nonblocking or persistent entry (--forms), the overlap "
               "as osu_iallreduce defines it: t_pure (start + wait), t_compute (a busy compute "
               "of t_pure alone), t_total (start, that compute, wait), overlap = 100 (1 - "
               "(t_total - t_compute) / t_pure) in [0, 100]");
  app.add_option("--overlap-tests", o.overlap_tests,
                 "with --overlap: test calls on the request spread evenly over the compute "
                 "(OSU's -t; pcoll's plans advance only inside pcoll calls, or in its progress "
                 "thread with PCOLL_PROGRESS=thread)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  app.add_option("--overlap-compute", o.overlap_compute,
                 "with --overlap: spin = the compute is a busy loop (OSU's); sleep = the rank "
                 "sleeps instead, leaving its core free (as while a device kernel or I/O runs): "
                 "where a progress thread can run")
      ->capture_default_str()
      ->check(CLI::IsMember({"spin", "sleep"}));
  app.add_option("--overlap-factor", o.overlap_factor,
                 "with --overlap: the compute lasts this many times t_pure (OSU's: 1); longer "
                 "compute leaves room for a collective whose ranks start apart")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1000.0));
  app.add_option("--csv", o.csv, "write the samples (size,bytes,entry,block,seconds) here");
  app.add_option("--bw-reps", o.bw_reps,
                 "repetitions of the local bandwidth kernels (STREAM add, MPI_Reduce_local, "
                 "pcoll's reducer) on 1 MiB")
      ->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  app.add_flag("--list", o.list,
               "print each collective collprobe can time with pcoll's algorithms for it (one line "
               "each: name then algorithms, vendor included, auto not: it is a selection rule), "
               "and exit");
  app.add_flag("--binned-costs", o.binned_costs,
               "time the reproducible mode's local kernels on rank 0 instead (nanoseconds per "
               "value of the binned deposit, dot product, conversion, merge and rounding, beside "
               "the plain sum and dot; --csv writes the table) and exit");
  app.add_option("--calibrate", o.calibrate,
                 "measure this machine's numbers for pcoll's cost model (latency, overhead and "
                 "bandwidth inside and between nodes, node links, tiers of nodes, the reduction "
                 "rate) and write them as a PCOLL_MACHINE description to this file; nothing else "
                 "is run");
  app.add_option("--origin-machine", o.origin_machine,
                 "with --calibrate: the machine the file's [origin] names (default: the host "
                 "name; pcoll-calibrate.sh --smpi gives the platform file)");
  std::string torus;
  app.add_option("--torus", torus,
                 "with --calibrate: the nodes sit on a torus of these dimensions (comma-separated, "
                 "first fastest, the communicator's n-th node at the n-th point): measure its "
                 "link bandwidth and per-hop latency and write [torus] instead of [[tier]]s");
  app.add_option("--corrupt-for-test", o.corrupt_for_test)->group("");  // hidden
  try {
    app.parse(argc, argv);
    if (!torus.empty()) {
      for (const auto &d : CLI::detail::split(torus, ',')) {
        std::size_t used = 0;
        int v = 0;
        try {
          v = std::stoi(d, &used);
        } catch (const std::exception &) {
          used = 0;
        }
        if (used != d.size() || v < 2 || v > 4096)
          throw CLI::ValidationError("--torus", "'" + torus +
                                                    "': comma-separated dimensions, each an "
                                                    "integer in [2, 4096]");
        o.torus.push_back(v);
      }
    }
    o.coll = parse_coll(coll);
    if (o.coll == Coll::barrier && !sizes.empty())
      throw std::invalid_argument("--sizes " + sizes + ": a barrier moves no data (no --sizes)");
    if (!sizes.empty()) {
      o.sizes.clear();
      for (const auto &s : CLI::detail::split(sizes, ',')) {
        std::size_t b = 0;
        try {
          b = parse_size(s);
        } catch (const std::invalid_argument &e) {
          throw std::invalid_argument(std::string("--sizes: ") + e.what());
        }
        if (b == 0 || b % sizeof(double) != 0)
          throw std::invalid_argument("--sizes " + s + ": must be a positive multiple of 8 bytes");
        o.sizes.push_back(b);
      }
    }
    if (!entries.empty()) o.entries = CLI::detail::split(entries, ',');
    if (!forms.empty()) o.forms = CLI::detail::split(forms, ',');
    positive("--blocks", o.blocks, 1);
    positive("--calls", o.calls, 1);
    positive("--min-calls", o.min_calls, 1);
    positive("--warmup", o.warmup, 0);
    positive("--bw-reps", o.bw_reps, 1);
    if (!(o.block_ms >= 0))
      throw std::invalid_argument("--block-ms " + std::to_string(o.block_ms) + ": must be >= 0");
  } catch (const CLI::ParseError &e) {
    const int rc = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    MPI_Finalize();
    std::exit(rc == 0 ? 0 : 2);
  } catch (const std::exception &e) {
    if (rank == 0) std::fprintf(stderr, "collprobe: %s\n", e.what());
    MPI_Finalize();
    std::exit(2);
  }
  return o;
}

}  // namespace collprobe

#include "../smpi_compat.hpp"  // first: see there

#include "options.hpp"

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace collbench {

AlgoVariant parse_variant(const std::string &entry) {
  AlgoVariant v;
  std::size_t start = 0;
  for (bool first = true;; first = false) {
    const std::size_t end = entry.find(':', start);
    const std::string part = entry.substr(start, end == std::string::npos ? end : end - start);
    if (first) {
      v.algorithm = part;
    } else {
      const std::size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("'" + part + "' in '" + entry + "' is not name=value");
      v.settings.emplace_back(part.substr(0, eq), part.substr(eq + 1));
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (v.algorithm.empty()) throw std::invalid_argument("empty algorithm name in '" + entry + "'");
  return v;
}

std::size_t parse_size(const std::string &text) {
  std::size_t pos = 0;
  const unsigned long long v = std::stoull(text, &pos);
  std::string suf = text.substr(pos);
  for (auto &c : suf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t mul = 1;
  if (suf == "k" || suf == "kib" || suf == "kb")
    mul = 1u << 10;
  else if (suf == "m" || suf == "mib" || suf == "mb")
    mul = 1u << 20;
  else if (suf == "g" || suf == "gib" || suf == "gb")
    mul = 1u << 30;
  else if (!suf.empty() && suf != "b")
    throw std::invalid_argument("bad size '" + text + "'");
  return static_cast<std::size_t>(v) * mul;
}

std::string human_bytes(std::size_t b) {
  char buf[32];
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    std::snprintf(buf, sizeof buf, "%zuMiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%zuKiB", b >> 10);
  else
    std::snprintf(buf, sizeof buf, "%zuB", b);
  return buf;
}

Options parse_options(int argc, char **argv, int rank) {
  Options o;
  CLI::App app{
      "collbench: times pcoll collectives against the vendor MPI in one run (warm-ups, a "
      "barrier before each call, max over ranks, randomized algorithm order, every result "
      "verified outside the timed region)"};
  app.footer(
      "Bandwidths as nccl-tests: algbw = size / median time (size = the total, see --min), "
      "busbw = algbw * 2(P-1)/P for allreduce, algbw * (P-1)/P for the reduce-scatters, "
      "allgathers and alltoall. Inputs are small integers, so every expected result is exact.");
  std::string algos, sizes, segments, min_s = "8", max_s = "4M", cold_s = "32M";
  app.add_option("--coll", o.coll,
                 "collective to time (--list names them): allreduce, reduce_scatter_block and "
                 "reduce_scatter (MPI_SUM; count = recvcount, the per-rank block, equal for "
                 "every rank), allgather and allgatherv (count = sendcount = recvcount, equal "
                 "blocks), alltoall (count per destination)")
      ->capture_default_str();
  app.add_option("--algos", algos,
                 "comma-separated algorithms (default: every algorithm of the collective, "
                 "vendor included, as pcoll-info lists them); an entry may set parameters for "
                 "its calls only: chiara:chiara_batch=16:chiara_kag=4");
  app.add_option("--type", o.type, "double|float|int|long")->capture_default_str();
  app.add_option("--layout", o.layout,
                 "contiguous, or strided: every element followed by a gap of one element (a "
                 "resized datatype), which pcoll packs and the vendor handles with its own "
                 "datatype engine")
      ->check(CLI::IsMember({"contiguous", "strided"}))
      ->capture_default_str();
  app.add_option("--min", min_s,
                 "smallest message (bytes, k/m suffixes; powers of two). A message's size is "
                 "nccl-tests' size, the total: the whole vector for allreduce, all P blocks "
                 "(P*count elements) for reduce_scatter_block and allgather, whose per-rank "
                 "block is size/P (rounded down, at least 1 element)")
      ->capture_default_str();
  app.add_option("--max", max_s, "largest message")->capture_default_str();
  app.add_option("--sizes", sizes, "explicit comma-separated message sizes instead of min..max");
  app.add_option("--per-rank-segment", segments,
                 "comma-separated per-rank segments S in elements (the CHiArA paper's axis): "
                 "count = P*S for allreduce, count = S (the per-rank block) for "
                 "reduce_scatter_block and allgather; replaces --min/--max/--sizes");
  app.add_option("--trials", o.trials, "timed calls per (algorithm, size)")->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed calls first")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the algorithm order")->capture_default_str();
  app.add_flag("--in-place", o.in_place,
               "MPI_IN_PLACE (reduce_scatter_block: the P*count input in the receive buffer; "
               "allgather: the own block at rank*count in the receive buffer)");
  app.add_flag("--cold", o.cold,
               "cache-cold: rotate among fresh buffers and evict caches before each call");
  app.add_option("--cold-bytes", cold_s, "bytes written to evict caches in --cold mode")
      ->capture_default_str();
  app.add_option("--skew-rank", o.skew_rank,
                 "arrival skew: this rank waits --skew-us after the barrier before calling");
  app.add_option("--skew-us", o.skew_us, "arrival skew delay in microseconds");
  app.add_flag("--pingpong", o.pingpong,
               "measure alpha and beta (ranks 0 and 1) first, use them for the predictions");
  app.add_flag("--pingpong-only", o.pingpong_only, "only the ping-pong");
  app.add_option("--alpha", o.alpha, "model alpha in seconds (default: PCOLL_MODEL_ALPHA)");
  app.add_option("--beta", o.beta, "model beta in seconds per byte (default: PCOLL_MODEL_BETA)");
  bool no_overhead = false, no_trace = false;
  app.add_flag("--no-overhead", no_overhead, "skip the tracing-off overhead measurement");
  app.add_option("--csv", o.csv, "also write the results as CSV to this file ('-' = stdout)");
  app.add_option("--log", o.log,
                 "HDF5 log: the pcoll trace of the run plus /collbench (docs/trace-format.md)");
  app.add_flag("--no-trace-calls", no_trace, "with --log: results only, no per-call trace");
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  app.add_flag("--list", o.list,
               "print each collective collbench can run with its algorithms (one line each: "
               "name then algorithms), and exit");
  app.add_option("--corrupt-for-test", o.corrupt_for_test)->group("");  // hidden
  try {
    app.parse(argc, argv);
    if (!algos.empty()) o.algos = CLI::detail::split(algos, ',');
    for (const auto &s : CLI::detail::split(sizes, ','))
      if (!s.empty()) o.sizes.push_back(parse_size(s));
    for (const auto &s : CLI::detail::split(segments, ','))
      if (!s.empty()) o.segments.push_back(parse_size(s));
    o.min_bytes = parse_size(min_s);
    o.max_bytes = parse_size(max_s);
    o.cold_bytes = parse_size(cold_s);
    if (o.trials < 1 || o.warmup < 0) throw CLI::ValidationError("--trials >= 1, --warmup >= 0");
    if (o.min_bytes == 0 || o.min_bytes > o.max_bytes)
      throw CLI::ValidationError("need 0 < --min <= --max");
    o.overhead = !no_overhead;
    o.trace_calls = !no_trace;
    if (o.pingpong_only) o.pingpong = true;
  } catch (const CLI::ParseError &e) {
    const int rc = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    MPI_Finalize();
    std::exit(rc == 0 ? 0 : 2);
  } catch (const std::exception &e) {
    if (rank == 0) std::fprintf(stderr, "collbench: %s\n", e.what());
    MPI_Finalize();
    std::exit(2);
  }
  return o;
}

}  // namespace collbench

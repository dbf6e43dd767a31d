#include "config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "registry.hpp"

namespace pcoll {

namespace {

std::vector<ParamSpec> build_table() {
  std::vector<ParamSpec> t;
  // --- algorithm selection -------------------------------------------------------------------
  // One per row of the collective table: PCOLL_ALLREDUCE, PCOLL_REDUCE_SCATTER_BLOCK, ...
  for (const CollectiveInfo &c : collective_table())
    t.push_back(ParamSpec::algorithm(c.name, "auto").of(c.id).about(c.select_description));
  t.push_back(
      ParamSpec::choice("fallback", "warn")
          .one_of({"error", "warn", "silent"})
          .about("what happens when the chosen algorithm cannot serve a call (non-commutative op, "
                 "non-contiguous datatype, ...): error = return MPI_ERR_ARG, warn = use vendor and "
                 "say so once per process and reason (on rank 0 of MPI_COMM_WORLD, or the "
                 "communicator's rank 0 if it lacks that rank), silent = use vendor quietly; the "
                 "trace records such calls as 'vendor (fallback: reason)'"));
  // --- algorithm parameters: declared in the files that read them -----------------------------
  // (the collectives' own rules, then each algorithm's, in registry order; a parameter several
  // algorithms share is declared once in their shared file and must be the same spec wherever
  // it is listed)
  auto add = [&t](const ParamSpec &p) {
    for (const ParamSpec &q : t) {
      if (std::string(q.name) != p.name) continue;
      if (std::string(q.default_value) != p.default_value ||
          std::string(q.description) != p.description)
        throw std::logic_error(std::string("pcoll: parameter ") + p.name +
                               " declared twice with different specs");
      return;
    }
    t.push_back(p);
  };
  for (Collective c : all_collectives()) {
    for (const ParamSpec &p : collective_info(c).auto_params) add(p);
    for (const AlgorithmInfo *a : algorithms_of(c))
      for (const ParamSpec &p : a->params) add(p);
  }
  t.push_back(
      ParamSpec::choice("reproducible", "off")
          .one_of({"off", "on"})
          .about("on = every MPI_SUM of MPI_DOUBLE, MPI_FLOAT or their complex types in allreduce, "
                 "reduce, reduce_scatter_block and reduce_scatter has the same bits for every "
                 "algorithm, rank count "
                 "and order of the addends: the values travel as binned sums (56 bytes each, "
                 "binned.hpp: error <= n 2^-128 max|x| + half an ulp), under every algorithm and "
                 "vendor; other ops and integer types are order-independent already and pass "
                 "unchanged; MPI_PROD and long double are not covered (said once)"));
  t.push_back(
      ParamSpec::choice("binned_kernel", "auto")
          .one_of({"auto", "portable", "avx2", "avx512"})
          .about("the deposit kernel of binned sums (the reproducible mode's local dot products "
                 "and sums, PCOLL_Binned_add_n and _dot_n): auto = the widest the CPU has "
                 "(avx512, avx2, portable); a kernel the CPU lacks gives the next narrower; all "
                 "give the same bits (read once per process)"));
  t.push_back(
      ParamSpec::integer("ranks_per_node", "auto")
          .range(1, 1 << 20)
          .or_auto()
          .about(
              "treat consecutive groups of this many ranks as nodes (CHiArA's b_max, the ledger's "
              "intra/inter-node split); auto = MPI_COMM_TYPE_SHARED"));
  t.push_back(
      ParamSpec::text("rules", "builtin")
          .about("selection rules `auto` consults first (rules.hpp): a TOML file written by "
                 "scripts/pcoll-tune.sh (inputs/rules/ has the development VM's and the simulated "
                 "platforms'), `builtin` = inputs/rules/default.toml (compiled in; "
                 "machine-neutral, so it holds no rule and the cost model decides), `none` = the "
                 "cost model alone; a file that does not parse, names "
                 "an unknown algorithm or has overlapping ranges fails every call with its line "
                 "and the reason"));
  // --- the node segment of the shared-memory algorithms (shm/segment.hpp) -----------------------
  t.push_back(
      ParamSpec::choice("shm", "auto")
          .one_of({"auto", "on", "off"})
          .about("the node segment of the shared-memory algorithms (shm), mapped at a "
                 "communicator's first collective when all its ranks share one node "
                 "(MPI_COMM_TYPE_SHARED): auto = when a collective's algorithm (PCOLL_<COLL>) "
                 "is auto (whose cost model weighs them) or names one of them, on = always (to "
                 "choose them per communicator with PCOLL_Config_push or rules), off = never "
                 "(they then fall back, and auto does not weigh them)"));
  t.push_back(ParamSpec::integer("shm_segment", "auto")
                  .range(4096, 1LL << 30)
                  .or_auto()
                  .size_suffixes()
                  .about("bytes per rank of each of the node segment's two channels (the "
                         "segment maps 2 x ranks x this): the largest piece of a vector a "
                         "shared-memory algorithm moves per step; auto = 8 MiB / ranks within "
                         "[64 KiB, 1 MiB]"));
  t.push_back(ParamSpec::integer("shm_spin", "auto")
                  .range(0, 1LL << 40)
                  .or_auto()
                  .about("polls of a shared-memory flag before a rank yields the core between "
                         "polls (sched_yield), so that ranks sharing a core do not starve the one "
                         "they wait for; auto = 2000, or 200 where the node has more ranks "
                         "than online CPUs (oversubscribed: a short spin still catches a flag "
                         "raised by a rank running on another core, before a yield's system "
                         "call and context switch)"));
  // --- the cost model `auto` uses (model.hpp), and the textbook one ----------------------------
  t.push_back(
      ParamSpec::text("machine", "builtin")
          .about(
              "machine description the cost model of `auto` runs on (machine.hpp): latency, "
              "per-message overhead and bandwidth inside and between nodes, the node link's "
              "bandwidth, the reduction rate; a TOML file written by scripts/pcoll-calibrate.sh, "
              "`builtin` = inputs/machines/default.toml (compiled in: a generic cluster, not "
              "measured); a file that does not parse fails every call with its line and the "
              "reason"));
  t.push_back(
      ParamSpec::integer("model_size_classes", "4")
          .range(0, 64)
          .about("size classes per octave of the count by which the cost model of `auto` "
                 "decides (select.hpp): a call is decided by the model's choice at the first "
                 "count of its class (1, 1.25, 1.5, 1.75 x 2^m with 4), so a program whose counts "
                 "vary pays the model a bounded number of times; powers of two are always "
                 "decided at themselves; 0 = at every count"));
  t.push_back(ParamSpec::real("model_alpha", "2e-6", 0, 1)
                  .about("the flat textbook model (one alpha, beta, gamma for every message) of "
                         "collbench's model column and the ledger's critical path: seconds per "
                         "message; `auto` uses PCOLL_MACHINE instead"));
  t.push_back(ParamSpec::real("model_beta", "2e-10", 0, 1)
                  .about("the flat textbook model: seconds per byte transferred"));
  t.push_back(ParamSpec::real("model_gamma", "1e-10", 0, 1)
                  .about("the flat textbook model: seconds per byte reduced"));
  // --- tracing (collectives/src/trace, docs/trace-format.md) -----------------------------------
  t.push_back(
      ParamSpec::text("trace", "")

          .about(
              "write a per-call, per-rank, per-phase timing log to this HDF5 file at MPI_Finalize "
              "(empty = off); every rank must use the same path"));
  t.push_back(
      ParamSpec::integer("trace_max_calls", "250000")
          .range(0, 1LL << 40)
          .about(
              "per-call trace records kept per rank (<= 80 B + 16 B per phase each, so the default "
              "stays under ~100 MB); later calls only update per (collective, algorithm, bytes) "
              "summaries, and the file says so"));
  // --- libpcoll_mpi.so: the PMPI interposer for unmodified programs (src/pmpi) -----------------
  t.push_back(
      ParamSpec::choice("disable", "0")
          .one_of({"0", "1"})
          .about("libpcoll_mpi.so only: 1 = every intercepted MPI collective goes straight to the "
                 "vendor MPI, untraced (A/B runs of the same binary); programs calling PCOLL_ "
                 "functions are not affected"));
  t.push_back(
      ParamSpec::choice("thread_multiple", "check")
          .one_of({"check", "vendor"})
          .about("libpcoll_mpi.so only, under MPI_THREAD_MULTIPLE: check = pcoll serves the calls "
                 "and stops the program with MPI_Abort, naming this variable, if two threads are "
                 "ever inside an intercepted collective at once (pcoll is not thread-safe); vendor "
                 "= every intercepted call goes to the vendor MPI, untraced"));
  // --- nonblocking and persistent collectives (collectives/src/engine.hpp) --------------------
  t.push_back(
      ParamSpec::choice("progress", "calls")
          .one_of({"calls", "thread"})
          .about("per process, read once: calls = outstanding nonblocking and persistent "
                 "collectives move on only inside pcoll's and MPI's completion calls; thread = "
                 "a progress thread also advances them while the program computes (needs "
                 "MPI_THREAD_MULTIPLE: see PCOLL_Required_thread_level; libpcoll_mpi.so asks "
                 "for it itself; it uses a core while collectives are outstanding)"));
  t.push_back(
      ParamSpec::integer("progress_interval", "0")
          .range(0, 1000000)
          .about("per process, read once, with PCOLL_PROGRESS=thread: microseconds the "
                 "progress thread sleeps between its passes over the outstanding collectives "
                 "(Linux's timer slack makes 10 about 60); 0 = it only yields the core"));
  // --- simulation (SimGrid SMPI builds, PCOLL_SMPI=ON) ------------------------------------------
  t.push_back(
      ParamSpec::integer("sim_shared_bytes", "0")
          .range(0, 1LL << 40)
          .size_suffixes()
          .about(
              "SMPI builds only (native builds ignore it): the scratch of a call whose own "
              "buffers hold at least this many bytes is allocated with SMPI_SHARED_MALLOC, one "
              "copy for all simulated ranks, so that paper-scale sizes fit in memory; its "
              "contents are then meaningless (timing-only runs, as collbench's buffers of that "
              "size are); 0 = never"));
  return t;
}

std::string trim(const std::string &s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// Parses "123", "4k", "4KiB", "1m", "2g" (powers of 1024 when is_size). Returns false on junk.
bool parse_number(const std::string &text, bool is_size, long long &out) {
  const std::string s = trim(text);
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str()) return false;
  std::string suffix = trim(end);
  for (auto &c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  long long mul = 1;
  if (!suffix.empty()) {
    if (!is_size) return false;
    if (suffix == "k" || suffix == "kib" || suffix == "kb")
      mul = 1LL << 10;
    else if (suffix == "m" || suffix == "mib" || suffix == "mb")
      mul = 1LL << 20;
    else if (suffix == "g" || suffix == "gib" || suffix == "gb")
      mul = 1LL << 30;
    else if (suffix == "b")
      mul = 1;
    else
      return false;
  }
  if (v > 0 && v > (1LL << 62) / mul) return false;
  out = v * mul;
  return true;
}

}  // namespace

bool parse_size(const std::string &text, long long &out) {
  return parse_number(text, true, out);
}

const std::vector<ParamSpec> &param_table() {
  static const std::vector<ParamSpec> table = build_table();
  return table;
}

int param_index(const std::string &name) {
  const auto &t = param_table();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (name == t[i].name) return static_cast<int>(i);
  return -1;
}

std::string env_name(const ParamSpec &spec) {
  std::string e = "PCOLL_";
  for (const char *p = spec.name; *p; ++p)
    e += static_cast<char>(std::toupper(static_cast<unsigned char>(*p)));
  return e;
}

std::string allowed_values(const ParamSpec &spec) {
  std::ostringstream os;
  switch (spec.kind) {
    case ParamKind::algorithm: {
      os << "auto";
      for (const auto *a : algorithms_of(spec.coll)) os << "|" << a->name;
      break;
    }
    case ParamKind::choice:
      for (std::size_t i = 0; i < spec.choices.size(); ++i) os << (i ? "|" : "") << spec.choices[i];
      break;
    case ParamKind::integer:
      os << "an integer in [" << spec.min << ", " << spec.max << "]";
      if (spec.is_size) os << " (suffixes k, m, g = KiB, MiB, GiB)";
      if (spec.allow_auto) os << " or auto";
      break;
    case ParamKind::real:
      os << "a number in [" << spec.min << ", " << spec.max << "]";
      break;
    case ParamKind::text:
      os << "a path, or empty for off";
      break;
  }
  return os.str();
}

std::string validate_param(const ParamSpec &spec, const std::string &value) {
  const std::string v = trim(value);
  bool ok = false;
  switch (spec.kind) {
    case ParamKind::algorithm:
      ok = v == "auto" || find_algorithm(spec.coll, v) != nullptr;
      break;
    case ParamKind::choice:
      for (const auto &c : spec.choices) ok = ok || v == c;
      break;
    case ParamKind::integer: {
      long long x = 0;
      if (spec.allow_auto && v == "auto")
        ok = true;
      else
        ok = parse_number(v, spec.is_size, x) && x >= spec.min && x <= spec.max;
      break;
    }
    case ParamKind::real: {
      char *end = nullptr;
      errno = 0;
      const double x = std::strtod(v.c_str(), &end);
      ok = errno == 0 && end != v.c_str() && trim(end).empty() && x >= double(spec.min) &&
           x <= double(spec.max);
      break;
    }
    case ParamKind::text:
      ok = true;
      break;
  }
  if (ok) return {};
  return env_name(spec) + "='" + value + "' is not valid; allowed: " + allowed_values(spec);
}

long long parse_integer(const ParamSpec &spec, const std::string &value) {
  const std::string v = trim(value);
  if (spec.kind == ParamKind::choice) {
    for (std::size_t i = 0; i < spec.choices.size(); ++i)
      if (v == spec.choices[i]) return static_cast<long long>(i);
    throw std::invalid_argument(validate_param(spec, value));
  }
  if (spec.allow_auto && v == "auto") return kAuto;
  long long x = 0;
  if (!parse_number(v, spec.is_size, x)) throw std::invalid_argument(validate_param(spec, value));
  return x;
}

std::string param_text(const std::string &name, long long value) {
  const int i = param_index(name);
  if (i >= 0) {
    const ParamSpec &spec = param_table()[static_cast<std::size_t>(i)];
    if (spec.kind == ParamKind::choice && value >= 0 &&
        static_cast<std::size_t>(value) < spec.choices.size())
      return spec.choices[static_cast<std::size_t>(value)];
    if (spec.allow_auto && value == kAuto) return "auto";
  }
  return std::to_string(value);
}

double parse_real(const std::string &value) {
  return std::strtod(value.c_str(), nullptr);
}

const char *source_name(Source s) {
  switch (s) {
    case Source::default_value:
      return "default";
    case Source::environment:
      return "environment";
    case Source::override_:
      return "override";
  }
  return "?";
}

const std::string &Config::get(const std::string &name) const {
  const int i = param_index(name);
  if (i < 0) throw std::logic_error("pcoll: unknown parameter " + name);
  return values[static_cast<std::size_t>(i)];
}

long long Config::integer(const std::string &name) const {
  return parse_integer(param_table()[static_cast<std::size_t>(param_index(name))], get(name));
}

double Config::real(const std::string &name) const {
  return parse_real(get(name));
}

std::string Config::first_error() const {
  const auto &t = param_table();
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::string e = validate_param(t[i], values[i]);
    if (!e.empty()) return e;
  }
  return {};
}

namespace {

// Edit distance (insertions, deletions, substitutions), for "did you mean".
std::size_t distance(const std::string &a, const std::string &b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Variables that pcoll's scripts and tests read (never the library): not typos.
bool script_variable(const std::string &name) {
  static const char *const prefixes[] = {"PCOLL_BUILD",   "PCOLL_SMPI_BUILD_DIR", "PCOLL_JOBS",
                                         "PCOLL_LOG_TAG", "PCOLL_DEBIAN_MIRROR",  "PCOLL_LAUNCHER",
                                         "PCOLL_SRUN",    "PCOLL_INFO",           "PCOLL_LIB",
                                         "PCOLL_TEST_"};
  for (const char *p : prefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<std::string> unknown_variables() {
  std::vector<std::string> out;
  for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("PCOLL_", 0) != 0) continue;
    const std::string name = kv.substr(0, kv.find('='));
    if (script_variable(name)) continue;
    std::string best;
    std::size_t best_d = std::string::npos;
    bool known = false;
    for (const ParamSpec &spec : param_table()) {
      const std::string real = env_name(spec);
      if (real == name) {
        known = true;
        break;
      }
      const std::size_t d = distance(name, real);
      if (d < best_d) best_d = d, best = real;
    }
    if (known) continue;
    std::string msg = name + " is set but no pcoll parameter reads it";
    if (best_d <= std::max<std::size_t>(2, name.size() / 5)) msg += " (did you mean " + best + "?)";
    out.push_back(msg + "; pcoll-info lists the parameters");
  }
  return out;
}

Config load_config() {
  Config c;
  for (const auto &spec : param_table()) {
    const char *env = std::getenv(env_name(spec).c_str());
    if (env != nullptr) {
      c.values.emplace_back(trim(env));
      c.sources.push_back(Source::environment);
    } else {
      c.values.emplace_back(spec.default_value);
      c.sources.push_back(Source::default_value);
    }
  }
  return c;
}

Config with_overrides(const Config &base,
                      const std::vector<std::pair<int, std::string>> &overrides) {
  Config c = base;
  for (const auto &o : overrides) {
    c.values[static_cast<std::size_t>(o.first)] = o.second;
    c.sources[static_cast<std::size_t>(o.first)] = Source::override_;
  }
  return c;
}

std::size_t default_node_segment(int ranks) {
  const std::size_t lo = 64 * 1024, hi = 1024 * 1024;
  const std::size_t share = (std::size_t{8} << 20) / static_cast<std::size_t>(std::max(ranks, 1));
  return std::min(hi, std::max(lo, share / 4096 * 4096));
}

}  // namespace pcoll

// pcoll-info: what pcoll can do and what it would do. Needs no mpirun (it makes no MPI call).
//
//   pcoll-info                               collectives, algorithms, parameters, current values
//   pcoll-info --params-markdown             the parameter table as markdown
//   (docs/configuration.md) pcoll-info --plan allreduce ALGO --ranks P --count N [--type
//   double|float|int|...|BYTES]
//              [--set name=value ...] [--alpha s] [--beta s/B] [--gamma s/B]
//              [--ranks-per-node n] [--show-rank r]
//                                            ledger of the plan, verified symbolically
//   pcoll-info --select allreduce --ranks P --count N [--type T] [--set ...]
//                                            what `auto` would choose and every model time
//   (--ranks-per-node n: the node size the model assumes; --set machine=FILE: a description)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <pcoll/pcoll.h>

#include "config.hpp"
#include "ledger.hpp"
#include "plan.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"
#include "verify.hpp"

using namespace pcoll;

namespace {

const char *kUsage =
    "usage: pcoll-info [--params-markdown]\n"
    "       pcoll-info --plan COLLECTIVE ALGORITHM --ranks P --count N [--type T]\n"
    "                  [--set NAME=VALUE]... [--alpha S] [--beta S_PER_BYTE] [--gamma S_PER_BYTE]\n"
    "                  [--ranks-per-node N] [--show-rank R]\n"
    "       pcoll-info --select COLLECTIVE --ranks P --count N [--type T] [--set NAME=VALUE]...\n"
    "                  [--ranks-per-node N] [--candidates]\n"
    "                  (which algorithm a call would use and why: the rule of PCOLL_RULES that\n"
    "                  fired with its evidence, or the cost model on PCOLL_MACHINE with every\n"
    "                  candidate's time; --set rules=FILE, --set machine=FILE try files;\n"
    "                  --candidates: only the model's distinct candidates, one per line,\n"
    "                  as collbench --algos entries with their model time in seconds)\n"
    "T: double float int long char or a size in bytes (default double).\n"
    "N: elements (allreduce) or elements per rank (reduce_scatter_block, allgather) or per\n"
    "   destination (alltoall).\n";

[[noreturn]] void die(const std::string &msg) {
  std::cerr << "pcoll-info: " << msg << "\n" << kUsage;
  std::exit(2);
}

std::size_t type_size(const std::string &t) {
  if (t == "double" || t == "long" || t == "int64") return 8;
  if (t == "float" || t == "int" || t == "int32") return 4;
  if (t == "short") return 2;
  if (t == "char" || t == "byte") return 1;
  char *end = nullptr;
  const long v = std::strtol(t.c_str(), &end, 10);
  if (*end != '\0' || v <= 0) die("unknown --type '" + t + "'");
  return static_cast<std::size_t>(v);
}

// The plans of a few ranks (first, middle, last) as text: two candidates with the same text
// are one schedule under two names (chiara's default b and the same b set by hand, or
// chiara_loglane's flat lanes and chiara).
std::string plans_text(const Candidate &c, const Config &cfg, const CallShape &shape) {
  const Config with = with_overrides(cfg, c.params);
  std::ostringstream o;
  for (const int r : {0, shape.size / 2, shape.size - 1}) {
    const Plan p = make_plan(*c.algo, plan_request(*c.algo, with, r, shape));
    o << 'R' << r << ':' << p.tmp_elems << ';';
    for (const Round &rd : p.rounds) {
      o << '|';
      for (const Xfer &x : rd.sends)
        o << 's' << x.peer << ',' << x.range.off << ',' << x.range.len << ',' << int(x.range.buf);
      for (const Xfer &x : rd.recvs)
        o << 'r' << x.peer << ',' << x.range.off << ',' << x.range.len << ',' << int(x.range.buf);
      for (const LocalOp &op : rd.ops)
        o << 'o' << int(op.kind) << ',' << op.src.off << ',' << op.src.len << ',' << int(op.src.buf)
          << ',' << op.dst.off << ',' << int(op.dst.buf) << ',' << op.src_is_left;
    }
  }
  return o.str();
}

// The model's candidates, fastest first, without the ones whose plans repeat a faster one's.
std::vector<Candidate> distinct(const std::vector<Candidate> &all, const Config &cfg,
                                const CallShape &shape) {
  std::vector<Candidate> out;
  std::vector<std::pair<const AlgorithmInfo *, std::string>> seen;  // any algorithm's
  for (const Candidate &c : all) {
    std::string t = plans_text(c, cfg, shape);
    bool dup = false;
    for (const auto &sv : seen) dup = dup || sv.second == t;
    if (dup) continue;
    seen.emplace_back(c.algo, std::move(t));
    out.push_back(c);
  }
  return out;
}

Collective parse_collective(const std::string &s) {
  for (Collective c : all_collectives())
    if (s == collective_name(c)) return c;
  std::string known;
  for (Collective c : all_collectives())
    known += std::string(known.empty() ? "" : "|") + collective_name(c);
  die("unknown collective '" + s + "'; known: " + known);
}

std::string human_bytes(double b) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  std::ostringstream os;
  os.precision(b < 10 ? 3 : 4);
  os << b << " " << unit[u];
  return os.str();
}

void list_everything(const Config &cfg) {
  std::cout << "pcoll " << PCOLL_Version() << "\n\n";
  for (Collective c : all_collectives()) {
    std::cout << "collective " << collective_name(c) << " (PCOLL_" << collective_name(c)
              << " upper-cased selects)\n";
    for (const AlgorithmInfo *a : algorithms_of(c)) {
      std::cout << "  " << a->name << "\n      " << a->description
                << "\n      source: " << a->source << "\n";
      if (a->restrictions.needs_commutative) std::cout << "      restriction: commutative op\n";
      if (!a->is_vendor() && !a->auto_candidate)
        std::cout << "      auto: never chosen by the cost model (a rule may name it)\n";
      if (!a->params.empty()) {
        std::cout << "      parameters:";
        for (const ParamSpec &p : a->params) std::cout << " " << p.name;
        std::cout << "\n";
      }
    }
  }
  std::cout << "\nparameters (environment variable = current value [source]; default; allowed)\n";
  const auto &t = param_table();
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::cout << "  " << env_name(t[i]) << " = " << cfg.values[i] << " ["
              << source_name(cfg.sources[i]) << "]\n      " << t[i].description
              << "\n      default " << t[i].default_value << "; allowed " << allowed_values(t[i])
              << "\n";
  }
  const std::string err = cfg.first_error();
  if (!err.empty()) std::cout << "\nconfiguration error: " << err << "\n";
}

void params_markdown() {
  std::cout << "| variable | default | allowed | meaning |\n|---|---|---|---|\n";
  for (const auto &p : param_table()) {
    std::string allowed;
    for (char ch : allowed_values(p))
      allowed += ch == '|' ? std::string("\\|") : std::string(1, ch);
    std::cout << "| `" << env_name(p) << "` | `" << p.default_value << "` | " << allowed << " | "
              << p.description << " |\n";
  }
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Config cfg = load_config();
  std::string mode, coll_name, algo_name, type = "double";
  int ranks = 0, rpn = 0, show_rank = -1;
  long long count = -1;
  std::vector<std::pair<int, std::string>> sets;
  bool alpha_set = false, beta_set = false, gamma_set = false;
  bool candidates_only = false;
  double alpha = 0, beta = 0, gamma = 0;
  auto need = [&](std::size_t &i) -> const std::string & {
    if (i + 1 >= args.size()) die(args[i] + " needs a value");
    return args[++i];
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--params-markdown") {
      params_markdown();
      return 0;
    } else if (a == "--plan") {
      mode = "plan";
      coll_name = need(i);
      algo_name = need(i);
    } else if (a == "--candidates") {
      candidates_only = true;
    } else if (a == "--select") {
      mode = "select";
      coll_name = need(i);
    } else if (a == "--ranks") {
      ranks = std::atoi(need(i).c_str());
    } else if (a == "--count") {
      count = std::atoll(need(i).c_str());
    } else if (a == "--type") {
      type = need(i);
    } else if (a == "--ranks-per-node") {
      rpn = std::atoi(need(i).c_str());
    } else if (a == "--show-rank") {
      show_rank = std::atoi(need(i).c_str());
    } else if (a == "--alpha") {
      alpha = std::atof(need(i).c_str()), alpha_set = true;
    } else if (a == "--beta") {
      beta = std::atof(need(i).c_str()), beta_set = true;
    } else if (a == "--gamma") {
      gamma = std::atof(need(i).c_str()), gamma_set = true;
    } else if (a == "--set") {
      const std::string &kv = need(i);
      const auto eq = kv.find('=');
      if (eq == std::string::npos) die("--set takes NAME=VALUE");
      const int idx = param_index(kv.substr(0, eq));
      if (idx < 0) die("unknown parameter '" + kv.substr(0, eq) + "'");
      const std::string e = validate_param(param_table()[idx], kv.substr(eq + 1));
      if (!e.empty()) die(e);
      sets.emplace_back(idx, kv.substr(eq + 1));
    } else {
      die("unknown argument '" + a + "'");
    }
  }
  cfg = with_overrides(cfg, sets);
  if (mode.empty()) {
    list_everything(cfg);
    return 0;
  }
  if (const std::string e = cfg.first_error(); !e.empty()) die(e);
  if (ranks < 1) die("--ranks P (P >= 1) is required");
  if (count < 0) die("--count N (N >= 0) is required");
  const Collective coll = parse_collective(coll_name);
  // The call in its signature's units (bytes for data movement), as every rank would see it.
  const std::size_t tsize = type_size(type);
  CallShape shape = CallShape::of(coll, ranks, static_cast<std::size_t>(count), tsize);
  // Nodes of rpn consecutive ranks, the last one possibly smaller: a call sees the smallest
  // node's size (context.cpp: CHiArA's b_max), the model every node as it is.
  shape.ranks_per_node = rpn > 0 && ranks % rpn != 0 ? std::min(rpn, ranks % rpn) : rpn;
  CostParams cost = cost_params(cfg);
  if (alpha_set) cost.alpha = alpha;
  if (beta_set) cost.beta = beta;
  if (gamma_set) cost.gamma = gamma;
  const double bytes = double(shape.bytes());

  std::string machine_error;
  const auto machine = load_machine(cfg.get("machine"), &machine_error);
  if (!machine) die(machine_error);
  const Topology topo = Topology::blocks(ranks, rpn);
  const ModelInputs model{machine.get(), &topo};

  if (mode == "select") {
    std::string rules_error;
    const auto rules = load_rules(cfg.get("rules"), &rules_error);
    if (!rules) die(rules_error);
    // The same decision a call of this shape makes (select.hpp), as rank 0 would.
    const Decision dec = decide(shape, cfg, rules.get(), 0, model);
    const Selection &sel = dec.selection;
    if (candidates_only) {
      for (const Candidate &c :
           distinct(model_candidates(coll, cfg, shape, model, true), cfg, shape)) {
        std::string spec = c.algo->name;
        for (const auto &pv : c.params)
          spec += ":" + std::string(param_table()[pv.first].name) + "=" + pv.second;
        std::printf("%s\t%.6e\n", spec.c_str(), c.seconds);
      }
      return 0;
    }
    std::printf("%s, P=%d (%d ranks per node%s), %lld x %zu B = %s\n", collective_name(coll), ranks,
                rpn > 0 ? rpn : ranks,
                shape.ranks_per_node != rpn && rpn > 0
                    ? (", the last node " + std::to_string(shape.ranks_per_node)).c_str()
                    : "",
                count, tsize, human_bytes(bytes).c_str());
    std::printf("machine: %s%s%s\n", machine->source.c_str(),
                machine->origin.empty() ? "" : "; origin: ", machine->origin.c_str());
    std::printf("rules: %s%s%s\n", rules->source.c_str(),
                rules->origin.empty() ? "" : "; origin: ", rules->origin.c_str());
    if (!collective_info(coll).auto_rule || sel.by_model) {
      const auto t0 = std::chrono::steady_clock::now();
      (void)model_choice(coll, cfg, shape, model);  // what a first call of its size class pays
      const double took =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::vector<Candidate> all = model_candidates(coll, cfg, shape, model, true);
      const std::vector<Candidate> cands = distinct(all, cfg, shape);
      std::printf(
          "cost model: %zu candidates (%zu distinct schedules) at this count, fastest first (a "
          "call finds the fastest in %.1f ms):\n",
          all.size(), cands.size(), took * 1e3);
      for (std::size_t i = 0; i < cands.size(); ++i)
        std::printf("  %-52s %12.3f us%s\n", cands[i].label().c_str(), cands[i].seconds * 1e6,
                    i == 0 ? "   <- lowest model time" : "");
    }
    const std::string &asked = cfg.get(collective_name(coll));
    std::printf("%s = %s -> %s",
                env_name(param_table()[param_index(collective_name(coll))]).c_str(), asked.c_str(),
                sel.algo->name);
    for (const auto &p : sel.params)
      std::printf(" %s=%s", param_table()[p.first].name, p.second.c_str());
    std::printf("\n");
    if (asked == "auto") std::printf("  why: %s\n", sel.why.c_str());
    if (dec.fallback_reason.empty() && !dec.trace_name.empty())  // another's schedule
      std::printf("  runs: %s\n", dec.trace_name.c_str());
    if (sel.rule && !sel.rule->evidence.empty())
      std::printf("  evidence: %s\n", sel.rule->evidence.c_str());
    if (!dec.fallback_reason.empty())
      std::printf("  fallback: %s cannot serve this call: %s\n",
                  sel.fallback_reason.empty() ? "auto" : sel.requested->name,
                  dec.fallback_reason.c_str());
    if (dec.error != 0) std::printf("  error: %s\n", dec.error_message.c_str());
    return 0;
  }

  const AlgorithmInfo *algo = find_algorithm(coll, algo_name);
  if (!algo) {
    std::string known;
    for (const auto *a : algorithms_of(coll))
      known += std::string(known.empty() ? "" : "|") + a->name;
    die("unknown algorithm '" + algo_name + "' for " + coll_name + "; known: " + known);
  }
  if (algo->is_vendor()) die("vendor has no plan: it calls the MPI library");
  const PlanRequest req = plan_request(*algo, cfg, 0, shape);
  const Schedule s = make_schedule(build_all(*algo, req));
  if (!s.error.empty()) {
    std::cerr << "pcoll-info: the plan is broken: " << s.error << "\n";
    return 1;
  }
  const Ledger L = compute_ledger(s, shape.unit, cost, rpn);
  std::string verdict = "not run (P > 64 or over 10^6 units: shape only)";
  if (ranks <= 64 && shape.count <= 1000000) {
    VerifyOptions vo;
    vo.expect = collective_info(coll).expect;
    vo.count = shape.count;
    vo.require_order = !algo->restrictions.needs_commutative;
    const std::string e = verify_schedule(s, vo);
    const std::string what =
        vo.expect.synchronises ? "no rank leaves before every rank has entered"
        : vo.expect.broadcast  ? "every rank holds the root's (rank 0's) vector"
        : vo.expect.gathered
            ? "every rank holds every rank's block in place"
            : "every output element is the reduction of the right element of all ranks, "
              "each exactly once" +
                  std::string(vo.expect.root_only ? ", at the root (rank 0)" : "") +
                  std::string(vo.expect.identical ? ", bit-identical on all ranks" : "") +
                  std::string(vo.require_order ? ", rank order kept" : "");
    verdict = e.empty() ? "correct (symbolic execution): " + what : "WRONG: " + e;
  }
  std::printf("plan %s/%s  P=%d  count=%lld x %zu B = %s\n", collective_name(coll), algo->name,
              ranks, count, tsize, human_bytes(bytes).c_str());
  for (const auto &p : req.params)
    std::printf("  parameter %s = %s\n", p.first.c_str(), param_text(p.first, p.second).c_str());
  if (algo->explain) std::printf("  resolved               %s\n", algo->explain(req).c_str());
  if (const std::string why = restriction_failure(*algo, shape, cfg); !why.empty())
    std::printf("  restriction            %s: a real call falls back to vendor\n", why.c_str());
  std::printf("  verification           %s\n", verdict.c_str());
  std::printf("  rounds (critical path) %.0f\n", L.rounds);
  std::printf("  messages (crit. path)  %.0f\n", L.messages);
  std::printf("  bytes sent per rank    max %s, mean %s\n",
              human_bytes(double(L.max_bytes_sent)).c_str(),
              human_bytes(L.mean_bytes_sent).c_str());
  std::printf("  busiest rank           %d: %s sent+received\n", L.busiest_rank,
              human_bytes(double(L.busiest_bytes)).c_str());
  std::printf("  temporary bytes        max %s per rank\n",
              human_bytes(double(L.max_temp_bytes)).c_str());
  std::printf("  messages in total      %zu", L.total_messages);
  if (rpn > 0)
    std::printf(" (intra-node %zu = %s, inter-node %zu = %s; %d ranks per node)", L.intra_messages,
                human_bytes(double(L.intra_bytes)).c_str(), L.inter_messages,
                human_bytes(double(L.inter_bytes)).c_str(), rpn);
  // The cost model `auto` uses (a sample of nodes), and every node's plans beside it.
  // The cost model `auto` uses: each rank's own rounds over a sample of nodes (and every node
  // beside it), then the replay of every rank's plan, where its chains of waits show.
  const Prediction pred = predict(*algo, req, *machine, topo, false);
  const Prediction every = predict(*algo, req, *machine, topo, true);
  const auto t_replay = std::chrono::steady_clock::now();
  const Prediction played = replay(*algo, req, *machine, topo);
  const double replay_ms =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_replay).count() * 1e3;
  const bool affordable = replay_affordable(s.plans[0], ranks);
  std::printf("\n  model (PCOLL_MACHINE)  machine %s\n", machine->source.c_str());
  std::printf("    each rank's rounds   %.3f us over auto's sample of nodes (every node: %.3f us)\n",
              pred.seconds * 1e6, every.seconds * 1e6);
  std::printf("    replayed             %.3f us, critical rank %d (every rank's plan against the "
              "others'; %.1f ms%s)\n",
              played.seconds * 1e6, played.critical_rank, replay_ms,
              affordable ? "" : "; beyond auto's budget: auto uses the sample for this one");
  for (const auto &[phase, sec] : played.phases)
    std::printf("      %-18s %.3f us\n", phase.c_str(), sec * 1e6);
  std::printf("      busiest node link  %s in one round\n", human_bytes(pred.link_bytes).c_str());
  std::printf(
      "  flat textbook model    %.3f us critical path (alpha=%g s, beta=%g s/B, gamma=%g "
      "s/B: PCOLL_MODEL_*)\n",
      L.model_time * 1e6, cost.alpha, cost.beta, cost.gamma);
  if (algo->model) std::printf("  closed form            %.3f us\n", algo->model(req, cost) * 1e6);
  if (show_rank >= 0 && show_rank < ranks) {
    const Plan &p = s.plans[show_rank];
    std::printf("rank %d: %zu rounds, tmp %zu units; ranges in units of %zu B (%s)\n", show_rank,
                p.rounds.size(), p.tmp_elems, shape.unit,
                shape.reduction ? "values of the base type" : "bytes of the packed data");
    for (std::size_t k = 0; k < p.rounds.size(); ++k) {
      const Round &r = p.rounds[k];
      std::printf("  round %zu [%s]", k, p.phases[r.phase].c_str());
      for (const auto &x : r.sends)
        std::printf(" send %s[%zu+%zu]->%d", buf_name(x.range.buf), x.range.off, x.range.len,
                    x.peer);
      for (const auto &x : r.recvs)
        std::printf(" recv %s[%zu+%zu]<-%d", buf_name(x.range.buf), x.range.off, x.range.len,
                    x.peer);
      for (const auto &o : r.ops)
        std::printf(" %s %s[%zu+%zu]%s%s[%zu]", o.kind == OpKind::copy ? "copy" : "reduce",
                    buf_name(o.src.buf), o.src.off, o.src.len,
                    o.kind == OpKind::copy ? "->" : (o.src_is_left ? "(op)" : "(op)rhs->"),
                    buf_name(o.dst.buf), o.dst.off);
      std::printf("\n");
    }
  }
  return verdict.rfind("WRONG", 0) == 0 ? 1 : 0;
}

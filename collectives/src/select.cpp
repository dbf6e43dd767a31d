#include "select.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <memory>
#include <queue>
#include <sstream>
#include <stdexcept>

#include "plan.hpp"

namespace pcoll {

CallShape CallShape::of(Collective coll, int P, std::size_t count, std::size_t type_size) {
  CallShape s;
  s.coll = coll;
  s.size = P;
  s.reduction = collective_info(coll).takes_op;
  s.count = s.reduction ? count : count * type_size;
  s.unit = s.reduction ? type_size : 1;
  s.node_segment = kDefaultNodeSegment;
  return s;
}

CallShape CallShape::in_units(Collective coll, int P, std::size_t count, std::size_t unit) {
  CallShape s;
  s.coll = coll;
  s.size = P;
  s.reduction = collective_info(coll).takes_op;
  s.count = count;
  s.unit = unit;
  s.node_segment = kDefaultNodeSegment;
  return s;
}

// Every reason here depends only on values all ranks share (the communicator's kind, the
// signature's size and base type, the op), never on a rank's buffer layout, so every rank
// falls back alike.
std::string common_failure(const CallShape &s) {
  if (s.intercomm) return "inter-communicators are served by the vendor MPI only";
  if (s.count > 0 && s.issue == TypeIssue::mixed_base)
    return "the datatype mixes basic types (or holds one pcoll cannot walk), and MPI's "
           "predefined ops reduce per basic type";
  if (s.count > 0 && s.issue == TypeIssue::user_op_layout)
    return "a user-defined op on a datatype with gaps or a non-zero lower bound (the op reads "
           "the datatype's memory layout)";
  const std::size_t total = collective_info(s.coll).vector_elems(s.count, s.size);
  if (total * s.unit > static_cast<std::size_t>(INT_MAX))
    return "the message exceeds 2 GiB, the largest single transfer the executor posts";
  return {};
}

std::string restriction_failure(const AlgorithmInfo &algo, const CallShape &s, const Config &cfg) {
  if (algo.is_vendor()) return {};
  if (std::string e = common_failure(s); !e.empty()) return e;
  if (algo.restrictions.needs_commutative && s.reduction && !s.commutative)
    return std::string(algo.name) + " needs a commutative op and the op is not";
  if (algo.check) return algo.check(plan_request(algo, cfg, 0, s));
  return {};
}

namespace {
// The request of `shape` on `rank` with the values of `params` (an algorithm's, or a
// collective's auto_params for its auto_rule).
PlanRequest request_with(const std::vector<ParamSpec> &params, const Config &cfg, int rank,
                         const CallShape &shape) {
  PlanRequest req;
  req.coll = shape.coll;
  req.rank = rank;
  req.size = shape.size;
  req.count = shape.count;
  req.type_size = shape.unit ? shape.unit : 1;
  req.ranks_per_node = shape.ranks_per_node;
  req.root = shape.root;
  req.node_segment = shape.node_segment;
  req.persistent = shape.persistent;
  for (const ParamSpec &p : params) req.params.emplace_back(p.name, cfg.integer(p.name));
  return req;
}
}  // namespace

PlanRequest plan_request(const AlgorithmInfo &algo, const Config &cfg, int rank,
                         const CallShape &shape) {
  return request_with(algo.params, cfg, rank, shape);
}

CostParams cost_params(const Config &cfg) {
  return CostParams{cfg.real("model_alpha"), cfg.real("model_beta"), cfg.real("model_gamma")};
}

const Machine &builtin_machine() {
  static const std::shared_ptr<const Machine> m = [] {
    std::string error;
    auto d = load_machine("builtin", &error);
    if (!d) throw std::logic_error("pcoll: the built-in machine description: " + error);
    return d;
  }();
  return *m;
}

std::string Candidate::serialize() const {
  std::ostringstream os;
  const auto &all = all_algorithms();
  os << (algo ? std::find(all.begin(), all.end(), algo) - all.begin() : -1);
  for (const auto &p : params) os << ';' << p.first << '=' << p.second;
  os << ';' << count << ';' << std::hexfloat << seconds;
  return os.str();
}

bool Candidate::parse(const std::string &text) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : text) {
    if (ch == ';') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  parts.push_back(cur);
  const auto &all = all_algorithms();
  if (parts.size() < 3) return false;
  const long idx = std::strtol(parts[0].c_str(), nullptr, 10);
  if (idx < 0 || static_cast<std::size_t>(idx) >= all.size()) return false;
  algo = all[static_cast<std::size_t>(idx)];
  params.clear();
  for (std::size_t i = 1; i + 2 < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos) return false;
    const long p = std::strtol(parts[i].substr(0, eq).c_str(), nullptr, 10);
    if (p < 0 || static_cast<std::size_t>(p) >= param_table().size()) return false;
    params.emplace_back(static_cast<int>(p), parts[i].substr(eq + 1));
  }
  count = std::strtoull(parts[parts.size() - 2].c_str(), nullptr, 10);
  seconds = std::strtod(parts.back().c_str(), nullptr);
  return true;
}

std::string Candidate::label() const {
  std::string s = algo ? algo->name : "?";
  for (const auto &p : params) s += " " + std::string(param_table()[p.first].name) + "=" + p.second;
  return s;
}

std::vector<Candidate> model_candidates(Collective coll, const Config &cfg, const CallShape &shape,
                                        const ModelInputs &model, bool exhaustive,
                                        std::size_t *considered) {
  const Machine &m = model.machine ? *model.machine : builtin_machine();
  const Topology topo =
      model.topology ? *model.topology : Topology::blocks(shape.size, shape.ranks_per_node);
  // Every candidate with its configuration; then a best-first search over four levels: rank
  // 0's plan alone without contention (a lower bound), rank 0's node with its own link's
  // contention (a tighter one, from one node's plans), the per-rank model over a sample of
  // nodes (the first 4, the middle and the last, with every rank of each, and the members of
  // their tiers' groups; model.hpp), then, where its plans are within the budget, the replay of
  // every rank's plan against the others' (chains of waits across ranks; replay.cpp), which the
  // sample bounds from below. The candidate whose last level is popped first is the fastest;
  // the others are never evaluated further than their bound shows they cannot win.
  // `exhaustive`: every candidate to the end. (The replay costs P plan builds per candidate
  // that reaches it; the sample, 6 nodes' worth and up to 8 members of each of their tiers'
  // groups.)
  struct Pending {
    Candidate c;
    Config cfg;
    std::size_t order = 0;
  };
  std::vector<Pending> pending;
  for (const AlgorithmInfo *a : algorithms_of(coll)) {
    if (a->is_vendor() || !a->auto_candidate) continue;
    // The configured parameters first, then the settings the algorithm says matter.
    std::vector<std::vector<std::pair<std::string, std::string>>> sets = {{}};
    if (a->tunings) {
      const auto more = a->tunings(plan_request(*a, cfg, 0, shape));
      sets.insert(sets.end(), more.begin(), more.end());
    }
    for (const auto &set : sets) {
      Candidate c;
      c.algo = a;
      for (const auto &[name, value] : set) c.params.emplace_back(param_index(name), value);
      Config ccfg = c.params.empty() ? cfg : with_overrides(cfg, c.params);
      if (!restriction_failure(*a, shape, ccfg).empty()) continue;
      pending.push_back({std::move(c), std::move(ccfg), pending.size()});
    }
  }
  if (considered) *considered = pending.size();
  struct Item {
    double key;
    // 0: rank-0 bound, 1: rank 0's node's bound, 2: the per-rank model over a sample of nodes,
    // 3: the replay of every rank's plan (where affordable; level 2's time bounds it below).
    int level;
    std::size_t i;
    bool operator>(const Item &o) const {
      return key > o.key || (key == o.key && (level < o.level || (level == o.level && i > o.i)));
    }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  auto request = [&](std::size_t i) {
    return plan_request(*pending[i].c.algo, pending[i].cfg, 0, shape);
  };
  for (std::size_t i = 0; i < pending.size(); ++i)
    heap.push({lower_bound(*pending[i].c.algo, request(i), m, topo), 0, i});
  std::vector<Candidate> out;
  while (!heap.empty()) {
    const Item it = heap.top();
    heap.pop();
    Pending &p = pending[it.i];
    if (it.level == 0) {
      heap.push({node_bound(*p.c.algo, request(it.i), m, topo), 1, it.i});
    } else if (it.level == 1) {
      heap.push({predict(*p.c.algo, request(it.i), m, topo, false).seconds, 2, it.i});
    } else if (it.level == 2 && replay_affordable(make_plan(*p.c.algo, request(it.i)), shape.size)) {
      heap.push({replay(*p.c.algo, request(it.i), m, topo).seconds, 3, it.i});
    } else {
      p.c.seconds = it.key;
      p.c.count = shape.count;
      out.push_back(p.c);
      if (!exhaustive) break;  // every bound left is at least this time
    }
  }
  return out;
}

namespace {

// ", at count 1024, the first of this count's size class 1024..1279", where the model decided
// at another count than the call's.
std::string class_note(const CallShape &shape, std::size_t at, const Config &cfg) {
  if (at == shape.count) return {};
  const SizeClass k =
      size_class(shape.count, static_cast<int>(cfg.integer("model_size_classes")));
  return ", at count " + std::to_string(at) + ", the first of this count's size class " +
         std::to_string(k.first) + ".." + std::to_string(k.next - 1) +
         " (PCOLL_MODEL_SIZE_CLASSES)";
}

}  // namespace

SizeClass size_class(std::size_t count, int per_octave) {
  const auto k = static_cast<std::size_t>(per_octave);
  if (per_octave <= 0 || count < 2 * k) return {count, count + 1};
  int m = 0;
  while ((count >> m) > 1) ++m;  // 2^m <= count < 2^(m+1), and 2^m >= k
  if (m > 56) return {count, count + 1};  // (no call is that large; keeps k 2^m in 64 bits)
  const std::size_t base = std::size_t{1} << m;
  const std::size_t j = ((count - base) * k) >> m;
  auto edge = [&](std::size_t i) { return base + ((i << m) + k - 1) / k; };  // + ceil(i 2^m / k)
  return {edge(j), edge(j + 1)};
}

CallShape model_shape(const CallShape &shape, const Config &cfg) {
  CallShape at = shape;
  at.count = size_class(shape.count, static_cast<int>(cfg.integer("model_size_classes"))).first;
  return at;
}

bool serves(const Candidate &c, const CallShape &shape, const Config &cfg) {
  return restriction_failure(*c.algo, shape, c.params.empty() ? cfg : with_overrides(cfg, c.params))
      .empty();
}

std::vector<Candidate> model_choice(Collective coll, const Config &cfg, const CallShape &shape,
                                    const ModelInputs &model, std::size_t *considered) {
  const CallShape at = model_shape(shape, cfg);
  if (at.count != shape.count) {
    std::vector<Candidate> c = model_candidates(coll, cfg, at, model, false, considered);
    if (!c.empty() && serves(c.front(), shape, cfg)) return c;
  }
  return model_candidates(coll, cfg, shape, model, false, considered);
}

Selection auto_choice(Collective coll, const Config &cfg, const CallShape &shape,
                      const ModelInputs &model) {
  Selection sel;
  const CollectiveInfo &row = collective_info(coll);
  if (row.auto_rule) {
    // The collective's own rule (e.g. alltoall's size dispatch), on values all ranks share.
    PlanRequest req = request_with(row.auto_params, cfg, 0, shape);
    req.coll = coll;
    const char *name = row.auto_rule(req);  // nullptr: the model decides
    const AlgorithmInfo *a = name != nullptr ? find_algorithm(coll, name) : nullptr;
    if (a != nullptr && restriction_failure(*a, shape, cfg).empty()) {
      sel.algo = sel.requested = a;
      sel.why = "the collective's size rule";
      return sel;
    }
  }
  if (model.defer) {
    sel.needs_model = true;
    return sel;
  }
  if (model.given != nullptr) {
    sel.algo = sel.requested = model.given->algo;
    sel.params = model.given->params;
    sel.by_model = true;
    sel.model_seconds = model.given->seconds;
    sel.model_count = model.given->count;
    sel.why = "the cost model (computed on rank 0 of the communicator for every rank" +
              class_note(shape, sel.model_count, cfg) + ")";
    return sel;
  }
  std::size_t considered = 0;
  const std::vector<Candidate> c = model_choice(coll, cfg, shape, model, &considered);
  if (c.empty()) {
    sel.algo = sel.requested = find_algorithm(coll, "vendor");
    sel.why = "no algorithm of pcoll can serve it";
    return sel;
  }
  sel.algo = sel.requested = c.front().algo;
  sel.params = c.front().params;
  sel.by_model = true;
  sel.model_seconds = c.front().seconds;
  sel.model_count = c.front().count;
  sel.why = "the cost model (lowest model time of " + std::to_string(considered) +
            " candidates: algorithms and the parameter values that matter" +
            class_note(shape, sel.model_count, cfg) + ")";
  return sel;
}

std::size_t rule_bytes(const CallShape &shape) {
  return collective_info(shape.coll).vector_elems(shape.count, shape.size) * shape.unit;
}

Config effective_config(const Config &cfg, const Selection &sel) {
  return sel.params.empty() ? cfg : with_overrides(cfg, sel.params);
}

Selection select_algorithm(const Config &cfg, const Rules *rules, const CallShape &shape,
                           const ModelInputs &model) {
  Selection sel;
  const std::string &name = cfg.get(collective_name(shape.coll));
  if (name == "auto") {
    // Calls none of pcoll's algorithms can take (inter-communicators, non-contiguous types, ...)
    // are the vendor's whatever a rule says: the fallback then names the reason.
    const Rule *r = rules && common_failure(shape).empty()
                        ? rules->match(shape.coll, shape.size, rule_bytes(shape))
                        : nullptr;
    // A rule naming vendor serves reductions on derived datatypes too: api.cpp hands the
    // vendor such calls in their base type (the signature), which every MPI accepts.
    if (r != nullptr) {
      const std::string no = restriction_failure(
          *r->algo, shape, r->params.empty() ? cfg : with_overrides(cfg, r->params));
      if (no.empty()) {
        sel.algo = sel.requested = r->algo;
        sel.rule = r;
        sel.params = r->params;
        sel.why = "rule " + r->describe() + " of " + rules->source;
        return sel;
      }
      sel.why = "rule " + r->describe() + " skipped (" + no + "); ";
    } else {
      sel.why = rules == nullptr        ? "no rules; "
                : rules->rules.empty() ? "no rule in " + rules->source + "; "
                                       : "no rule of " + rules->source + " matches; ";
    }
    const std::string before = sel.why;
    sel = auto_choice(shape.coll, cfg, shape, model);
    sel.why = before + sel.why;
    return sel;
  }
  sel.requested = find_algorithm(shape.coll, name);
  sel.fallback_reason = restriction_failure(*sel.requested, shape, cfg);
  sel.algo = sel.fallback_reason.empty() ? sel.requested : find_algorithm(shape.coll, "vendor");
  return sel;
}

namespace {

// "vendor (fallback: REASON)", the algorithm name the trace records for a call pcoll handed to
// the vendor: the reason up to its first parenthesis, short enough for the trace's column.
std::string fallback_label(const std::string &reason) {
  std::string r = reason.substr(0, reason.find(" ("));
  if (r.size() > 72) r = r.substr(0, 69) + "...";
  return "vendor (fallback: " + r + ")";
}

// Why the call goes to the vendor although the configuration did not ask for it: the explicit
// algorithm's failed restriction, or for `auto` the first of pcoll's algorithms' (their common
// checks, inter-communicators, type issues, size, come first); empty when pcoll serves it.
std::string fallback_reason(const Config &cfg, const Selection &sel, const CallShape &shape) {
  if (!sel.fallback_reason.empty()) return sel.fallback_reason;
  // A rule that names vendor is a measured choice (nothing beat it), not a fallback.
  if (!sel.algo->is_vendor() || sel.rule != nullptr ||
      cfg.get(collective_name(shape.coll)) == "vendor")
    return {};
  for (const AlgorithmInfo *a : algorithms_of(shape.coll)) {
    if (a->is_vendor()) continue;
    std::string why = restriction_failure(*a, shape, cfg);
    if (!why.empty()) return why;
  }
  return {};
}

}  // namespace

Decision decide(const CallShape &shape, const Config &cfg, const Rules *rules, int rank,
                const ModelInputs &model) {
  Decision d;
  d.selection = select_algorithm(cfg, rules, shape, model);
  const Selection &sel = d.selection;
  d.algo = sel.algo;
  d.fallback_reason = fallback_reason(cfg, sel, shape);
  if (!d.fallback_reason.empty()) {
    // The policy: `auto` never fails a call (when none of pcoll's algorithms can serve it, the
    // vendor does); an explicit algorithm fails it under PCOLL_FALLBACK=error.
    const std::string &mode = cfg.get("fallback");
    const bool is_auto = sel.fallback_reason.empty();
    const std::string msg = std::string(collective_name(shape.coll)) + " algorithm '" +
                            (is_auto ? "auto" : sel.requested->name) +
                            "' cannot serve this call: " + d.fallback_reason;
    if (mode == "error" && !is_auto) {
      d.error = MPI_ERR_ARG;
      d.error_message = msg + " (PCOLL_FALLBACK=error)";
    } else if (mode == "warn") {
      d.warnings.push_back(msg +
                           "; using vendor instead (warned once per process and reason; "
                           "PCOLL_FALLBACK=silent hides this)");
    }
    d.trace_name = fallback_label(d.fallback_reason);
  }
  if (d.error != 0 || sel.algo->is_vendor()) return d;
  const PlanRequest req = plan_request(*sel.algo, effective_config(cfg, sel), rank, shape);
  d.trace_name = delegation_label(*sel.algo, req);  // the schedule that runs, where another's
  if (sel.algo->warning && cfg.get("fallback") == "warn" &&
      cfg.get(collective_name(shape.coll)) != "auto") {
    // Shapes an algorithm the user asked for handles poorly (e.g. CHiArA without a usable batch
    // size) are said once; `auto` weighed the algorithm against the others already.
    const std::string note = sel.algo->warning(req);
    if (!note.empty())
      d.warnings.push_back(std::string(collective_name(shape.coll)) + " " + sel.algo->name + ": " +
                           note);
  }
  d.params = req.params;
  if (collective_info(shape.coll).per_rank_layout()) {  // plans by layout, per call
    d.req = req;
    d.layout_plans = std::make_shared<LayoutPlans>();
  } else if (shape.count > 0) {
    d.plan = std::make_shared<const Plan>(make_plan(*sel.algo, req));
  }
  return d;
}

std::shared_ptr<const Plan> LayoutPlans::find(const Layout &l) const {
  for (const auto &e : entries)
    if (e.first == l) return e.second;
  return nullptr;
}

void LayoutPlans::store(const Layout &l, std::shared_ptr<const Plan> p) {
  if (entries.size() >= kKeep) entries.erase(entries.begin());  // the oldest
  entries.emplace_back(l, std::move(p));
}

}  // namespace pcoll

#include "select.hpp"

#include <climits>
#include <limits>

namespace pcoll {

std::string common_failure(const CallShape &s) {
  if (s.intercomm) return "inter-communicators are served by the vendor MPI only";
  if (!s.type.contiguous && s.count > 0)
    return "the datatype is not contiguous (gaps or a non-zero lower bound)";
  if (!s.send_matches && s.count > 0)
    return "the send type and count do not lay out the data like the receive type and count "
           "(a non-contiguous send type, or a different size: the vendor checks the type "
           "signatures)";
  const std::size_t total = collective_info(s.coll).vector_elems(s.count, s.size);
  if (total * s.type.size > static_cast<std::size_t>(INT_MAX))
    return "the message exceeds 2 GiB, the largest single transfer the executor posts";
  return {};
}

std::string restriction_failure(const AlgorithmInfo &algo, const CallShape &s, const Config &cfg) {
  if (algo.is_vendor()) return {};
  if (std::string e = common_failure(s); !e.empty()) return e;
  if (algo.restrictions.needs_commutative && s.needs_reduction && !s.commutative)
    return std::string(algo.name) + " needs a commutative op and the op is not";
  if (algo.check) return algo.check(plan_request(algo, cfg, 0, s));
  return {};
}

PlanRequest plan_request(const AlgorithmInfo &algo, const Config &cfg, int rank,
                         const CallShape &shape) {
  PlanRequest req;
  req.coll = shape.coll;
  req.rank = rank;
  req.size = shape.size;
  req.count = shape.count;
  req.type_size = shape.type.size ? shape.type.size : 1;
  req.ranks_per_node = shape.ranks_per_node;
  req.root = shape.root;
  for (const char *p : algo.params) req.params.emplace_back(p, cfg.integer(p));
  return req;
}

CostParams cost_params(const Config &cfg) {
  return CostParams{cfg.real("model_alpha"), cfg.real("model_beta"), cfg.real("model_gamma")};
}

const AlgorithmInfo *auto_choice(Collective coll, const Config &cfg, const CallShape &shape) {
  const CollectiveInfo &row = collective_info(coll);
  if (row.auto_rule) {
    // The collective's own rule (e.g. alltoall's size dispatch), on values all ranks share.
    PlanRequest req;
    req.coll = coll;
    req.size = shape.size;
    req.count = shape.count;
    req.type_size = shape.type.size ? shape.type.size : 1;
    req.ranks_per_node = shape.ranks_per_node;
    req.root = shape.root;
    for (const char *p : row.auto_params) req.params.emplace_back(p, cfg.integer(p));
    const AlgorithmInfo *a = find_algorithm(coll, row.auto_rule(req));
    if (a != nullptr && restriction_failure(*a, shape, cfg).empty()) return a;
  }
  const CostParams cost = cost_params(cfg);
  const AlgorithmInfo *best = nullptr;
  double best_t = std::numeric_limits<double>::infinity();
  for (const AlgorithmInfo *a : algorithms_of(coll)) {
    if (a->is_vendor() || a->model == nullptr || !a->auto_candidate ||
        !restriction_failure(*a, shape, cfg).empty())
      continue;
    const double t = a->model(plan_request(*a, cfg, 0, shape), cost);
    if (t < best_t) {  // ties keep the earlier entry of the table
      best_t = t;
      best = a;
    }
  }
  return best ? best : find_algorithm(coll, "vendor");
}

std::size_t rule_bytes(const CallShape &shape) {
  return collective_info(shape.coll).vector_elems(shape.count, shape.size) * shape.type.size;
}

Config effective_config(const Config &cfg, const Selection &sel) {
  return sel.rule && !sel.rule->params.empty() ? with_overrides(cfg, sel.rule->params) : cfg;
}

Selection select_algorithm(const Config &cfg, const Rules *rules, const CallShape &shape) {
  Selection sel;
  const std::string &name = cfg.get(collective_name(shape.coll));
  if (name == "auto") {
    // Calls none of pcoll's algorithms can take (inter-communicators, non-contiguous types, ...)
    // are the vendor's whatever a rule says: the fallback then names the reason.
    const Rule *r = rules && common_failure(shape).empty()
                        ? rules->match(shape.coll, shape.size, rule_bytes(shape))
                        : nullptr;
    // A rule measured on predefined types says nothing about reductions on derived ones, which
    // MPI's predefined ops do not accept (pcoll's algorithms reduce them by their base type):
    // before rules, auto never sent such a call to the vendor, and a rule must not either.
    if (r != nullptr && r->algo->is_vendor() && shape.needs_reduction && !shape.type.predefined) {
      sel.why = "rule " + r->describe() +
                " skipped (the vendor's predefined ops take predefined "
                "datatypes only); ";
      r = nullptr;
      sel.algo = sel.requested = auto_choice(shape.coll, cfg, shape);
      sel.why += "the cost model (lowest model time)";
      return sel;
    }
    if (r != nullptr) {
      const std::string no = restriction_failure(
          *r->algo, shape, r->params.empty() ? cfg : with_overrides(cfg, r->params));
      if (no.empty()) {
        sel.algo = sel.requested = r->algo;
        sel.rule = r;
        sel.why = "rule " + r->describe() + " of " + rules->source;
        return sel;
      }
      sel.why = "rule " + r->describe() + " skipped (" + no + "); ";
    } else {
      sel.why = rules && !rules->rules.empty() ? "no rule of " + rules->source + " matches; "
                                               : "no rules; ";
    }
    sel.algo = sel.requested = auto_choice(shape.coll, cfg, shape);
    sel.why += collective_info(shape.coll).auto_rule
                   ? "the collective's size rule or the cost model"
                   : "the cost model (lowest model time)";
    return sel;
  }
  sel.requested = find_algorithm(shape.coll, name);
  sel.fallback_reason = restriction_failure(*sel.requested, shape, cfg);
  sel.algo = sel.fallback_reason.empty() ? sel.requested : find_algorithm(shape.coll, "vendor");
  return sel;
}

}  // namespace pcoll

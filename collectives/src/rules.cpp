// Rules files (rules.hpp): parsing and validation with toml++ (header-only), all or nothing.
#include "rules.hpp"

#include <sstream>

#include "toml_file.hpp"

namespace pcoll {

namespace {

using toml_file::line_of;
using toml_file::show;
using RuleError = toml_file::LineError;

long long ranks_bound(const toml::node &n, int line) {
  const auto v = n.value<std::int64_t>();
  if (!n.is_integer() || !v || *v < 1)
    throw RuleError(line, "ranks: '" + show(n) + "' is not a rank count >= 1");
  return *v;
}

std::size_t bytes_bound(const toml::node &n, int line) {
  if (n.is_integer() && *n.value<std::int64_t>() >= 0)
    return static_cast<std::size_t>(*n.value<std::int64_t>());
  if (const auto *s = n.as_string()) {
    if (s->get() == "inf") return static_cast<std::size_t>(-1);
    long long v = 0;
    if (parse_size(s->get(), v) && v >= 0) return static_cast<std::size_t>(v);
  }
  throw RuleError(line,
                  "bytes: '" + show(n) + "' is not a byte count (123, \"4k\", \"1m\", \"inf\")");
}

// [lo, hi] from an integer or a two-element array.
template <class T, class F>
std::pair<T, T> range_of(const toml::node &n, const char *what, F bound) {
  const int line = line_of(n);
  if (const auto *a = n.as_array()) {
    if (a->size() != 2)
      throw RuleError(line, std::string(what) + " must be one value or [low, high]");
    const T lo = bound((*a)[0], line), hi = bound((*a)[1], line);
    if (lo > hi) throw RuleError(line, std::string(what) + ": low > high");
    return {lo, hi};
  }
  const T v = bound(n, line);
  return {v, v};
}

Rule parse_rule(const CollectiveInfo &coll, const toml::table &t) {
  Rule r;
  r.coll = coll.id;
  r.line = line_of(t);
  const std::string where = std::string("[[") + coll.name + "]]";
  for (auto &&[k, v] : t) {
    const std::string key(k.str());
    if (key != "ranks" && key != "bytes" && key != "algorithm" && key != "params" &&
        key != "evidence")
      throw RuleError(line_of(v), where + ": unknown key '" + key +
                                      "' (known: ranks, bytes, algorithm, params, evidence)");
  }
  for (const char *required : {"ranks", "bytes", "algorithm"})
    if (!t.contains(required)) throw RuleError(r.line, where + ": missing '" + required + "'");
  std::tie(r.ranks_lo, r.ranks_hi) = range_of<long long>(*t.get("ranks"), "ranks", ranks_bound);
  std::tie(r.bytes_lo, r.bytes_hi) = range_of<std::size_t>(*t.get("bytes"), "bytes", bytes_bound);
  const toml::node &an = *t.get("algorithm");
  const auto name = an.value<std::string>();
  r.algo = name ? find_algorithm(coll.id, *name) : nullptr;
  if (r.algo == nullptr) {
    std::string known;
    for (const AlgorithmInfo *a : algorithms_of(coll.id))
      known += std::string(known.empty() ? "" : "|") + a->name;
    throw RuleError(line_of(an), "algorithm '" + show(an) + "' is not an algorithm of " +
                                     coll.name + " (known: " + known + "; auto is not a rule)");
  }
  if (const toml::node *pn = t.get("params")) {
    const auto *pt = pn->as_table();
    if (pt == nullptr) throw RuleError(line_of(*pn), "params must be a table");
    for (auto &&[k, v] : *pt) {
      const std::string key(k.str());
      bool declared = false;
      for (const ParamSpec &p : r.algo->params) declared = declared || key == p.name;
      if (!declared) {
        std::string known;
        for (const ParamSpec &p : r.algo->params)
          known += std::string(known.empty() ? "" : ", ") + p.name;
        throw RuleError(line_of(v), std::string(r.algo->name) + " has no parameter '" + key +
                                        "' (its parameters: " +
                                        (known.empty() ? std::string("none") : known) + ")");
      }
      const int idx = param_index(key);
      const std::string value = show(v);
      const std::string e = validate_param(param_table()[static_cast<std::size_t>(idx)], value);
      if (!e.empty()) throw RuleError(line_of(v), e);
      r.params.emplace_back(idx, value);
    }
  }
  if (const toml::node *en = t.get("evidence")) {
    const auto *et = en->as_table();
    if (et == nullptr) throw RuleError(line_of(*en), "evidence must be a table");
    r.evidence = toml_file::join_table(*et);
  }
  return r;
}

}  // namespace

std::string Rule::describe() const {
  auto b = [](std::size_t v) {
    return v == static_cast<std::size_t>(-1) ? std::string("inf") : std::to_string(v);
  };
  std::string s = std::string(collective_name(coll)) + " P " + std::to_string(ranks_lo) + ".." +
                  std::to_string(ranks_hi) + ", bytes " + b(bytes_lo) + ".." + b(bytes_hi) +
                  " -> " + algo->name;
  for (const auto &p : params) s += " " + std::string(param_table()[p.first].name) + "=" + p.second;
  return s + " (line " + std::to_string(line) + ")";
}

std::shared_ptr<const Rules> parse_rules(const std::string &text, const std::string &source,
                                         std::string *error) {
  auto rules = std::make_shared<Rules>();
  rules->source = source;
  rules->fingerprint = toml_file::fingerprint(text);
  *error = toml_file::parse(text, source, [&](const toml::table &doc) {
    for (auto &&[k, v] : doc) {
      const std::string key(k.str());
      if (key == "origin") {
        const auto *t = v.as_table();
        if (t == nullptr) throw RuleError(line_of(v), "origin must be a table");
        rules->origin = toml_file::join_table(*t);
        continue;
      }
      const CollectiveInfo *coll = find_collective(key);
      const auto *arr = v.as_array();
      if (coll == nullptr) {
        std::string known;
        for (const CollectiveInfo &c : collective_table())
          known += std::string(known.empty() ? "" : ", ") + c.name;
        throw RuleError(line_of(v), "unknown table '" + key + "' (known: origin, " + known + ")");
      }
      if (arr == nullptr || !arr->is_array_of_tables())
        throw RuleError(line_of(v), "rules of " + key + " are written [[" + key + "]]");
      for (const toml::node &n : *arr) rules->rules.push_back(parse_rule(*coll, *n.as_table()));
    }
    // Overlaps would make the rule order matter silently: reject them.
    for (std::size_t i = 0; i < rules->rules.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        const Rule &a = rules->rules[i], &b = rules->rules[j];
        if (a.coll == b.coll && a.ranks_lo <= b.ranks_hi && b.ranks_lo <= a.ranks_hi &&
            a.bytes_lo <= b.bytes_hi && b.bytes_lo <= a.bytes_hi)
          throw RuleError(a.line, "this rule overlaps the rule at line " + std::to_string(b.line) +
                                      " (" + b.describe() + ")");
      }
    }
  });
  if (!error->empty()) return nullptr;
  return rules;
}

std::shared_ptr<const Rules> load_rules(const std::string &spec, std::string *error) {
  if (spec == "none") {
    auto r = std::make_shared<Rules>();
    r->source = "none";
    return r;
  }
  if (spec == "builtin" || spec.empty()) {
    auto r = parse_rules(builtin_rules_text(), "builtin (inputs/rules/default.toml)", error);
    if (!r) *error = "PCOLL_RULES=builtin: " + *error;
    return r;
  }
  std::string text;
  if (!toml_file::read(spec, &text)) {
    *error = "PCOLL_RULES=" + spec + ": cannot read the file (builtin and none are also allowed)";
    return nullptr;
  }
  auto r = parse_rules(text, spec, error);
  // Like every configuration error: the variable that pointed at the file, then file:line.
  if (!r) *error = "PCOLL_RULES=" + spec + ": " + *error;
  return r;
}

}  // namespace pcoll

// Machine descriptions (machine.hpp): parsing and validation with toml++, all or nothing.
#include "machine.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "toml_file.hpp"

namespace pcoll {

namespace {

using toml_file::line_of;
using MachineError = toml_file::LineError;

// One number of a table: present, a number (integer or float, inf allowed where said), in
// [lo, hi].
double number(const toml::table &t, const std::string &table, const char *key, double lo, double hi,
              bool allow_inf, int table_line) {
  const toml::node *n = t.get(key);
  if (n == nullptr) throw MachineError(table_line, "[" + table + "]: missing '" + key + "'");
  double v = 0;
  if (const auto i = n->value_exact<std::int64_t>())
    v = static_cast<double>(*i);
  else if (const auto f = n->value_exact<double>())
    v = *f;
  else
    throw MachineError(line_of(*n), "[" + table + "] " + key + ": not a number");
  if (std::isnan(v) || (std::isinf(v) && !allow_inf) || v < lo || (!std::isinf(v) && v > hi)) {
    std::ostringstream os;
    os << "[" << table << "] " << key << " = " << v << " is out of range [" << lo << ", " << hi
       << "]" << (allow_inf ? " or inf" : "");
    throw MachineError(line_of(*n), os.str());
  }
  return v;
}

void only_keys(const toml::table &t, const std::string &table,
               const std::vector<std::string> &known) {
  for (auto &&[k, v] : t) {
    const std::string key(k.str());
    bool ok = false;
    for (const auto &x : known) ok = ok || key == x;
    if (!ok) {
      std::string list;
      for (const auto &x : known) list += (list.empty() ? "" : ", ") + x;
      throw MachineError(line_of(v),
                         "[" + table + "]: unknown key '" + key + "' (known: " + list + ")");
    }
  }
}

const toml::table &table_of(const toml::table &root, const char *name) {
  const toml::node *n = root.get(name);
  if (n == nullptr) throw MachineError(1, std::string("missing table [") + name + "]");
  const toml::table *t = n->as_table();
  if (t == nullptr) throw MachineError(line_of(*n), std::string(name) + " must be a table");
  return *t;
}

LinkLevel level_of(const toml::table &root, const char *name, bool inter) {
  const toml::table &t = table_of(root, name);
  std::vector<std::string> keys = {"latency", "overhead", "bandwidth", "rank_bandwidth"};
  if (inter) {
    keys.push_back("link_bandwidth");
    keys.push_back("pair_bandwidth");
  }
  only_keys(t, name, keys);
  const int line = line_of(t);
  LinkLevel l;
  l.latency = number(t, name, "latency", 0, 1, false, line);
  l.overhead = number(t, name, "overhead", 0, 1, false, line);
  l.bandwidth = number(t, name, "bandwidth", 1e3, 1e15, true, line);
  l.rank_bandwidth = t.contains("rank_bandwidth")
                         ? number(t, name, "rank_bandwidth", 1e3, 1e15, true, line)
                         : l.bandwidth;  // one flow at a time
  if (l.rank_bandwidth < l.bandwidth)
    throw MachineError(line, std::string(name) + ".rank_bandwidth must be at least bandwidth (" +
                                 "a rank moves at least one flow's worth)");
  return l;
}

}  // namespace

int Torus::points() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::shared_ptr<const Machine> parse_machine(const std::string &text, const std::string &source,
                                             std::string *error) {
  auto m = std::make_shared<Machine>();
  m->source = source;
  m->fingerprint = toml_file::fingerprint(text);
  *error = toml_file::parse(text, source, [&](const toml::table &root) {
    for (auto &&[k, v] : root) {
      const std::string key(k.str());
      if (key != "origin" && key != "intra" && key != "inter" && key != "reduce" && key != "copy" &&
          key != "shm" && key != "tier" && key != "torus")
        throw MachineError(line_of(v),
                           "unknown table '" + key +
                               "' (known: origin, intra, inter, reduce, copy, shm, tier, torus)");
    }
    if (const toml::node *o = root.get("origin")) {
      const toml::table *ot = o->as_table();
      if (ot == nullptr) throw MachineError(line_of(*o), "origin must be a table");
      m->origin = toml_file::join_table(*ot);
    }
    m->intra = level_of(root, "intra", false);
    m->inter = level_of(root, "inter", true);
    const toml::table &inter = table_of(root, "inter");
    m->link_bandwidth = number(inter, "inter", "link_bandwidth", 1e3, 1e15, true, line_of(inter));
    m->pair_bandwidth = inter.contains("pair_bandwidth") ? number(inter, "inter", "pair_bandwidth",
                                                                  1e3, 1e15, true, line_of(inter))
                                                         : m->link_bandwidth;
    if (const toml::node *tn = root.get("tier")) {
      const toml::array *arr = tn->as_array();
      if (arr == nullptr)
        throw MachineError(line_of(*tn), "tier must be an array of tables [[tier]]");
      for (const toml::node &e : *arr) {
        const toml::table *t = e.as_table();
        if (t == nullptr)
          throw MachineError(line_of(e), "tier must be an array of tables [[tier]]");
        only_keys(*t, "tier", {"nodes", "bandwidth", "spread_bandwidth", "latency"});
        Tier tier;
        tier.nodes = static_cast<int>(number(*t, "tier", "nodes", 2, 1 << 24, false, line_of(*t)));
        if (double(tier.nodes) != number(*t, "tier", "nodes", 2, 1 << 24, false, line_of(*t)))
          throw MachineError(line_of(*t), "[[tier]] nodes: not an integer");
        tier.bandwidth = t->contains("bandwidth")
                             ? number(*t, "tier", "bandwidth", 1e3, 1e15, true, line_of(*t))
                             : std::numeric_limits<double>::infinity();
        tier.spread_bandwidth =
            t->contains("spread_bandwidth")
                ? number(*t, "tier", "spread_bandwidth", 1e3, 1e15, true, line_of(*t))
                : tier.bandwidth;
        tier.latency =
            t->contains("latency") ? number(*t, "tier", "latency", 0, 1, false, line_of(*t)) : 0.0;
        if (!m->tiers.empty() && tier.nodes <= m->tiers.back().nodes)
          throw MachineError(line_of(*t), "[[tier]] nodes must increase from one tier to the next");
        m->tiers.push_back(tier);
      }
    }
    if (root.contains("torus")) {
      const toml::table &t = table_of(root, "torus");
      only_keys(t, "torus", {"dims", "link_bandwidth", "hop_latency"});
      const toml::node *d = t.get("dims");
      if (d == nullptr) throw MachineError(line_of(t), "[torus]: missing 'dims'");
      const toml::array *arr = d->as_array();
      if (arr == nullptr || arr->empty())
        throw MachineError(line_of(*d), "[torus] dims: not a non-empty array of integers");
      long long points = 1;
      for (const toml::node &e : *arr) {
        const auto v = e.value_exact<std::int64_t>();
        if (!v || *v < 2 || *v > 4096)
          throw MachineError(line_of(e), "[torus] dims: every dimension an integer in [2, 4096]");
        points *= *v;
        if (points > (1 << 24))
          throw MachineError(line_of(*d), "[torus] dims: more than 2^24 points");
        m->torus.dims.push_back(static_cast<int>(*v));
      }
      m->torus.link_bandwidth = number(t, "torus", "link_bandwidth", 1e3, 1e15, true, line_of(t));
      m->torus.hop_latency =
          t.contains("hop_latency") ? number(t, "torus", "hop_latency", 0, 1, false, line_of(t)) : 0.0;
    }
    const toml::table &red = table_of(root, "reduce");
    only_keys(red, "reduce", {"bandwidth"});
    m->reduce_bandwidth = number(red, "reduce", "bandwidth", 1e3, 1e15, true, line_of(red));
    m->copy_bandwidth = m->intra.bandwidth;
    if (root.contains("copy")) {
      const toml::table &cp = table_of(root, "copy");
      only_keys(cp, "copy", {"bandwidth"});
      m->copy_bandwidth = number(cp, "copy", "bandwidth", 1e3, 1e15, true, line_of(cp));
    }
    m->shm.flag_latency = m->intra.latency / 2;
    m->shm.copy_bandwidth = m->copy_bandwidth;
    m->shm.node_bandwidth = std::numeric_limits<double>::infinity();
    if (root.contains("shm")) {
      const toml::table &sh = table_of(root, "shm");
      only_keys(sh, "shm", {"flag_latency", "copy_bandwidth", "node_bandwidth"});
      if (sh.contains("flag_latency"))
        m->shm.flag_latency = number(sh, "shm", "flag_latency", 0, 1, false, line_of(sh));
      if (sh.contains("copy_bandwidth"))
        m->shm.copy_bandwidth =
            number(sh, "shm", "copy_bandwidth", 1e3, 1e15, true, line_of(sh));
      if (sh.contains("node_bandwidth"))
        m->shm.node_bandwidth =
            number(sh, "shm", "node_bandwidth", 1e3, 1e15, true, line_of(sh));
    }
  });
  if (!error->empty()) return nullptr;
  return m;
}

std::shared_ptr<const Machine> load_machine(const std::string &spec, std::string *error) {
  std::shared_ptr<const Machine> m;
  if (spec == "builtin" || spec.empty()) {
    m = parse_machine(builtin_machine_text(), "builtin (inputs/machines/default.toml)", error);
  } else {
    std::string text;
    if (!toml_file::read(spec, &text)) {
      *error = "PCOLL_MACHINE=" + spec + ": cannot read the file (builtin is also allowed)";
      return nullptr;
    }
    m = parse_machine(text, spec, error);
  }
  if (!m)
    *error = "PCOLL_MACHINE=" + (spec.empty() ? std::string("builtin") : spec) + ": " + *error;
  return m;
}

}  // namespace pcoll

// Configuration: every parameter pcoll reads is declared once, in the table in config.cpp, as
// {name, default, description, kind, range}. The environment variable is PCOLL_<NAME> (upper
// case), generated from the name; pcoll-info, docs/configuration.md and error messages all come
// from the same table. This file is the only place that reads the environment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pcoll {

enum class Collective : std::uint8_t;

enum class ParamKind : std::uint8_t {
  algorithm,  // an algorithm name of `coll`, or "auto"
  choice,     // one of `choices`
  integer,    // whole number in [min, max], optionally "auto"; sizes accept k/m/g suffixes (KiB..)
  real,       // floating-point number in [min, max]
  text,       // free text (a path), empty = off
};

// One parameter. Entries are written with named setters instead of a positional initialiser
// (C++17 has no designated initialisers), e.g.
//   ParamSpec::integer("tree_arity", "2").range(2, 1 << 20).about("fan-out of the k-ary tree")
struct ParamSpec {
  const char *name = "";
  const char *default_value = "";
  const char *description = "";
  ParamKind kind = ParamKind::text;
  long long min = 0;
  long long max = 0;
  bool allow_auto = false;
  bool is_size = false;  // accepts 4k, 1m, 1g suffixes (powers of 1024)
  std::vector<std::string> choices = {};
  Collective coll{};  // for ParamKind::algorithm

  static ParamSpec algorithm(const char *name, const char *default_value) {
    return make(name, default_value, ParamKind::algorithm);
  }
  static ParamSpec choice(const char *name, const char *default_value) {
    return make(name, default_value, ParamKind::choice);
  }
  static ParamSpec integer(const char *name, const char *default_value) {
    return make(name, default_value, ParamKind::integer);
  }
  static ParamSpec real(const char *name, const char *default_value, long long lo, long long hi) {
    return make(name, default_value, ParamKind::real).range(lo, hi);
  }
  static ParamSpec text(const char *name, const char *default_value) {
    return make(name, default_value, ParamKind::text);
  }
  ParamSpec &about(const char *text) { return description = text, *this; }
  ParamSpec &range(long long lo, long long hi) { return min = lo, max = hi, *this; }
  ParamSpec &or_auto() { return allow_auto = true, *this; }
  ParamSpec &size_suffixes() { return is_size = true, *this; }
  ParamSpec &one_of(std::vector<std::string> values) { return choices = std::move(values), *this; }
  ParamSpec &of(Collective c) { return coll = c, *this; }

 private:
  static ParamSpec make(const char *name, const char *default_value, ParamKind kind) {
    ParamSpec s;
    s.name = name;
    s.default_value = default_value;
    s.kind = kind;
    return s;
  }
};

// Sentinel for "auto" in integer parameters.
constexpr long long kAuto = -1;
// PCOLL_SHM_SEGMENT=auto: bytes per rank of one channel of the node segment for `ranks` ranks,
// 8 MiB / ranks within [64 KiB, 1 MiB] (1 MiB at P <= 8, 64 KiB from P = 128): the pieces of the
// shared-memory algorithms, each a few flag waits, stay large where a node has few ranks, and a
// channel stays within 8 MiB up to P = 128. Measured at P = 2 on the development VM (collprobe,
// allreduce shm against PMPI_Allreduce, 1 MiB / 4 MiB vectors): 64 KiB per rank 0.82x / 0.80x,
// 256 KiB 1.06x / 1.04x, 1 MiB 1.99x / 1.73x, 4 MiB 2.16x / 1.21x (slots beyond the core's
// cache).
std::size_t default_node_segment(int ranks);
// What offline plans (pcoll-info, the plan matrix) assume without a size: 64 KiB, the segment
// of P >= 128, which cuts vectors into the most pieces.
constexpr std::size_t kDefaultNodeSegment = 64 * 1024;

const std::vector<ParamSpec> &param_table();
// Index of a parameter in param_table(), or -1.
int param_index(const std::string &name);
std::string env_name(const ParamSpec &spec);
// The values allowed for a parameter, as shown to users ("2..1024 or auto", "error|warn|silent").
std::string allowed_values(const ParamSpec &spec);

// Checks a value; returns an empty string when valid, else a message that names the variable,
// the value and the allowed values.
std::string validate_param(const ParamSpec &spec, const std::string &value);
// Parses a validated integer parameter value (kAuto for "auto"); for a choice parameter, the
// index of the value in `choices` (so plan builders, which see integers only, can read it).
long long parse_integer(const ParamSpec &spec, const std::string &value);
// The value as users write it: the choice's name, "auto", or the number.
std::string param_text(const std::string &name, long long value);
double parse_real(const std::string &value);
// "4096", "4k", "1MiB", ... (powers of 1024); false on anything else.
bool parse_size(const std::string &text, long long &out);

// Where a value came from, for pcoll-info and the trace log.
// (A rules file, PCOLL_RULES, will add its own source when it exists.)
enum class Source : std::uint8_t { default_value, environment, override_ };
const char *source_name(Source s);

// The effective configuration of one process: one value per entry of param_table().
struct Config {
  std::vector<std::string> values;
  std::vector<Source> sources;

  const std::string &get(const std::string &name) const;
  long long integer(const std::string &name) const;
  double real(const std::string &name) const;
  // The first invalid value, as an error message; empty when all are valid.
  std::string first_error() const;
};

// Defaults overridden by PCOLL_* environment variables.
Config load_config();
// The PCOLL_* environment variables no parameter reads (typos: PCOLL_ALLREDUC=ring would
// otherwise be silently ignored), each as a message naming the closest real variable when one is
// close ("did you mean PCOLL_ALLREDUCE?"). Variables of pcoll's own scripts are not reported.
std::vector<std::string> unknown_variables();
// The configuration with per-communicator overrides (name, value) applied in order.
Config with_overrides(const Config &base,
                      const std::vector<std::pair<int, std::string>> &overrides);

}  // namespace pcoll

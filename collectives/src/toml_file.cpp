#include "toml_file.hpp"

#include <fstream>
#include <iomanip>
#include <sstream>

namespace pcoll::toml_file {

int line_of(const toml::node &n) {
  return static_cast<int>(n.source().begin.line);
}

std::string show(const toml::node &n) {
  std::ostringstream os;
  if (const auto *s = n.as_string())
    os << s->get();
  else if (const auto *f = n.as_floating_point())
    os << std::setprecision(6) << f->get();
  else if (const auto *a = n.as_array()) {
    os << '[';
    for (std::size_t i = 0; i < a->size(); ++i) os << (i ? ", " : "") << show((*a)[i]);
    os << ']';
  } else
    n.visit([&os](const auto &v) { os << v; });
  return os.str();
}

std::string join_table(const toml::table &t) {
  std::string out;
  for (auto &&[k, v] : t) out += (out.empty() ? "" : ", ") + std::string(k.str()) + "=" + show(v);
  return out;
}

std::uint64_t fingerprint(const std::string &text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string parse(const std::string &text, const std::string &source,
                  const std::function<void(const toml::table &)> &body) {
  try {
    const toml::table root = toml::parse(text, source);
    body(root);
  } catch (const toml::parse_error &e) {
    return source + ":" + std::to_string(e.source().begin.line) + ": " +
           std::string(e.description());
  } catch (const LineError &e) {
    return source + ":" + std::to_string(e.line) + ": " + e.what();
  }
  return "";
}

bool read(const std::string &path, std::string *text) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream os;
  os << in.rdbuf();
  *text = os.str();
  return true;
}

}  // namespace pcoll::toml_file

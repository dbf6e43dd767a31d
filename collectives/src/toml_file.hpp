// What the TOML files pcoll reads share (the rules file, rules.hpp, and the machine description,
// machine.hpp): a reason tied to a line, the "source:line: reason" message, values shown as
// written, the [origin]-style "key=value, ..." summary, the file read and the fingerprint ranks
// compare. Sources that include this header are compiled with TOML_HEADER_ONLY=1.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include <toml++/toml.h>

namespace pcoll::toml_file {

// Thrown by a file's reader; parse() turns it into "source:line: reason".
struct LineError : std::runtime_error {
  int line;
  LineError(int l, const std::string &m) : std::runtime_error(m), line(l) {}
};

int line_of(const toml::node &n);
// A value as a message shows it: strings bare, floats to 6 digits, arrays in brackets.
std::string show(const toml::node &n);
// "key=value, ..." of a table, in its order.
std::string join_table(const toml::table &t);
// FNV-1a of the text: what ranks compare to know they read the same file.
std::uint64_t fingerprint(const std::string &text);
// Parses `text` and runs `body` on its root; returns "" or "source:line: reason" for a syntax
// error or a LineError that body threw.
std::string parse(const std::string &text, const std::string &source,
                  const std::function<void(const toml::table &)> &body);
// The whole file; false when it cannot be read.
bool read(const std::string &path, std::string *text);

}  // namespace pcoll::toml_file

// What the case studies' option parsers share around their TOML decks (kmeans, cg, fft3d): the
// command line as one string, finding a deck by path or by name, and the first pass that reads
// only --deck, so that the deck's values become the defaults the flags then override.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace pcoll::apps {

inline std::string command_line(int argc, char **argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

// A deck given as a path, or as a name of `dir` (quick -> dir/quick.toml).
inline std::string resolve_deck(const std::string &deck, const std::string &dir) {
  if (std::filesystem::exists(deck)) return deck;
  const std::string named = dir + "/" + deck + ".toml";
  if (deck.find('/') == std::string::npos && std::filesystem::exists(named)) return named;
  throw std::runtime_error("--deck '" + deck + "' not found (neither a file nor " + named + ")");
}

// The value of --deck, or "" (pass 1; every other flag, and any error, is left to pass 2).
inline std::string deck_argument(int argc, char **argv) {
  CLI::App pre;
  pre.allow_extras();
  pre.set_help_flag();
  std::string deck;
  pre.add_option("--deck", deck);
  try {
    pre.parse(argc, argv);
  } catch (const CLI::ParseError &) {
    // reported by pass 2
  }
  return deck;
}

}  // namespace pcoll::apps

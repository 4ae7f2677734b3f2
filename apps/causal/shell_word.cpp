#include "shell_word.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace causal {

namespace {

bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:@%+=,-").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_word(std::string_view word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'') {
      out += "'\\''";
    } else if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      // Kept off the terminal: made by printf at run time ("$(printf '\033')"), outside the
      // single quotes. Not a newline: command substitution strips trailing newlines.
      out += fmt::format("'\"$(printf '\\{:03o}')\"'", u);
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace causal

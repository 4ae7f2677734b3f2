#include "causal/excerpt.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace causal {

std::string quoted_excerpt(std::string_view text, std::size_t max) {
  std::string out = "'";
  const std::size_t n = std::min(text.size(), max);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > max) return out + fmt::format("...' ({} bytes)", text.size());
  return out + "'";
}

std::string name_excerpt(std::string_view name) {
  const bool plain = !name.empty() && name.size() <= 60 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
  return plain ? std::string(name) : quoted_excerpt(name);
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace causal

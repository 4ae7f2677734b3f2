// Terminal text: see text_escape.hpp.
#include "text_escape.hpp"

#include <fmt/format.h>

namespace causal::cli {

namespace {

void append(fmt::memory_buffer& b, std::string_view s) { b.append(s.data(), s.data() + s.size()); }

template <class... Args>
void appendf(fmt::memory_buffer& b, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(fmt::appender(b), f, std::forward<Args>(args)...);  // straight into the buffer
}

}  // namespace

std::string text_escaped(std::string_view s) {
  fmt::memory_buffer b;
  append_text_escaped(b, s);
  return fmt::to_string(b);
}

void append_text_escaped(fmt::memory_buffer& out, std::string_view s) {
  const char* run = s.data();
  const char* end = s.data() + s.size();
  for (const char* p = s.data(); p < end; ++p) {
    auto c = static_cast<unsigned char>(*p);
    // A C1 control is 0xC2 followed by 0x80..0x9F in UTF-8.
    const bool c1 = c == 0xc2 && p + 1 < end && (static_cast<unsigned char>(p[1]) & 0xe0) == 0x80;
    if (c >= 0x20 && c != 0x7f && c != '\\' && !c1) continue;
    out.append(run, p);
    run = p + 1;
    if (c1) {
      appendf(out, "\\xc2\\x{:02x}", static_cast<unsigned char>(p[1]));
      run = ++p + 1;
    } else if (c == '\n') {
      append(out, "\\n");
    } else if (c == '\t') {
      append(out, "\\t");
    } else if (c == '\\') {
      append(out, "\\\\");
    } else {
      appendf(out, "\\x{:02x}", c);
    }
  }
  out.append(run, end);
}

}  // namespace causal::cli

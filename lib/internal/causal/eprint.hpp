// Writing a diagnostic to standard error without ever throwing.
//
// fmt::print(stderr, ...) throws std::system_error when the write fails (standard error
// closed, or a full disk behind it). A diagnostic that cannot be written must not change what
// a command does or how it exits (kcat ignores it too): a throwing write would have `causal
// tail -e T 2>&-` print every record, then exit 1 with "internal error" from its summary
// line; and from a librdkafka log callback an exception would end the process. eprint
// formats as fmt::format does and writes with fwrite, whose failure is ignored.
#pragma once

#include <cstdio>
#include <string>
#include <utility>

#include <fmt/core.h>

namespace causal {

template <typename... Args>
void eprint(fmt::format_string<Args...> format, Args&&... args) {
  const std::string text = fmt::format(format, std::forward<Args>(args)...);
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace causal

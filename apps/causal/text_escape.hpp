// Text from Kafka (names, keys, values) as a terminal shows it on one line.
// Thread-safety: none needed; pure functions.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace causal::cli {

// Appends valid UTF-8 `s` for a text line a terminal shows: '\n', '\t' and '\\' escaped
// as such, every other C0 byte, DEL and each byte of a C1 control (U+0080..U+009F, which
// some terminals act on) as \xNN; the rest as it is. Distinct inputs stay distinct.
void append_text_escaped(fmt::memory_buffer& out, std::string_view s);
// The same, as a string.
std::string text_escaped(std::string_view s);

}  // namespace causal::cli

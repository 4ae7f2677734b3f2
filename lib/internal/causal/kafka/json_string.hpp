// Bytes as JSON string literals, as the command line writes Kafka's keys, values, headers and
// names: UTF-8 validation (a string that is not valid UTF-8 is written as base64 instead,
// causal/base64.hpp) and escaping, byte for byte what nlohmann::json's dump() writes.
//
// Contract: every function is pure; writers append to the caller's buffer so that a
// formatter can build a whole output line in one reused buffer without allocating per
// field. Thread-safety: none needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace causal::kafka {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool valid_utf8(std::string_view s);

// Appends `s` as a JSON string literal (quotes included). REQUIRES: valid_utf8(s).
// The bytes are nlohmann::json's dump() of the string: '"', '\\', \b \f \n \r \t by name,
// other bytes below 0x20 as \u00xx (lower-case hex), everything else (0x7f, non-ASCII) as is.
void append_json_string(fmt::memory_buffer& out, std::string_view s);

// Raw writers for formatters that reserve room once and write through a pointer (the
// `causal tail` record line). `out` must have room for the stated maximum.
constexpr std::size_t json_string_max(std::size_t n) { return 6 * n + 2; }
// Validates UTF-8 (as valid_utf8) and escapes (as append_json_string) in one pass: writes
// the JSON string literal of `s` at `out` and returns its end, or returns nullptr when `s`
// is not valid UTF-8 (the bytes written at `out` are then meaningless). Writes at most
// json_string_max(s.size()) bytes.
char* write_json_string_utf8(char* out, std::string_view s);

}  // namespace causal::kafka

// Byte-to-text helpers shared by the Kafka hosts and the command line: UTF-8 validation,
// base64 (RFC 4648, padded) and JSON string escaping into an append buffer.
//
// Contract: every function is pure; encoders append to the caller's buffer so that a
// formatter can build a whole output line in one reused buffer without allocating per
// field. Thread-safety: none needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace causal::kafka {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool valid_utf8(std::string_view s);

// Appends the padded base64 of `bytes`.
void append_base64(fmt::memory_buffer& out, std::string_view bytes);
std::string base64(std::string_view bytes);
// Decodes padded or unpadded base64; whitespace is not allowed. nullopt-like error
// text names the first bad character position.
std::expected<std::string, std::string> unbase64(std::string_view text);

// Appends `s` as a JSON string literal (quotes included). REQUIRES: valid_utf8(s).
// The bytes are nlohmann::json's dump() of the string: '"', '\\', \b \f \n \r \t by name,
// other bytes below 0x20 as \u00xx (lower-case hex), everything else (0x7f, non-ASCII) as is.
void append_json_string(fmt::memory_buffer& out, std::string_view s);

// Raw writers for formatters that reserve room once and write through a pointer (the
// `causal tail` record line). `out` must have room for the stated maximum.
constexpr std::size_t json_string_max(std::size_t n) { return 6 * n + 2; }
constexpr std::size_t base64_size(std::size_t n) { return (n + 2) / 3 * 4; }
// Validates UTF-8 (as valid_utf8) and escapes (as append_json_string) in one pass: writes
// the JSON string literal of `s` at `out` and returns its end, or returns nullptr when `s`
// is not valid UTF-8 (the bytes written at `out` are then meaningless). Writes at most
// json_string_max(s.size()) bytes.
char* write_json_string_utf8(char* out, std::string_view s);
// Writes the padded base64 of `bytes` (base64_size(bytes.size()) bytes); returns its end.
char* write_base64(char* out, std::string_view bytes);

}  // namespace causal::kafka

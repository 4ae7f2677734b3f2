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
void append_json_string(fmt::memory_buffer& out, std::string_view s);

}  // namespace causal::kafka

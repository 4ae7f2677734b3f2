// Base64 (RFC 4648), the one implementation the core, the Kafka runtime and the command line
// share: the resolution state's text, tail's binary keys, values and headers, decode's and
// produce's input.
//
// Encoding is always the standard alphabet with '=' padding. Decoding comes in two
// strictnesses: base64_decode_into accepts what a person or a tool may hand over (padding
// optional, optionally the URL-safe alphabet too); base64_decode_canonical accepts only what
// base64() writes, for text causal wrote itself and reads back.
// Thread-safety: none needed; pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace causal {

// The length of the padded base64 of n bytes.
constexpr std::size_t base64_size(std::size_t n) { return (n + 2) / 3 * 4; }

// Writes the padded base64 of `bytes` at `out` and returns its end.
// REQUIRES: `out` has room for base64_size(bytes.size()) bytes.
char* write_base64(char* out, std::string_view bytes);

// The padded base64 of `bytes`.
std::string base64(std::string_view bytes);

// Which characters base64_decode_into takes for the values 62 and 63.
enum class Base64Alphabet {
  standard,         // '+' and '/'
  standard_or_url,  // also '-' and '_' (RFC 4648's URL-safe alphabet), mixed freely
};

// What base64_decode_into returns when `text` decoded.
inline constexpr std::size_t kBase64Decoded = static_cast<std::size_t>(-1);

// Decodes `text` into `out`, replacing its contents (a reused `out` keeps its capacity).
// Trailing '=' are dropped, so padding is optional; whitespace is not allowed, and unused
// bits of the last character are ignored. Returns kBase64Decoded, else the position of the
// first character outside the alphabet, else (every character valid) text.size() when the
// length leaves six stray bits; `out` then holds no meaningful bytes.
std::size_t base64_decode_into(std::string_view text, std::string& out,
                               Base64Alphabet alphabet = Base64Alphabet::standard);

// The bytes of `text` when it is exactly what base64() writes for them (length a multiple of
// 4, the standard alphabet, '=' only as the 1-2 final characters, unused bits zero); else
// nullopt.
std::optional<std::string> base64_decode_canonical(std::string_view text);

}  // namespace causal

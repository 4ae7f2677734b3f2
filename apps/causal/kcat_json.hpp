// One line of `kcat -J` output, as `causal decode --kcat` reads it: the record's topic,
// partition, offset and headers; every other field is skipped unread.
//
// kcat 1.7 writes header values as JSON strings holding the raw bytes: control bytes as
// \u00XX (or \b \f \n \r \t), '"' and '\' escaped, every other byte — including bytes
// >= 0x80 that are not UTF-8 — written as is. A strict JSON parser rejects such lines, so
// this reader treats strings as byte strings: \u00XX gives byte XX, other \uXXXX give
// their UTF-8 encoding, raw bytes are kept. (Piping kcat through jq first destroys the
// binary values: jq replaces invalid UTF-8 with U+FFFD.)
// Thread-safety: none needed; pure.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace causal::cli {

struct KcatRecord {
  std::optional<std::string> topic;
  std::optional<std::int64_t> partition;
  std::optional<std::int64_t> offset;
  std::vector<std::optional<std::string>> headers;  // name, value, name, value...
  bool has_headers = false;
};

// The record of one kcat -J line, or why the line is not one ("<what> at column N").
std::expected<KcatRecord, std::string> parse_kcat_line(std::string_view line);

}  // namespace causal::cli

// The causal.clock header codec. The byte layout is documented in docs/wire-format.md,
// with test vectors that tests/core/codec_test.cpp checks.
//
// Contract: decode never reads past `bytes`, never allocates more than the input
// justifies, and reports why an input is invalid. encode is canonical:
// encode(decode(x)) == x for every valid x.
// Thread-safety: pure functions; the Names passed in is mutated (interning).
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "causal/clock.hpp"

namespace causal {

inline constexpr std::string_view kClockHeader = "causal.clock";
inline constexpr std::uint8_t kWireVersion = 1;
inline constexpr std::size_t kMaxHeaderBytes = 64 * 1024;  // documented limit

enum class DecodeErrc {
  empty,             // zero-length header
  unknown_version,   // first byte is not a version this build reads
  truncated,         // input ended inside a field
  overlong_varint,   // varint longer than 10 bytes, or non-minimal encoding
  value_range,       // a number outside its field's range (offset > INT64_MAX, partition > INT32_MAX, seq 0)
  bad_topic,         // topic name breaks Kafka's rule
  bad_sender,        // sender empty, over 255 bytes or not UTF-8
  duplicate_claim,   // a coordinate appears twice
  not_canonical,     // topics, partitions or senders out of order
  count_too_large,   // a count exceeds what the remaining bytes could hold
  oversized,         // header longer than kMaxHeaderBytes
  trailing_bytes,    // bytes left after the last field
  bad_flags,         // reserved bits set
};

struct DecodeError {
  DecodeErrc code;
  std::size_t at;        // byte offset in the header where the problem was found
  std::string detail;    // human-readable reason, e.g. "varint at byte 7 is 11 bytes long"
};

std::string_view to_string(DecodeErrc e);

// Decodes into `out` (cleared first; its capacity is reused). Interns names in `names`.
std::expected<void, DecodeError> decode(std::span<const std::byte> bytes, Names& names, Clock& out);
inline std::expected<Clock, DecodeError> decode(std::span<const std::byte> bytes, Names& names) {
  Clock c;
  if (auto r = decode(bytes, names, c); !r) return std::unexpected(r.error());
  return c;
}

// decode() without its fast path (lib/core/decode_fast_path.hpp): the general decoder
// alone, with the same contract and results, only slower on common headers. Tests and the
// fuzz target compare the two.
std::expected<void, DecodeError> decode_general(std::span<const std::byte> bytes, Names& names, Clock& out);

// Appends the canonical encoding of `clock` to `out`.
void encode(const Clock& clock, const Names& names, std::vector<std::byte>& out);
inline std::vector<std::byte> encode(const Clock& clock, const Names& names) {
  std::vector<std::byte> out;
  encode(clock, names, out);
  return out;
}

// encode() for a sender that stamps many records in a row: the same bytes, but the offset
// claims' part is written once and copied while the claims stay the same (a relay's stamps
// between two changes of its gate differ in their origin and sequence claims only, and the
// offset claims are most of a header: topic names and offsets). One per sender; its Names
// must outlive it, as a channel's topic and partition never change once named.
class ClockEncoder {
 public:
  // Appends the canonical encoding of `clock` to `out`, as encode(clock, names, out) does.
  void encode(const Clock& clock, const Names& names, std::vector<std::byte>& out);

 private:
  const Names* names_ = nullptr;         // of the kept part
  std::vector<OffsetClaim> offsets_;     // the claims the kept part encodes
  std::vector<std::byte> offset_bytes_;  // their encoding
};

// The JSON shape of protocol.md:
// {"origin":{"sender":"s","seq":42},"claims":[{"topic":..,"partition":..,"offset":..}],
//  "seq_claims":[{"topic":..,"partition":..,"sender":..,"seq":..}]}
// Claims are listed in canonical (wire) order.
nlohmann::json clock_to_json(const Clock& clock, const Names& names);
// Accepts the same shape (origin and either array optional). Errors name the field.
std::expected<Clock, Error> clock_from_json(const nlohmann::json& j, Names& names);

}  // namespace causal

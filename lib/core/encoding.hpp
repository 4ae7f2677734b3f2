// Private to lib/core: the parts of a causal.clock header's encoding (docs/wire-format.md),
// shared by encode() (codec.cpp) and ClockEncoder (clock_encoder.cpp), so that the two
// cannot write a clock differently. Each appends its part to `out` in canonical order, and
// throws std::invalid_argument on a claim the wire cannot carry, as encode() documents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "causal/clock.hpp"
#include "wire_format.hpp"

namespace causal::encoding {

// The flags byte: which of origin, offset claims and sequence claims follow.
inline std::uint8_t flags_of(const Clock& clock) {
  return static_cast<std::uint8_t>((clock.origin ? wire::kFlagOrigin : 0) |
                                   (clock.offsets().empty() ? 0 : wire::kFlagOffsets) |
                                   (clock.seqs().empty() ? 0 : wire::kFlagSeqs));
}
void put_origin(const Origin& origin, const Names& names, std::vector<std::byte>& out);
// REQUIRES: `offsets` not empty, one claim per channel (a Clock's). Likewise put_seq_claims.
void put_offset_claims(std::span<const OffsetClaim> offsets, const Names& names, std::vector<std::byte>& out);
void put_seq_claims(std::span<const SeqClaim> seqs, const Names& names, std::vector<std::byte>& out);
// Throws std::length_error when a header of `bytes` would be over kMaxHeaderBytes.
void check_size(std::size_t bytes);

}  // namespace causal::encoding

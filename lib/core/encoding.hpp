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
#include "causal/codec.hpp"
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

// The whole header of `clock`, appended to `out`: version, flags, origin, the offset claims
// (put_offsets(offsets) appends them: put_offset_claims, or bytes kept from an earlier
// clock with the same claims), the sequence claims; then check_size.
template <class PutOffsets>
void put_clock(const Clock& clock, const Names& names, std::vector<std::byte>& out,
               PutOffsets&& put_offsets) {
  const std::size_t start = out.size();
  out.push_back(static_cast<std::byte>(kWireVersion));
  out.push_back(static_cast<std::byte>(flags_of(clock)));
  if (clock.origin) put_origin(*clock.origin, names, out);
  if (!clock.offsets().empty())
    put_offsets(std::span<const OffsetClaim>(clock.offsets().data(), clock.offsets().size()));
  if (!clock.seqs().empty())
    put_seq_claims(std::span<const SeqClaim>(clock.seqs().data(), clock.seqs().size()), names, out);
  check_size(out.size() - start);
}

}  // namespace causal::encoding

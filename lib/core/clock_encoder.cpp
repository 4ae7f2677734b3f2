// ClockEncoder (codec.hpp): encode() with the offset claims' part kept from one clock to
// the next while they stay the same.
#include <algorithm>

#include "causal/codec.hpp"
#include "encoding.hpp"

namespace causal {

void ClockEncoder::encode(const Clock& clock, const Names& names, std::vector<std::byte>& out) {
  encoding::put_clock(clock, names, out, [&](std::span<const OffsetClaim> offsets) {
    // The part depends on the claims and on their channels' names alone: the same claims,
    // read through the same Names, are the same bytes.
    if (&names != names_ || !std::ranges::equal(offsets, offsets_)) {
      names_ = nullptr;  // nothing kept should the claims not encode (a negative offset throws)
      offsets_.clear();
      offset_bytes_.clear();
      encoding::put_offset_claims(offsets, names, offset_bytes_);
      offsets_.assign(offsets.begin(), offsets.end());
      names_ = &names;
    }
    out.insert(out.end(), offset_bytes_.begin(), offset_bytes_.end());
  });
}

}  // namespace causal

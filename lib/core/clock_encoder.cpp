// ClockEncoder (codec.hpp): encode() with the offset claims' part kept from one clock to
// the next while they stay the same.
#include <algorithm>

#include "causal/codec.hpp"
#include "encoding.hpp"

namespace causal {

void ClockEncoder::encode(const Clock& clock, const Names& names, std::vector<std::byte>& out) {
  const std::size_t start = out.size();
  out.push_back(static_cast<std::byte>(kWireVersion));
  out.push_back(static_cast<std::byte>(encoding::flags_of(clock)));
  if (clock.origin) encoding::put_origin(*clock.origin, names, out);
  const std::span offsets(clock.offsets().data(), clock.offsets().size());
  if (!offsets.empty()) {
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
  }
  if (!clock.seqs().empty())
    encoding::put_seq_claims(std::span(clock.seqs().data(), clock.seqs().size()), names, out);
  encoding::check_size(out.size() - start);
}

}  // namespace causal

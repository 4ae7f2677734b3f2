// The causal.clock decoder's fast path (contract in decode_fast_path.hpp), and decode(),
// which tries it first. It checks the same rules as the general decoder, in whatever order
// is cheapest, because it never has to say which problem comes first: on any doubt it
// declines and the general decoder decides. Each reader below returns false to decline.
#include "decode_fast_path.hpp"

#include <cstdint>
#include <string_view>

#include "causal/codec.hpp"
#include "wire_format.hpp"

namespace causal::wire {

namespace {

using Byte = std::uint8_t;

// A varint read: where the next field starts, nullptr to decline.
struct Read {
  const Byte* next;
  std::uint64_t value;
};

// A minimal unsigned LEB128 varint of at most 8 bytes (so its value is below 2^56: the
// sums and differences below cannot overflow 64 bits). Longer varints are valid up to 10
// bytes; the general decoder takes them. Out of line and returning its cursor by value,
// so the callers' cursors stay in registers.
[[gnu::noinline]] Read long_varint(const Byte* p, const Byte* end) {
  std::uint64_t r = 0;
  for (unsigned i = 0; i < 8; ++i) {
    if (p + i == end) return {nullptr, 0};
    const std::uint64_t b = p[i];
    r |= (b & 0x7F) << (7 * i);
    if (b < 0x80) {
      if (b == 0 && i > 0) return {nullptr, 0};  // a trailing zero group: not minimal
      return {p + i + 1, r};
    }
  }
  return {nullptr, 0};
}

// The same, with the one- and two-byte varints of partitions, counts and offset
// differences inline. On false, p is unspecified.
[[gnu::always_inline]] inline bool varint(const Byte*& p, const Byte* end, std::uint64_t& v) {
  if (p < end - 1) [[likely]] {  // two bytes left (end - 1 is in the input: it has 2 or more)
    const std::uint64_t b0 = p[0];
    if (b0 < 0x80) {
      v = b0;
      p += 1;
      return true;
    }
    const std::uint64_t b1 = p[1];
    if (b1 - 1 < 0x7F) {  // 0x01..0x7F: the last group, and not a trailing zero
      v = (b0 & 0x7F) | (b1 << 7);
      p += 2;
      return true;
    }
  }
  const Read r = long_varint(p, end);
  p = r.next;
  v = r.value;
  return r.next != nullptr;
}

// An offset claim's two varints, the partition gap and the offset difference. Inline for
// the usual shape, a one-byte gap and a difference of up to three bytes, read from four
// bytes checked once; anything else through varint().
[[gnu::always_inline]] inline bool offset_claim(const Byte*& p, const Byte* end, std::uint64_t& gap,
                                                std::uint64_t& v) {
  if (end - p >= 4) [[likely]] {
    const std::uint64_t b0 = p[0];
    const std::uint64_t b1 = p[1];
    if (b0 < 0x80) {
      gap = b0;
      if (b1 < 0x80) {
        v = b1;
        p += 2;
        return true;
      }
      const std::uint64_t b2 = p[2];
      if (b2 - 1 < 0x7F) {  // 0x01..0x7F: the last group, and not a trailing zero
        v = (b1 & 0x7F) | (b2 << 7);
        p += 3;
        return true;
      }
      const std::uint64_t b3 = p[3];
      if (b2 >= 0x80 && b3 - 1 < 0x7F) {
        v = (b1 & 0x7F) | ((b2 & 0x7F) << 7) | (b3 << 14);
        p += 4;
        return true;
      }
    }
  }
  return varint(p, end, gap) && varint(p, end, v);
}

// A length-prefixed name of 1..max_len bytes, inside the input.
[[gnu::always_inline]] inline bool name(const Byte*& p, const Byte* end, std::size_t max_len,
                                        std::string_view& s) {
  if (p == end) return false;
  const std::size_t len = *p;
  if (len == 0 || len > max_len || len >= static_cast<std::size_t>(end - p)) return false;
  s = std::string_view(reinterpret_cast<const char*>(p + 1), len);
  p += 1 + len;
  return true;
}

// prev < next in byte order (unsigned, as memcmp). Both are non-empty; most names that
// follow each other differ in their first byte.
[[gnu::always_inline]] inline bool ascending(std::string_view prev, std::string_view next) {
  const auto a = static_cast<Byte>(prev[0]);
  const auto b = static_cast<Byte>(next[0]);
  if (a != b) return a < b;
  return prev < next;
}

// The channel of an interned topic's partition, if the partition is interned too. The
// dense index covers partitions below 4096 only, so a partition found there is also
// within the format's 0..2^31-1; larger ones decline.
[[gnu::always_inline]] inline bool channel(std::span<const ChannelId> dense, std::uint64_t partition,
                                           ChannelId& ch) {
  if (partition >= dense.size()) return false;
  ch = dense[partition];
  return ch != Names::kNoChannel;
}

// A topic block's head: its name (after `prev`, unless first), interned, and its count
// of claims (at least 1).
[[gnu::always_inline]] inline bool topic_head(const Byte*& p, const Byte* end, const Names& names, bool first,
                                              std::string_view& prev, std::span<const ChannelId>& dense,
                                              std::uint64_t& n) {
  std::string_view topic;
  if (!name(p, end, kMaxTopicBytes, topic)) return false;
  if (!first && !ascending(prev, topic)) return false;
  prev = topic;
  const std::optional<TopicId> id = names.find_topic(topic);  // an interned name is a valid one
  if (!id) return false;
  dense = names.dense_channels(*id);
  return varint(p, end, n) && n != 0;
}

[[gnu::always_inline]] inline bool fast_path(std::span<const std::byte> bytes, const Names& names, Clock& out) {
  const auto* p = reinterpret_cast<const Byte*>(bytes.data());
  const Byte* const end = p + bytes.size();
  if (bytes.size() < 2 || bytes.size() > kMaxHeaderBytes || p[0] != kWireVersion) return false;
  const Byte flags = p[1];
  if (flags & ~kFlagsKnown) return false;
  p += 2;

  if (flags & kFlagOrigin) {
    std::string_view s;
    std::uint64_t seq = 0;
    if (!name(p, end, kMaxSenderBytes, s)) return false;
    const std::optional<SenderId> id = names.find_sender(s);
    if (!id || !varint(p, end, seq) || seq == 0) return false;
    out.origin = Origin{*id, seq};
  }

  // Claims arrive in name order; while their ids ascend too the clock needs no sort.
  bool sorted = true;
  if (flags & kFlagOffsets) {
    std::uint64_t topics = 0;
    if (!varint(p, end, topics) || topics == 0) return false;
    std::string_view prev;
    ChannelId last = 0;
    // Every iteration reads at least one byte or declines, so no count can loop past
    // the input.
    for (std::uint64_t t = 0; t < topics; ++t) {
      std::span<const ChannelId> dense;
      std::uint64_t n = 0;
      if (!topic_head(p, end, names, t == 0, prev, dense, n)) return false;
      // partition[0] = gap, partition[i] = partition[i-1] + 1 + gap;
      // offset[0] = v, offset[i] = offset[i-1] + unzigzag(v).
      // Each claim takes at least 2 bytes: nothing is reserved beyond what the input holds.
      if (n > static_cast<std::size_t>(end - p) / 2) return false;
      OffsetClaim* claim = out.append_offsets_for_overwrite(n);
      OffsetClaim* const claims_end = claim + n;
      std::uint64_t gap = 0;
      std::uint64_t v = 0;
      if (!offset_claim(p, end, gap, v)) return false;
      std::uint64_t partition = gap;
      std::uint64_t offset = v;
      for (;;) {
        ChannelId ch = 0;
        if (!channel(dense, partition, ch)) return false;
        sorted &= ch >= last;
        last = ch;
        *claim = OffsetClaim{ch, static_cast<Offset>(offset)};
        if (++claim == claims_end) break;
        if (!offset_claim(p, end, gap, v)) return false;
        partition += 1 + gap;
        // |unzigzag(v)| < 2^55 and 0 <= offset < 2^63, so the sum taken modulo 2^64 is
        // in 0..2^63-1 exactly when the true sum is.
        offset += static_cast<std::uint64_t>(unzigzag(v));
        if (offset > kMaxOffset) return false;
      }
    }
  }

  bool seqs_sorted = true;
  if (flags & kFlagSeqs) {
    std::uint64_t topics = 0;
    if (!varint(p, end, topics) || topics == 0) return false;
    std::string_view prev;
    for (std::uint64_t t = 0; t < topics; ++t) {
      std::span<const ChannelId> dense;
      std::uint64_t n = 0;
      if (!topic_head(p, end, names, t == 0, prev, dense, n)) return false;
      // partition[0] = delta, partition[i] = partition[i-1] + delta; on the same
      // partition, senders strictly ascend.
      std::uint64_t partition = 0;
      std::string_view prev_sender;
      for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t delta = 0;
        std::uint64_t seq = 0;
        std::string_view s;
        ChannelId ch = 0;
        if (!varint(p, end, delta)) return false;
        partition += delta;
        if (!channel(dense, partition, ch)) return false;
        if (!name(p, end, kMaxSenderBytes, s)) return false;
        if (i > 0 && delta == 0 && !ascending(prev_sender, s)) return false;
        prev_sender = s;
        const std::optional<SenderId> sid = names.find_sender(s);
        if (!sid || !varint(p, end, seq) || seq == 0) return false;
        if (!out.seqs().empty()) {
          const SeqClaim& b = out.seqs().back();
          if (b.channel > ch || (b.channel == ch && b.sender > *sid)) seqs_sorted = false;
        }
        out.append_unsorted(SeqClaim{ch, *sid, seq});
      }
    }
  }

  if (p != end) return false;
  if (!sorted || !seqs_sorted) out.normalize();
  return true;
}

}  // namespace

bool decode_fast_path(std::span<const std::byte> bytes, const Names& names, Clock& out) {
  return fast_path(bytes, names, out);
}

}  // namespace causal::wire

namespace causal {

// Defined here rather than in codec.cpp so that the fast path is inlined into it.
std::expected<void, DecodeError> decode(std::span<const std::byte> bytes, Names& names, Clock& out) {
  out.clear();
  if (wire::fast_path(bytes, names, out)) [[likely]]
    return {};
  return decode_general(bytes, names, out);
}

}  // namespace causal

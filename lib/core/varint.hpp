// Private to lib/core: LEB128 unsigned varints and a bounded reader over a byte span.
//
// Contract: Reader never reads past `end`; every failing read leaves `pos()` at the byte
// where the problem was found so callers can report it. Varints are at most 10 bytes
// (64 bits) and must be minimal: a multi-byte varint whose last byte is 0x00 is rejected,
// so every value has exactly one encoding (the codec is canonical).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace causal::wire {

inline constexpr std::size_t kMaxVarintBytes = 10;

enum class VarintStatus : std::uint8_t { ok, truncated, overlong };

// Appends the minimal LEB128 encoding of v.
inline void put_varint(std::vector<std::byte>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::byte>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::byte>(v));
}

inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Bounded cursor. p_ <= end_ always.
class Reader {
 public:
  // Reads [begin, end) from byte `at` on. REQUIRES: at <= end - begin.
  Reader(const std::byte* begin, const std::byte* end, std::size_t at = 0)
      : begin_(begin), p_(begin + at), end_(end) {}

  std::size_t pos() const { return static_cast<std::size_t>(p_ - begin_); }
  std::size_t remaining() const { return static_cast<std::size_t>(end_ - p_); }
  bool at_end() const { return p_ == end_; }

  // REQUIRES: !at_end().
  std::uint8_t byte() { return static_cast<std::uint8_t>(*p_++); }

  // Up to 3 bytes (values below 2^21: offsets and deltas of most clocks), inline, when
  // at least 3 bytes remain; anything else goes to varint().
  [[gnu::always_inline]] bool short_varint(std::uint64_t& v) {
    if (end_ - p_ < 3) return false;
    auto b0 = static_cast<std::uint8_t>(p_[0]);
    if (b0 < 0x80) {
      v = b0;
      p_ += 1;
      return true;
    }
    auto b1 = static_cast<std::uint8_t>(p_[1]);
    if (b1 < 0x80) {
      if (b1 == 0) return false;  // non-minimal: let varint() report it
      v = (b0 & 0x7Fu) | (std::uint64_t{b1} << 7);
      p_ += 2;
      return true;
    }
    auto b2 = static_cast<std::uint8_t>(p_[2]);
    if (b2 < 0x80 && b2 != 0) {
      v = (b0 & 0x7Fu) | (std::uint64_t{b1 & 0x7Fu} << 7) | (std::uint64_t{b2} << 14);
      p_ += 3;
      return true;
    }
    return false;
  }

  // On failure, pos() is where the varint starts (truncated) or the offending byte
  // (overlong), and `v` is unspecified.
  [[gnu::always_inline]] VarintStatus varint(std::uint64_t& v) {
    // Fast path: one byte (partitions, counts, small deltas).
    if (p_ != end_ && static_cast<std::uint8_t>(*p_) < 0x80) {
      v = static_cast<std::uint8_t>(*p_++);
      return VarintStatus::ok;
    }
    const std::byte* q = p_;
    std::uint64_t r = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (q == end_) return VarintStatus::truncated;
      auto b = static_cast<std::uint8_t>(*q);
      if (shift == 63 && b > 0x01) {  // 10th byte may only carry bit 63
        p_ = q;
        return VarintStatus::overlong;
      }
      r |= std::uint64_t{b & 0x7Fu} << shift;
      ++q;
      if (b < 0x80) {
        if (b == 0 && shift > 0) {  // non-minimal: a trailing zero group
          p_ = q - 1;
          return VarintStatus::overlong;
        }
        break;
      }
    }
    p_ = q;
    v = r;
    return VarintStatus::ok;
  }

  // A run of n bytes as a string_view into the input. REQUIRES: n <= remaining().
  std::string_view bytes(std::size_t n) {
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

 private:
  const std::byte* begin_;
  const std::byte* p_;
  const std::byte* end_;
};

inline void put_bytes(std::vector<std::byte>& out, std::string_view s) {
  const auto* b = reinterpret_cast<const std::byte*>(s.data());
  out.insert(out.end(), b, b + s.size());
}

}  // namespace causal::wire

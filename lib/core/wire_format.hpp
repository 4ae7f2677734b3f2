// Private to lib/core: the constants of the causal.clock byte layout (docs/wire-format.md),
// shared by the encoder, the general decoder (codec.cpp) and the fast path
// (decode_fast_path.cpp), so that the three cannot disagree about them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace causal::wire {

inline constexpr std::uint8_t kFlagOrigin = 0x01;
inline constexpr std::uint8_t kFlagOffsets = 0x02;
inline constexpr std::uint8_t kFlagSeqs = 0x04;
inline constexpr std::uint8_t kFlagsKnown = kFlagOrigin | kFlagOffsets | kFlagSeqs;

inline constexpr std::size_t kMaxTopicBytes = 249;   // Kafka's limit
inline constexpr std::size_t kMaxSenderBytes = 255;  // a u8 length

inline constexpr std::uint64_t kMaxPartition = std::numeric_limits<std::int32_t>::max();
inline constexpr std::uint64_t kMaxOffset = std::numeric_limits<std::int64_t>::max();

// Zigzag maps signed deltas to unsigned so that small magnitudes take one byte:
// 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
constexpr std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
constexpr std::int64_t unzigzag(std::uint64_t u) {
  return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
}

}  // namespace causal::wire

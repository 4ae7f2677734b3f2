// Interning of topics, channels and senders, so that the gate compares integers.
//
// A channel is one Kafka topic-partition, written "topic/partition" in text.
// Ids are dense, start at 0 and are never reused for the lifetime of a Names.
// Thread-safety: none; one Names per gate/stamper/decoder family, used from one thread.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "causal/error.hpp"

namespace causal {

using ChannelId = std::uint32_t;
using TopicId = std::uint32_t;
using SenderId = std::uint32_t;
using Offset = std::int64_t;  // Kafka offset; -1 means "none" (e.g. an empty frontier)
using SeqNo = std::uint64_t;  // a sender's send number, starting at 1

inline constexpr Offset kNoOffset = -1;

// Kafka's topic name rule: 1..249 bytes of [a-zA-Z0-9._-].
bool valid_topic_name(std::string_view topic);
// The one wording of an invalid topic name in errors: "'T' is not a valid Kafka topic name
// (1..249 bytes of [a-zA-Z0-9._-])", the name quoted and cut.
std::string invalid_topic_text(std::string_view topic);
// Sender identities: 1..255 bytes of UTF-8.
bool valid_sender_name(std::string_view sender);

class Names {
 public:
  struct Channel {
    TopicId topic;
    std::int32_t partition;
  };

  // REQUIRES: valid_topic_name(topic).
  TopicId topic(std::string_view topic);
  // The ids of names already interned, or nullopt; any input is allowed. These are the
  // decoder's hot path: a topic or sender seen recently costs one short compare, and a
  // channel of a known topic one indexed load.
  std::optional<TopicId> find_topic(std::string_view topic) const {
    if (auto id = recent_topics_.find(topic)) [[likely]]
      return id;
    return find_topic_slow(topic);
  }
  std::optional<SenderId> find_sender(std::string_view sender) const {
    if (auto id = recent_senders_.find(sender)) [[likely]]
      return id;
    return find_sender_slow(sender);
  }
  std::optional<ChannelId> find_channel(TopicId topic, std::int32_t partition) const;
  // The channels of `topic` indexed by partition, kNoChannel where a partition is not
  // interned; it may end before partitions that are. Valid until the next channel().
  // REQUIRES: topic < topic_count().
  std::span<const ChannelId> dense_channels(TopicId topic) const { return partitions_[topic]; }
  static constexpr ChannelId kNoChannel = ~ChannelId{0};
  // REQUIRES: valid_topic_name(topic), partition >= 0.
  ChannelId channel(std::string_view topic, std::int32_t partition);
  ChannelId channel(TopicId topic, std::int32_t partition);
  // REQUIRES: valid_sender_name(sender).
  SenderId sender(std::string_view sender);

  const std::string& topic_name(TopicId t) const { return topics_[t]; }
  const Channel& channel_info(ChannelId c) const { return channels_[c]; }
  const std::string& channel_topic(ChannelId c) const { return topics_[channels_[c].topic]; }
  std::int32_t channel_partition(ChannelId c) const { return channels_[c].partition; }
  const std::string& sender_name(SenderId s) const { return senders_[s]; }
  std::string channel_text(ChannelId c) const;  // "topic/partition"

  std::size_t topic_count() const { return topics_.size(); }
  std::size_t channel_count() const { return channels_.size(); }
  std::size_t sender_count() const { return senders_.size(); }

 private:
  // Partitions below this are indexed densely per topic (at most 16 KiB a topic); larger
  // ones use channel_ids_ only.
  static constexpr std::int32_t kDensePartitions = 4096;
  // A direct-mapped cache of recent lookups, keyed by a cheap hash of the name; a hit is
  // confirmed by comparing the name's bytes, so a collision is only a miss. An entry
  // points at the interned string's bytes: topics_ and senders_ are deques, whose
  // elements never move as they grow, and a copied or moved Names starts with an empty
  // cache rather than pointers into another object.
  class Recent {
   public:
    Recent() = default;
    Recent(const Recent&) {}
    Recent& operator=(const Recent&) {
      slots_ = {};
      return *this;
    }
    std::optional<std::uint32_t> find(std::string_view s) const {
      const Entry& e = slots_[slot(s)];
      if (e.size == s.size() && same_bytes(e.data, s.data(), s.size())) return e.id;
      return std::nullopt;
    }
    // REQUIRES: `stored` outlives this cache's use of it (an element of topics_ or senders_).
    void put(const std::string& stored, std::uint32_t id) const {
      slots_[slot(stored)] = Entry{stored.data(), stored.size(), id};
    }

   private:
    struct Entry {
      const char* data = nullptr;
      std::size_t size = ~std::size_t{0};  // no name is this long: an empty slot never hits
      std::uint32_t id = 0;
    };
    static constexpr std::size_t kSlotBits = 7;
    static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
    static std::size_t slot(std::string_view s) {
      // Length and the first, middle and last bytes, mixed by a multiply (Fibonacci
      // hashing): cheap, and it spreads names that share a length and first letter
      // ("orders"/"audit" collided under a plain sum).
      std::uint64_t h = s.size();
      if (!s.empty()) {
        h |= std::uint64_t{static_cast<unsigned char>(s.front())} << 16 |
             std::uint64_t{static_cast<unsigned char>(s[s.size() / 2])} << 24 |
             std::uint64_t{static_cast<unsigned char>(s.back())} << 32;
      }
      return static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
    }
    // x[0..n) == y[0..n), inline for names of up to 16 bytes (a library memcmp costs more
    // than the compare itself at these sizes).
    static bool same_bytes(const char* x, const char* y, std::size_t n) {
      if (n < 4 || n > 16) return std::memcmp(x, y, n) == 0;
      if (n < 8)
        return load<std::uint32_t>(x) == load<std::uint32_t>(y) &&
               load<std::uint32_t>(x + n - 4) == load<std::uint32_t>(y + n - 4);
      return load<std::uint64_t>(x) == load<std::uint64_t>(y) &&
             load<std::uint64_t>(x + n - 8) == load<std::uint64_t>(y + n - 8);
    }
    template <class T>
    static T load(const char* p) {
      T v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    mutable std::array<Entry, kSlots> slots_{};
  };

  std::optional<TopicId> find_topic_slow(std::string_view topic) const;
  std::optional<SenderId> find_sender_slow(std::string_view sender) const;

  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::deque<std::string> topics_;  // a deque: Recent points into its elements
  std::unordered_map<std::string, TopicId, Hash, std::equal_to<>> topic_ids_;
  std::vector<Channel> channels_;
  std::unordered_map<std::uint64_t, ChannelId> channel_ids_;  // (topic << 32 | partition)
  std::deque<std::string> senders_;
  std::unordered_map<std::string, SenderId, Hash, std::equal_to<>> sender_ids_;
  std::vector<std::vector<ChannelId>> partitions_;          // [topic][partition] -> channel, dense part
  Recent recent_topics_;
  Recent recent_senders_;
};

// Parses "topic/partition". Errors name the text and the rule it broke.
std::expected<std::pair<std::string, std::int32_t>, Error> parse_channel(std::string_view text);

}  // namespace causal

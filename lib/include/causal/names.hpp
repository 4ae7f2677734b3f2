// Interning of topics, channels and senders, so that the gate compares integers.
//
// A channel is one Kafka topic-partition, written "topic/partition" in text.
// Ids are dense, start at 0 and are never reused for the lifetime of a Names.
// Thread-safety: none; one Names per gate/stamper/decoder family, used from one thread.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
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
    TopicId recent = recent_topics_[recent_slot(topic)];
    if (recent < topics_.size() && same_bytes(topics_[recent], topic)) return recent;
    return find_topic_slow(topic);
  }
  std::optional<SenderId> find_sender(std::string_view sender) const {
    SenderId recent = recent_senders_[recent_slot(sender)];
    if (recent < senders_.size() && same_bytes(senders_[recent], sender)) return recent;
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
  // Direct-mapped caches of recent lookups, keyed by a cheap hash of the name; a hit is
  // confirmed by comparing the stored name, so a collision is only a miss.
  static constexpr std::size_t kRecent = 64;
  static std::size_t recent_slot(std::string_view s) {
    // Length and the first and last byte: cheap, and enough to spread typical topic and
    // sender names ("orders", "payments", "svc-a-7f3c..") over the slots.
    std::size_t h = s.size() * 31;
    if (!s.empty()) h += static_cast<unsigned char>(s.front()) * 7 + static_cast<unsigned char>(s.back());
    return h % kRecent;
  }
  // a == b, inline for names of up to 16 bytes (a library memcmp costs more than the
  // compare itself at these sizes).
  static bool same_bytes(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n < 4 || n > 16) return a == b;
    const char* x = a.data();
    const char* y = b.data();
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
  std::optional<TopicId> find_topic_slow(std::string_view topic) const;
  std::optional<SenderId> find_sender_slow(std::string_view sender) const;

  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> topics_;
  std::unordered_map<std::string, TopicId, Hash, std::equal_to<>> topic_ids_;
  std::vector<Channel> channels_;
  std::unordered_map<std::uint64_t, ChannelId> channel_ids_;  // (topic << 32 | partition)
  std::vector<std::string> senders_;
  std::unordered_map<std::string, SenderId, Hash, std::equal_to<>> sender_ids_;
  std::vector<std::vector<ChannelId>> partitions_;          // [topic][partition] -> channel, dense part
  mutable std::array<TopicId, kRecent> recent_topics_{};    // valid where < topics_.size()
  mutable std::array<SenderId, kRecent> recent_senders_{};  // valid where < senders_.size()
};

// Parses "topic/partition". Errors name the text and the rule it broke.
std::expected<std::pair<std::string, std::int32_t>, Error> parse_channel(std::string_view text);

}  // namespace causal

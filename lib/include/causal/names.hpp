// Interning of topics, channels and senders, so that the gate compares integers.
//
// A channel is one Kafka topic-partition, written "topic/partition" in text.
// Ids are dense, start at 0 and are never reused for the lifetime of a Names.
// Thread-safety: none; one Names per gate/stamper/decoder family, used from one thread.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "causal/error.hpp"

namespace causal {

using ChannelId = std::uint32_t;
using TopicId = std::uint32_t;
using SenderId = std::uint32_t;
using Offset = std::int64_t;   // Kafka offset; -1 means "none" (e.g. an empty frontier)
using SeqNo = std::uint64_t;   // a sender's send number, starting at 1

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

  std::size_t channel_count() const { return channels_.size(); }
  std::size_t sender_count() const { return senders_.size(); }

 private:
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
};

// Parses "topic/partition". Errors name the text and the rule it broke.
std::expected<std::pair<std::string, std::int32_t>, Error> parse_channel(std::string_view text);

}  // namespace causal

#include "causal/names.hpp"
#include "causal/excerpt.hpp"

#include <charconv>
#include <limits>
#include <stdexcept>

#include <fmt/core.h>

namespace causal {

std::string invalid_topic_text(std::string_view topic) {
  return fmt::format("{} is not a valid Kafka topic name (1..249 bytes of [a-zA-Z0-9._-])", quoted_excerpt(topic));
}

bool valid_topic_name(std::string_view topic) {
  if (topic.empty() || topic.size() > 249) return false;
  if (topic == "." || topic == "..") return false;
  for (char c : topic) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {
// Strict UTF-8 check (no overlongs, no surrogates, max U+10FFFF).
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    unsigned c = *p;
    int n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (n < 0 || end - p < n + 1) return false;
    unsigned cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    static constexpr unsigned kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += n + 1;
  }
  return true;
}
}  // namespace

bool valid_sender_name(std::string_view sender) {
  return !sender.empty() && sender.size() <= 255 && valid_utf8(sender);
}

std::optional<TopicId> Names::find_topic_slow(std::string_view topic) const {
  auto it = topic_ids_.find(topic);
  if (it == topic_ids_.end()) return std::nullopt;
  recent_topics_.put(topics_[it->second], it->second);
  return it->second;
}

std::optional<SenderId> Names::find_sender_slow(std::string_view sender) const {
  auto it = sender_ids_.find(sender);
  if (it == sender_ids_.end()) return std::nullopt;
  recent_senders_.put(senders_[it->second], it->second);
  return it->second;
}

std::optional<ChannelId> Names::find_channel(TopicId t, std::int32_t partition) const {
  if (t < partitions_.size() && partition >= 0 &&
      static_cast<std::size_t>(partition) < partitions_[t].size() &&
      partitions_[t][partition] != kNoChannel) {
    return partitions_[t][partition];
  }
  std::uint64_t key = (std::uint64_t{t} << 32) | static_cast<std::uint32_t>(partition);
  auto it = channel_ids_.find(key);
  if (it == channel_ids_.end()) return std::nullopt;
  return it->second;
}

TopicId Names::topic(std::string_view topic) {
  if (auto id = find_topic(topic)) return *id;
  if (!valid_topic_name(topic)) throw std::invalid_argument(fmt::format("invalid topic name {}", quoted_excerpt(topic)));
  auto id = static_cast<TopicId>(topics_.size());
  topics_.emplace_back(topic);
  topic_ids_.emplace(std::string(topic), id);
  recent_topics_.put(topics_.back(), id);
  partitions_.emplace_back();
  return id;
}

ChannelId Names::channel(TopicId t, std::int32_t partition) {
  if (partition < 0) throw std::invalid_argument("negative partition");
  if (t >= topics_.size()) throw std::invalid_argument("unknown topic id");
  if (auto id = find_channel(t, partition)) return *id;
  auto id = static_cast<ChannelId>(channels_.size());
  channels_.push_back({t, partition});
  channel_ids_.emplace((std::uint64_t{t} << 32) | static_cast<std::uint32_t>(partition), id);
  if (partition < kDensePartitions) {
    auto& by_partition = partitions_[t];
    if (by_partition.size() <= static_cast<std::size_t>(partition))
      by_partition.resize(partition + 1, kNoChannel);
    by_partition[partition] = id;
  }
  return id;
}

ChannelId Names::channel(std::string_view t, std::int32_t partition) { return channel(topic(t), partition); }

SenderId Names::sender(std::string_view s) {
  if (auto id = find_sender(s)) return *id;
  if (!valid_sender_name(s)) throw std::invalid_argument("invalid sender identity (1..255 bytes of UTF-8)");
  auto id = static_cast<SenderId>(senders_.size());
  senders_.emplace_back(s);
  sender_ids_.emplace(std::string(s), id);
  recent_senders_.put(senders_.back(), id);
  return id;
}

std::string Names::channel_text(ChannelId c) const {
  return fmt::format("{}/{}", channel_topic(c), channel_partition(c));
}

std::expected<std::pair<std::string, std::int32_t>, Error> parse_channel(std::string_view text) {
  auto slash = text.rfind('/');
  if (slash == std::string_view::npos) {
    return std::unexpected(usage_error(fmt::format("{} is not a channel: expected topic/partition", quoted_excerpt(text))));
  }
  auto topic = text.substr(0, slash);
  auto part = text.substr(slash + 1);
  if (!valid_topic_name(topic)) {
    return std::unexpected(usage_error(fmt::format("{}: topic {}", quoted_excerpt(text), invalid_topic_text(topic))));
  }
  std::int32_t p = -1;
  auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), p);
  if (ec == std::errc::result_out_of_range) {
    return std::unexpected(usage_error(fmt::format("{}: partition {} is out of range (at most {})", quoted_excerpt(text),
                                                   quoted_excerpt(part), std::numeric_limits<std::int32_t>::max())));
  }
  if (ec != std::errc{} || ptr != part.data() + part.size() || p < 0) {
    return std::unexpected(
        usage_error(fmt::format("{}: partition {} is not a non-negative integer", quoted_excerpt(text),
                                      quoted_excerpt(part))));
  }
  return std::pair{std::string(topic), p};
}

}  // namespace causal

// Resolution state text form (docs/wire-format.md, "Resolution state"):
//
//   text    := "causal1:" base64(state)          RFC 4648, standard alphabet, padded
//   state   := count:varint { topic partition:varint n:varint { sender seq:varint } }
//   topic   := len:u8 bytes    (Kafka's rule)     sender := len:u8 bytes (UTF-8, 1..255)
//
// Channels strictly ascending by (topic bytes, partition); within a channel senders
// strictly ascending by bytes; n >= 1; seq >= 1. Canonical, like causal.clock: one text
// per state. The empty text "" (Kafka's default commit metadata) decodes to no entries.
#include "causal/resolution_state.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include <fmt/core.h>

#include "causal/base64.hpp"
#include "causal/codec.hpp"
#include "varint.hpp"

namespace causal {

namespace {
constexpr std::string_view kPrefix = "causal1:";   // resolution state only
constexpr std::string_view kPrefix2 = "causal2:";  // then a custody restatement
static_assert(kPrefix.size() == kPrefix2.size());

struct Named {
  const std::string* topic;
  std::int32_t partition;
  const std::string* sender;
  SeqNo seq;
};

void put_string(std::vector<std::byte>& out, std::string_view s) {
  out.push_back(static_cast<std::byte>(s.size()));
  wire::put_bytes(out, s);
}
}  // namespace

namespace {
std::vector<std::byte> encode_state(std::span<const ResolutionEntry> entries, const Names& names) {
  std::vector<Named> v;
  v.reserve(entries.size());
  for (const auto& e : entries) {
    if (e.seq == 0) continue;  // nothing delivered: nothing to save
    v.push_back({&names.channel_topic(e.channel), names.channel_partition(e.channel), &names.sender_name(e.sender), e.seq});
  }
  std::sort(v.begin(), v.end(), [](const Named& a, const Named& b) {
    return std::tie(*a.topic, a.partition, *a.sender) < std::tie(*b.topic, b.partition, *b.sender);
  });
  // Duplicate (channel, sender) entries keep the highest seq.
  std::vector<Named> u;
  for (const auto& e : v) {
    if (!u.empty() && *u.back().topic == *e.topic && u.back().partition == e.partition && *u.back().sender == *e.sender) {
      u.back().seq = std::max(u.back().seq, e.seq);
    } else {
      u.push_back(e);
    }
  }
  std::vector<std::byte> bin;
  std::size_t channels = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    channels += i == 0 || *u[i].topic != *u[i - 1].topic || u[i].partition != u[i - 1].partition;
  }
  wire::put_varint(bin, channels);
  for (std::size_t i = 0; i < u.size();) {
    std::size_t j = i;
    while (j < u.size() && *u[j].topic == *u[i].topic && u[j].partition == u[i].partition) ++j;
    put_string(bin, *u[i].topic);
    wire::put_varint(bin, static_cast<std::uint64_t>(u[i].partition));
    wire::put_varint(bin, j - i);
    for (std::size_t k = i; k < j; ++k) {
      put_string(bin, *u[k].sender);
      wire::put_varint(bin, u[k].seq);
    }
    i = j;
  }
  return bin;
}
}  // namespace

std::string encode_resolution_state(std::span<const ResolutionEntry> entries, const Names& names) {
  return encode_committed_state(entries, Clock{}, names);
}

namespace {

std::unexpected<Error> bad(std::string what) {
  return std::unexpected(runtime_error("resolution state (offset-commit metadata): " + what));
}

// Decodes `state` from r, leaving r after it.
std::expected<void, Error> decode_state(wire::Reader& r, Names& names, std::vector<ResolutionEntry>& out) {

  auto varint = [&](std::string_view what) -> std::expected<std::uint64_t, Error> {
    std::size_t at = r.pos();
    std::uint64_t v = 0;
    switch (r.varint(v)) {
      case wire::VarintStatus::ok: return v;
      case wire::VarintStatus::truncated: return bad(fmt::format("truncated {} at byte {}", what, at));
      case wire::VarintStatus::overlong: return bad(fmt::format("{} varint at byte {} is not minimal", what, at));
    }
    return v;
  };
  auto string = [&](std::string_view what, bool topic) -> std::expected<std::string_view, Error> {
    std::size_t at = r.pos();
    if (r.at_end()) return bad(fmt::format("truncated {} at byte {}", what, at));
    std::size_t len = r.byte();
    if (len > r.remaining()) return bad(fmt::format("truncated {} at byte {}", what, at));
    auto s = r.bytes(len);
    if (topic ? !valid_topic_name(s) : !valid_sender_name(s)) return bad(fmt::format("invalid {} at byte {}", what, at));
    return s;
  };

  auto channels = varint("channel count");
  if (!channels) return std::unexpected(channels.error());
  // Each channel needs at least 5 bytes (topic 2, partition 1, count 1, one sender... )
  if (*channels > r.remaining() / 5) return bad(fmt::format("channel count {} exceeds the data", *channels));
  std::string_view prev_topic;
  std::uint64_t prev_partition = 0;
  for (std::uint64_t c = 0; c < *channels; ++c) {
    std::size_t at = r.pos();
    auto topic = string("topic", true);
    if (!topic) return std::unexpected(topic.error());
    auto partition = varint("partition");
    if (!partition) return std::unexpected(partition.error());
    if (*partition > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
      return bad(fmt::format("partition at byte {} exceeds 2^31-1", at));
    }
    if (c > 0 && std::tie(*topic, *partition) <= std::tie(prev_topic, prev_partition)) {
      return bad(fmt::format("channel at byte {} repeats or is out of order", at));
    }
    prev_topic = *topic;
    prev_partition = *partition;
    ChannelId ch = names.channel(*topic, static_cast<std::int32_t>(*partition));
    auto n = varint("sender count");
    if (!n) return std::unexpected(n.error());
    if (*n == 0 || *n > r.remaining() / 3) return bad(fmt::format("sender count {} at channel byte {} is invalid", *n, at));
    std::string_view prev_sender;
    for (std::uint64_t i = 0; i < *n; ++i) {
      std::size_t sat = r.pos();
      auto sender = string("sender", false);
      if (!sender) return std::unexpected(sender.error());
      if (i > 0 && *sender <= prev_sender) return bad(fmt::format("sender at byte {} repeats or is out of order", sat));
      prev_sender = *sender;
      auto seq = varint("seq");
      if (!seq) return std::unexpected(seq.error());
      if (*seq == 0) return bad(fmt::format("seq 0 for the sender at byte {}", sat));
      out.push_back({ch, names.sender(*sender), *seq});
    }
  }
  return {};
}

std::vector<std::byte> encode_state(std::span<const ResolutionEntry> entries, const Names& names);

}  // namespace

std::expected<CommittedState, Error> decode_committed_state(std::string_view text, Names& names) {
  CommittedState out;
  if (text.empty()) return out;
  const bool v2 = text.starts_with(kPrefix2);
  if (!v2 && !text.starts_with(kPrefix)) {
    return bad(fmt::format("does not start with '{}' or '{}'; not written by causal (or by a newer version)", kPrefix,
                           kPrefix2));
  }
  auto bin = base64_decode_canonical(text.substr(kPrefix.size()));
  if (!bin) return bad(fmt::format("the text after '{}' is not canonical padded base64", v2 ? kPrefix2 : kPrefix));
  const auto* b = reinterpret_cast<const std::byte*>(bin->data());
  wire::Reader r(b, b + bin->size());
  if (auto st = decode_state(r, names, out.resolution); !st) return std::unexpected(st.error());
  if (!v2) {
    if (!r.at_end()) return bad(fmt::format("{} trailing bytes at byte {}", r.remaining(), r.pos()));
    return out;
  }
  // causal2: the custody restatement follows, a causal.clock header without origin.
  const std::size_t at = r.pos();
  if (r.at_end()) return bad(fmt::format("no custody restatement at byte {} after a '{}' prefix", at, kPrefix2));
  auto clock = decode(std::span<const std::byte>(b + at, bin->size() - at), names);
  if (!clock) {
    return bad(fmt::format("custody restatement at byte {}: {} (byte {} of the clock)", at, clock.error().detail,
                           clock.error().at));
  }
  if (clock->origin) return bad(fmt::format("custody restatement at byte {} has an origin", at));
  if (clock->empty()) return bad(fmt::format("custody restatement at byte {} is empty", at));
  out.custody = std::move(*clock);
  return out;
}

std::expected<std::vector<ResolutionEntry>, Error> decode_resolution_state(std::string_view text, Names& names) {
  auto st = decode_committed_state(text, names);
  if (!st) return std::unexpected(st.error());
  return std::move(st->resolution);
}

std::string encode_committed_state(std::span<const ResolutionEntry> entries, const Clock& custody,
                                   const Names& names) {
  std::vector<std::byte> bin = encode_state(entries, names);
  if (custody.empty()) {
    return std::string(kPrefix) +
           base64(std::string_view(reinterpret_cast<const char*>(bin.data()), bin.size()));
  }
  Clock k = custody;
  k.origin.reset();
  encode(k, names, bin);
  return std::string(kPrefix2) +
         base64(std::string_view(reinterpret_cast<const char*>(bin.data()), bin.size()));
}

}  // namespace causal

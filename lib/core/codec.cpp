// The causal.clock codec. Byte layout (docs/wire-format.md is the reference, with test
// vectors; keep the two in step):
//
//   header   := version:u8 flags:u8 [origin] [offsets] [seqs]
//   version  := 0x01 (kWireVersion); any other value is unknown_version (fail closed)
//   flags    := bit 0 origin present, bit 1 offsets present, bit 2 seqs present;
//               bits 3..7 reserved, must be 0 (bad_flags)
//   origin   := sender seq:varint                      seq >= 1
//   sender   := len:u8 bytes                           1..255 bytes of strict UTF-8
//   topic    := len:u8 bytes                           Kafka rule: 1..249 of [a-zA-Z0-9._-]
//   offsets  := count:varint { topic n:varint { pgap:varint odelta:varint } }
//               count >= 1 topics, strictly ascending by name; n >= 1 claims per topic;
//               partition[0] = pgap[0], partition[i] = partition[i-1] + 1 + pgap[i]
//               (strictly ascending by construction);
//               offset[0] = odelta[0], offset[i] = offset[i-1] + unzigzag(odelta[i]),
//               every offset in 0..INT64_MAX (partitions of one topic tend to sit at
//               similar offsets, so the zigzag difference is usually 1-2 bytes shorter)
//   seqs     := count:varint { topic n:varint { pdelta:varint sender seq:varint } }
//               topics strictly ascending; partition[0] = pdelta[0],
//               partition[i] = partition[i-1] + pdelta[i]; when pdelta == 0 the sender
//               must be strictly greater (byte order) than the previous one; seq >= 1
//   varint   := unsigned LEB128, at most 10 bytes, minimal (no trailing 0x00 group)
//
// A section flag is set iff the section is non-empty, so a count of 0 is not_canonical.
// Canonical order is by names (topic bytes, partition, sender bytes), never by interned
// id: ids differ between processes, the bytes must not.
#include "causal/codec.hpp"
#include "causal/excerpt.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>

#include "encoding.hpp"
#include "varint.hpp"
#include "wire_format.hpp"

namespace causal {

namespace {

using wire::Reader;
using wire::VarintStatus;
using wire::kFlagOrigin;
using wire::kFlagOffsets;
using wire::kFlagSeqs;
using wire::kFlagsKnown;
using wire::kMaxOffset;
using wire::kMaxPartition;
using wire::kMaxSenderBytes;
using wire::kMaxTopicBytes;
using wire::unzigzag;
using wire::zigzag;

// Smallest possible encodings, used to bound counts before anything is reserved:
// a topic (len + 1 byte), a count, and one claim.
constexpr std::size_t kMinOffsetClaim = 2;  // pgap, offset
constexpr std::size_t kMinOffsetTopic = 2 + 1 + kMinOffsetClaim;
constexpr std::size_t kMinSeqClaim = 1 + 2 + 1;  // pdelta, sender(len+1), seq
constexpr std::size_t kMinSeqTopic = 2 + 1 + kMinSeqClaim;

std::unexpected<DecodeError> fail(DecodeErrc code, std::size_t at, std::string detail) {
  return std::unexpected(DecodeError{code, at, std::move(detail)});
}

// Decoder: the general decoder, a bounded reader plus the interning, free of allocation.
// decode() reaches it when its fast path (decode_fast_path.hpp) declines: new names, long
// varints, invalid headers. Every reader returns false on failure; the caller returns at
// once. It runs in two modes from one source: the accepting pass (kDiagnose = false) only
// accepts or rejects, and when it rejects, the diagnosing pass (kDiagnose = true) decodes
// the same bytes again to say why and where. Invalid headers are rare (each one fails its
// channel closed), so paying twice for them buys an accepting pass that carries no error
// bookkeeping at all.
template <bool kDiagnose>
struct Decoder {
  Reader r;
  Names& names;
  DecodeError err{};
  // Claims are appended in wire (name) order. While their ids also ascend, appending
  // keeps the Clock's id order; otherwise normalize() sorts once at the end. Distinct
  // wire coordinates map to distinct ids, so it never has anything to merge.
  bool offsets_sorted = true;
  bool seqs_sorted = true;
  ChannelId last_offset_channel = 0;

  // Every failure goes through here. `message` builds the reason; it runs only in the
  // diagnosing pass, so the accepting pass neither formats nor even computes positions.
  template <class Message>
  [[gnu::always_inline]] bool error(DecodeErrc code, std::size_t at, Message message) {
    if constexpr (kDiagnose) record(code, at, message());
    return false;
  }
  [[gnu::cold, gnu::noinline]] void record(DecodeErrc code, std::size_t at, std::string detail) {
    err = DecodeError{code, at, std::move(detail)};
  }

  [[gnu::always_inline]] bool varint(const char* what, std::uint64_t& v) {
    if (r.short_varint(v)) [[likely]]
      return true;
    std::size_t at = r.pos();
    VarintStatus st = r.varint(v);
    if (st == VarintStatus::ok) [[likely]]
      return true;
    return varint_error(what, at, st);
  }

  [[gnu::cold, gnu::noinline]] bool varint_error(const char* what, std::size_t at, VarintStatus st) {
    switch (st) {
      case VarintStatus::ok:
        return true;
      case VarintStatus::truncated:
        return error(DecodeErrc::truncated, at,
                     [&] { return fmt::format("input ends inside the {} varint at byte {}", what, at); });
      case VarintStatus::overlong:
        return error(DecodeErrc::overlong_varint, r.pos(), [&] {
          return fmt::format("the {} varint at byte {} is not minimal or exceeds 64 bits", what, at);
        });
    }
    return false;
  }

  // A count of items each at least `min_size` bytes long: bounded by what remains, so
  // nothing is reserved or looped over beyond what the input could hold.
  bool count(const char* what, std::size_t min_size, std::uint64_t& n) {
    std::size_t at = r.pos();
    if (!varint(what, n)) return false;
    if (n != 0 && n <= r.remaining() && n * min_size <= r.remaining()) [[likely]]
      return true;
    return count_error(what, min_size, at, n);
  }

  [[gnu::cold, gnu::noinline]] bool count_error(const char* what, std::size_t min_size, std::size_t at,
                                                std::uint64_t n) {
    if (n == 0) {
      return error(DecodeErrc::not_canonical, at, [&] {
        return fmt::format("{} at byte {} is 0 (an empty section or topic is omitted)", what, at);
      });
    }
    return error(DecodeErrc::count_too_large, at, [&] {
      return fmt::format("{} {} at byte {} needs at least {} bytes each, {} remain", what, n, at, min_size,
                         r.remaining());
    });
  }

  bool string(const char* what, DecodeErrc bad, std::size_t max_len, std::string_view& s) {
    std::size_t at = r.pos();
    if (r.at_end())
      return error(DecodeErrc::truncated, at,
                   [&] { return fmt::format("input ends before the {} at byte {}", what, at); });
    std::size_t len = r.byte();
    if (len == 0 || len > max_len) {
      return error(bad, at, [&] {
        return fmt::format("{} length {} at byte {} is outside 1..{}", what, len, at, max_len);
      });
    }
    if (len > r.remaining()) {
      return error(DecodeErrc::truncated, at, [&] {
        return fmt::format("{} at byte {} is {} bytes long, {} remain", what, at, len, r.remaining());
      });
    }
    s = r.bytes(len);
    return true;
  }

  bool seq(const char* what, SeqNo& q) {
    std::size_t at = r.pos();
    if (!varint(what, q)) return false;
    if (q == 0)
      return error(DecodeErrc::value_range, at,
                   [&] { return fmt::format("{} at byte {} is 0 (send numbers start at 1)", what, at); });
    return true;
  }

  // A topic block's name, looked up when it is read and interned on first use (a claim
  // that names it), so that a header rejected before its claims interns nothing new.
  struct TopicBlock {
    std::string_view name;
    std::size_t at;
    std::optional<TopicId> known;  // names.find_topic(name) when it was read
    bool interned = false;
    TopicId id = 0;
    std::span<const ChannelId> dense;  // names.dense_channels(id), refreshed after interning
  };

  // A topic name, checked as it is read (docs/wire-format.md, "Errors": a field's own
  // checks, then its order against the previous topic of its section), so the first
  // problem in the bytes is the one reported. An interned name is a valid one: only a
  // new name is checked against Kafka's rule.
  bool topic(const char* section, bool first, std::string_view prev, TopicBlock& tb) {
    tb.at = r.pos();
    if (!string("topic", DecodeErrc::bad_topic, kMaxTopicBytes, tb.name)) return false;
    tb.known = names.find_topic(tb.name);
    if (!tb.known && !valid_topic_name(tb.name)) {
      return error(DecodeErrc::bad_topic, tb.at, [&] {
        return fmt::format("topic at byte {} breaks Kafka's rule (1..249 of [a-zA-Z0-9._-], not . or ..)",
                           tb.at);
      });
    }
    if (!first && tb.name <= prev) {
      bool dup = tb.name == prev;
      return error(dup ? DecodeErrc::duplicate_claim : DecodeErrc::not_canonical, tb.at, [&] {
        return fmt::format("{} topic at byte {} {} the previous one ('{}')", section, tb.at,
                           dup ? "repeats" : "sorts before", prev);
      });
    }
    return true;
  }

  // The channel of a claim on topic block t, interning the topic and the channel on first
  // use. REQUIRES: topic() accepted t.name; partition <= kMaxPartition.
  [[gnu::always_inline]] void channel(TopicBlock& t, std::uint64_t partition, ChannelId& id) {
    if (!t.interned) [[unlikely]]
      intern_topic(t);
    if (partition < t.dense.size() && t.dense[partition] != Names::kNoChannel) [[likely]] {
      id = t.dense[partition];
      return;
    }
    id = names.channel(t.id, static_cast<std::int32_t>(partition));
    t.dense = names.dense_channels(t.id);
  }

  // REQUIRES: topic() accepted t.name.
  void intern_topic(TopicBlock& t) {
    t.id = t.known ? *t.known : names.topic(t.name);
    t.interned = true;
    t.dense = names.dense_channels(t.id);
  }

  // A sender's bytes, checked as they are read: strict UTF-8, unless already interned
  // (an interned name is a valid one). Interned by the caller with intern_sender().
  bool sender(std::size_t at, std::string_view s, std::optional<SenderId>& known) {
    known = names.find_sender(s);
    if (known) [[likely]]
      return true;
    if (!valid_sender_name(s)) {
      return error(DecodeErrc::bad_sender, at,
                   [&] { return fmt::format("sender at byte {} is not valid UTF-8", at); });
    }
    return true;
  }
  SenderId intern_sender(std::string_view s, const std::optional<SenderId>& known) {
    return known ? *known : names.sender(s);
  }

  // Everything after the version and flags bytes.
  bool sections(std::uint8_t flags, Clock& out) {
    if ((flags & kFlagOrigin) && !origin(out)) return false;
    if ((flags & kFlagOffsets) && !offsets(out)) return false;
    if ((flags & kFlagSeqs) && !seqs(out)) return false;
    if (!r.at_end()) {
      return error(DecodeErrc::trailing_bytes, r.pos(), [&] {
        return fmt::format("{} byte{} left after the last field", r.remaining(), r.remaining() == 1 ? "" : "s");
      });
    }
    return true;
  }

  bool origin(Clock& out) {
    std::size_t at = r.pos();
    std::string_view s;
    std::optional<SenderId> known;
    SeqNo q = 0;
    if (!string("origin sender", DecodeErrc::bad_sender, kMaxSenderBytes, s) || !sender(at, s, known) ||
        !seq("origin send number", q)) {
      return false;
    }
    out.origin = Origin{intern_sender(s, known), q};
    return true;
  }

  bool offsets(Clock& out) {
    std::uint64_t topics = 0;
    if (!count("offset topic count", kMinOffsetTopic, topics)) return false;
    std::string_view prev;
    for (std::uint64_t t = 0; t < topics; ++t) {
      TopicBlock tb{};
      if (!topic("offset", t == 0, prev, tb)) return false;
      prev = tb.name;
      std::uint64_t n = 0;
      if (!count("offset claim count", kMinOffsetClaim, n)) return false;
      std::uint64_t partition = 0;
      std::int64_t offset = 0;
      out.reserve_offsets(out.offsets().size() + n);  // n is bounded by the bytes left
      for (std::uint64_t i = 0; i < n; ++i) {
        std::size_t at = r.pos();
        std::uint64_t gap = 0;
        if (!varint("partition", gap)) return false;
        // partition[i] = partition[i-1] + 1 + gap, checked before it can overflow.
        if (i == 0 ? gap > kMaxPartition : gap >= kMaxPartition - partition) {
          return error(DecodeErrc::value_range, at, [&] {
            return fmt::format("partition at byte {} of '{}' exceeds 2^31-1", at, tb.name);
          });
        }
        partition = i == 0 ? gap : partition + 1 + gap;
        std::size_t off_at = r.pos();
        std::uint64_t v = 0;
        if (!varint("offset", v)) return false;
        // offset[0] is whole; offset[i] = offset[i-1] + unzigzag(v); all in 0..2^63-1.
        std::int64_t value = 0;
        bool in_range =
            i == 0 ? v <= kMaxOffset : !__builtin_add_overflow(offset, unzigzag(v), &value) && value >= 0;
        if (!in_range) {
          return error(DecodeErrc::value_range, off_at, [&] {
            return fmt::format("offset at byte {} of '{}' falls outside 0..2^63-1", off_at, tb.name);
          });
        }
        offset = i == 0 ? static_cast<std::int64_t>(v) : value;
        ChannelId ch = 0;
        channel(tb, partition, ch);
        if (ch < last_offset_channel) offsets_sorted = false;
        last_offset_channel = ch;
        out.append_unsorted(OffsetClaim{ch, offset});
      }
    }
    return true;
  }

  bool seqs(Clock& out) {
    std::uint64_t topics = 0;
    if (!count("sequence topic count", kMinSeqTopic, topics)) return false;
    std::string_view prev;
    for (std::uint64_t t = 0; t < topics; ++t) {
      TopicBlock tb{};
      if (!topic("sequence", t == 0, prev, tb)) return false;
      prev = tb.name;
      std::uint64_t n = 0;
      if (!count("sequence claim count", kMinSeqClaim, n)) return false;
      std::uint64_t partition = 0;
      std::string_view prev_sender;
      for (std::uint64_t i = 0; i < n; ++i) {
        std::size_t at = r.pos();
        std::uint64_t delta = 0;
        if (!varint("partition", delta)) return false;
        if (delta > kMaxPartition - partition) {
          return error(DecodeErrc::value_range, at, [&] {
            return fmt::format("partition at byte {} of '{}' exceeds 2^31-1", at, tb.name);
          });
        }
        partition += delta;
        std::size_t sender_at = r.pos();
        std::string_view s;
        std::optional<SenderId> known;
        // The sender's own checks, then its order after the previous claim's sender.
        if (!string("sender", DecodeErrc::bad_sender, kMaxSenderBytes, s) || !sender(sender_at, s, known)) {
          return false;
        }
        if (i > 0 && delta == 0 && s <= prev_sender) {
          bool dup = s == prev_sender;
          return error(dup ? DecodeErrc::duplicate_claim : DecodeErrc::not_canonical, sender_at, [&] {
            return fmt::format("sender at byte {} on {}/{} {} the previous one", sender_at, tb.name,
                               partition, dup ? "repeats" : "sorts before");
          });
        }
        prev_sender = s;
        SeqNo q = 0;
        if (!seq("send number", q)) return false;
        const SenderId sid = intern_sender(s, known);
        ChannelId ch = 0;
        channel(tb, partition, ch);
        if (!out.seqs().empty()) {
          const auto& b = out.seqs().back();
          if (b.channel > ch || (b.channel == ch && b.sender > sid)) seqs_sorted = false;
        }
        out.append_unsorted(SeqClaim{ch, sid, q});
      }
    }
    return true;
  }
};

// Wire-order view of a clock: claims sorted by (topic bytes, partition[, sender bytes]).
struct NamedOffset {
  const std::string* topic;
  std::int32_t partition;
  Offset offset;
};
struct NamedSeq {
  const std::string* topic;
  std::int32_t partition;
  const std::string* sender;
  SeqNo seq;
};

template <class T>
void sort_small(std::vector<T>& v, auto less) {
  // Clocks are small and usually already nearly in order: insertion sort beats std::sort
  // below a few dozen elements.
  if (v.size() > 32) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  for (std::size_t i = 1; i < v.size(); ++i) {
    T x = v[i];
    std::size_t j = i;
    for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

void put_string(std::vector<std::byte>& out, std::string_view s) {
  out.push_back(static_cast<std::byte>(s.size()));
  wire::put_bytes(out, s);
}

}  // namespace

std::string_view to_string(DecodeErrc e) {
  switch (e) {
    case DecodeErrc::empty:
      return "empty";
    case DecodeErrc::unknown_version:
      return "unknown_version";
    case DecodeErrc::truncated:
      return "truncated";
    case DecodeErrc::overlong_varint:
      return "overlong_varint";
    case DecodeErrc::value_range:
      return "value_range";
    case DecodeErrc::bad_topic:
      return "bad_topic";
    case DecodeErrc::bad_sender:
      return "bad_sender";
    case DecodeErrc::duplicate_claim:
      return "duplicate_claim";
    case DecodeErrc::not_canonical:
      return "not_canonical";
    case DecodeErrc::count_too_large:
      return "count_too_large";
    case DecodeErrc::oversized:
      return "oversized";
    case DecodeErrc::trailing_bytes:
      return "trailing_bytes";
    case DecodeErrc::bad_flags:
      return "bad_flags";
  }
  return "unknown";
}

namespace {

// The checks every header gets before either decoder reads its fields: a valid header
// passes them with `out` cleared. On failure `out` is cleared too.
std::expected<void, DecodeError> check_prefix(std::span<const std::byte> bytes, Clock& out) {
  out.clear();
  if (bytes.empty()) return fail(DecodeErrc::empty, 0, "the header is empty (0 bytes)");
  if (bytes.size() > kMaxHeaderBytes) {
    return fail(DecodeErrc::oversized, kMaxHeaderBytes,
                fmt::format("the header is {} bytes, over the {} byte limit", bytes.size(), kMaxHeaderBytes));
  }
  auto version = static_cast<std::uint8_t>(bytes[0]);
  if (version != kWireVersion) {
    return fail(DecodeErrc::unknown_version, 0,
                fmt::format("version byte is {}, this build reads version {}", version, kWireVersion));
  }
  if (bytes.size() < 2) return fail(DecodeErrc::truncated, 1, "input ends before the flags byte");
  auto flags = static_cast<std::uint8_t>(bytes[1]);
  if (flags & ~kFlagsKnown) {
    return fail(DecodeErrc::bad_flags, 1, fmt::format("flags byte 0x{:02x} has reserved bits set", flags));
  }
  return {};
}

// The two-pass general decoder. REQUIRES: check_prefix(bytes) passed.
std::expected<void, DecodeError> decode_fields(std::span<const std::byte> bytes, Names& names, Clock& out) {
  const std::byte* begin = bytes.data();
  const std::byte* end = begin + bytes.size();
  const auto flags = static_cast<std::uint8_t>(bytes[1]);
  Decoder<false> accept{Reader(begin, end, 2), names};
  if (accept.sections(flags, out)) [[likely]] {
    if (!accept.offsets_sorted || !accept.seqs_sorted) out.normalize();
    return {};
  }
  out.clear();  // never hand back a partial clock
  Decoder<true> diagnose{Reader(begin, end, 2), names};
  if (diagnose.sections(flags, out)) [[unlikely]] {
    // The two passes run the same code on the same bytes; reaching this is a bug.
    out.clear();
    return fail(DecodeErrc::truncated, 0, "internal error: the header was rejected without a reason");
  }
  out.clear();
  return std::unexpected(std::move(diagnose.err));
}

}  // namespace

// decode() itself is in decode_fast_path.cpp, beside the fast path it inlines.

std::expected<void, DecodeError> decode_general(std::span<const std::byte> bytes, Names& names, Clock& out) {
  if (auto r = check_prefix(bytes, out); !r) return r;
  return decode_fields(bytes, names, out);
}

namespace {

// A claims section, its claims sorted by topic: the number of topics, then for each topic its
// name, its number of claims and each claim (put_claim(k, first): claims[k], the first of its
// topic or not, for the deltas).
template <class Named, class PutClaim>
void put_by_topic(const std::vector<Named>& claims, std::vector<std::byte>& out, PutClaim put_claim) {
  std::size_t topics = 1;
  for (std::size_t i = 1; i < claims.size(); ++i) topics += claims[i].topic != claims[i - 1].topic;
  wire::put_varint(out, topics);
  for (std::size_t i = 0; i < claims.size();) {
    std::size_t j = i;
    while (j < claims.size() && claims[j].topic == claims[i].topic) ++j;
    put_string(out, *claims[i].topic);
    wire::put_varint(out, j - i);
    for (std::size_t k = i; k < j; ++k) put_claim(k, k == i);
    i = j;
  }
}

}  // namespace

namespace encoding {

void put_origin(const Origin& origin, const Names& names, std::vector<std::byte>& out) {
  if (origin.seq == 0) throw std::invalid_argument("encode: origin send number 0 (seqs start at 1)");
  put_string(out, names.sender_name(origin.sender));
  wire::put_varint(out, origin.seq);
}

void put_offset_claims(std::span<const OffsetClaim> offsets, const Names& names,
                       std::vector<std::byte>& out) {
  thread_local std::vector<NamedOffset> claims;  // scratch: no allocation once warm
  claims.clear();
  for (const auto& c : offsets) {
    if (c.offset < 0) throw std::invalid_argument("encode: negative offset claim");
    claims.push_back({&names.channel_topic(c.channel), names.channel_partition(c.channel), c.offset});
  }
  sort_small(claims, [](const NamedOffset& a, const NamedOffset& b) {
    if (a.topic != b.topic) {
      if (int k = a.topic->compare(*b.topic); k != 0) return k < 0;
    }
    return a.partition < b.partition;
  });
  put_by_topic(claims, out, [&](std::size_t k, bool first) {
    auto p = static_cast<std::uint64_t>(claims[k].partition);
    wire::put_varint(out, first ? p : p - static_cast<std::uint64_t>(claims[k - 1].partition) - 1);
    // Both offsets are in 0..2^63-1, so the difference cannot overflow.
    wire::put_varint(out, first ? static_cast<std::uint64_t>(claims[k].offset)
                                : zigzag(claims[k].offset - claims[k - 1].offset));
  });
}

void put_seq_claims(std::span<const SeqClaim> seqs, const Names& names, std::vector<std::byte>& out) {
  thread_local std::vector<NamedSeq> claims;
  claims.clear();
  for (const auto& c : seqs) {
    if (c.seq == 0) throw std::invalid_argument("encode: sequence claim with send number 0");
    claims.push_back({&names.channel_topic(c.channel), names.channel_partition(c.channel),
                      &names.sender_name(c.sender), c.seq});
  }
  sort_small(claims, [](const NamedSeq& a, const NamedSeq& b) {
    if (a.topic != b.topic) {
      if (int k = a.topic->compare(*b.topic); k != 0) return k < 0;
    }
    if (a.partition != b.partition) return a.partition < b.partition;
    return a.sender != b.sender && a.sender->compare(*b.sender) < 0;
  });
  put_by_topic(claims, out, [&](std::size_t k, bool first) {
    auto p = static_cast<std::uint64_t>(claims[k].partition);
    wire::put_varint(out, first ? p : p - static_cast<std::uint64_t>(claims[k - 1].partition));
    put_string(out, *claims[k].sender);
    wire::put_varint(out, claims[k].seq);
  });
}

void check_size(std::size_t bytes) {
  if (bytes > kMaxHeaderBytes) {
    throw std::length_error(
        fmt::format("encode: clock needs {} bytes, over the {} byte header limit", bytes, kMaxHeaderBytes));
  }
}

}  // namespace encoding

void encode(const Clock& clock, const Names& names, std::vector<std::byte>& out) {
  encoding::put_clock(clock, names, out, [&](std::span<const OffsetClaim> offsets) {
    encoding::put_offset_claims(offsets, names, out);
  });
}

// ---- JSON -------------------------------------------------------------------------------

nlohmann::json clock_to_json(const Clock& clock, const Names& names) {
  nlohmann::json j = nlohmann::json::object();
  if (clock.origin) {
    j["origin"] = {{"sender", names.sender_name(clock.origin->sender)}, {"seq", clock.origin->seq}};
  } else {
    j["origin"] = nullptr;
  }
  std::vector<NamedOffset> offs;
  for (const auto& c : clock.offsets()) {
    offs.push_back({&names.channel_topic(c.channel), names.channel_partition(c.channel), c.offset});
  }
  std::sort(offs.begin(), offs.end(), [](const NamedOffset& a, const NamedOffset& b) {
    if (int k = a.topic->compare(*b.topic); k != 0) return k < 0;
    return a.partition < b.partition;
  });
  auto& claims = j["claims"] = nlohmann::json::array();
  for (const auto& c : offs)
    claims.push_back({{"topic", *c.topic}, {"partition", c.partition}, {"offset", c.offset}});
  std::vector<NamedSeq> seqs;
  for (const auto& c : clock.seqs()) {
    seqs.push_back({&names.channel_topic(c.channel), names.channel_partition(c.channel),
                    &names.sender_name(c.sender), c.seq});
  }
  std::sort(seqs.begin(), seqs.end(), [](const NamedSeq& a, const NamedSeq& b) {
    if (int k = a.topic->compare(*b.topic); k != 0) return k < 0;
    if (a.partition != b.partition) return a.partition < b.partition;
    return a.sender->compare(*b.sender) < 0;
  });
  auto& sj = j["seq_claims"] = nlohmann::json::array();
  for (const auto& c : seqs) {
    sj.push_back({{"topic", *c.topic}, {"partition", c.partition}, {"sender", *c.sender}, {"seq", c.seq}});
  }
  return j;
}

namespace {

std::unexpected<Error> json_error(const std::string& path, std::string_view what) {
  return std::unexpected(usage_error(fmt::format("{}: {}", path, what)));
}

// Checks that `j` is an object holding only `allowed` keys.
std::expected<void, Error> only_fields(const nlohmann::json& j, const std::string& path,
                                       std::initializer_list<std::string_view> allowed) {
  if (!j.is_object()) return json_error(path.empty() ? "clock" : path, "expected an object");
  for (const auto& [k, v] : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      return json_error(path.empty() ? name_excerpt(k) : path + "." + name_excerpt(k), "unknown field");
    }
  }
  return {};
}

std::expected<std::uint64_t, Error> json_uint(const nlohmann::json& obj, const std::string& path,
                                              std::string_view key, std::uint64_t min, std::uint64_t max) {
  std::string p = path + "." + std::string(key);
  auto it = obj.find(key);
  if (it == obj.end()) return json_error(p, "missing");
  if (!it->is_number_integer()) return json_error(p, "expected an integer");
  if (it->is_number_unsigned()) {
    auto v = it->get<std::uint64_t>();
    if (v < min || v > max) return json_error(p, fmt::format("{} is outside {}..{}", v, min, max));
    return v;
  }
  auto v = it->get<std::int64_t>();
  if (v < 0 || static_cast<std::uint64_t>(v) < min || static_cast<std::uint64_t>(v) > max) {
    return json_error(p, fmt::format("{} is outside {}..{}", v, min, max));
  }
  return static_cast<std::uint64_t>(v);
}

std::expected<std::string, Error> json_name(const nlohmann::json& obj, const std::string& path,
                                            std::string_view key, bool topic) {
  std::string p = path + "." + std::string(key);
  auto it = obj.find(key);
  if (it == obj.end()) return json_error(p, "missing");
  if (!it->is_string()) return json_error(p, "expected a string");
  const auto& s = it->get_ref<const std::string&>();
  if (topic && !valid_topic_name(s)) {
    return json_error(p, invalid_topic_text(s));
  }
  if (!topic && !valid_sender_name(s)) return json_error(p, "a sender is 1..255 bytes of UTF-8");
  return s;
}

}  // namespace

std::expected<Clock, Error> clock_from_json(const nlohmann::json& j, Names& names) {
  if (auto r = only_fields(j, "", {"origin", "claims", "seq_claims"}); !r) return std::unexpected(r.error());
  Clock clock;
  if (auto it = j.find("origin"); it != j.end() && !it->is_null()) {
    if (auto r = only_fields(*it, "origin", {"sender", "seq"}); !r) return std::unexpected(r.error());
    auto s = json_name(*it, "origin", "sender", false);
    if (!s) return std::unexpected(s.error());
    auto q = json_uint(*it, "origin", "seq", 1, std::numeric_limits<std::uint64_t>::max());
    if (!q) return std::unexpected(q.error());
    clock.origin = Origin{names.sender(*s), *q};
  }
  if (auto it = j.find("claims"); it != j.end()) {
    if (!it->is_array()) return json_error("claims", "expected an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const auto& c = (*it)[i];
      std::string path = fmt::format("claims[{}]", i);
      if (auto r = only_fields(c, path, {"topic", "partition", "offset"}); !r)
        return std::unexpected(r.error());
      auto t = json_name(c, path, "topic", true);
      if (!t) return std::unexpected(t.error());
      auto p = json_uint(c, path, "partition", 0, kMaxPartition);
      if (!p) return std::unexpected(p.error());
      auto o = json_uint(c, path, "offset", 0, kMaxOffset);
      if (!o) return std::unexpected(o.error());
      ChannelId ch = names.channel(*t, static_cast<std::int32_t>(*p));
      if (clock.offset_of(ch) != kNoOffset) {
        return json_error(path, fmt::format("a second claim on {}/{} (one claim per channel)", *t, *p));
      }
      clock.claim(ch, static_cast<Offset>(*o));
    }
  }
  if (auto it = j.find("seq_claims"); it != j.end()) {
    if (!it->is_array()) return json_error("seq_claims", "expected an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const auto& c = (*it)[i];
      std::string path = fmt::format("seq_claims[{}]", i);
      if (auto r = only_fields(c, path, {"topic", "partition", "sender", "seq"}); !r)
        return std::unexpected(r.error());
      auto t = json_name(c, path, "topic", true);
      if (!t) return std::unexpected(t.error());
      auto p = json_uint(c, path, "partition", 0, kMaxPartition);
      if (!p) return std::unexpected(p.error());
      auto s = json_name(c, path, "sender", false);
      if (!s) return std::unexpected(s.error());
      auto q = json_uint(c, path, "seq", 1, std::numeric_limits<std::uint64_t>::max());
      if (!q) return std::unexpected(q.error());
      ChannelId ch = names.channel(*t, static_cast<std::int32_t>(*p));
      SenderId sid = names.sender(*s);
      for (const auto& e : clock.seqs()) {
        if (e.channel == ch && e.sender == sid) {
          return json_error(path,
                            fmt::format("a second sequence claim on {}/{} for sender {}", *t, *p, quoted_excerpt(*s)));
        }
      }
      clock.claim_seq(ch, sid, *q);
    }
  }
  return clock;
}

}  // namespace causal

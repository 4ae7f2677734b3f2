// The clock object of the JSON lines: see clock_json.hpp.
#include "clock_json.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "causal/kafka/json_string.hpp"
#include "json_cursor.hpp"

namespace causal::cli {

namespace {

// A JSON string of text that is known to be UTF-8 (names that passed validation).
void json_text(Cursor& c, std::string_view s) {
  char* at = c.room(kafka::json_string_max(s.size()));
  if (char* end = kafka::write_json_string_utf8(at, s)) {
    c.advance_to(end);
  } else {  // not reached for interned names; the old escaper's bytes all the same
    fmt::memory_buffer tmp;
    kafka::append_json_string(tmp, s);
    c.lit(std::string_view(tmp.data(), tmp.size()));
  }
}

bool topic_less(const std::string* a, std::int32_t pa, const std::string* b, std::int32_t pb) {
  if (a != b) {
    if (int k = a->compare(*b); k != 0) return k < 0;
  }
  return pa < pb;
}

// The three members of clock_to_json(clock, names), each as its JSON value, byte for byte:
// the claims in canonical order (topic name, partition, then sender name).
void write_claims(Cursor& c, JsonNames& jn, const Names& names, const Clock& clock) {
  struct Off {
    const std::string* topic;
    std::int32_t partition;
    ChannelId channel;
    Offset offset;
  };
  const auto& co = clock.offsets();
  Off offs_small[16];
  std::vector<Off> offs_big;
  Off* offs = offs_small;
  if (co.size() > 16) {
    offs_big.resize(co.size());
    offs = offs_big.data();
  }
  std::size_t n = 0;
  for (const auto& claim : co) {
    offs[n++] = {&names.channel_topic(claim.channel), names.channel_partition(claim.channel), claim.channel,
                 claim.offset};
  }
  std::sort(offs, offs + n,
            [&](const Off& a, const Off& b) { return topic_less(a.topic, a.partition, b.topic, b.partition); });
  c.put('[');
  for (std::size_t i = 0; i < n; ++i) {
    c.lit(i ? ",{\"offset\":" : "{\"offset\":");
    c.num(offs[i].offset);
    c.lit(jn.channel(offs[i].channel).claim_tail);
  }
  c.put(']');
}

void write_origin(Cursor& c, JsonNames& jn, const Clock& clock) {
  if (clock.origin) {
    c.lit("{\"sender\":");
    c.lit(jn.sender(clock.origin->sender));
    c.lit(",\"seq\":");
    c.num(clock.origin->seq);
    c.put('}');
  } else {
    c.lit("null");
  }
}

void write_seq_claims(Cursor& c, JsonNames& jn, const Names& names, const Clock& clock) {
  c.put('[');
  const auto& cs = clock.seqs();
  if (cs.size() > 0) {
    struct Seq {
      const std::string* topic;
      std::int32_t partition;
      const std::string* sender;
      ChannelId channel;
      SenderId sender_id;
      SeqNo seq;
    };
    std::vector<Seq> seqs;
    seqs.reserve(cs.size());
    for (const auto& claim : cs) {
      seqs.push_back({&names.channel_topic(claim.channel), names.channel_partition(claim.channel),
                      &names.sender_name(claim.sender), claim.channel, claim.sender, claim.seq});
    }
    std::sort(seqs.begin(), seqs.end(), [&](const Seq& a, const Seq& b) {
      if (a.topic != b.topic || a.partition != b.partition) {
        return topic_less(a.topic, a.partition, b.topic, b.partition);
      }
      return a.sender->compare(*b.sender) < 0;
    });
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      const auto& ch = jn.channel(seqs[i].channel);
      c.lit(i ? ",{\"partition\":" : "{\"partition\":");
      c.lit(ch.partition);
      c.lit(",\"sender\":");
      c.lit(jn.sender(seqs[i].sender_id));
      c.lit(",\"seq\":");
      c.num(seqs[i].seq);
      c.lit(",\"topic\":");
      c.lit(ch.topic);
      c.put('}');
    }
  }
  c.put(']');
}

}  // namespace

// clock_to_json(clock, names).dump(), byte for byte: keys in sorted order.
void JsonNames::write_clock(Cursor& c, const Clock& clock) {
  JsonNames& jn = *this;
  const Names& names = names_;
  c.lit("{\"claims\":");
  write_claims(c, jn, names, clock);
  c.lit(",\"origin\":");
  write_origin(c, jn, clock);
  c.lit(",\"seq_claims\":");
  write_seq_claims(c, jn, names, clock);
  c.put('}');
}

void JsonNames::render_channel(ChannelId c) {
  if (c >= channels_.size()) channels_.resize(static_cast<std::size_t>(c) + 1);
  Channel& ch = channels_[c];
  fmt::memory_buffer b;
  {
    Cursor cur(b);
    json_text(cur, names_.channel_topic(c));
    cur.done();
  }
  ch.topic.assign(b.data(), b.size());
  ch.partition = fmt::format_int(names_.channel_partition(c)).str();
  ch.record_head = "{\"topic\":" + ch.topic + ",\"partition\":" + ch.partition + ",\"offset\":";
  ch.claim_tail = ",\"partition\":" + ch.partition + ",\"topic\":" + ch.topic + "}";
  b.clear();
  {
    Cursor cur(b);
    json_text(cur, names_.channel_text(c));
    cur.done();
  }
  ch.text.assign(b.data(), b.size());
}

void JsonNames::render_sender(SenderId s) {
  if (s >= senders_.size()) senders_.resize(static_cast<std::size_t>(s) + 1);
  fmt::memory_buffer b;
  Cursor cur(b);
  json_text(cur, names_.sender_name(s));
  cur.done();
  senders_[s].assign(b.data(), b.size());
}

void JsonNames::append_clock(fmt::memory_buffer& out, const Clock& clock) {
  Cursor c(out);
  write_clock(c, clock);
  c.done();
}

void JsonNames::append_claims(fmt::memory_buffer& out, const Clock& clock) {
  Cursor c(out);
  write_claims(c, *this, names_, clock);
  c.done();
}

void JsonNames::append_origin(fmt::memory_buffer& out, const Clock& clock) {
  Cursor c(out);
  write_origin(c, *this, clock);
  c.done();
}

void JsonNames::append_seq_claims(fmt::memory_buffer& out, const Clock& clock) {
  Cursor c(out);
  write_seq_claims(c, *this, names_, clock);
  c.done();
}

void append_clock_json(fmt::memory_buffer& out, const Clock& clock, const Names& names) {
  JsonNames(names).append_clock(out, clock);
}

}  // namespace causal::cli

// The clock object of causal's JSON lines (`causal tail`'s records, `causal decode`'s), written
// without building a json value and byte for byte what clock_to_json(clock, names).dump()
// gives (protocol.md's shape: claims, origin, seq_claims, keys and claims in canonical order).
// Thread-safety: none; one JsonNames per writer.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "causal/clock.hpp"
#include "causal/names.hpp"

namespace causal::cli {

class Cursor;  // json_cursor.hpp

// JSON text of channels and senders, rendered once per id and kept (ids are never reused
// by a Names). append_clock appends clock_to_json(clock, names).dump(), byte for byte,
// without building a json value.
class JsonNames {
 public:
  explicit JsonNames(const Names& names) : names_(names) {}
  struct Channel {
    std::string topic;        // the topic as a JSON string literal, quotes included
    std::string partition;    // decimal
    std::string record_head;  // {"topic":T,"partition":P,"offset":
    std::string claim_tail;   // ,"partition":P,"topic":T}
    std::string text;         // "topic/partition" as a JSON string literal
  };
  const Channel& channel(ChannelId c) {
    if (c >= channels_.size() || channels_[c].topic.empty()) render_channel(c);
    return channels_[c];
  }
  // The sender's name as a JSON string literal, quotes included.
  const std::string& sender(SenderId s) {
    if (s >= senders_.size() || senders_[s].empty()) render_sender(s);
    return senders_[s];
  }
  void append_clock(fmt::memory_buffer& out, const Clock& clock);
  // The clock object's three members, each as its JSON value (the same bytes append_clock
  // writes for it), for a writer that interleaves them with keys of its own in sorted
  // order (causal decode's record object).
  void append_claims(fmt::memory_buffer& out, const Clock& clock);
  void append_origin(fmt::memory_buffer& out, const Clock& clock);
  void append_seq_claims(fmt::memory_buffer& out, const Clock& clock);
  // append_clock's bytes through a cursor (the record line's hot path).
  void write_clock(Cursor& c, const Clock& clock);

 private:
  void render_channel(ChannelId c);
  void render_sender(SenderId s);
  const Names& names_;
  std::vector<Channel> channels_;
  std::vector<std::string> senders_;
};

// Appends clock_to_json(clock, names).dump() to `out` without building a json value.
void append_clock_json(fmt::memory_buffer& out, const Clock& clock, const Names& names);
// Appends clock_to_json(clock, names).dump() to `out` without building a json value.
void append_clock_json(fmt::memory_buffer& out, const Clock& clock, const Names& names);

}  // namespace causal::cli

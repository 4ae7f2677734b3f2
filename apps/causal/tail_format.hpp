// Output of `causal tail` (and `causal demo`): one delivered record per line, plus hold,
// release and lookup events with --show-held. The field names are documented in
// man/causal-tail.1 and are stable.
//
// jsonl/json record object:
//   topic, partition, offset, timestamp (ms since the epoch, -1 when absent), timestamp_type
//   ("create" | "log_append" | "none"), key (null when absent), key_encoding ("base64", only
//   when the key is not UTF-8), value, value_encoding, headers ([{name, value,
//   value_encoding?}] in record order, duplicates kept; null values stay null), clock
//   (protocol.md's shape, byte for byte what clock_to_json(...).dump() gives; null when the
//   record has no causal.clock header), held_ms (time between receive and delivery),
//   released_by ({reason} plus channel and offset for "frontier" and "seq_resolved").
// Event objects carry "event": "hold" | "release" | "lookup" (records carry no "event").
//
// Contract: a line is built whole in a reused buffer and only whole lines are written, with
// write(2), when the buffer passes 64 KiB, at flush() and at finish(). A reader never sees a
// partial record, also when the run is interrupted. A failed write ends output (broken())
// and is recorded with output::write_failed(): main() then exits 1 with a message, or
// quietly on EPIPE (the reader went away; output.hpp).
// The jsonl/json record line is the hot path of `causal tail`: it is written through a raw
// pointer into room reserved in that buffer, with the JSON text of each channel and sender
// (topic, partition, sender name) rendered once and cached (JsonNames), and strings
// validated and escaped in one pass (kafka::write_json_string_utf8).
// Thread-safety: none; used from the consumer host's thread.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "causal/gate.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "common.hpp"

namespace causal::cli {

// SIGINT/SIGTERM set this flag (no SA_RESTART, so blocking calls return early); SIGPIPE is
// ignored so that a closed stdout is an EPIPE write error, not a silent death.
extern volatile std::sig_atomic_t g_stop;
void install_stop_signals();
// From now on (every record is written), a second SIGINT/SIGTERM after the first writes
// `note` (a line, kept alive by the caller) to stderr and exits at once with status 130,
// abandoning the work left (a member's last commit and leaving its group, which wait on
// the group coordinator: a whole outage, when the brokers are away).
void exit_on_second_signal(const char* note);
// While `note` is set (non-null), the first SIGINT/SIGTERM writes it to stderr and exits at
// once with 130: for start-up waits that do not look at g_stop (metadata, start positions, a
// member's first join, each up to --timeout-ms or a session), when nothing is read or written
// yet. nullptr turns it off.
void exit_on_any_signal(const char* note);

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

 private:
  void render_channel(ChannelId c);
  void render_sender(SenderId s);
  const Names& names_;
  std::vector<Channel> channels_;
  std::vector<std::string> senders_;
};

// Appends clock_to_json(clock, names).dump() to `out` without building a json value.
void append_clock_json(fmt::memory_buffer& out, const Clock& clock, const Names& names);
// Appends fmt::format("{:.3f}", micros / 1000.0): held_ms of a record line.
void append_millis(fmt::memory_buffer& out, std::int64_t micros);
// Appends valid UTF-8 `s` for a text line a terminal shows: '\n', '\t' and '\\' escaped
// as such, every other C0 byte, DEL and each byte of a C1 control (U+0080..U+009F, which
// some terminals act on) as \xNN; the rest as it is. Distinct inputs stay distinct.
void append_text_escaped(fmt::memory_buffer& out, std::string_view s);
// The same, as a string.
std::string text_escaped(std::string_view s);

class RecordWriter : public kafka::HostObserver {
 public:
  struct Settings {
    Format format = Format::jsonl;
    bool colour = false;
    bool show_held = false;
    std::optional<std::uint64_t> limit;  // stop printing after this many records
    int fd = 1;
    std::string prog = "causal tail";  // prefix of stderr notes
  };
  RecordWriter(Settings s, Names& names);

  void set_gate(const Gate* g) { gate_ = g; }

  void delivered(const Delivery& d, const rd_kafka_message_t& msg) override;
  void held(ChannelId ch, Offset off, const Blocker& b) override;
  void lookup(const kafka::LookupReport& r) override;
  void failed_closed(const kafka::HeaderFailure& f) override;
  void note(std::string_view text) override;
  // tail --group G --commit: each rebalance brings a new gate; the old one's counts are kept.
  void gate_replaced(const Gate& old, const Gate& g) override;
  // The gate counts of the whole run: every generation's gate, the current one included
  // (records read again after a rebalance count again, as they are printed again).
  GateStats run_stats() const;

  void begin();   // json: "["
  void finish();  // json: "]"; then flush
  void flush();
  bool broken() const { return broken_; }
  bool limit_reached() const { return settings_.limit && records_ >= *settings_.limit; }
  std::uint64_t records() const { return records_; }
  // Records whose lines were written out whole: after a failed write, those in the failed
  // buffer are not counted (some of them may have reached the output).
  std::uint64_t printed() const { return printed_; }

  // A line for people describing a blocker, e.g. "orders/0@7 (frontier 4)".
  std::string describe(const Blocker& b) const;

 private:
  void end_line();
  void event_prefix(std::string_view event);
  void write_out();
  void text_bytes(const void* data, std::size_t size);
  void append_released_by(const Delivery& d);
  void json_record(const Delivery& d, rd_kafka_message_t* msg, std::int64_t held_us);

  Settings settings_;
  Names& names_;
  JsonNames json_names_;
  const Gate* gate_ = nullptr;
  GateStats replaced_;  // the counts of the gates replaced so far
  fmt::memory_buffer out_;
  std::uint64_t records_ = 0;
  std::uint64_t printed_ = 0;
  std::uint64_t in_buffer_ = 0;  // records whose lines are in out_, not yet written
  std::uint64_t json_items_ = 0;
  bool broken_ = false;
  std::size_t channel_width_ = 0;
};

}  // namespace causal::cli

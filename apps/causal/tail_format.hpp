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
// partial record, also when the run is interrupted. EPIPE ends output quietly (broken()).
// Thread-safety: none; used from the consumer host's thread.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "causal/gate.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "common.hpp"

namespace causal::cli {

// SIGINT/SIGTERM set this flag (no SA_RESTART, so blocking calls return early); SIGPIPE is
// ignored so that a closed stdout is an EPIPE write error, not a silent death.
extern volatile std::sig_atomic_t g_stop;
void install_stop_signals();

// Appends clock_to_json(clock, names).dump() to `out` without building a json value.
void append_clock_json(fmt::memory_buffer& out, const Clock& clock, const Names& names);

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

  void begin();   // json: "["
  void finish();  // json: "]"; then flush
  void flush();
  bool broken() const { return broken_; }
  bool limit_reached() const { return settings_.limit && records_ >= *settings_.limit; }
  std::uint64_t records() const { return records_; }

  // A line for people describing a blocker, e.g. "orders/0@7 (frontier 4)".
  std::string describe(const Blocker& b) const;

 private:
  void end_line();
  void event_prefix(std::string_view event);
  void write_out();
  void append_bytes_field(std::string_view name, const void* data, std::size_t size, bool nullable);
  void text_bytes(const void* data, std::size_t size);
  void append_released_by(const Delivery& d);

  Settings settings_;
  Names& names_;
  const Gate* gate_ = nullptr;
  fmt::memory_buffer out_;
  std::uint64_t records_ = 0;
  std::uint64_t json_items_ = 0;
  bool broken_ = false;
  std::size_t channel_width_ = 0;
};

}  // namespace causal::cli

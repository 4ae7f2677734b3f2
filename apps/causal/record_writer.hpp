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

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "causal/gate.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/record_view.hpp"
#include "clock_json.hpp"
#include "common.hpp"

namespace causal::cli {

// Appends fmt::format("{:.3f}", micros / 1000.0): held_ms of a record line.
void append_millis(fmt::memory_buffer& out, std::int64_t micros);

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
  void json_record(const Delivery& d, const kafka::RecordView& msg, std::int64_t held_us);

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

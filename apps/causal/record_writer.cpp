// The record writer of `causal tail`: see record_writer.hpp.
#include "record_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <unistd.h>

#include <fmt/core.h>

#include "causal/eprint.hpp"
#include "causal/base64.hpp"
#include "causal/kafka/json_string.hpp"
#include "json_cursor.hpp"
#include "output.hpp"
#include "text_escape.hpp"

namespace causal::cli {

namespace {

constexpr std::size_t kFlushAt = 64 * 1024;

void append(fmt::memory_buffer& b, std::string_view s) { b.append(s.data(), s.data() + s.size()); }

template <class... Args>
void appendf(fmt::memory_buffer& b, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(fmt::appender(b), f, std::forward<Args>(args)...);  // straight into the buffer
}

// Integers are most of a record line: format_int is several times faster than format_to.
template <class Int>
void append_int(fmt::memory_buffer& b, Int v) {
  fmt::format_int f(v);
  b.append(f.data(), f.data() + f.size());
}

// ANSI colours, used only when Settings::colour.
constexpr std::string_view kCyan = "\x1b[36m", kYellow = "\x1b[33m", kGreen = "\x1b[32m", kDim = "\x1b[2m",
                           kRed = "\x1b[31m", kReset = "\x1b[0m";

// fmt's "{:.3f}" of micros / 1000.0. Below 10^15 that double is within far less than half
// a thousandth of the exact quotient, so the integer digits are the same text.
void write_millis(Cursor& c, std::int64_t micros) {
  if (micros >= 0 && micros < 1'000'000'000'000'000) {
    c.num(micros / 1000);
    char* at = c.room(4);
    auto frac = static_cast<unsigned>(micros % 1000);
    at[0] = '.';
    at[1] = static_cast<char>('0' + frac / 100);
    at[2] = static_cast<char>('0' + frac / 10 % 10);
    at[3] = static_cast<char>('0' + frac % 10);
    c.advance_to(at + 4);
    return;
  }
  auto f = fmt::format("{:.3f}", static_cast<double>(micros) / 1000.0);
  c.lit(f);
}

// `head` then the bytes as a JSON string, or as base64 followed by `b64_tail` when they are
// not UTF-8; null when absent.
void bytes_field(Cursor& c, std::string_view head, std::string_view b64_tail, const void* data, std::size_t size) {
  if (!data) {
    c.lit(head);
    c.lit("null");
    return;
  }
  std::string_view s(static_cast<const char*>(data), size);
  char* at = c.room(head.size() + kafka::json_string_max(size));
  std::memcpy(at, head.data(), head.size());
  at += head.size();
  if (char* end = kafka::write_json_string_utf8(at, s)) {
    c.advance_to(end);
    return;
  }
  c.advance_to(at);
  at = c.room(base64_size(size) + 2 + b64_tail.size());
  *at++ = '"';
  at = write_base64(at, s);
  *at++ = '"';
  std::memcpy(at, b64_tail.data(), b64_tail.size());
  c.advance_to(at + b64_tail.size());
}

}  // namespace

void append_millis(fmt::memory_buffer& out, std::int64_t micros) {
  Cursor c(out);
  write_millis(c, micros);
  c.done();
}

RecordWriter::RecordWriter(Settings s, Names& names) : settings_(std::move(s)), names_(names), json_names_(names) {
  out_.reserve(kFlushAt * 2);
  output::widen_pipe(settings_.fd);
}

void RecordWriter::write_out() {
  const char* p = out_.data();
  std::size_t left = out_.size();
  while (left > 0 && !broken_) {
    ssize_t n = ::write(settings_.fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      broken_ = true;  // stop writing; main() reports it unless the reader is gone (EPIPE)
      output::write_failed(errno);
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (!broken_) printed_ += in_buffer_;
  in_buffer_ = 0;
  out_.clear();
}

void RecordWriter::flush() {
  if (out_.size() > 0) write_out();
}

void RecordWriter::end_line() {
  out_.push_back('\n');
  if (out_.size() >= kFlushAt) write_out();
}

void RecordWriter::begin() {
  if (settings_.format == Format::json) append(out_, "[");
}

void RecordWriter::finish() {
  if (settings_.format == Format::json) append(out_, json_items_ ? "\n]\n" : "]\n");
  flush();
}

void RecordWriter::event_prefix(std::string_view event) {
  if (settings_.format == Format::json) {
    append(out_, json_items_++ ? ",\n" : "\n");
  }
  if (settings_.format != Format::text) {
    append(out_, "{\"event\":\"");
    append(out_, event);
    append(out_, "\"");
  }
}

std::string RecordWriter::describe(const Blocker& b) const {
  if (b.kind == Blocker::Kind::offset) {
    std::string s = fmt::format("{}@{}", names_.channel_text(b.channel), b.offset);
    if (gate_) s += fmt::format(" (frontier {})", gate_->frontier(b.channel));
    return s;
  }
  std::string s = fmt::format("{} send {} of sender {}", names_.channel_text(b.channel), b.seq,
                              names_.sender_name(b.sender));
  if (gate_) s += fmt::format(" (delivered up to send {})", gate_->delivered_seq(b.channel, b.sender));
  return s;
}

void RecordWriter::held(ChannelId ch, Offset off, const Blocker& b) {
  if (!settings_.show_held || limit_reached()) return;
  if (settings_.format == Format::text) {
    if (settings_.colour) append(out_, kYellow);
    appendf(out_, "  hold     {}@{}  waiting for {}", names_.channel_text(ch), off, describe(b));
    if (settings_.colour) append(out_, kReset);
    end_line();
    return;
  }
  event_prefix("hold");
  append(out_, ",\"topic\":");
  kafka::append_json_string(out_, names_.channel_topic(ch));
  appendf(out_, ",\"partition\":{},\"offset\":{},\"waiting_for\":{{\"kind\":\"{}\",\"topic\":", names_.channel_partition(ch),
          off, b.kind == Blocker::Kind::offset ? "offset" : "seq");
  kafka::append_json_string(out_, names_.channel_topic(b.channel));
  appendf(out_, ",\"partition\":{}", names_.channel_partition(b.channel));
  if (b.kind == Blocker::Kind::offset) {
    appendf(out_, ",\"offset\":{}", b.offset);
    if (gate_) appendf(out_, ",\"frontier\":{}", gate_->frontier(b.channel));
  } else {
    append(out_, ",\"sender\":");
    kafka::append_json_string(out_, names_.sender_name(b.sender));
    appendf(out_, ",\"seq\":{}", b.seq);
  }
  append(out_, "}}");
  end_line();
}

void RecordWriter::lookup(const kafka::LookupReport& r) {
  eprint("{}: {}\n", settings_.prog, r.text);
  if (!settings_.show_held) return;
  if (settings_.format == Format::text) {
    // r.text starts with "lookup " itself: the event column says it once.
    std::string_view text = r.text;
    if (text.starts_with("lookup ")) text.remove_prefix(7);
    appendf(out_, "  lookup   {}", text);
    end_line();
    return;
  }
  event_prefix("lookup");
  append(out_, ",\"topic\":");
  kafka::append_json_string(out_, names_.channel_topic(r.request.channel));
  appendf(out_, ",\"partition\":{},\"sender\":", names_.channel_partition(r.request.channel));
  kafka::append_json_string(out_, names_.sender_name(r.request.sender));
  appendf(out_, ",\"seq\":{},\"located\":", r.request.seq);
  if (r.located) appendf(out_, "{}", *r.located);
  else append(out_, "null");
  appendf(out_, ",\"baseline\":{}", r.baseline);
  // Half-open, as explain's; null when nothing was read.
  if (r.scanned_to == kNoOffset) append(out_, ",\"scanned_from\":null,\"scanned_to\":null}");
  else appendf(out_, ",\"scanned_from\":{},\"scanned_to\":{}}}", r.scanned_from, r.scanned_to);
  end_line();
}

void RecordWriter::failed_closed(const kafka::HeaderFailure& f) {
  // The outcome carries the message (exit 3); with --show-held it is also an event in line.
  if (!settings_.show_held) return;
  if (settings_.format == Format::text) {
    if (settings_.colour) append(out_, kRed);
    appendf(out_, "  failed   {}", f.message);
    if (settings_.colour) append(out_, kReset);
    end_line();
    return;
  }
  event_prefix("failed_closed");
  append(out_, ",\"topic\":");
  kafka::append_json_string(out_, names_.channel_topic(f.channel));
  appendf(out_, ",\"partition\":{},\"offset\":{},\"reason\":", names_.channel_partition(f.channel), f.offset);
  kafka::append_json_string(out_, f.message);
  append(out_, "}");
  end_line();
}

void RecordWriter::note(std::string_view text) {
  flush();
  eprint("{}: {}\n", settings_.prog, text);
}

void RecordWriter::text_bytes(const void* data, std::size_t size) {
  if (!data) {
    append(out_, "(null)");
    return;
  }
  std::string_view s(static_cast<const char*>(data), size);
  if (!kafka::valid_utf8(s)) {
    append(out_, "base64:");
    const std::size_t used = out_.size();
    out_.resize(used + base64_size(s.size()));
    write_base64(out_.data() + used, s);
    return;
  }
  append_text_escaped(out_, s);  // one record per line: escape what would break the line or the terminal
}

void RecordWriter::append_released_by(const Delivery& d) {
  appendf(out_, "{{\"reason\":\"{}\"", to_string(d.release));
  if (d.release == Release::frontier || d.release == Release::seq_resolved) {
    append(out_, ",\"channel\":");
    kafka::append_json_string(out_, names_.channel_text(d.released_by_channel));
    appendf(out_, ",\"offset\":{}", d.released_by_offset);
  }
  out_.push_back('}');
}

void RecordWriter::gate_replaced(const Gate& old, const Gate& g) {
  replaced_ += old.stats();
  gate_ = &g;
}

GateStats RecordWriter::run_stats() const {
  GateStats s = replaced_;
  if (gate_) s += gate_->stats();
  return s;
}

void RecordWriter::delivered(const Delivery& d, const rd_kafka_message_t& msg_in) {
  if (limit_reached() || broken_) return;
  kafka::RecordView msg(msg_in);
  ++records_;
  ++in_buffer_;
  std::int64_t held_us = 0;  // a record released at receive was never held: no clock read
  if (d.release != Release::immediate) {
    auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
    held_us = now_us - d.received_at;
  }
  double held_ms = static_cast<double>(held_us) / 1000.0;
  const std::string& topic = names_.channel_topic(d.channel);
  std::int32_t partition = names_.channel_partition(d.channel);

  if (settings_.format == Format::text) {
    std::int64_t ts = msg.timestamp().ms;
    if (settings_.show_held && d.release != Release::immediate) {
      if (settings_.colour) append(out_, kGreen);
      appendf(out_, "  release  {}@{}  by {}", names_.channel_text(d.channel), d.offset, to_string(d.release));
      if (d.release == Release::frontier || d.release == Release::seq_resolved) {
        appendf(out_, " {}@{}", names_.channel_text(d.released_by_channel), d.released_by_offset);
      }
      appendf(out_, " after {:.1f} ms", held_ms);
      if (settings_.colour) append(out_, kReset);
      end_line();
    }
    std::size_t start = out_.size();
    if (settings_.colour) append(out_, kCyan);
    appendf(out_, "{}/{}@{}", topic, partition, d.offset);
    if (settings_.colour) append(out_, kReset);
    std::size_t w = out_.size() - start - (settings_.colour ? kCyan.size() + kReset.size() : 0);
    channel_width_ = std::max(channel_width_, w);
    for (std::size_t i = w; i < channel_width_ + 2; ++i) out_.push_back(' ');
    if (ts >= 0) {
      std::time_t secs = ts / 1000;
      std::tm tm{};
      gmtime_r(&secs, &tm);
      appendf(out_, "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z  ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
              tm.tm_hour, tm.tm_min, tm.tm_sec, ts % 1000);
    }
    if (msg.key()) {
      append(out_, "key=");
      text_bytes(msg.key(), msg.key_size());
      append(out_, "  ");
    }
    text_bytes(msg.value(), msg.value_size());
    bool any = false;
    msg.for_each_header([&](std::string_view n, const void* v, std::size_t sz) {
      if (n == kClockHeader) return;
      append(out_, any ? " " : "  [");
      any = true;
      text_bytes(n.data(), n.size());
      out_.push_back('=');
      text_bytes(v, sz);
    });
    if (any) out_.push_back(']');
    if (settings_.colour) append(out_, kDim);
    if (d.clock.origin || !d.clock.empty()) {
      append(out_, "  clock{");
      bool first = true;
      if (d.clock.origin) {
        append(out_, "from ");
        const std::string& sender = names_.sender_name(d.clock.origin->sender);
        text_bytes(sender.data(), sender.size());  // a sender's control bytes escaped, as a value's
        appendf(out_, "#{}", d.clock.origin->seq);
        first = false;
      }
      for (const auto& c : d.clock.offsets()) {
        appendf(out_, "{}{}@{}", first ? "" : " ", names_.channel_text(c.channel), c.offset);
        first = false;
      }
      for (const auto& c : d.clock.seqs()) {
        appendf(out_, "{}{}~", first ? "" : " ", names_.channel_text(c.channel));
        const std::string& sender = names_.sender_name(c.sender);
        text_bytes(sender.data(), sender.size());  // a sender's control bytes escaped, as a value's
        appendf(out_, "#{}", c.seq);
        first = false;
      }
      append(out_, "}");
    }
    if (settings_.colour) append(out_, kReset);
    if (d.release != Release::immediate) {
      if (settings_.colour) append(out_, kYellow);
      appendf(out_, "  (held {:.1f} ms, released by {}", held_ms, to_string(d.release));
      if (d.release == Release::frontier || d.release == Release::seq_resolved) {
        appendf(out_, " {}@{}", names_.channel_text(d.released_by_channel), d.released_by_offset);
      }
      append(out_, ")");
      if (settings_.colour) append(out_, kReset);
    }
    end_line();
    return;
  }

  if (settings_.show_held && d.release != Release::immediate) {
    event_prefix("release");
    append(out_, ",\"topic\":");
    kafka::append_json_string(out_, topic);
    appendf(out_, ",\"partition\":{},\"offset\":{},\"held_ms\":{:.3f},\"released_by\":", partition, d.offset, held_ms);
    append_released_by(d);
    out_.push_back('}');
    end_line();
  }
  if (settings_.format == Format::json) append(out_, json_items_++ ? ",\n" : "\n");
  json_record(d, msg, held_us);
  if (settings_.format == Format::jsonl) end_line();
  else if (out_.size() >= kFlushAt) write_out();
}

void RecordWriter::json_record(const Delivery& d, const kafka::RecordView& msg, std::int64_t held_us) {
  auto [ts, tstype] = msg.timestamp();

  Cursor c(out_);
  c.lit(json_names_.channel(d.channel).record_head);
  c.num(d.offset);
  c.lit(",\"timestamp\":");
  c.num(ts);
  c.lit(tstype == kafka::RecordView::TimestampType::create       ? ",\"timestamp_type\":\"create\""
        : tstype == kafka::RecordView::TimestampType::log_append ? ",\"timestamp_type\":\"log_append\""
                                                                 : ",\"timestamp_type\":\"none\"");
  bytes_field(c, ",\"key\":", ",\"key_encoding\":\"base64\"", msg.key(), msg.key_size());
  bytes_field(c, ",\"value\":", ",\"value_encoding\":\"base64\"", msg.value(), msg.value_size());
  c.lit(",\"headers\":[");
  bool has_clock = false;
  bool first = true;
  msg.for_each_header([&](std::string_view name, const void* v, std::size_t sz) {
    has_clock = has_clock || name == kClockHeader;
    bytes_field(c, first ? "{\"name\":" : ",{\"name\":", ",\"name_encoding\":\"base64\"", name.data(), name.size());
    bytes_field(c, ",\"value\":", ",\"value_encoding\":\"base64\"", v, sz);
    c.put('}');
    first = false;
  });
  c.lit("],\"clock\":");
  if (has_clock) json_names_.write_clock(c, d.clock);
  else c.lit("null");
  if (d.release == Release::immediate) {
    c.lit(",\"held_ms\":0.000,\"released_by\":{\"reason\":\"immediate\"}}");
  } else {
    c.lit(",\"held_ms\":");
    write_millis(c, held_us);
    c.lit(",\"released_by\":{\"reason\":\"");
    c.lit(to_string(d.release));
    c.put('"');
    if (d.release == Release::frontier || d.release == Release::seq_resolved) {
      c.lit(",\"channel\":");
      c.lit(json_names_.channel(d.released_by_channel).text);
      c.lit(",\"offset\":");
      c.num(d.released_by_offset);
    }
    c.lit("}}");
  }
  c.done();
}

}  // namespace causal::cli

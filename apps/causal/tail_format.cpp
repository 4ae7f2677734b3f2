#include "tail_format.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <unistd.h>

#include <fmt/core.h>

#include "causal/kafka/text.hpp"

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

}  // namespace

volatile std::sig_atomic_t g_stop = 0;

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_stop = 1; };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

void append_clock_json(fmt::memory_buffer& out, const Clock& clock, const Names& names) {
  // Same bytes as nlohmann's dump(): keys in sorted order (claims, origin, seq_claims) and
  // the claims in canonical order (topic name, partition, sender name).
  struct Off {
    const std::string* topic;
    std::int32_t partition;
    Offset offset;
  };
  Off offs_small[16];
  std::vector<Off> offs_big;
  std::span<Off> offs;
  const auto& co = clock.offsets();
  if (co.size() <= 16) {
    offs = std::span<Off>(offs_small, co.size());
  } else {
    offs_big.resize(co.size());
    offs = offs_big;
  }
  for (std::size_t i = 0; i < co.size(); ++i) {
    offs[i] = {&names.channel_topic(co[i].channel), names.channel_partition(co[i].channel), co[i].offset};
  }
  std::sort(offs.begin(), offs.end(), [](const Off& a, const Off& b) {
    if (a.topic != b.topic) {
      if (int k = a.topic->compare(*b.topic); k != 0) return k < 0;
    }
    return a.partition < b.partition;
  });
  append(out, "{\"claims\":[");
  bool first = true;
  for (const auto& c : offs) {
    if (!first) out.push_back(',');
    first = false;
    append(out, "{\"offset\":");
    append_int(out, c.offset);
    append(out, ",\"partition\":");
    append_int(out, c.partition);
    append(out, ",\"topic\":");
    kafka::append_json_string(out, *c.topic);
    out.push_back('}');
  }
  append(out, "],\"origin\":");
  if (clock.origin) {
    append(out, "{\"sender\":");
    kafka::append_json_string(out, names.sender_name(clock.origin->sender));
    append(out, ",\"seq\":");
    append_int(out, clock.origin->seq);
    out.push_back('}');
  } else {
    append(out, "null");
  }
  append(out, ",\"seq_claims\":[");
  struct Seq {
    const std::string* topic;
    std::int32_t partition;
    const std::string* sender;
    SeqNo seq;
  };
  std::vector<Seq> seqs;
  seqs.reserve(clock.seqs().size());
  for (const auto& c : clock.seqs()) {
    seqs.push_back({&names.channel_topic(c.channel), names.channel_partition(c.channel), &names.sender_name(c.sender),
                    c.seq});
  }
  std::sort(seqs.begin(), seqs.end(), [](const Seq& a, const Seq& b) {
    if (int k = a.topic->compare(*b.topic); k != 0) return k < 0;
    if (a.partition != b.partition) return a.partition < b.partition;
    return a.sender->compare(*b.sender) < 0;
  });
  first = true;
  for (const auto& c : seqs) {
    if (!first) out.push_back(',');
    first = false;
    append(out, "{\"partition\":");
    appendf(out, "{}", c.partition);
    append(out, ",\"sender\":");
    kafka::append_json_string(out, *c.sender);
    append(out, ",\"seq\":");
    appendf(out, "{}", c.seq);
    append(out, ",\"topic\":");
    kafka::append_json_string(out, *c.topic);
    out.push_back('}');
  }
  append(out, "]}");
}

RecordWriter::RecordWriter(Settings s, Names& names) : settings_(std::move(s)), names_(names) {
  out_.reserve(kFlushAt * 2);
}

void RecordWriter::write_out() {
  const char* p = out_.data();
  std::size_t left = out_.size();
  while (left > 0 && !broken_) {
    ssize_t n = ::write(settings_.fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      broken_ = true;  // EPIPE (reader gone) or another error: stop writing quietly
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
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
  fmt::print(stderr, "{}: {}\n", settings_.prog, r.text);
  if (!settings_.show_held) return;
  if (settings_.format == Format::text) {
    appendf(out_, "  lookup   {}", r.text);
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
  appendf(out_, ",\"baseline\":{},\"scanned_from\":{},\"scanned_to\":{}}}", r.baseline, r.scanned_from, r.scanned_to);
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
  fmt::print(stderr, "{}: {}\n", settings_.prog, text);
}

void RecordWriter::append_bytes_field(std::string_view name, const void* data, std::size_t size, bool nullable) {
  out_.push_back(',');
  out_.push_back('"');
  append(out_, name);
  append(out_, "\":");
  if (!data) {
    append(out_, nullable ? "null" : "\"\"");
    return;
  }
  std::string_view s(static_cast<const char*>(data), size);
  if (kafka::valid_utf8(s)) {
    kafka::append_json_string(out_, s);
  } else {
    out_.push_back('"');
    kafka::append_base64(out_, s);
    append(out_, "\",\"");
    append(out_, name);
    append(out_, "_encoding\":\"base64\"");
  }
}

void RecordWriter::text_bytes(const void* data, std::size_t size) {
  if (!data) {
    append(out_, "(null)");
    return;
  }
  std::string_view s(static_cast<const char*>(data), size);
  if (!kafka::valid_utf8(s)) {
    append(out_, "base64:");
    kafka::append_base64(out_, s);
    return;
  }
  // One record per line: escape what would break the line or the terminal.
  const char* run = s.data();
  for (const char* p = s.data(); p < s.data() + s.size(); ++p) {
    auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != 0x7f && c != '\\') continue;
    out_.append(run, p);
    run = p + 1;
    if (c == '\n') append(out_, "\\n");
    else if (c == '\t') append(out_, "\\t");
    else if (c == '\\') append(out_, "\\\\");
    else appendf(out_, "\\x{:02x}", c);
  }
  out_.append(run, s.data() + s.size());
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

void RecordWriter::delivered(const Delivery& d, const rd_kafka_message_t& msg_in) {
  if (limit_reached() || broken_) return;
  auto* msg = const_cast<rd_kafka_message_t*>(&msg_in);
  ++records_;
  auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  double held_ms = static_cast<double>(now_us - d.received_at) / 1000.0;
  if (d.release == Release::immediate) held_ms = 0;
  rd_kafka_timestamp_type_t tstype = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  std::int64_t ts = rd_kafka_message_timestamp(msg, &tstype);
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(msg, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR) hdrs = nullptr;
  const std::string& topic = names_.channel_topic(d.channel);
  std::int32_t partition = names_.channel_partition(d.channel);

  if (settings_.format == Format::text) {
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
    if (msg->key) {
      append(out_, "key=");
      text_bytes(msg->key, msg->key_len);
      append(out_, "  ");
    }
    text_bytes(msg->payload, msg->len);
    if (hdrs) {
      const char* n;
      const void* v;
      size_t sz;
      bool any = false;
      for (std::size_t i = 0; rd_kafka_header_get_all(hdrs, i, &n, &v, &sz) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
        if (std::string_view(n) == kClockHeader) continue;
        append(out_, any ? " " : "  [");
        any = true;
        text_bytes(n, std::strlen(n));
        out_.push_back('=');
        text_bytes(v, sz);
      }
      if (any) out_.push_back(']');
    }
    if (settings_.colour) append(out_, kDim);
    if (d.clock.origin || !d.clock.empty()) {
      append(out_, "  clock{");
      bool first = true;
      if (d.clock.origin) {
        appendf(out_, "from {}#{}", names_.sender_name(d.clock.origin->sender), d.clock.origin->seq);
        first = false;
      }
      for (const auto& c : d.clock.offsets()) {
        appendf(out_, "{}{}@{}", first ? "" : " ", names_.channel_text(c.channel), c.offset);
        first = false;
      }
      for (const auto& c : d.clock.seqs()) {
        appendf(out_, "{}{}~{}#{}", first ? "" : " ", names_.channel_text(c.channel), names_.sender_name(c.sender),
                c.seq);
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
  append(out_, "{\"topic\":");
  kafka::append_json_string(out_, topic);
  append(out_, ",\"partition\":");
  append_int(out_, partition);
  append(out_, ",\"offset\":");
  append_int(out_, d.offset);
  append(out_, ",\"timestamp\":");
  append_int(out_, ts);
  append(out_, tstype == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? ",\"timestamp_type\":\"create\""
               : tstype == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? ",\"timestamp_type\":\"log_append\""
                                                              : ",\"timestamp_type\":\"none\"");
  append_bytes_field("key", msg->key, msg->key_len, true);
  append_bytes_field("value", msg->payload, msg->len, true);
  append(out_, ",\"headers\":[");
  if (hdrs) {
    const char* n;
    const void* v;
    size_t sz;
    for (std::size_t i = 0; rd_kafka_header_get_all(hdrs, i, &n, &v, &sz) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      if (i) out_.push_back(',');
      std::string_view name(n);
      append(out_, "{\"name\":");
      if (kafka::valid_utf8(name)) {
        kafka::append_json_string(out_, name);
      } else {
        out_.push_back('"');
        kafka::append_base64(out_, name);
        append(out_, "\",\"name_encoding\":\"base64\"");
      }
      append_bytes_field("value", v, sz, true);
      out_.push_back('}');
    }
  }
  append(out_, "],\"clock\":");
  bool has_clock = false;
  if (hdrs) {
    const void* v;
    size_t sz;
    static const std::string name(kClockHeader);
    has_clock = rd_kafka_header_get_last(hdrs, name.c_str(), &v, &sz) == RD_KAFKA_RESP_ERR_NO_ERROR;
  }
  if (has_clock) append_clock_json(out_, d.clock, names_);
  else append(out_, "null");
  if (d.release == Release::immediate) {
    append(out_, ",\"held_ms\":0.000,\"released_by\":{\"reason\":\"immediate\"}}");
  } else {
    appendf(out_, ",\"held_ms\":{:.3f},\"released_by\":", held_ms);
    append_released_by(d);
    out_.push_back('}');
  }
  if (settings_.format == Format::jsonl) end_line();
  else if (out_.size() >= kFlushAt) write_out();
}

}  // namespace causal::cli

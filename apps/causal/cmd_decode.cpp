// causal decode: decode and print causal.clock headers from stdin (base64, hex or raw),
// from `kcat -J` output, or from Kafka records (topic/partition@offset or @A..B).
//
// Contract: a malformed header stops the run with exit 3 (Errc::bad_header) and a message
// naming where it came from (line N, or topic/partition@offset) and why; everything that
// decoded before it has been printed whole (a JSON document is closed properly), never a
// partial record. --validate prints nothing on stdout: it only checks.
//
// Input is read with a bound (bounded_input.hpp), so that memory never grows with a line
// that cannot be a header: a base64 or hex line longer than the longest valid header's
// text, or raw input over kMaxHeaderBytes, is refused at once with exit 3, naming the
// line; a kcat -J line (a whole record, payload included) may be up to kMaxKcatLine.
// Output is flushed after each record; the first failed write stops the run (output.hpp).
// Kafka sources are read through kafka::PartitionReader; kcat -J lines are parsed by
// kcat_json.hpp.
#include <unistd.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cctype>
#include <cstring>
#include <memory>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "causal/eprint.hpp"
#include "bounded_input.hpp"
#include "clock_json.hpp"
#include "kcat_json.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/excerpt.hpp"
#include "causal/base64.hpp"
#include "causal/codec.hpp"
#include "causal/kafka/json_string.hpp"
#include "causal/kafka/authorization.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/offsets.hpp"
#include "causal/kafka/partition_reader.hpp"
#include "output.hpp"
#include "stop_signal.hpp"
#include "subcommands.hpp"
#include "text_escape.hpp"

namespace causal::cli {

namespace {

enum class Input { base64, hex, raw };

struct DecodeOptions {
  std::vector<std::string> sources;  // topic/partition@offset or @A..B (Kafka)
  Input input = Input::base64;
  bool input_given = false;  // --input was on the command line (it names stdin's form)
  bool kcat = false;
  bool validate = false;
  Format format = Format::jsonl;
  int timeout_ms = 10000;
  kafka::ConnectionOptions kafka;
};

// The longest line that can hold a valid header (kMaxHeaderBytes, docs/wire-format.md):
// its padded base64 text, or its hex with a separator after every byte; plus room for
// whitespace around it and a '\r'. A longer line cannot decode, so it is not read.
constexpr std::size_t kLineSlack = 16;
constexpr std::size_t kMaxBase64Line = 4 * ((kMaxHeaderBytes + 2) / 3) + kLineSlack;  // 87,400
constexpr std::size_t kMaxHexLine = 3 * kMaxHeaderBytes + kLineSlack;               // 196,624
// A kcat -J line is a whole record: key and payload escaped (up to 6 bytes of text per
// byte), headers, metadata. 64 MiB holds records of Kafka's default 1 MiB limit many times
// over; a longer line cannot be checked, so decode fails closed on it (exit 3).
constexpr std::size_t kMaxKcatLine = std::size_t{64} << 20;

// Where a header came from, printed with it and named in errors.
struct Where {
  std::optional<std::size_t> line;
  std::optional<std::string> topic;
  std::int32_t partition = 0;
  Offset offset = kNoOffset;

  std::string text() const {
    if (topic) return fmt::format("{}/{}@{}", *topic, partition, offset);
    return fmt::format("line {}", line.value_or(0));
  }
};

// ---- input encodings ---------------------------------------------------------------------

std::optional<std::string> unhex(std::string_view s) {
  std::string digits;
  for (char c : s) {
    if (c == ' ' || c == ':') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    digits += c;
  }
  if (digits.size() % 2) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < digits.size(); i += 2) {
    out += static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string_view trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// ---- output -----------------------------------------------------------------------------

// Records are built whole in a buffer and written in large pieces: at 64 KiB, at flush()
// — which the readers call before they would wait for more input, so a reader of a live
// pipe still sees each record as soon as it is decoded — and at finish(). Only whole
// records are ever written. The jsonl/json object is written directly (no json value),
// byte for byte what nlohmann's dump() of it gave: keys in sorted order, the clock's three
// members from JsonNames (clock_json.hpp).
class Printer {
 public:
  Printer(const DecodeOptions& o, Names& names) : o_(o), names_(names), json_names_(names) {
    output::widen_pipe(1);
  }

  // One decoded record. `clock` is null when the record has no causal.clock header.
  void record(const Where& w, const Clock* clock, std::size_t size) {
    ++count_;
    if (!clock) ++absent_;
    if (o_.validate) return;
    if (o_.format == Format::text) {
      text(w, clock, size);
    } else {
      static const Clock empty{};
      const Clock& c = clock ? *clock : empty;
      if (o_.format == Format::json) lit(count_ == 1 ? "[\n" : ",\n");
      lit("{\"bytes\":");
      num(size);
      lit(",\"claims\":");
      json_names_.append_claims(buf_, c);
      lit(clock ? ",\"header_present\":true" : ",\"header_present\":false");
      if (w.line) {
        lit(",\"line\":");
        num(*w.line);
      }
      if (w.topic) {
        lit(",\"offset\":");
        num(w.offset);
      }
      lit(",\"origin\":");
      json_names_.append_origin(buf_, c);
      if (w.topic) {
        lit(",\"partition\":");
        num(w.partition);
      }
      lit(",\"seq_claims\":");
      json_names_.append_seq_claims(buf_, c);
      if (w.topic) {
        lit(",\"topic\":");
        kafka::append_json_string(buf_, *w.topic);
      }
      lit(o_.format == Format::jsonl ? "}\n" : "}");
    }
    if (buf_.size() >= kFlushAt) flush();
  }

  // Writes what is buffered (whole records). After a failed write nothing more is written
  // (the run stops, output.hpp). Not fmt::print, which throws on a failed write.
  void flush() {
    if (buf_.size() == 0) return;
    if (!output::failed()) {
      std::fwrite(buf_.data(), 1, buf_.size(), stdout);
      output::flush();
    }
    buf_.clear();
  }

  // `ok`: every input was read and valid; else the error follows, and --validate says how
  // many were valid before it.
  void finish(bool ok) {
    if (o_.validate) {
      const std::size_t valid = count_ - absent_;
      eprint("causal decode: {}{} header{} valid{}\n", ok ? "" : "before the error, ", valid,
                 valid == 1 ? "" : "s",
                 absent_ ? fmt::format(", {} record{} without one", absent_, absent_ == 1 ? "" : "s") : "");
      return;
    }
    if (o_.format == Format::json) lit(count_ == 0 ? "[]\n" : "\n]\n");
    flush();
  }

 private:
  static constexpr std::size_t kFlushAt = 64 * 1024;

  void lit(std::string_view s) { buf_.append(s.data(), s.data() + s.size()); }
  template <class Int>
  void num(Int v) {
    fmt::format_int f(v);
    buf_.append(f.data(), f.data() + f.size());
  }

  void text(const Where& w, const Clock* clock, std::size_t size) {
    std::string out = fmt::format("{}", w.text());
    if (!clock) {
      lit(out + "  no causal.clock header\n");
      return;
    }
    out += fmt::format("  {} bytes\n", size);
    if (clock->origin) {
      out += fmt::format("  {:<7} {}:{}\n", "origin", text_escaped(names_.sender_name(clock->origin->sender)),
                         clock->origin->seq);
    }
    auto j = clock_to_json(*clock, names_);  // canonical order
    for (const auto& c : j["claims"]) {
      out += fmt::format("  {:<7} {}/{}@{}\n", "claim", c["topic"].get<std::string>(), c["partition"].get<int>(),
                         c["offset"].get<Offset>());
    }
    for (const auto& c : j["seq_claims"]) {
      out += fmt::format("  {:<7} {}/{}#{}:{}\n", "seq", c["topic"].get<std::string>(), c["partition"].get<int>(),
                         text_escaped(c["sender"].get<std::string>()), c["seq"].get<SeqNo>());
    }
    if (!clock->origin && clock->empty()) out += "  (empty clock)\n";
    lit(out);
  }

  const DecodeOptions& o_;
  Names& names_;
  JsonNames json_names_;
  fmt::memory_buffer buf_;
  std::size_t count_ = 0;   // records (and stdin headers) handed to record()
  std::size_t absent_ = 0;  // of them, Kafka records without a causal.clock header
};

Error bad_header(const Where& w, std::string_view why) {
  return Error{Errc::bad_header, fmt::format("{}: causal.clock header is malformed: {}", w.text(), why)};
}

std::expected<void, Error> decode_one(const Where& w, std::string_view bytes, Names& names, Clock& clock,
                                      Printer& out) {
  auto span = std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  if (auto r = decode(span, names, clock); !r) {
    return std::unexpected(
        bad_header(w, fmt::format("{} at byte {}: {}", to_string(r.error().code), r.error().at, r.error().detail)));
  }
  out.record(w, &clock, bytes.size());
  return {};
}

// ---- sources ----------------------------------------------------------------------------

Error read_error(int err) {
  return runtime_error(fmt::format("cannot read standard input: {}", std::strerror(err)));
}

Outcome from_stdin(const DecodeOptions& o, Names& names, Printer& out) {
  Clock clock;
  if (o.input == Input::raw && !o.kcat) {
    Where w;
    w.line = 1;
    std::string all;
    int err = 0;
    switch (read_bounded(STDIN_FILENO, kMaxHeaderBytes, all, err)) {
      case ReadStatus::ok: return decode_one(w, all, names, clock, out);
      case ReadStatus::error: return std::unexpected(read_error(err));
      case ReadStatus::too_long:
        return std::unexpected(bad_header(
            w, fmt::format("oversized at byte {}: raw input is longer than the {} byte header limit (not read further)",
                           kMaxHeaderBytes, kMaxHeaderBytes)));
    }
  }
  const std::size_t max_line = o.kcat ? kMaxKcatLine : o.input == Input::hex ? kMaxHexLine : kMaxBase64Line;
  LineReader lines(STDIN_FILENO, max_line);
  std::string_view line;
  std::string bytes;  // the decoded header, reused
  for (;;) {
    if (output::failed()) return {};  // the reader is gone or output is lost: stop reading
    if (!lines.has_line()) out.flush();  // about to wait for input: show what is decoded
    const LineReader::Status st = lines.next(line);
    if (st == LineReader::Status::end) return {};
    if (st == LineReader::Status::error) return std::unexpected(read_error(lines.error()));
    const std::size_t n = lines.number();
    Where w;
    w.line = n;
    if (st == LineReader::Status::too_long) {
      if (o.kcat) {
        return std::unexpected(Error{
            Errc::bad_header,
            fmt::format("line {}: the kcat -J line is longer than {} MiB, the limit of --kcat input; its "
                        "causal.clock header cannot be checked (not read further)",
                        n, kMaxKcatLine >> 20)});
      }
      return std::unexpected(bad_header(
          w, fmt::format("oversized: the line is longer than {} characters, more than the {} text of the largest "
                         "valid header ({} bytes); not read further",
                         max_line, o.input == Input::hex ? "hex" : "base64", kMaxHeaderBytes)));
    }
    if (o.kcat) {
      if (trim(line).empty()) continue;
      auto rec = parse_kcat_line(line);
      if (!rec) return std::unexpected(usage_error(fmt::format("line {}: not kcat -J output: {}", n, rec.error())));
      // kcat -J writes every record's topic, partition and offset: an object without them is
      // something else, refused rather than printed as a record without a header.
      if (!rec->topic || !rec->partition || !rec->offset) {
        return std::unexpected(usage_error(fmt::format(
            "line {}: not kcat -J output: a record has \"topic\", \"partition\" and \"offset\"", n)));
      }
      w.topic = *rec->topic;
      w.partition = static_cast<std::int32_t>(*rec->partition);
      w.offset = *rec->offset;
      const std::string* value = nullptr;
      int found = 0;
      for (std::size_t i = 0; i + 1 < rec->headers.size(); i += 2) {
        if (rec->headers[i] && *rec->headers[i] == kClockHeader) {
          ++found;
          if (!rec->headers[i + 1]) return std::unexpected(bad_header(w, "the header value is null"));
          value = &*rec->headers[i + 1];
        }
      }
      if (found > 1) return std::unexpected(bad_header(w, fmt::format("the record has {} causal.clock headers", found)));
      if (!value) {
        out.record(w, nullptr, 0);
        continue;
      }
      if (auto r = decode_one(w, *value, names, clock, out); !r) return r;
      continue;
    }
    std::string_view t = trim(line);
    if (t.empty()) continue;  // blank lines carry no header
    bool ok = false;
    if (o.input == Input::hex) {
      auto b = unhex(t);
      ok = b.has_value();
      if (ok) bytes = std::move(*b);
    } else {
      ok = base64_decode_into(t, bytes, Base64Alphabet::standard_or_url) == kBase64Decoded;
    }
    if (!ok) {
      return std::unexpected(bad_header(w, o.input == Input::hex ? "not hex (--input hex)" : "not base64 (--input base64)"));
    }
    if (auto r = decode_one(w, bytes, names, clock, out); !r) return r;
  }
}

struct KafkaSource {
  std::string topic;
  std::int32_t partition = 0;
  Offset first = 0;
  std::optional<Offset> last;  // inclusive; nullopt: to the end
  bool range = false;
};

std::expected<KafkaSource, Error> parse_source(const std::string& text) {
  auto at = text.rfind('@');
  if (at == std::string::npos) {
    return std::unexpected(usage_error(fmt::format("{}: expected topic/partition@offset or topic/partition@A..B", quoted_excerpt(text))));
  }
  auto ch = parse_channel(text.substr(0, at));
  if (!ch) return std::unexpected(ch.error());
  KafkaSource s;
  s.topic = ch->first;
  s.partition = ch->second;
  std::string spec = text.substr(at + 1);
  auto parse_offset = [&](std::string_view v, Offset& out) {
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return ec == std::errc{} && p == v.data() + v.size() && out >= 0;
  };
  if (auto dots = spec.find(".."); dots != std::string::npos) {
    s.range = true;
    Offset b = 0;
    if (!parse_offset(std::string_view(spec).substr(0, dots), s.first) ||
        (dots + 2 < spec.size() && !parse_offset(std::string_view(spec).substr(dots + 2), b))) {
      return std::unexpected(usage_error(fmt::format("{}: offsets must be integers in 0..2^63-1 (A..B or A..)", quoted_excerpt(text))));
    }
    if (dots + 2 < spec.size()) {
      if (b < s.first) return std::unexpected(usage_error(fmt::format("{}: the range ends before it starts", quoted_excerpt(text))));
      s.last = b;
    }
  } else {
    if (!parse_offset(spec, s.first)) {
      return std::unexpected(usage_error(fmt::format("{}: the offset must be an integer in 0..2^63-1", quoted_excerpt(text))));
    }
    s.last = s.first;
  }
  return s;
}

Outcome from_kafka(const DecodeOptions& o, const KafkaSource& src, Names& names, Printer& out) {
  // librdkafka's log goes to `log`, quoted in errors, never raw to stderr (causal(1)).
  kafka::ClientLog log;
  auto reader = kafka::PartitionReader::open(o.kafka,
                                             {{"isolation.level", "read_committed"},
                                              {"enable.partition.eof", "true"},
                                              {"enable.auto.commit", "false"},
                                              {"auto.offset.reset", "error"},
                                              {"group.id", "causal-decode"},
                                              {"fetch.wait.max.ms", "100"}},
                                             log, std::chrono::milliseconds(200));
  if (!reader) return std::unexpected(reader.error());
  std::string where = fmt::format("{}/{}", src.topic, src.partition);
  // An unknown topic or partition is said at once, not after waiting out --timeout-ms for a
  // record that cannot come.
  auto count = kafka::partition_count(reader->handle(), src.topic, std::chrono::milliseconds(o.timeout_ms),
                                      kafka::brokers_in_effect(o.kafka));
  if (!count) return std::unexpected(runtime_error(log.with_cause(count.error().message)));
  if (src.partition >= *count) {
    return std::unexpected(runtime_error(fmt::format("unknown partition {}: topic '{}' has {} partition(s)", where,
                                                     src.topic, *count)));
  }
  // Where the partition's readable records start and end, asked before reading: an offset
  // outside them is said at once in Kafka's terms (log start, last stable offset, a
  // transaction still open), not as librdkafka's "offset out of range" or a wait.
  auto client = kafka::OffsetsClient::open(o.kafka, o.timeout_ms);
  if (!client) return std::unexpected(client.error());
  const std::array<kafka::ChannelRef, 1> channel{kafka::ChannelRef{src.topic, src.partition}};
  auto listed = client->list_offsets(channel);
  if (!listed) return std::unexpected(listed.error());
  const kafka::ChannelOffsets span = listed->at(0);
  // Records from the last stable offset to the log end are held back from read_committed
  // readers by a transaction still open (they need not all belong to it).
  const std::string held_back =
      span.lso < span.log_end
          ? (span.log_end - span.lso == 1
                 ? fmt::format(" (offset {} is held back by a transaction still open)", span.lso)
                 : fmt::format(" (offsets {}..{} are held back by a transaction still open)", span.lso,
                               span.log_end - 1))
          : std::string();
  // Nothing to read at `first`: the verdict is given at the end-of-partition event of a
  // fetch at the log start or the last stable offset, since a fetch also checks that the
  // topic may be read (Read), which the ListOffsets above (Describe) does not.
  std::optional<std::string> at_end_note;
  std::optional<Error> at_end_error;
  Offset first = src.first;
  if (first < span.log_start) {
    if (!src.range) {
      at_end_error = runtime_error(fmt::format("{}@{}: below the log start {}: deleted by retention or DeleteRecords",
                                               where, src.first, span.log_start));
      first = span.lso;
    } else {
      eprint("causal decode: {} starts at {}: offsets before it were deleted\n", where, span.log_start);
      if (src.last && *src.last < span.log_start) {
        at_end_note = "";
        first = span.lso;
      } else {
        first = span.log_start;
      }
    }
  }
  if (!at_end_note && !at_end_error && first >= span.lso) {
    if (src.range) {
      at_end_note = fmt::format("causal decode: {} ends at {}: nothing at or after {} to read{}\n", where, span.lso,
                                first, held_back);
    } else if (first < span.log_end) {
      at_end_error = runtime_error(fmt::format(
          "{}@{}: held back by a transaction still open: the last stable offset is {} and the log ends at {}; "
          "decode reads committed records only, and this one once every transaction open below it ends",
          where, first, span.lso, span.log_end));
    } else {
      at_end_error = runtime_error(
          fmt::format("{}@{}: no record at that offset yet (the partition ends at {})", where, first, span.log_end));
    }
    first = span.lso;
  }
  // [first, last]: the range's records, or to the log's end (A..). Records below src.first
  // (read from a listed offset below it) are skipped.
  if (auto r = reader->assign({kafka::PartitionRange{
          src.topic, src.partition, first, src.last ? std::optional<Offset>(*src.last + 1) : std::nullopt}});
      !r) {
    return std::unexpected(runtime_error(fmt::format("{}: cannot assign: {}", where, r.error())));
  }
  struct Read : kafka::ReadHandler {
    const DecodeOptions& o;
    const KafkaSource& src;
    const std::string& where;
    const std::string& held_back;
    std::optional<std::string>& at_end_note;
    std::optional<Error>& at_end_error;
    Names& names;
    Printer& out;
    Outcome result{};
    bool seen_any = false;
    Clock clock{};

    // The verdict taken from the listed offsets, given where the read ends: true when there
    // was one.
    bool offsets_verdict() {
      if (at_end_error) result = std::unexpected(*at_end_error);
      else if (at_end_note) eprint("{}", *at_end_note);
      return at_end_error || at_end_note;
    }
    bool keep_going() {
      if (g_stop || output::failed()) return false;  // a failed write stops the run (output.hpp)
      out.flush();  // each record is shown before the next wait on Kafka
      return true;
    }
    kafka::Step end(std::size_t, const kafka::RangeEnd& e) {
      if (e.kind == kafka::RangeEnd::Kind::log_end) {
        if (offsets_verdict()) return kafka::Step::stop;
        if (!src.range) {
          result = std::unexpected(runtime_error(fmt::format(
              "{}@{}: no business record at that offset (the partition ends at {}; markers and aborted records are "
              "not business records)",
              where, src.first, e.at)));
        } else if (src.last && e.at <= *src.last) {
          eprint("causal decode: {} ends at {}, before the end of the range {}{}\n", where, e.at, *src.last,
                 held_back);
        } else if (!src.last && !held_back.empty()) {
          eprint("causal decode: {} ends at {}{}\n", where, e.at, held_back);  // A.. read to its end
        }
      } else if (e.kind == kafka::RangeEnd::Kind::past_range) {
        if (!offsets_verdict() && !src.range) {
          result = std::unexpected(runtime_error(fmt::format(
              "{}@{}: no business record at that offset (the next one is at {}; a transaction marker, an aborted "
              "record, or a record compaction removed)",
              where, src.first, e.at)));
        }
      }
      return kafka::Step::stop;
    }
    kafka::Step error(const kafka::ReadError& e) {
      // A fetch refused needs Read on the topic.
      auto no = kafka::denied(e.code, "Read", "topic", src.topic);
      result = std::unexpected(runtime_error(
          no ? *no : fmt::format("{}: {} (broker {})", where, e.text, kafka::brokers_in_effect(o.kafka))));
      return kafka::Step::stop;
    }
    kafka::Step record(std::size_t, const kafka::ReadRecord& r) {
      seen_any = true;
      if (r.offset() < src.first) return kafka::Step::more;
      // A record to decode: the offsets moved since they were asked (a transaction ended), and
      // a verdict taken from them no longer holds.
      at_end_note.reset();
      at_end_error.reset();
      Where w;
      w.topic = src.topic;
      w.partition = src.partition;
      w.offset = r.offset();
      const kafka::ClockHeaders h = r.clock_headers();
      if (h.count > 1) {
        result = std::unexpected(bad_header(w, fmt::format("the record has {} causal.clock headers", h.count)));
        return kafka::Step::stop;
      }
      if (h.count == 0) {
        out.record(w, nullptr, 0);
      } else if (!h.value) {
        result = std::unexpected(bad_header(w, "the header value is null"));
        return kafka::Step::stop;
      } else if (auto d = decode_one(w, std::string_view(static_cast<const char*>(h.value), h.size), names, clock, out);
                 !d) {
        result = d;
        return kafka::Step::stop;
      }
      return kafka::Step::more;
    }
  } read{{}, o, src, where, held_back, at_end_note, at_end_error, names, out};
  const auto end = reader->read(std::chrono::steady_clock::now() + std::chrono::milliseconds(o.timeout_ms), read);
  if (end == kafka::ReadEnd::timed_out) {
    read.result = std::unexpected(runtime_error(log.with_cause(fmt::format(
        "{}: no {} within {} ms from {} (is the broker at {} reachable? --timeout-ms raises the wait)", where,
        read.seen_any ? "end of the range" : "record", o.timeout_ms, kafka::brokers_in_effect(o.kafka),
        kafka::brokers_in_effect(o.kafka)))));
  }
  return read.result;
}

Outcome run_decode(const DecodeOptions& o) {
  if (!o.sources.empty() && o.kcat) return std::unexpected(usage_error("--kcat reads stdin: give no topic/partition@offset"));
  if (!o.sources.empty() && o.input_given) {
    return std::unexpected(usage_error("--input says how stdin holds headers: give no topic/partition@offset with it"));
  }
  std::vector<KafkaSource> sources;
  for (const auto& s : o.sources) {
    auto k = parse_source(s);
    if (!k) return std::unexpected(k.error());
    sources.push_back(*k);
  }
  if (sources.empty() && isatty(STDIN_FILENO)) {
    eprint("causal decode: reading {} headers from the terminal (one per line, Ctrl-D ends)\n",
               o.kcat ? "kcat -J" : o.input == Input::hex ? "hex" : o.input == Input::raw ? "raw" : "base64");
  }
  Names names;
  Printer out(o, names);
  Outcome r;
  if (sources.empty()) {
    r = from_stdin(o, names, out);
  } else {
    stop_on_sigint();
    for (const auto& s : sources) {
      r = from_kafka(o, s, names, out);
      if (!r || output::failed()) break;
    }
  }
  out.finish(r.has_value());
  return r;
}

}  // namespace

void setup_decode(CLI::App& sub, Outcome& result) {
  auto o = std::make_shared<DecodeOptions>();
  sub.add_option("source", o->sources,
                 "Kafka records to decode: topic/partition@offset, topic/partition@A..B (inclusive) or @A.. (to the end)");
  auto* input = add_choice_option(sub, "--input", "INPUT", o->input,
                                  {{"base64", Input::base64}, {"hex", Input::hex}, {"raw", Input::raw}}, Input::base64,
                                  "How stdin holds headers: base64 (one per line), hex (one per line), raw (all of "
                                  "stdin is one header)");
  sub.add_flag("--kcat", o->kcat, "Stdin is `kcat -J` output: decode each record's causal.clock header")
      ->excludes(input);  // kcat -J is its own input form: --input would be ignored
  sub.add_flag("--validate", o->validate, "Only check: print nothing, exit 3 at the first malformed header");
  add_format_option(sub, o->format, {Format::jsonl, Format::json, Format::text}, Format::jsonl);
  // --timeout-ms as explain and baseline spell it; --timeout, its first name, still works.
  sub.add_option("--timeout-ms,--timeout", o->timeout_ms, "Kafka: give up after this many ms without reaching the record(s)")
      ->default_val(10000)
      ->check(whole_number(1));
  add_kafka_options(sub, o->kafka);
  sub.footer(R"EX(Examples:
  causal encode 'orders/3@1041' | causal decode
  echo AQEMYmlsbGluZy03ZjNhKg== | causal decode --format text
  causal decode --input hex --validate < headers.hex
  kcat -b $B -C -t orders -J -e | causal decode --kcat --format jsonl | jq .claims
  causal decode -b 127.0.0.1:9092 orders/3@1041 --format text
  causal decode orders/3@1000..1099 --format json

Output fields (json, jsonl): line | topic, partition, offset; header_present; bytes; origin;
claims; seq_claims.
Limits: a base64 line of at most 87400 characters, a hex line of 196624 (the largest valid
header, 65536 bytes, with room for whitespace), raw input of 65536 bytes, a --kcat line of
64 MiB; anything longer is refused unread, with exit 3 and its line number.
Exit status: 0 ok, 1 Kafka failure, unreadable stdin, unwritable stdout or out of memory,
2 usage, 3 malformed header or over-long input.)EX");
  sub.callback([o, input, &result] {
    o->input_given = input->count() > 0;
    result = run_decode(*o);
  });
}

}  // namespace causal::cli

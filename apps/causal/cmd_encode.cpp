// causal encode: build causal.clock header bytes from a clock written as JSON (protocol.md's
// shape) or in the text form below, for scripts and tests.
//
// Text form: whitespace-separated tokens, in any order, each naming one part of the clock:
//   origin=SENDER:SEQ            the origin (at most one)
//   TOPIC/PARTITION@OFFSET       an offset claim
//   TOPIC/PARTITION#SENDER:SEQ   a sequence claim
// SENDER is everything between '=' or '#' and the last ':'; senders containing whitespace
// need the JSON form. `causal decode --format text` prints claims in this form.
//
// Input: the CLOCK arguments (joined with spaces) form one clock; without them each
// non-blank stdin line is one clock, and each gives one output line (base64 or hex), or
// the bytes of the single clock with --output raw. Lines are written as they are read; at a
// bad line (exit 2, naming the line and field) the lines before it have been written.
#include <algorithm>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "causal/eprint.hpp"
#include "causal/excerpt.hpp"
#include "causal/base64.hpp"
#include "causal/codec.hpp"
#include "output.hpp"
#include "bounded_input.hpp"
#include "subcommands.hpp"

namespace causal::cli {

namespace {

// The longest stdin line read as one clock: the largest header (65,536 bytes) holds about
// 32,000 claims, whose JSON is a few MiB; past this nothing valid can follow.
constexpr std::size_t kMaxClockLine = std::size_t{16} << 20;

enum class InputForm { any, json, text };
enum class Output { base64, hex, raw };

struct EncodeOptions {
  std::vector<std::string> clock;
  InputForm input = InputForm::any;
  Output output = Output::base64;
};

std::string hex(std::span<const std::byte> b) {
  std::string out;
  for (auto x : b) out += fmt::format("{:02x}", static_cast<unsigned>(x));
  return out;
}

std::expected<SeqNo, std::string> parse_seq(std::string_view token, std::string_view v) {
  SeqNo q = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), q);
  if (ec != std::errc{} || p != v.data() + v.size() || q == 0) {
    return std::unexpected(fmt::format("{}: send number {} is not an integer in 1..2^64-1", quoted_excerpt(token), quoted_excerpt(v)));
  }
  return q;
}

// Splits "SENDER:SEQ" at the last ':'.
std::expected<std::pair<std::string, SeqNo>, std::string> sender_seq(std::string_view token, std::string_view v) {
  auto colon = v.rfind(':');
  if (colon == std::string_view::npos) return std::unexpected(fmt::format("{}: expected SENDER:SEQ", quoted_excerpt(token)));
  std::string sender(v.substr(0, colon));
  if (!valid_sender_name(sender)) return std::unexpected(fmt::format("{}: a sender is 1..255 bytes of UTF-8", quoted_excerpt(token)));
  auto q = parse_seq(token, v.substr(colon + 1));
  if (!q) return std::unexpected(q.error());
  return std::pair{sender, *q};
}

std::expected<Clock, std::string> parse_text(std::string_view text, Names& names) {
  Clock clock;
  std::istringstream in{std::string(text)};
  std::string token;
  while (in >> token) {
    if (token.starts_with("origin=")) {
      if (clock.origin) return std::unexpected(fmt::format("{}: a second origin", quoted_excerpt(token)));
      auto s = sender_seq(token, std::string_view(token).substr(7));
      if (!s) return std::unexpected(s.error());
      clock.origin = Origin{names.sender(s->first), s->second};
      continue;
    }
    auto hash = token.find('#');
    auto at = token.find('@');
    auto split = std::min(hash, at);
    if (split == std::string::npos) {
      return std::unexpected(fmt::format(
          "{}: expected TOPIC/PARTITION@OFFSET, TOPIC/PARTITION#SENDER:SEQ or origin=SENDER:SEQ",
          quoted_excerpt(token)));
    }
    auto ch = parse_channel(token.substr(0, split));
    if (!ch) return std::unexpected(fmt::format("{}: {}", quoted_excerpt(token), ch.error().message));
    ChannelId id = names.channel(ch->first, ch->second);
    if (split == hash) {
      auto s = sender_seq(token, std::string_view(token).substr(hash + 1));
      if (!s) return std::unexpected(s.error());
      SenderId sid = names.sender(s->first);
      for (const auto& e : clock.seqs()) {
        if (e.channel == id && e.sender == sid) return std::unexpected(fmt::format("{}: a second sequence claim for that channel and sender", quoted_excerpt(token)));
      }
      clock.claim_seq(id, sid, s->second);
    } else {
      std::string_view v = std::string_view(token).substr(at + 1);
      Offset off = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), off);
      if (ec != std::errc{} || p != v.data() + v.size() || off < 0) {
        return std::unexpected(fmt::format("{}: offset {} is not an integer in 0..2^63-1", quoted_excerpt(token), quoted_excerpt(v)));
      }
      if (clock.offset_of(id) != kNoOffset) return std::unexpected(fmt::format("{}: a second claim on that channel", quoted_excerpt(token)));
      clock.claim(id, off);
    }
  }
  return clock;
}

std::expected<Clock, std::string> parse_clock(std::string_view text, InputForm form, Names& names) {
  bool json = form == InputForm::json || (form == InputForm::any && text.find_first_not_of(" \t") != std::string_view::npos &&
                                          text[text.find_first_not_of(" \t")] == '{');
  if (!json) return parse_text(text, names);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return std::unexpected(fmt::format("not JSON: {}", json_error_text(e.what())));
  }
  auto c = clock_from_json(j, names);
  if (!c) return std::unexpected(c.error().message);
  return *c;
}

Outcome emit(const Clock& clock, const Names& names, Output output) {
  std::vector<std::byte> bytes;
  try {
    encode(clock, names, bytes);
  } catch (const std::length_error& e) {
    return std::unexpected(usage_error(e.what()));
  }
  // fwrite, not fmt::print (which throws on a failed write): main() reports a failed
  // write once, at the end (output.hpp); the loop in run_encode stops at it.
  std::string text;
  switch (output) {
    case Output::base64: text = base64(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())) + "\n"; break;
    case Output::hex: text = hex(bytes) + "\n"; break;
    case Output::raw: text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size()); break;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return {};
}

Outcome run_encode(const EncodeOptions& o) {
  Names names;
  if (!o.clock.empty()) {
    // encode "$UNSET" must not quietly write the empty clock: that one is spelt {}.
    if (std::all_of(o.clock.begin(), o.clock.end(),
                    [](const std::string& a) { return a.find_first_not_of(" \t\r\n") == std::string::npos; })) {
      return std::unexpected(usage_error("no clock given: the clock argument is empty ({} is the empty clock)"));
    }
    std::string text;
    for (const auto& a : o.clock) text += (text.empty() ? "" : " ") + a;
    auto c = parse_clock(text, o.input, names);
    if (!c) return std::unexpected(usage_error(fmt::format("clock argument: {}", c.error())));
    return emit(*c, names, o.output);
  }
  if (isatty(STDIN_FILENO)) eprint("causal encode: reading clocks from the terminal (one per line, Ctrl-D ends)\n");
  // Streamed: each clock's line is written as soon as it is read, and flushed before a read
  // that may wait, so `encode | head -1` ends and lines before a bad one are kept (as
  // decode does). --output raw writes one header, so its clock waits for the end of input:
  // a second clock is refused with nothing written.
  LineReader lines(STDIN_FILENO, kMaxClockLine);
  std::string_view line;
  std::size_t clocks = 0;
  std::optional<std::pair<std::size_t, Clock>> raw;
  for (;;) {
    if (output::failed()) return {};  // the reader is gone or output is lost: main() says which
    if (!lines.has_line()) output::flush();
    const LineReader::Status st = lines.next(line);
    if (st == LineReader::Status::end) break;
    if (st == LineReader::Status::error) {
      return std::unexpected(runtime_error(fmt::format("cannot read standard input: {}", std::strerror(lines.error()))));
    }
    const std::size_t n = lines.number();
    if (st == LineReader::Status::too_long) {
      return std::unexpected(
          usage_error(fmt::format("line {}: longer than {} MiB, more than any clock (not read further)", n, kMaxClockLine >> 20)));
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto c = parse_clock(line, o.input, names);
    if (!c) return std::unexpected(usage_error(fmt::format("line {}: {}", n, c.error())));
    ++clocks;
    if (o.output == Output::raw) {
      if (clocks > 1) return std::unexpected(usage_error(fmt::format("line {}: --output raw writes one header; give one clock", n)));
      raw.emplace(n, std::move(*c));
      continue;
    }
    if (auto r = emit(*c, names, o.output); !r) return std::unexpected(usage_error(fmt::format("line {}: {}", n, r.error().message)));
  }
  if (clocks == 0) return std::unexpected(usage_error("no clock given (arguments or one per stdin line; {} is the empty clock)"));
  if (raw) {
    if (auto r = emit(raw->second, names, o.output); !r) {
      return std::unexpected(usage_error(fmt::format("line {}: {}", raw->first, r.error().message)));
    }
  }
  return {};
}

}  // namespace

void setup_encode(CLI::App& sub, Outcome& result) {
  auto o = std::make_shared<EncodeOptions>();
  sub.add_option("clock", o->clock, "The clock, as JSON or text tokens (default: one clock per stdin line)");
  add_choice_option(sub, "--input", "SYNTAX", o->input,
                    {{"any", InputForm::any}, {"json", InputForm::json}, {"text", InputForm::text}}, InputForm::any,
                    "Clock syntax: any (JSON when it starts with '{'), json, text");
  add_choice_option(sub, "--output", "OUTPUT", o->output, {{"base64", Output::base64}, {"hex", Output::hex}, {"raw", Output::raw}},
                    Output::base64, "Header bytes as base64, hex, or raw (one clock only)");
  sub.footer(R"EX(Text form tokens: origin=SENDER:SEQ  TOPIC/PARTITION@OFFSET  TOPIC/PARTITION#SENDER:SEQ

Examples:
  causal encode 'orders/3@1041 payments/0#cart-19c2:7 origin=billing-7f3a:42'
  causal encode --output hex '{"claims":[{"topic":"orders","partition":3,"offset":1041}]}'
  causal encode '{}'                      # the empty clock
  causal encode orders/3@1041 | causal decode --format text
  causal encode --output raw orders/3@1041 > header.bin
  kcat -P -b $B -t orders -H "causal.clock=$(causal encode --output raw orders/3@1041)"   # bytes must be shell-safe

Exit status: 0 ok, 1 stdout not written in full (e.g. a full disk) or stdin unreadable,
2 unreadable clock (the message names the line and the field).)EX");
  sub.callback([o, &result] { result = run_encode(*o); });
}

}  // namespace causal::cli

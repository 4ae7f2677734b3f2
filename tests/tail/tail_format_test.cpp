// The pieces `causal tail` builds its JSON lines from, checked against nlohmann::json, the
// reference for the line's bytes: the one-pass UTF-8 validator and escaper, base64, the
// clock object and held_ms. No broker needed.
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "causal/codec.hpp"
#include "causal/base64.hpp"
#include "causal/kafka/json_string.hpp"
#include "clock_json.hpp"
#include "record_writer.hpp"
#include "text_escape.hpp"

using nlohmann::json;
namespace k = causal::kafka;

namespace {

// nlohmann's dump() of `s`, or nullopt when nlohmann rejects it as invalid UTF-8.
std::optional<std::string> reference(const std::string& s) {
  try {
    return json(s).dump();
  } catch (const json::type_error&) {
    return std::nullopt;
  }
}

// write_json_string_utf8 into a heap block of exactly json_string_max bytes (so that the
// sanitizer build catches a write past it), and again into a guarded buffer.
std::optional<std::string> fast(const std::string& s) {
  std::size_t max = k::json_string_max(s.size());
  auto exact = std::make_unique<char[]>(max);
  char* end = k::write_json_string_utf8(exact.get(), s);
  std::vector<char> guarded(max + 64, '\x5a');
  char* end2 = k::write_json_string_utf8(guarded.data(), s);
  for (std::size_t i = max; i < guarded.size(); ++i) REQUIRE(guarded[i] == '\x5a');
  REQUIRE((end == nullptr) == (end2 == nullptr));
  if (!end) return std::nullopt;
  REQUIRE(end <= exact.get() + max);
  std::string out(exact.get(), end);
  REQUIRE(out == std::string(guarded.data(), end2));
  return out;
}

void check_string(const std::string& s) {
  INFO("input bytes: " << causal::base64(s));
  auto want = reference(s);
  auto got = fast(s);
  CHECK(got == want);
  CHECK(k::valid_utf8(s) == want.has_value());
  if (want) {
    fmt::memory_buffer b;
    k::append_json_string(b, s);
    CHECK(fmt::to_string(b) == *want);
  }
}

// Pieces that exercise every branch: plain ASCII runs (the 16-byte path), each escape,
// 0x7f, valid 2/3/4-byte sequences, and each kind of invalid UTF-8.
const std::vector<std::string> kPieces = {
    "a", "Z", "0", " ", "~", "\x7f", "\"", "\\", "/", "\n", "\r", "\t", "\b", "\f", std::string(1, '\0'), "\x01",
    "\x1f", "\x1e", "abcdefghijklmnop", "0123456789", "é", "ß", "€", "한", "\xef\xbf\xbf" /* U+FFFF */,
    "\xf0\x9f\x98\x80" /* U+1F600 */, "\xf4\x8f\xbf\xbf" /* U+10FFFF */, "\xc2\x80" /* U+0080 */,
    "\xe0\xa0\x80" /* U+0800 */, "\xf0\x90\x80\x80" /* U+10000 */, "\xed\x9f\xbf" /* U+D7FF */,
    // invalid:
    "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc2", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
    "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8", "\xfe", "\xff", "\xe2\x82",
    "\xf0\x9f\x98", "\xc3\x28", "\xe2\x28\xa1"};

}  // namespace

TEST_CASE("write_json_string_utf8 gives nlohmann's bytes, and nullptr exactly where nlohmann rejects the UTF-8") {
  check_string("");
  for (const auto& p : kPieces) check_string(p);
  // Every single byte, and every byte at every position of a 16- and 32-byte block.
  for (int c = 0; c < 256; ++c) {
    check_string(std::string(1, static_cast<char>(c)));
    for (std::size_t at : {0u, 1u, 7u, 14u, 15u, 16u, 17u, 31u}) {
      std::string s(33, 'x');
      s[at] = static_cast<char>(c);
      check_string(s);
      check_string(s.substr(0, at + 1));
    }
  }
  // A multi-byte sequence straddling the end of a 16-byte block, and cut off by the end.
  for (const char* seq : {"é", "€", "\xf0\x9f\x98\x80"}) {
    for (std::size_t pad = 10; pad < 20; ++pad) {
      std::string s = std::string(pad, 'a') + seq + std::string(20, 'b');
      check_string(s);
      check_string(s.substr(0, pad + 1));
    }
  }
}

TEST_CASE("write_json_string_utf8 on random strings of random pieces and random bytes") {
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    std::size_t n = rng() % 24;
    bool bytes = rng() % 4 == 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (bytes) {
        s.push_back(static_cast<char>(rng() % 256));
      } else {
        // Mostly valid pieces so that long valid strings are common.
        const auto& p = kPieces[rng() % (rng() % 3 == 0 ? kPieces.size() : 31)];
        s += p;
      }
    }
    check_string(s);
  }
}

TEST_CASE("write_base64 and append_base64: RFC 4648 vectors and round trips") {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [in, want] : vectors) {
    std::string out(causal::base64_size(in.size()), '?');
    char* end = causal::write_base64(out.data(), in);
    CHECK(end == out.data() + out.size());
    CHECK(out == want);
    CHECK(causal::base64(in) == want);
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 70, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 256);
    auto back = causal::base64_decode_canonical(causal::base64(s));
    REQUIRE(back.has_value());
    CHECK(*back == s);
  }
}

TEST_CASE("the clock object of a record line is clock_to_json(...).dump(), byte for byte") {
  causal::Names names;
  // Topics that sort differently by name than by interning order; partitions > 9 so that
  // numeric and text order differ; senders that need escaping.
  std::vector<causal::ChannelId> channels;
  for (const char* t : {"orders", "b", "a.b-c_9", "Orders", "a"}) {
    for (int p : {0, 1, 2, 10, 11}) channels.push_back(names.channel(t, p));
  }
  std::vector<causal::SenderId> senders;
  for (const char* s : {"billing-7f3a", "z", "A \"quoted\" \\ sender", "tab\there", "é-sender", "\x01\x1f"}) {
    senders.push_back(names.sender(s));
  }
  std::mt19937_64 rng(42);
  causal::cli::JsonNames cached(names);  // one cache over many clocks, as the writer keeps it
  for (int i = 0; i < 3000; ++i) {
    causal::Clock c;
    if (rng() % 3) c.origin = causal::Origin{senders[rng() % senders.size()], 1 + rng() % 100000};
    int offsets = static_cast<int>(rng() % (i % 10 == 0 ? 40 : 6));  // beyond the inline and the small array
    for (int j = 0; j < offsets; ++j) {
      c.claim(channels[rng() % channels.size()], static_cast<causal::Offset>(rng() % 1000000));
    }
    int seqs = static_cast<int>(rng() % 5);
    for (int j = 0; j < seqs; ++j) {
      c.claim_seq(channels[rng() % channels.size()], senders[rng() % senders.size()], 1 + rng() % 1000);
    }
    std::string want = causal::clock_to_json(c, names).dump();
    fmt::memory_buffer a, b;
    causal::cli::append_clock_json(a, c, names);
    cached.append_clock(b, c);
    INFO(want);
    CHECK(fmt::to_string(a) == want);
    CHECK(fmt::to_string(b) == want);
  }
}

TEST_CASE("held_ms is fmt's {:.3f} of microseconds / 1000") {
  std::vector<std::int64_t> values = {0, 1, 5, 9, 10, 99, 100, 499, 500, 501, 999, 1000, 1001, 1499, 1500, 123456789,
                                      999'999'999'999'999, 1'000'000'000'000'000, -1, -1500,
                                      std::numeric_limits<std::int64_t>::max()};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) values.push_back(static_cast<std::int64_t>(rng() % 10'000'000'000'000ULL));
  for (auto us : values) {
    fmt::memory_buffer b;
    causal::cli::append_millis(b, us);
    INFO(us);
    CHECK(fmt::to_string(b) == fmt::format("{:.3f}", static_cast<double>(us) / 1000.0));
  }
}

// Text lines (tail --format text, decode --format text, produce's summary): distinct senders
// print distinctly (a backslash is escaped, so a literal "\x01" differs from the byte), and no
// C0 or C1 control reaches the terminal raw: otherwise decode prints both as a\x01b, and
// U+009B (CSI) goes out raw everywhere.
TEST_CASE("text_escaped escapes backslashes, C0 and C1 controls, and keeps other UTF-8") {
  using causal::cli::text_escaped;
  CHECK(text_escaped("a\\x01b") == "a\\\\x01b");
  CHECK(text_escaped(std::string("a\x01" "b")) == "a\\x01b");
  CHECK(text_escaped("line\nnext\ttab\x7f") == "line\\nnext\\ttab\\x7f");
  CHECK(text_escaped("\xc2\x9b" "1m\xc2\x85") == "\\xc2\\x9b1m\\xc2\\x85");
  CHECK(text_escaped("caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac") == "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac");
  CHECK(text_escaped("") == "");
}

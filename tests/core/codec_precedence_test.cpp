// Which error decode() reports, checked against docs/wire-format.md ("Errors" and "Which
// error is reported"). The reference below is written from that document alone and shares
// no code with lib/core: it reads the bytes field by field, and each field's checks run in
// the documented order. Many valid headers are damaged at random and every answer of the
// decoder (fresh names: the general decoder; warm names: mostly the fast path) must be the
// reference's, code and byte offset. So the document and the decoder cannot drift apart.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "causal/codec.hpp"

using namespace causal;

namespace {

// Wide enough for every sum the format allows, so the reference needs no overflow care.
__extension__ using I128 = __int128;
__extension__ using U128 = unsigned __int128;

struct RefError {
  std::string code;
  std::size_t at = 0;
};

// docs/wire-format.md, read literally.
class Reference {
 public:
  explicit Reference(std::span<const std::uint8_t> b) : b_(b) {}

  std::optional<RefError> run() {
    if (b_.empty()) return RefError{"empty", 0};
    if (b_.size() > 65536) return RefError{"oversized", 65536};
    if (b_[0] != 0x01) return RefError{"unknown_version", 0};
    if (b_.size() < 2) return RefError{"truncated", 1};
    const std::uint8_t flags = b_[1];
    if (flags & 0xF8) return RefError{"bad_flags", 1};
    p_ = 2;
    if ((flags & 0x01) && !origin()) return err_;
    if ((flags & 0x02) && !offsets()) return err_;
    if ((flags & 0x04) && !seqs()) return err_;
    if (p_ != b_.size()) return RefError{"trailing_bytes", p_};
    return std::nullopt;
  }

 private:
  bool fail(const char* code, std::size_t at) {
    err_ = RefError{code, at};
    return false;
  }
  std::size_t left() const { return b_.size() - p_; }

  // varint: truncated at its first byte; overlong_varint at the offending byte (a last
  // group of 0 after the first byte, or a 10th byte other than 0x00/0x01).
  bool varint(std::uint64_t& v) {
    const std::size_t start = p_;
    v = 0;
    for (int i = 0;; ++i) {
      if (p_ == b_.size()) return fail("truncated", start);
      const std::uint8_t c = b_[p_];
      if (i == 9 && c > 0x01) return fail("overlong_varint", p_);
      if (i > 0 && c == 0x00) return fail("overlong_varint", p_);
      v |= static_cast<std::uint64_t>(c & 0x7F) << (7 * i);
      ++p_;
      if (c < 0x80) return true;
    }
  }

  // count: its varint, then 0 (not_canonical), then too large for what is left after it
  // (count_too_large), both at the count's first byte.
  bool count(std::size_t min_item, std::uint64_t& n) {
    const std::size_t at = p_;
    if (!varint(n)) return false;
    if (n == 0) return fail("not_canonical", at);
    if (n > left() / min_item) return fail("count_too_large", at);
    return true;
  }

  static bool topic_ok(std::string_view s) {
    if (s == "." || s == "..") return false;
    for (char c : s) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
            c == '-')) {
        return false;
      }
    }
    return true;
  }

  static bool utf8_ok(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
      const auto c = static_cast<std::uint8_t>(s[i]);
      std::size_t len = 0;
      std::uint32_t cp = 0;
      std::uint32_t min = 0;
      if (c < 0x80) {
        ++i;
        continue;
      } else if (c >= 0xC0 && c < 0xE0) {
        len = 2, cp = c & 0x1F, min = 0x80;
      } else if (c >= 0xE0 && c < 0xF0) {
        len = 3, cp = c & 0x0F, min = 0x800;
      } else if (c >= 0xF0 && c < 0xF8) {
        len = 4, cp = c & 0x07, min = 0x10000;
      } else {
        return false;
      }
      if (i + len > s.size()) return false;
      for (std::size_t k = 1; k < len; ++k) {
        const auto cc = static_cast<std::uint8_t>(s[i + k]);
        if ((cc & 0xC0) != 0x80) return false;
        cp = (cp << 6) | (cc & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
      i += len;
    }
    return true;
  }

  // topic / sender: at the length byte: truncated (no length byte), the length outside
  // 1..max (bad_*), truncated (the bytes run past the end), the bytes (bad_*).
  bool name(bool topic, std::string_view& s) {
    const std::size_t at = p_;
    const char* bad = topic ? "bad_topic" : "bad_sender";
    if (p_ == b_.size()) return fail("truncated", at);
    const std::size_t len = b_[p_];
    if (len == 0 || len > (topic ? 249u : 255u)) return fail(bad, at);
    if (len > left() - 1) return fail("truncated", at);
    s = std::string_view(reinterpret_cast<const char*>(b_.data() + p_ + 1), len);
    p_ += 1 + len;
    if (!(topic ? topic_ok(s) : utf8_ok(s))) return fail(bad, at);
    return true;
  }

  bool seq_no() {
    const std::size_t at = p_;
    std::uint64_t q = 0;
    if (!varint(q)) return false;
    if (q == 0) return fail("value_range", at);
    return true;
  }

  bool origin() {
    std::string_view s;
    return name(false, s) && seq_no();
  }

  // A topic of a section, then its order after the previous one (same offset).
  bool section_topic(std::size_t t, std::string_view& prev) {
    const std::size_t at = p_;
    std::string_view s;
    if (!name(true, s)) return false;
    if (t > 0 && s == prev) return fail("duplicate_claim", at);
    if (t > 0 && s < prev) return fail("not_canonical", at);
    prev = s;
    return true;
  }

  bool offsets() {
    std::uint64_t topics = 0;
    if (!count(5, topics)) return false;
    std::string_view prev;
    for (std::uint64_t t = 0; t < topics; ++t) {
      if (!section_topic(t, prev)) return false;
      std::uint64_t n = 0;
      if (!count(2, n)) return false;
      U128 partition = 0;
      I128 offset = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::size_t pat = p_;
        std::uint64_t gap = 0;
        if (!varint(gap)) return false;
        partition = i == 0 ? gap : partition + 1 + gap;
        if (partition > 0x7FFFFFFF) return fail("value_range", pat);
        const std::size_t oat = p_;
        std::uint64_t u = 0;
        if (!varint(u)) return false;
        const I128 diff = static_cast<I128>(u >> 1) * ((u & 1) ? -1 : 1) - ((u & 1) ? 1 : 0);
        offset = i == 0 ? static_cast<I128>(u) : offset + diff;
        if (offset < 0 || offset > static_cast<I128>(INT64_MAX)) return fail("value_range", oat);
      }
    }
    return true;
  }

  bool seqs() {
    std::uint64_t topics = 0;
    if (!count(7, topics)) return false;
    std::string_view prev;
    for (std::uint64_t t = 0; t < topics; ++t) {
      if (!section_topic(t, prev)) return false;
      std::uint64_t n = 0;
      if (!count(4, n)) return false;
      U128 partition = 0;
      std::string_view prev_sender;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::size_t pat = p_;
        std::uint64_t delta = 0;
        if (!varint(delta)) return false;
        partition += delta;
        if (partition > 0x7FFFFFFF) return fail("value_range", pat);
        const std::size_t sat = p_;
        std::string_view s;
        if (!name(false, s)) return false;
        if (i > 0 && delta == 0 && s == prev_sender) return fail("duplicate_claim", sat);
        if (i > 0 && delta == 0 && s < prev_sender) return fail("not_canonical", sat);
        prev_sender = s;
        if (!seq_no()) return false;
      }
    }
    return true;
  }

  std::span<const std::uint8_t> b_;
  std::size_t p_ = 0;
  RefError err_;
};

std::optional<RefError> reference(const std::vector<std::byte>& bytes) {
  return Reference(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())).run();
}

std::string hex(const std::vector<std::byte>& b) {
  std::string s;
  for (auto x : b) s += fmt::format("{:02x}", static_cast<unsigned>(x));
  return s;
}

std::vector<std::byte> from_hex(std::string_view h) {
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// Topics and senders that sort next to each other, so that damage often reorders or
// repeats them; a multi-byte UTF-8 sender, so that damage breaks UTF-8.
constexpr const char* kTopics[] = {"a", "b", "ab", "orders", "orders.v2", "payments", "t-1", "t_1"};
constexpr const char* kSenders[] = {"x", "y", "xy", "billing-7f3a", "cart-19c2", "café", "\xe2\x82\xac"};

Clock random_clock(std::mt19937_64& rng, Names& names) {
  Clock c;
  if (rng() % 2) c.origin = Origin{names.sender(kSenders[rng() % 7]), 1 + rng() % 100000};
  const int n = static_cast<int>(rng() % 12);
  for (int i = 0; i < n; ++i) {
    ChannelId ch = names.channel(kTopics[rng() % 8], static_cast<std::int32_t>(rng() % (rng() % 4 ? 8 : 5000)));
    if (rng() % 3) {
      if (c.offset_of(ch) == kNoOffset) c.claim(ch, static_cast<Offset>(rng() % (rng() % 2 ? 300 : 1'000'000'000)));
    } else {
      c.claim_seq(ch, names.sender(kSenders[rng() % 7]), 1 + rng() % 1000);
    }
  }
  return c;
}

// Bytes that damage tends to turn into each kind of error.
constexpr std::uint8_t kInteresting[] = {0x00, 0x01, 0x02, 0x2e, 0x2f, 0x61, 0x7f, 0x80, 0xc0, 0xff, 0xf9, 0x05};

void damage(std::mt19937_64& rng, std::vector<std::byte>& b) {
  const int times = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < times && !b.empty(); ++k) {
    const std::size_t i = rng() % b.size();
    const auto byte = static_cast<std::byte>(rng() % 2 ? kInteresting[rng() % std::size(kInteresting)] : rng() & 0xFF);
    switch (rng() % 7) {
      case 0:
      case 1: b[i] = byte; break;
      case 2: b.insert(b.begin() + static_cast<std::ptrdiff_t>(i), byte); break;
      case 3: b.erase(b.begin() + static_cast<std::ptrdiff_t>(i)); break;
      case 4: b.resize(i); break;
      case 5: {  // repeat a run of bytes (a topic, a claim) right after itself
        const std::size_t len = 1 + rng() % std::min<std::size_t>(12, b.size() - i);
        const std::vector<std::byte> run(b.begin() + static_cast<std::ptrdiff_t>(i),
                                         b.begin() + static_cast<std::ptrdiff_t>(i + len));
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(i + len), run.begin(), run.end());
        break;
      }
      default: b[i] ^= static_cast<std::byte>(1u << (rng() % 8)); break;
    }
  }
}

}  // namespace

TEST_CASE("the reference reads the examples of docs/wire-format.md as documented", "[codec][precedence]") {
  // A topic's characters are checked when the topic is read, before the claims after it.
  auto r = reference(from_hex("01020102612f01800000"));
  REQUIRE(r);
  CHECK(r->code == "bad_topic");
  CHECK(r->at == 3);
  CHECK_FALSE(reference(from_hex("01070c62696c6c696e672d376633612a01066f72646572730103910801087061796d656e7473010009636172"
                                 "742d3139633207")));
}

TEST_CASE("decode reports the error the documented precedence gives, on damaged headers", "[codec][precedence]") {
  std::mt19937_64 rng(0x0DE5);
  std::map<std::string, int> seen;
  int mismatches = 0;
  int accepted = 0;
  std::string examples;
  constexpr int kRounds = 100000;
  for (int round = 0; round < kRounds; ++round) {
    Names warm;
    const Clock c = random_clock(rng, warm);
    std::vector<std::byte> bytes = encode(c, warm);
    damage(rng, bytes);
    const std::optional<RefError> want = reference(bytes);
    ++seen[want ? want->code : "valid"];
    if (!want) ++accepted;
    // Fresh names: the general decoder decides. Warm names (every name of the clock
    // interned): the fast path takes what it can.
    Names fresh;
    Clock out;
    const auto got_fresh = decode(bytes, fresh, out);
    const auto got_warm = decode(bytes, warm, out);
    const auto got_general = decode_general(bytes, warm, out);
    for (const auto* got : {&got_fresh, &got_warm, &got_general}) {
      const bool same = want ? !got->has_value() && to_string(got->error().code) == want->code &&
                                   got->error().at == want->at
                             : got->has_value();
      if (same) continue;
      if (++mismatches <= 5) {
        examples += fmt::format("\n  {}: documented {} @ {}, decoder {}", hex(bytes), want ? want->code : "valid",
                                want ? want->at : 0,
                                got->has_value() ? "valid"
                                                 : fmt::format("{} @ {}", to_string(got->error().code),
                                                               got->error().at));
      }
    }
  }
  INFO(mismatches << " of " << 3 * kRounds << " answers differ from the documented precedence:" << examples);
  CHECK(mismatches == 0);
  // Anti-vacuity: damage reaches acceptance and every error a header can have below the
  // size limit (empty, oversized and bad_flags included).
  INFO("codes seen: " << seen.size());
  CHECK(accepted > 1000);
  for (const char* code : {"empty", "unknown_version", "truncated", "overlong_varint", "value_range", "bad_topic",
                           "bad_sender", "duplicate_claim", "not_canonical", "count_too_large", "trailing_bytes",
                           "bad_flags"}) {
    INFO(code);
    CHECK(seen[code] > 20);
  }
}

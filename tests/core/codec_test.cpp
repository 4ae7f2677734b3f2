// Tests of codec.cpp and decode_fast_path.cpp. The test vectors live in
// docs/wire-format.md and are read from there, so the document and the codec cannot drift
// apart. Then property tests with a seeded PRNG: round trips, canonicality, truncation,
// byte flips, and the fast path against the general decoder.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

#include "causal/codec.hpp"
#include "decode_fast_path.hpp"  // lib/core: the fast path is checked against the general decoder

using namespace causal;

namespace {

std::vector<std::byte> from_hex(std::string_view hex) {
  std::vector<std::byte> out;
  std::string digits;
  for (char c : hex) {
    if (std::isxdigit(static_cast<unsigned char>(c))) digits += c;
  }
  REQUIRE(digits.size() % 2 == 0);
  for (std::size_t i = 0; i < digits.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string to_hex(std::span<const std::byte> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto x : b) {
    s += d[static_cast<unsigned>(x) >> 4];
    s += d[static_cast<unsigned>(x) & 15];
  }
  return s;
}

struct Vector {
  std::string name;
  bool valid = true;
  std::string json;
  std::string hex;
  std::string error_code;
  std::size_t error_at = 0;
};

// Reads the `vector`/`invalid` blocks of docs/wire-format.md. A block is a name line, then
// `json`/`hex`/`error` lines; a hex value may continue on indented lines that follow.
std::vector<Vector> doc_vectors() {
  auto path = std::filesystem::path(CAUSAL_SOURCE_DIR) / "docs" / "wire-format.md";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<Vector> out;
  std::string line;
  bool in_hex = false;
  while (std::getline(in, line)) {
    auto starts = [&](std::string_view p) { return line.rfind(p, 0) == 0; };
    auto rest = [&](std::size_t n) {
      auto s = line.substr(n);
      s.erase(0, s.find_first_not_of(' '));
      return s;
    };
    if (starts("vector ") || starts("invalid ")) {
      out.push_back({});
      out.back().valid = starts("vector ");
      out.back().name = rest(out.back().valid ? 7 : 8);
      in_hex = false;
    } else if (!out.empty() && starts("json ")) {
      out.back().json = rest(5);
      in_hex = false;
    } else if (!out.empty() && starts("hex ")) {
      out.back().hex = rest(4);
      in_hex = true;
    } else if (!out.empty() && starts("error ")) {
      std::istringstream ss(rest(6));
      std::string at_sign;
      ss >> out.back().error_code >> at_sign >> out.back().error_at;
      in_hex = false;
    } else if (in_hex && starts("       ")) {
      out.back().hex += line;
    } else {
      in_hex = false;
    }
  }
  return out;
}

Clock clock_of(const std::string& json, Names& names) {
  auto c = clock_from_json(nlohmann::json::parse(json), names);
  INFO(json);
  REQUIRE(c);
  return *c;
}

}  // namespace

TEST_CASE("every test vector in docs/wire-format.md", "[codec][vectors]") {
  auto vectors = doc_vectors();
  std::size_t valid = 0, invalid = 0;
  for (const auto& v : vectors) {
    INFO("vector " << v.name);
    if (v.valid) {
      ++valid;
      Names names;
      Clock clock = clock_of(v.json, names);
      auto bytes = encode(clock, names);
      CHECK(to_hex(bytes) == to_hex(from_hex(v.hex)));
      // Decode with a fresh Names (ids assigned in wire order) and compare by JSON.
      Names fresh;
      auto back = decode(from_hex(v.hex), fresh);
      REQUIRE(back);
      CHECK(clock_to_json(*back, fresh) == nlohmann::json::parse(v.json));
      CHECK(clock_to_json(*back, fresh).dump() == nlohmann::json::parse(v.json).dump());
    } else {
      ++invalid;
      Names names;
      Clock out;
      out.claim(names.channel("stale", 0), 5);  // decode must clear it even on failure
      auto r = decode(v.hex == "-" ? std::vector<std::byte>{} : from_hex(v.hex), names, out);
      REQUIRE_FALSE(r);
      CHECK(to_string(r.error().code) == v.error_code);
      CHECK(r.error().at == v.error_at);
      CHECK_FALSE(r.error().detail.empty());
      CHECK(out.empty());
      CHECK_FALSE(out.origin);
    }
  }
  // The document promises these; a parse slip must not silently check nothing.
  CHECK(valid >= 7);
  CHECK(invalid >= 25);
}

TEST_CASE("the 8-claim, 2-topic clock fits well under 64 bytes", "[codec]") {
  Names names;
  Clock c;
  // Offsets in the millions, partitions of a topic a few thousand apart.
  std::int64_t spread[] = {0, 4100, -3900, 2500};
  int i = 0;
  for (int p : {0, 1, 3, 7}) c.claim(names.channel("orders", p), 1'500'000 + spread[i++ % 4]);
  for (int p : {0, 1, 2, 5}) c.claim(names.channel("payments", p), 2'700'000 + spread[i++ % 4]);
  auto bytes = encode(c, names);
  CHECK(bytes.size() <= 48);
  c.origin = Origin{names.sender("billing-7f3a"), 123456};
  CHECK(encode(c, names).size() <= 64);
}

TEST_CASE("oversized headers are rejected before anything else", "[codec]") {
  Names names;
  std::vector<std::byte> big(kMaxHeaderBytes + 1, std::byte{0});
  big[0] = std::byte{kWireVersion};
  auto r = decode(big, names);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == DecodeErrc::oversized);
  // Exactly at the limit the other checks run (here: trailing bytes after an empty clock).
  std::vector<std::byte> at_limit(kMaxHeaderBytes, std::byte{0});
  at_limit[0] = std::byte{kWireVersion};
  auto r2 = decode(at_limit, names);
  REQUIRE_FALSE(r2);
  CHECK(r2.error().code == DecodeErrc::trailing_bytes);
  CHECK(r2.error().at == 2);
}

TEST_CASE("encode refuses what it cannot encode", "[codec]") {
  Names names;
  Clock c;
  c.claim(names.channel("t", 0), -1);
  CHECK_THROWS_AS(encode(c, names), std::invalid_argument);
  Clock huge;
  // Alternating far-apart offsets: every difference takes 10 bytes.
  for (int p = 0; p < 8000; ++p) huge.claim(names.channel("t", p), p % 2 ? 0 : std::int64_t{1} << 62);
  CHECK_THROWS_AS(encode(huge, names), std::length_error);
}

TEST_CASE("encode appends and orders by name, not by interned id", "[codec]") {
  // Intern "payments" first so its ids are lower than "orders"' ids.
  Names a;
  Clock ca;
  ca.claim(a.channel("payments", 1), 5);
  ca.claim(a.channel("orders", 9), 6);
  ca.claim(a.channel("orders", 2), 7);
  ca.claim_seq(a.channel("orders", 2), a.sender("zed"), 3);
  ca.claim_seq(a.channel("orders", 2), a.sender("amy"), 4);
  Names b;
  Clock cb;
  cb.claim_seq(b.channel("orders", 2), b.sender("amy"), 4);
  cb.claim_seq(b.channel("orders", 2), b.sender("zed"), 3);
  cb.claim(b.channel("orders", 2), 7);
  cb.claim(b.channel("orders", 9), 6);
  cb.claim(b.channel("payments", 1), 5);
  REQUIRE(ca.offsets() != cb.offsets());  // different ids...
  CHECK(encode(ca, a) == encode(cb, b));  // ...same bytes

  std::vector<std::byte> out{std::byte{0xEE}};
  encode(ca, a, out);
  CHECK(out.size() == 1 + encode(ca, a).size());
  CHECK(out[0] == std::byte{0xEE});
}

TEST_CASE("decode reuses the output clock and interns consistently", "[codec]") {
  Names names;
  Clock first = clock_of(R"({"claims":[{"topic":"orders","partition":3,"offset":1041}]})", names);
  auto bytes = encode(first, names);
  Clock out;
  out.origin = Origin{names.sender("old"), 9};
  out.claim(names.channel("other", 1), 4);
  REQUIRE(decode(bytes, names, out));
  CHECK(out == first);  // cleared first, origin included
  std::size_t channels = names.channel_count();
  for (int i = 0; i < 3; ++i) REQUIRE(decode(bytes, names, out));
  CHECK(names.channel_count() == channels);  // nothing interned twice
}

TEST_CASE("clock_from_json errors name the field", "[codec][json]") {
  struct Bad {
    const char* json;
    const char* says;
  };
  for (auto [json, says] : {
           Bad{R"([])", "clock: expected an object"},
           Bad{R"({"claim":[]})", "claim: unknown field"},
           Bad{R"({"origin":{"sender":"s"}})", "origin.seq: missing"},
           Bad{R"({"origin":{"sender":"s","seq":0}})", "origin.seq: 0 is outside 1.."},
           Bad{R"({"origin":{"sender":"","seq":1}})", "origin.sender: a sender is 1..255 bytes"},
           Bad{R"({"origin":{"sender":5,"seq":1}})", "origin.sender: expected a string"},
           Bad{R"({"claims":{}})", "claims: expected an array"},
           Bad{R"({"claims":[{"topic":"a","partition":0}]})", "claims[0].offset: missing"},
           Bad{R"({"claims":[{"topic":"a","partition":0,"offset":1},{"topic":"a b","partition":0,"offset":1}]})",
               "claims[1].topic: 'a b' is not a valid Kafka topic name"},
           Bad{R"({"claims":[{"topic":"a","partition":-1,"offset":1}]})", "claims[0].partition: -1 is outside 0..2147483647"},
           Bad{R"({"claims":[{"topic":"a","partition":2147483648,"offset":1}]})", "claims[0].partition: 2147483648 is outside"},
           Bad{R"({"claims":[{"topic":"a","partition":0,"offset":1.5}]})", "claims[0].offset: expected an integer"},
           Bad{R"({"claims":[{"topic":"a","partition":0,"offset":"7"}]})", "claims[0].offset: expected an integer"},
           Bad{R"({"claims":[{"topic":"a","partition":0,"offset":9223372036854775808}]})", "claims[0].offset: 9223372036854775808 is outside"},
           Bad{R"({"claims":[{"topic":"a","partition":0,"offset":1},{"topic":"a","partition":0,"offset":2}]})",
               "claims[1]: a second claim on a/0"},
           Bad{R"({"claims":[{"topic":"a","partition":0,"offset":1,"extra":1}]})", "claims[0].extra: unknown field"},
           Bad{R"({"seq_claims":[{"topic":"a","partition":0,"sender":"s","seq":0}]})", "seq_claims[0].seq: 0 is outside"},
           Bad{R"({"seq_claims":[{"topic":"a","partition":0,"sender":"s","seq":1},{"topic":"a","partition":0,"sender":"s","seq":2}]})",
               "seq_claims[1]: a second sequence claim on a/0 for sender 's'"},
           Bad{R"({"seq_claims":[5]})", "seq_claims[0]: expected an object"},
       }) {
    INFO(json);
    Names names;
    auto r = clock_from_json(nlohmann::json::parse(json), names);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::usage);
    CHECK_THAT(r.error().message, Catch::StartsWith(std::string(says).substr(0, std::string(says).find(':'))));
    CHECK_THAT(r.error().message, Catch::Contains(says));
  }
}

TEST_CASE("clock_from_json accepts any order and optional parts", "[codec][json]") {
  Names names;
  auto a = clock_of(R"({"claims":[{"topic":"b","partition":1,"offset":2},{"topic":"a","partition":0,"offset":1}]})", names);
  auto b = clock_of(R"({"origin":null,"claims":[{"topic":"a","partition":0,"offset":1},{"topic":"b","partition":1,"offset":2}],"seq_claims":[]})", names);
  CHECK(a == b);
  CHECK(clock_to_json(a, names)["claims"][0]["topic"] == "a");
  CHECK(clock_of("{}", names).empty());
}

// ---- properties -----------------------------------------------------------------------

namespace {

const char* kTopics[] = {"orders", "payments", "a", "A", "z.z", "orders-v2", "_internal", "t1", "t10", "t9"};
const char* kSenders[] = {"billing-7f3a", "cart-19c2", "a", "b", "café", "\xf0\x9f\x98\x80", "Z", "node 1"};

// `wide` draws from the whole range of every field; otherwise offsets stay below 2^40,
// partitions below 300 and send numbers below 1001, as in most real clocks (what
// decode's fast path takes).
Clock random_clock(std::mt19937_64& rng, Names& names, bool wide = true) {
  Clock c;
  auto pick_offset = [&]() -> Offset {
    switch (rng() % (wide ? 4 : 3)) {
      case 0: return static_cast<Offset>(rng() % 128);
      case 1: return static_cast<Offset>(rng() % 1'000'000);
      case 2: return static_cast<Offset>(rng() >> (wide ? 1 : 24));
      default: return std::numeric_limits<Offset>::max() - static_cast<Offset>(rng() % 3);
    }
  };
  auto pick_partition = [&]() -> std::int32_t {
    return wide && rng() % 8 == 0 ? std::numeric_limits<std::int32_t>::max() - static_cast<std::int32_t>(rng() % 4)
                          : static_cast<std::int32_t>(rng() % 300);
  };
  if (rng() % 2) c.origin = Origin{names.sender(kSenders[rng() % 8]), 1 + rng() % 100000};
  int n = static_cast<int>(rng() % 40);
  for (int i = 0; i < n; ++i) {
    ChannelId ch = names.channel(kTopics[rng() % 10], pick_partition());
    if (rng() % 4) {
      c.claim(ch, pick_offset());
    } else {
      c.claim_seq(ch, names.sender(kSenders[rng() % 8]), wide && rng() % 5 == 0 ? ~std::uint64_t{0} - rng() % 2 : 1 + rng() % 1000);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("random clocks round-trip and encode canonically", "[codec][property]") {
  std::mt19937_64 rng(0xC0FFEE);
  for (int round = 0; round < 3000; ++round) {
    Names names;
    Clock c = random_clock(rng, names);
    auto bytes = encode(c, names);
    Clock back;
    auto r = decode(bytes, names, back);
    INFO("round " << round << " hex " << to_hex(bytes));
    REQUIRE(r);
    CHECK(back == c);
    // A decoder in another process (fresh Names, other ids) re-encodes the same bytes.
    Names other;
    other.channel("zzz", 7);  // shift its ids
    auto back2 = decode(bytes, other);
    REQUIRE(back2);
    CHECK(encode(*back2, other) == bytes);
    // JSON round trip agrees too.
    auto via_json = clock_from_json(clock_to_json(c, names), names);
    REQUIRE(via_json);
    CHECK(*via_json == c);
  }
}

TEST_CASE("every truncation of a valid header is rejected", "[codec][property]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    Names names;
    Clock c = random_clock(rng, names);
    auto bytes = encode(c, names);
    for (std::size_t len = 0; len < bytes.size(); ++len) {
      auto r = decode(std::span(bytes).first(len), names);
      INFO("round " << round << " len " << len << " of " << to_hex(bytes));
      REQUIRE_FALSE(r);
      CHECK(r.error().at <= len);
    }
  }
}

TEST_CASE("random byte flips never crash and accepted inputs re-encode identically", "[codec][property]") {
  std::mt19937_64 rng(42);
  std::map<DecodeErrc, int> seen;
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    Names names;
    Clock c = random_clock(rng, names);
    auto bytes = encode(c, names);
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      std::size_t i = rng() % bytes.size();
      if (rng() % 2) {
        bytes[i] ^= static_cast<std::byte>(1u << (rng() % 8));
      } else {
        bytes[i] = static_cast<std::byte>(rng() & 0xFF);
      }
    }
    if (rng() % 10 == 0) bytes.push_back(static_cast<std::byte>(rng() & 0xFF));
    Clock out;
    auto r = decode(bytes, names, out);
    if (r) {
      ++accepted;
      INFO("accepted " << to_hex(bytes));
      CHECK(encode(out, names) == bytes);
    } else {
      ++seen[r.error().code];
      CHECK(r.error().at <= bytes.size());
      CHECK(out.empty());
    }
  }
  // Anti-vacuity: the flips reach both outcomes and many distinct errors.
  CHECK(accepted > 100);
  CHECK(seen.size() >= 9);
}

// decode() tries its fast path first; the fast path may decline anything, but what it
// accepts must be valid and decode to exactly the general decoder's clock.
TEST_CASE("the fast path decodes every test vector it takes as the general decoder does",
          "[codec][vectors]") {
  std::size_t taken = 0;
  for (const auto& v : doc_vectors()) {
    if (!v.valid) continue;
    INFO("vector " << v.name);
    const auto bytes = from_hex(v.hex);
    Names names;
    Clock general;
    REQUIRE(decode_general(bytes, names, general));  // interns the names
    Clock fast;
    if (wire::decode_fast_path(bytes, names, fast)) {
      ++taken;
      CHECK(fast == general);
    }
    // It never interns: with fresh names it takes only a clock that names nothing.
    Names fresh;
    Clock unnamed;
    if (wire::decode_fast_path(bytes, fresh, unnamed)) {
      CHECK(general.empty());
      CHECK_FALSE(general.origin);
    }
  }
  // Only the vectors with a varint of 9 bytes or more, or a partition of 4096 or more, are
  // beyond it.
  CHECK(taken >= 5);
}

TEST_CASE("the fast path agrees with the general decoder on random and damaged headers",
          "[codec][property]") {
  std::mt19937_64 rng(0xFA57);
  int taken_valid = 0, taken_damaged = 0, declined_valid = 0;
  for (int round = 0; round < 20000; ++round) {
    Names names;
    const bool wide = round % 4 == 0;
    Clock c = random_clock(rng, names, wide);
    auto bytes = encode(c, names);
    const bool damage = round % 2 == 1;
    if (damage) {
      std::size_t i = rng() % bytes.size();
      bytes[i] = static_cast<std::byte>(rng() & 0xFF);
      if (rng() % 8 == 0) bytes.push_back(static_cast<std::byte>(rng() & 0xFF));
      if (rng() % 8 == 0) bytes.pop_back();
    }
    INFO("round " << round << " hex " << to_hex(bytes));
    Clock fast;
    const bool took = wire::decode_fast_path(bytes, names, fast);
    Clock general;
    auto r = decode_general(bytes, names, general);
    if (took) {
      REQUIRE(r);
      CHECK(fast == general);
      (damage ? taken_damaged : taken_valid)++;
    } else if (!damage) {
      ++declined_valid;
    }
    // And decode() gives what the general decoder gives, whichever path it took.
    Clock via_decode;
    auto d = decode(bytes, names, via_decode);
    REQUIRE(d.has_value() == r.has_value());
    if (r) {
      CHECK(via_decode == general);
    } else {
      CHECK(d.error().code == r.error().code);
      CHECK(d.error().at == r.error().at);
    }
  }
  // Anti-vacuity: the fast path takes most intact common clocks, and damaged headers
  // that stay valid (a changed offset byte, say), while wide clocks reach the decline.
  CHECK(taken_valid > 4500);  // of the 5,000 intact common ones
  CHECK(taken_damaged > 500);
  CHECK(declined_valid > 1000);
}

// ClockEncoder keeps the offset claims' part between clocks: its bytes must be encode()'s
// for every clock of a row, whether the claims changed or not, after a clock it refused too.
TEST_CASE("ClockEncoder writes encode()'s bytes for every clock of a row", "[codec]") {
  Names names, other;
  const ChannelId in0 = names.channel("input", 0), in1 = names.channel("input", 1),
                  out = names.channel("out", 2);
  const SenderId me = names.sender("relay-1"), src = names.sender("src");
  ClockEncoder encoder;
  std::mt19937 rng(7);
  Offset base = 100;
  for (int i = 0; i < 200; ++i) {
    Clock c;
    c.origin = Origin{me, static_cast<SeqNo>(i + 1)};
    if (i % 7 == 0) base += rng() % 3;  // the offset claims change now and then
    c.claim(in0, base);
    c.claim(in1, base + 5);
    if (i % 3 == 0) c.claim(out, base / 2);
    if (i % 4 != 0) c.claim_seq(out, me, static_cast<SeqNo>(i));  // the previous send, as a relay's
    if (i % 5 == 0) c.claim_seq(in1, src, 3);
    std::vector<std::byte> got{std::byte{0xAA}};  // appended after what is there
    encoder.encode(c, names, got);
    std::vector<std::byte> want{std::byte{0xAA}};
    encode(c, names, want);
    REQUIRE(got == want);
    if (i == 50) {
      Clock bad = c;
      bad.claim(in0, base);  // the same claims, then one the wire cannot carry
      bad.append_unsorted(OffsetClaim{out, -5});
      std::vector<std::byte> none;
      CHECK_THROWS_AS(encoder.encode(bad, names, none), std::invalid_argument);
    }
  }
  // The same claims through another Names (other channel ids for other names) are read anew.
  const ChannelId o0 = other.channel("zeta", 0);
  Clock c;
  c.claim(o0, 1);
  std::vector<std::byte> got, want;
  encoder.encode(c, other, got);
  encode(c, other, want);
  CHECK(got == want);
}

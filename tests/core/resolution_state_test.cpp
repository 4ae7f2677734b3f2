// Tests of resolution_state.cpp: the "causal1:" text form of delivered_seq saved in
// offset-commit metadata. Vectors match docs/wire-format.md ("Resolution state").
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "causal/resolution_state.hpp"

using namespace causal;

TEST_CASE("resolution state vectors from docs/wire-format.md", "[resolution_state]") {
  Names names;
  ChannelId ch = names.channel("orders", 3);
  std::vector<ResolutionEntry> entries = {{ch, names.sender("cart-19c2"), 7}, {ch, names.sender("billing-7f3a"), 42}};
  std::string text = encode_resolution_state(entries, names);
  CHECK(text == "causal1:AQZvcmRlcnMDAgxiaWxsaW5nLTdmM2EqCWNhcnQtMTljMgc=");
  CHECK(encode_resolution_state({}, names) == "causal1:AA==");

  Names fresh;
  auto back = decode_resolution_state(text, fresh);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  // Decoded in canonical order: senders by bytes.
  CHECK(fresh.channel_text((*back)[0].channel) == "orders/3");
  CHECK(fresh.sender_name((*back)[0].sender) == "billing-7f3a");
  CHECK((*back)[0].seq == 42);
  CHECK(fresh.sender_name((*back)[1].sender) == "cart-19c2");
  CHECK((*back)[1].seq == 7);
}

TEST_CASE("empty metadata means no saved state", "[resolution_state]") {
  Names names;
  auto r = decode_resolution_state("", names);
  REQUIRE(r);
  CHECK(r->empty());
  auto r2 = decode_resolution_state("causal1:AA==", names);
  REQUIRE(r2);
  CHECK(r2->empty());
}

TEST_CASE("encode merges duplicates by max and drops seq 0", "[resolution_state]") {
  Names names;
  ChannelId a = names.channel("a", 0);
  SenderId s = names.sender("s");
  std::vector<ResolutionEntry> in = {{a, s, 3}, {a, s, 9}, {a, names.sender("t"), 0}};
  auto back = decode_resolution_state(encode_resolution_state(in, names), names);
  REQUIRE(back);
  REQUIRE(back->size() == 1);
  CHECK((*back)[0] == ResolutionEntry{a, s, 9});
}

TEST_CASE("malformed resolution state is rejected with a reason", "[resolution_state]") {
  struct Bad {
    const char* text;
    const char* says;
  };
  for (auto [text, says] : {
           Bad{"hello", "does not start with 'causal1:'"},
           Bad{"causal9:AA==", "does not start with 'causal1:' or 'causal2:'"},
           Bad{"causal1:AA=", "not canonical padded base64"},
           Bad{"causal1:A!==", "not canonical padded base64"},
           Bad{"causal1:AB==", "not canonical padded base64"},     // non-zero unused bits
           Bad{"causal1:", "truncated channel count"},
           Bad{"causal1:AQ==", "channel count 1 exceeds the data"},
           Bad{"causal1:AAA=", "1 trailing bytes at byte 1"},
           Bad{"causal1:gAA=", "not minimal"},                      // 0x80 0x00
           // one channel "a"/0 with two senders "b", "a" (out of order)
           Bad{"causal1:AQFhAAIBYgEBYQE=", "repeats or is out of order"},
           // one channel "a"/0, sender "b", seq 0
           Bad{"causal1:AQFhAAEBYgA=", "seq 0"},
           // topic "a/" is not a Kafka topic name
           Bad{"causal1:AQJhLwABAWIB", "invalid topic"},
       }) {
    INFO(text);
    Names names;
    auto r = decode_resolution_state(text, names);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(says));
  }
}

TEST_CASE("random resolution states round-trip", "[resolution_state][property]") {
  std::mt19937_64 rng(99);
  const char* topics[] = {"orders", "payments", "a"};
  const char* senders[] = {"s1", "s2", "café", "billing-7f3a"};
  for (int round = 0; round < 500; ++round) {
    Names names;
    std::vector<ResolutionEntry> in;
    std::map<std::pair<ChannelId, SenderId>, SeqNo> want;
    int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      ResolutionEntry e{names.channel(topics[rng() % 3], static_cast<std::int32_t>(rng() % 4)),
                        names.sender(senders[rng() % 4]), 1 + rng() % 100000};
      in.push_back(e);
      want[{e.channel, e.sender}] = std::max(want[{e.channel, e.sender}], e.seq);
    }
    std::string text = encode_resolution_state(in, names);
    auto back = decode_resolution_state(text, names);
    REQUIRE(back);
    std::map<std::pair<ChannelId, SenderId>, SeqNo> got;
    for (const auto& e : *back) got[{e.channel, e.sender}] = e.seq;
    CHECK(got == want);
    CHECK(encode_resolution_state(*back, names) == text);  // canonical
  }
}

TEST_CASE("committed state with a custody restatement: causal2, vector and round trip", "[resolution_state]") {
  Names names;
  const ChannelId ch = names.channel("orders", 3);
  std::vector<ResolutionEntry> entries = {{ch, names.sender("cart-19c2"), 7}};
  Clock custody;
  custody.claim(names.channel("payments", 0), 41);
  custody.claim_seq(names.channel("stock", 1), names.sender("inv-2"), 5);

  const std::string text = encode_committed_state(entries, custody, names);
  // The vector in docs/wire-format.md ("Custody restatement").
  CHECK(text == "causal2:AQZvcmRlcnMDAQljYXJ0LTE5YzIHAQYBCHBheW1lbnRzAQApAQVzdG9jawEBBWludi0yBQ==");
  // No custody: byte for byte the causal1 form, as before custody was committed.
  CHECK(encode_committed_state(entries, Clock{}, names) == encode_resolution_state(entries, names));

  Names fresh;
  auto back = decode_committed_state(text, fresh);
  REQUIRE(back);
  REQUIRE(back->resolution.size() == 1);
  CHECK(fresh.sender_name(back->resolution[0].sender) == "cart-19c2");
  CHECK(back->custody.offset_of(fresh.channel("payments", 0)) == 41);
  REQUIRE(back->custody.seqs().size() == 1);
  CHECK(back->custody.seqs()[0].seq == 5);
  // The resolution state alone reads either form.
  auto alone = decode_resolution_state(text, fresh);
  REQUIRE(alone);
  CHECK(alone->size() == 1);
  // causal1 text has no custody.
  auto v1 = decode_committed_state(encode_resolution_state(entries, names), fresh);
  REQUIRE(v1);
  CHECK(v1->custody.empty());
}

TEST_CASE("malformed custody restatements are rejected with a reason", "[resolution_state]") {
  Names names;
  auto reason = [&](std::string_view text) {
    auto r = decode_committed_state(text, names);
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  // causal2 with nothing after the state.
  CHECK_THAT(reason("causal2:AA=="), Catch::Contains("no custody restatement at byte 1"));
  // A clock with an origin (version 1, flags origin, sender "s", seq 1).
  CHECK_THAT(reason("causal2:AAEBAXMB"), Catch::Contains("has an origin"));
  // An undecodable clock (version 9).
  CHECK_THAT(reason("causal2:AAkA"), Catch::Contains("custody restatement at byte 1"));
  // A clock with no claims (version 1, flags 0).
  CHECK_THAT(reason("causal2:AAEA"), Catch::Contains("is empty"));
  CHECK_THAT(reason("causal3:AA=="), Catch::Contains("does not start with 'causal1:' or 'causal2:'"));
}

// Tests of snapshot.cpp: the JSON form round-trips, snapshot_from_json is strict and names
// the JSON path, and take_snapshot of a real gate shows a held record and why.
#include <catch2/catch.hpp>

#include "causal/codec.hpp"
#include "causal/snapshot.hpp"

using namespace causal;

namespace {

GateSnapshot sample() {
  GateSnapshot s;
  ChannelSnapshot a;
  a.topic = "orders";
  a.partition = 3;
  a.baseline = 100;
  a.frontier = 1040;
  a.position = 1042;
  a.queue_length = 2;
  HeldView head;
  head.offset = 1041;
  head.received_at = 123456789;
  head.origin_sender = "billing-7f3a";
  head.origin_seq = 42;
  ClaimView off{"offset", "payments", 0, 88210, "", 0, true};
  ClaimView seq{"seq", "payments", 1, kNoOffset, "cart-19c2", 7, true};
  head.unsatisfied = {off, seq};
  Names names;
  Clock clock;
  clock.origin = Origin{names.sender("billing-7f3a"), 42};
  clock.claim(names.channel("payments", 0), 88210);
  clock.claim_seq(names.channel("payments", 1), names.sender("cart-19c2"), 7);
  head.clock = clock_to_json(clock, names);
  HeldView second;
  second.offset = 1044;
  second.received_at = 123456790;
  second.clock = clock_to_json(Clock{}, names);
  a.held = {head, second};
  a.delivered_seq = {{"billing-7f3a", 41}, {"cart-19c2", 6}};
  ChannelSnapshot b;
  b.topic = "payments";
  b.partition = 0;
  b.baseline = 0;
  b.frontier = kNoOffset;
  b.failed = true;
  b.failed_offset = 17;
  s.channels = {a, b};
  s.stats.received = 10;
  s.stats.delivered = 7;
  s.stats.holds = 3;
  s.stats.failed_closed = 1;
  s.stats.lookups_resolved = 2;
  return s;
}

bool same(const GateSnapshot& x, const GateSnapshot& y) { return to_json(x) == to_json(y); }

}  // namespace

TEST_CASE("snapshot JSON round-trips", "[snapshot]") {
  GateSnapshot s = sample();
  nlohmann::json j = to_json(s);
  // Field names are the documented, stable snake_case ones.
  CHECK(j["version"] == 1);
  CHECK(j["channels"][0]["topic"] == "orders");
  CHECK(j["channels"][0]["position"] == 1042);
  CHECK(j["channels"][1]["position"].is_null());
  CHECK(j["channels"][1]["failed_offset"] == 17);
  CHECK(j["channels"][0]["held"][0]["unsatisfied"][1]["kind"] == "seq");
  CHECK(j["channels"][0]["held"][0]["unsatisfied"][1]["sender"] == "cart-19c2");
  CHECK(j["channels"][0]["held"][0]["origin"]["seq"] == 42);
  CHECK(j["channels"][0]["held"][1]["origin"].is_null());
  CHECK(j["channels"][0]["delivered_seq"][0]["sender"] == "billing-7f3a");
  CHECK(j["stats"]["lookups_resolved"] == 2);
  CHECK(j["stats"].size() == 14);

  auto back = snapshot_from_json(j);
  REQUIRE(back);
  CHECK(same(*back, s));
  CHECK(back->channels[0].held[0].unsatisfied[0].offset == 88210);
  CHECK(back->channels[0].held[0].origin_sender == "billing-7f3a");
  CHECK(back->channels[0].position == 1042);
  CHECK_FALSE(back->channels[1].position);
  CHECK(back->stats.failed_closed == 1);
  // And through text.
  auto again = snapshot_from_json(nlohmann::json::parse(j.dump()));
  REQUIRE(again);
  CHECK(same(*again, s));
}

TEST_CASE("snapshot_from_json names the JSON path of what is wrong", "[snapshot]") {
  struct Case {
    const char* pointer;  // JSON pointer to change
    nlohmann::json value;
    const char* says;
  };
  for (const auto& [pointer, value, says] : std::vector<Case>{
           {"/version", 2, "version: 2 is not a snapshot version"},
           {"/channels", nlohmann::json::object(), "channels: expected an array"},
           {"/channels/1/frontier", "x", "channels[1].frontier: expected an integer"},
           {"/channels/1/frontier", -2, "channels[1].frontier: -2 is outside -1.."},
           {"/channels/0/topic", "a b", "channels[0].topic: 'a b' is not a valid Kafka topic name"},
           {"/channels/0/partition", -1, "channels[0].partition: -1 is outside 0.."},
           {"/channels/0/position", "1", "channels[0].position: expected an integer"},
           {"/channels/0/failed", 1, "channels[0].failed: expected true or false"},
           {"/channels/0/held/0/offset", 1.5, "channels[0].held[0].offset: expected an integer"},
           {"/channels/0/held/0/unsatisfied/1/kind", "both", "channels[0].held[0].unsatisfied[1].kind: 'both' is neither"},
           {"/channels/0/held/0/unsatisfied/1/seq", 0, "channels[0].held[0].unsatisfied[1].seq: 0 is outside 1.."},
           {"/channels/0/held/0/origin/sender", "", "channels[0].held[0].origin.sender: a sender is 1..255 bytes"},
           {"/channels/0/held/0/clock/claims/0/offset", -5, "channels[0].held[0].clock.claims[0].offset: -5 is outside"},
           {"/channels/0/delivered_seq/1/seq", "6", "channels[0].delivered_seq[1].seq: expected an integer"},
           {"/channels/0/extra", 1, "channels[0].extra: unknown field"},
           {"/stats/holds", -1, "stats.holds: -1 is outside 0.."},
           {"/stats/bogus", 1, "stats.bogus: unknown field"},
           {"/extra", 1, "extra: unknown field"},  // was "snapshot.extra", unlike every other path
       }) {
    INFO(pointer);
    nlohmann::json j = to_json(sample());
    j[nlohmann::json::json_pointer(pointer)] = value;
    auto r = snapshot_from_json(j);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::usage);
    CHECK_THAT(r.error().message, Catch::StartsWith(says));
  }
  // Missing fields are named too.
  nlohmann::json j = to_json(sample());
  j["channels"][0].erase("baseline");
  auto r = snapshot_from_json(j);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "channels[0].baseline: missing");
  j = to_json(sample());
  j["stats"].erase("delivered");
  r = snapshot_from_json(j);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "stats.delivered: missing");
}

#ifndef CAUSAL_SNAPSHOT_NO_GATE
TEST_CASE("take_snapshot of a real gate holding a record", "[snapshot][gate]") {
  Names names;
  Gate gate(names);
  ChannelId orders = names.channel("orders", 0);
  ChannelId payments = names.channel("payments", 0);
  gate.add_channel(orders, 0);
  gate.add_channel(payments, 0);
  // A record on orders/0 that needs payments/0@5: held.
  Clock c;
  c.origin = Origin{names.sender("billing-7f3a"), 3};
  c.claim(payments, 5);
  gate.receive(Received{orders, 0, c, 1, 1000});
  REQUIRE(gate.held_count(orders) == 1);

  GateSnapshot s = take_snapshot(gate);
  REQUIRE(s.channels.size() == 2);
  const auto& ch = s.channels[0];
  CHECK(ch.topic == "orders");
  CHECK(ch.queue_length == 1);
  REQUIRE(ch.held.size() == 1);
  CHECK(ch.held[0].offset == 0);
  CHECK(ch.held[0].received_at == 1000);
  CHECK(ch.held[0].origin_sender == "billing-7f3a");
  REQUIRE(ch.held[0].unsatisfied.size() == 1);
  CHECK(ch.held[0].unsatisfied[0].kind == "offset");
  CHECK(ch.held[0].unsatisfied[0].topic == "payments");
  CHECK(ch.held[0].unsatisfied[0].offset == 5);
  CHECK(ch.held[0].clock["claims"][0]["offset"] == 5);
  CHECK(s.channels[1].topic == "payments");
  CHECK(s.channels[1].held.empty());
  CHECK(s.stats.received == 1);
  CHECK(s.stats.holds == 1);
  auto back = snapshot_from_json(to_json(s));
  REQUIRE(back);
  CHECK(to_json(*back) == to_json(s));
}
#endif

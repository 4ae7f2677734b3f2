// A group member whose commit the group coordinator refuses as UNKNOWN_MEMBER_ID
// (ConsumerHost::Impl::commit_refused, join_afresh; docs/library.md, "Under faults"). On a
// broker that answer comes when the group dropped the member while librdkafka's heartbeats
// did not reach a coordinator, which a test cannot bring about at will: the answer is
// injected with librdkafka's mock cluster, whose heartbeats meanwhile keep the member in
// its group. These test causal's reaction to the code, not any Kafka behaviour: the mock is
// not a broker (docs/kafka-facts.md).
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/producer_host.hpp"
#include "causal/kafka/relay.hpp"
#include "injecting_mock.hpp"

using namespace causal;
using namespace causal::kafka;

namespace {

constexpr std::string_view kJoinsAgain = "joining the group again as a new member";

// The mock with topics t and out; a consumer-protocol member that stops heartbeating (the one
// made again leaves its old self behind) is dropped after 1 s, not the default 45 s.
struct Mock : causal::test::InjectingMock {
  Mock() : InjectingMock{"t", "out"} {
    rd_kafka_mock_set_group_consumer_session_timeout_ms(cluster.get(), 1000);
    rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(cluster.get(), 200);
  }
};

struct Notes : HostObserver {
  std::vector<std::string> lines;
  int delivered_count = 0;
  void note(std::string_view text) override { lines.emplace_back(text); }
  void delivered(const Delivery&, const rd_kafka_message_t&) override { ++delivered_count; }
  bool said(std::string_view what) const {
    for (const auto& l : lines) {
      if (l.find(what) != std::string::npos) return true;
    }
    return false;
  }
};

void produce_three(const ConnectionOptions& conn, Names& names) {
  ProducerOptions po;
  po.connection = conn;
  po.stamp = false;
  po.wait_acks = true;
  po.sink_topics = {"t"};
  auto producer = ProducerHost::open(po, names);
  REQUIRE(producer);
  for (int i = 0; i < 3; ++i) {
    OutRecord r;
    r.topic = "t";
    r.partition = 0;
    r.value = "v";
    REQUIRE((*producer)->send(r));
  }
  REQUIRE((*producer)->flush());
}

ConsumerOptions member_of(const ConnectionOptions& conn, ConsumerOptions::GroupProtocol protocol) {
  ConsumerOptions co;
  co.connection = conn;
  co.channels = {Selector{"t", std::nullopt}};
  co.group = "g";
  co.group_protocol = protocol;
  co.commit_interval = std::chrono::hours(1);  // commits only when the test asks
  co.poll_timeout = std::chrono::milliseconds(20);
  return co;
}

// Polls until `done` or 20 s; every poll must succeed.
template <class Done>
bool poll_until(ConsumerHost& host, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    auto r = host.poll();
    if (!r) FAIL("poll: " << r.error().message);
  }
  return true;
}

// A member of group g over t, which holds three records, once it has delivered them.
std::unique_ptr<ConsumerHost> member_with_three(Mock& m, Names& names, Notes& notes,
                                                ConsumerOptions::GroupProtocol protocol) {
  produce_three(m.conn(), names);
  auto host = ConsumerHost::join(member_of(m.conn(), protocol), names, &notes);
  REQUIRE(host);
  REQUIRE(poll_until(**host, [&] { return notes.delivered_count == 3; }));
  return std::move(*host);
}

}  // namespace

TEST_CASE("a consumer-protocol member whose commit is refused as UNKNOWN_MEMBER_ID joins again with a new client") {
  Mock m;
  Names names;
  Notes notes;
  auto host = member_with_three(m, names, notes, ConsumerOptions::GroupProtocol::consumer);
  const int generation = host->generations();

  m.answer(causal::test::kOffsetCommit, 1, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID);
  auto refused = host->commit();
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("Unknown member") != std::string::npos);
  CHECK_FALSE(notes.said(kJoinsAgain));

  // The next poll makes the client again; the new member's assignment is a new generation,
  // which reads the partition again from the last commit (none: the log start).
  REQUIRE(host->poll());
  CHECK(notes.said(std::string("assignment lost (the group coordinator refused a commit as UNKNOWN_MEMBER_ID")));
  CHECK(notes.said(kJoinsAgain));
  REQUIRE(host->health().member);
  CHECK(host->health().member->assignments_lost == 1);
  REQUIRE(poll_until(*host, [&] { return host->generations() > generation && notes.delivered_count == 6; }));
  auto again = host->commit();
  CHECK(again);
}

TEST_CASE("a classic member whose commit is refused as UNKNOWN_MEMBER_ID is left to librdkafka") {
  Mock m;
  Names names;
  Notes notes;
  auto host = member_with_three(m, names, notes, ConsumerOptions::GroupProtocol::classic);

  m.answer(causal::test::kOffsetCommit, 1, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID);
  REQUIRE_FALSE(host->commit());
  // librdkafka's classic member gives its assignment up and rejoins by itself; the client
  // is not made again (a consumer-protocol member has said so by its first poll).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  REQUIRE(poll_until(*host, [&] { return std::chrono::steady_clock::now() > until; }));
  CHECK_FALSE(notes.said(kJoinsAgain));
}

TEST_CASE("a consumer-protocol relay whose transaction's offsets are refused as UNKNOWN_MEMBER_ID joins again") {
  Mock m;
  Names names;
  produce_three(m.conn(), names);
  RelayOptions opts;
  opts.input = member_of(m.conn(), ConsumerOptions::GroupProtocol::consumer);
  opts.output.connection = m.conn();
  opts.output.transactional_id = "relay-txn";
  opts.output.sink_topics = {"out"};
  opts.max_transaction = std::chrono::seconds(3);  // the test's polls run within it
  auto copy = [](const RelayInput& r, std::vector<RelayRecord>& emit) { emit.push_back({"out", 0, r.key, r.value}); };
  Notes notes;
  auto relay = Relay::open(opts, copy, names, &notes);
  REQUIRE(relay);
  auto poll_until = [&](auto done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::string said;
        for (const auto& l : notes.lines) said += l + "\n";
        FAIL("after 20 s: " << (*relay)->counters().delivered << " delivered, " << (*relay)->counters().committed
                            << " committed, " << (*relay)->counters().aborted << " aborted; notes:\n" << said);
      }
      auto r = (*relay)->poll();
      if (!r) FAIL("relay poll: " << r.error().message);
    }
  };
  poll_until([&] { return (*relay)->counters().delivered == 3; });
  const auto committed = (*relay)->counters().committed;  // offsets-only transactions at the start
  // The three records' transaction has its offsets refused: the relay aborts it, makes its
  // input member again, and relays the three again in a transaction that commits.
  m.answer(causal::test::kTxnOffsetCommit, 1, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID);
  REQUIRE((*relay)->commit());  // the refusal is handled: aborted, and the member made again
  CHECK((*relay)->counters().aborted == 1);
  CHECK(notes.said("transaction aborted (send_offsets_to_transaction"));
  CHECK(notes.said("Unknown member"));
  CHECK(notes.said(kJoinsAgain));
  poll_until([&] { return (*relay)->counters().delivered == 6; });
  REQUIRE((*relay)->commit());
  CHECK((*relay)->counters().committed == committed + 1);
}

// The health snapshot (causal/kafka/health.hpp): its Prometheus rendering from hand-built
// structs, and ConsumerHost::health() read by another thread, many times, while the owner
// polls — on librdkafka's in-process mock cluster, with a head held on a claim of an offset
// never appended. No broker.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "causal/codec.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/health.hpp"
#include "causal/kafka/metrics_text.hpp"
#include "causal/kafka/mock_cluster.hpp"
#include "causal/kafka/producer_host.hpp"

using namespace causal;
using namespace causal::kafka;

namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.starts_with(line + "\n") || text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("health: a consumer's snapshot renders every family once, a held head's wait as labels") {
  ConsumerHealth h;
  h.group = "g";
  PartitionHealth held;
  held.topic = "orders";
  held.partition = 0;
  held.frontier = 41;
  held.held_records = 2;
  held.held_bytes = 2100;
  held.head_age = std::chrono::duration<double>(1.5);
  held.head_waits = HeadWait{HeadWait::On::channel, "payments/3", 17, "", 0};
  held.lookups = 4;
  held.lookups_pending = 1;
  held.delivered = 40;
  PartitionHealth seq;
  seq.topic = "orders";
  seq.partition = 1;
  seq.frontier = 7;
  seq.held_records = 1;
  seq.head_waits = HeadWait{HeadWait::On::sequence, "orders/0", -1, "shop \"1\"", 9};
  seq.failed_closed = true;
  seq.hold_budget_paused = true;
  h.partitions = {held, seq};
  h.member = MemberHealth{"g", 3, 5, 1};

  MetricsText m;
  write_metrics(m, h);
  const std::string& t = m.text();
  INFO(t);
  CHECK(has_line(t, "# TYPE causal_delivered_records_total counter"));
  CHECK(has_line(t, R"(causal_delivered_records_total{group="g",topic="orders",partition="0"} 40)"));
  CHECK(has_line(t, R"(causal_frontier_offset{group="g",topic="orders",partition="0"} 41)"));
  CHECK(has_line(t, R"(causal_held_records{group="g",topic="orders",partition="1"} 1)"));
  CHECK(has_line(t, R"(causal_held_bytes{group="g",topic="orders",partition="0"} 2100)"));
  CHECK(has_line(t, R"(causal_held_head_age_seconds{group="g",topic="orders",partition="0"} 1.5)"));
  CHECK(has_line(t, R"(causal_held_head_age_seconds{group="g",topic="orders",partition="1"} 0)"));
  CHECK(has_line(t, R"(causal_held_head_waiting{group="g",topic="orders",partition="0",on="channel",)"
                    R"(channel="payments/3",offset="17",sender="",seq=""} 1)"));
  CHECK(has_line(t, R"(causal_held_head_waiting{group="g",topic="orders",partition="1",on="sequence",)"
                    R"(channel="orders/0",offset="",sender="shop \"1\"",seq="9"} 1)"));
  CHECK(has_line(t, R"(causal_lookups_total{group="g",topic="orders",partition="0"} 4)"));
  CHECK(has_line(t, R"(causal_lookups_pending{group="g",topic="orders",partition="0"} 1)"));
  CHECK(has_line(t, R"(causal_failed_closed{group="g",topic="orders",partition="1"} 1)"));
  CHECK(has_line(t, R"(causal_failed_closed{group="g",topic="orders",partition="0"} 0)"));
  CHECK(has_line(t, R"(causal_hold_budget_paused{group="g",topic="orders",partition="1"} 1)"));
  CHECK(has_line(t, R"(causal_member_generation{group="g"} 3)"));
  CHECK(has_line(t, R"(causal_rebalances_total{group="g"} 5)"));
  CHECK(has_line(t, R"(causal_assignments_lost_total{group="g"} 1)"));
  CHECK(t.find("causal_relay_") == std::string::npos);
  for (auto family :
       {"causal_delivered_records_total", "causal_frontier_offset", "causal_held_records",
        "causal_held_bytes", "causal_held_head_age_seconds", "causal_held_head_waiting",
        "causal_lookups_total", "causal_lookups_pending", "causal_failed_closed", "causal_hold_budget_paused",
        "causal_member_generation", "causal_rebalances_total", "causal_assignments_lost_total"}) {
    const std::string help = std::string("# HELP ") + family + " ";
    CHECK(t.find(help) != std::string::npos);
    CHECK(t.find(help) == t.rfind(help));
  }
}

TEST_CASE(
    "health: a reader outside a group has group=\"\" and no member families; a relay adds its counters") {
  RelayHealth r;
  PartitionHealth p;
  p.topic = "in";
  p.partition = 2;
  r.input.partitions.push_back(p);
  r.transactions_committed = 12;
  r.transactions_aborted = 2;
  r.fencings = 1;
  MetricsText m;
  write_metrics(m, r);
  const std::string& t = m.text();
  INFO(t);
  CHECK(has_line(t, R"(causal_delivered_records_total{group="",topic="in",partition="2"} 0)"));
  CHECK(t.find("causal_member_generation") == std::string::npos);
  CHECK(has_line(t,
                 "# HELP causal_held_head_waiting 1 for the claim a held head waits on: a channel's offset "
                 "(on=channel) or a sender's send (on=sequence)."));
  CHECK(t.find("causal_held_head_waiting{") == std::string::npos);
  CHECK(has_line(t, R"(causal_relay_transactions_committed_total{group=""} 12)"));
  CHECK(has_line(t, R"(causal_relay_transactions_aborted_total{group=""} 2)"));
  CHECK(has_line(t, R"(causal_relay_fencings_total{group=""} 1)"));
}

TEST_CASE("health: another thread reads health() while the owner polls; the snapshot is the host's state") {
  auto mock = MockCluster::start("health", 2);
  REQUIRE(mock);
  ConnectionOptions conn;
  conn.brokers = (*mock)->bootstrap();
  Names names;
  {
    ProducerOptions po;
    po.connection = conn;
    po.stamp = false;
    po.wait_acks = true;
    po.sink_topics = {"health"};
    auto producer = ProducerHost::open(po, names);
    REQUIRE(producer);
    // health/0@0 claims health/1@5, never appended: held for good. health/1 gets 3 plain records.
    Clock c;
    c.origin = Origin{names.sender("health-test"), 1};
    c.claim(names.channel("health", 1), 5);
    const std::vector<std::byte> header = encode(c, names);
    OutRecord held;
    held.topic = "health";
    held.partition = 0;
    held.value = "held";
    held.headers.push_back(
        {kClockHeader, std::string_view(reinterpret_cast<const char*>(header.data()), header.size())});
    REQUIRE((*producer)->send(held));
    for (int i = 0; i < 3; ++i) {
      OutRecord plain;
      plain.topic = "health";
      plain.partition = 1;
      plain.value = "plain";
      REQUIRE((*producer)->send(plain));
    }
    REQUIRE((*producer)->flush());
  }
  ConsumerOptions co;
  co.connection = conn;
  co.channels = {Selector{"health", std::nullopt}};
  co.poll_timeout = std::chrono::milliseconds(20);
  auto host = ConsumerHost::open(co, names, nullptr);
  REQUIRE(host);
  REQUIRE((*host)->health().partitions.size() == 2);  // published by open()

  std::atomic<bool> stop = false;
  std::atomic<std::uint64_t> reads = 0;
  std::thread reader([&] {
    while (!stop) {
      MetricsText m;
      write_metrics(m, (*host)->health());
      if (!m.text().empty()) ++reads;
    }
  });
  auto r = (*host)->poll_until_caught_up(nullptr, std::chrono::seconds(20));
  for (int i = 0; i < 5; ++i) REQUIRE((*host)->poll());
  stop = true;
  reader.join();
  REQUIRE(r);
  CHECK(reads > 0);

  const ConsumerHealth h = (*host)->health();
  CHECK(h.group.empty());
  CHECK_FALSE(h.member);
  REQUIRE(h.partitions.size() == 2);
  const auto& p0 = h.partitions[0].partition == 0 ? h.partitions[0] : h.partitions[1];
  const auto& p1 = h.partitions[0].partition == 0 ? h.partitions[1] : h.partitions[0];
  CHECK(p0.held_records == 1);
  CHECK(p0.held_bytes > 0);
  CHECK(p0.frontier == 0);
  CHECK(p0.delivered == 0);
  CHECK(p0.head_age.count() > 0);
  REQUIRE(p0.head_waits);
  CHECK(p0.head_waits->on == HeadWait::On::channel);
  CHECK(p0.head_waits->channel == "health/1");
  CHECK(p0.head_waits->offset == 5);
  CHECK(p1.held_records == 0);
  CHECK(p1.held_bytes == 0);
  CHECK(p1.delivered == 3);
  CHECK(p1.frontier == 3);
  CHECK(p1.head_age.count() == 0);
  CHECK_FALSE(p1.head_waits);
  CHECK_FALSE(p0.failed_closed);
  CHECK_FALSE(p0.hold_budget_paused);
}

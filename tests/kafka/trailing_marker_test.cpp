// Fact 3: a read_committed consumer that has returned every committed record learns that it
// has also passed a trailing transaction marker, even though no record follows the marker:
// the position-advance signal max(rd_kafka_position, offset of the last PARTITION_EOF event)
// (with enable.partition.eof=true) reaches the marker's offset + 1.
//
// The protocol relies on this to declare a partition caught up (its frontier complete up to the
// end of the log) when the log ends in a marker, which is what every transactional producer
// leaves behind; without it a reader would wait forever for an offset that never carries a record.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "broker_env.hpp"

using namespace causal::test;

namespace {

// Polls until position_advance reaches `target` or 10 s pass; returns the records received.
std::vector<Received> poll_until_advance(Consumer& consumer, const std::string& topic, int64_t target) {
  std::vector<Received> out;
  eventually([&] {
    if (auto r = consumer.poll(std::chrono::milliseconds(50))) out.push_back(*r);
    return consumer.position_advance(topic, 0) >= target;
  });
  return out;
}

}  // namespace

TEST_CASE("the position-advance signal passes a trailing commit marker") {
  const std::string topic = create_topic("fact-trailing-commit", 1);
  TransactionalProducer producer;
  producer.begin();
  REQUIRE(producer.send(topic, {{"r0"}, {"r1"}}) == std::vector<int64_t>{0, 1});
  producer.commit();  // commit marker at 2, nothing after it
  REQUIRE(eventually([&] { return last_stable_offset(topic, 0) == 3; }));

  Consumer consumer;  // read_committed, enable.partition.eof=true
  consumer.assign(topic, {0});
  auto records = consumer.consume(2);
  CHECK(records.at(0).offset == 0);
  CHECK(records.at(1).offset == 1);

  auto more = poll_until_advance(consumer, topic, 3);
  CHECK(more.empty());
  INFO("position " << consumer.position(topic, 0) << ", last EOF " << consumer.last_eof(topic, 0));
  CHECK(consumer.position_advance(topic, 0) == 3);
  // The EOF event carries the LSO, which is past the marker.
  CHECK(consumer.last_eof(topic, 0) == 3);
}

TEST_CASE("the position-advance signal passes a trailing abort marker and the aborted batch before it") {
  const std::string topic = create_topic("fact-trailing-abort", 1);
  TransactionalProducer producer;
  producer.begin();
  REQUIRE(producer.send(topic, {{"r0"}, {"r1"}}) == std::vector<int64_t>{0, 1});
  producer.commit();  // marker at 2
  producer.begin();
  REQUIRE(producer.send(topic, {{"x3"}, {"x4"}}) == std::vector<int64_t>{3, 4});
  producer.abort();  // marker at 5, nothing after it
  REQUIRE(eventually([&] { return last_stable_offset(topic, 0) == 6; }));

  Consumer consumer;
  consumer.assign(topic, {0});
  auto records = consumer.consume(2);
  CHECK(records.at(0).offset == 0);
  CHECK(records.at(1).offset == 1);

  auto more = poll_until_advance(consumer, topic, 6);
  CHECK(more.empty());  // the aborted records are never returned
  INFO("position " << consumer.position(topic, 0) << ", last EOF " << consumer.last_eof(topic, 0));
  CHECK(consumer.position_advance(topic, 0) == 6);
  CHECK(consumer.last_eof(topic, 0) == 6);
}

TEST_CASE("a caught-up live consumer passes the commit marker of a transaction committed while it waits") {
  const std::string topic = create_topic("fact-trailing-live", 1);
  Consumer consumer;
  consumer.assign(topic, {0});
  // Empty partition: the first EOF says offset 0.
  REQUIRE(eventually([&] {
    consumer.poll(std::chrono::milliseconds(50));
    return consumer.last_eof(topic, 0) == 0;
  }));

  TransactionalProducer producer;
  producer.begin();
  REQUIRE(producer.send(topic, {{"r0"}, {"r1"}, {"r2"}}) == std::vector<int64_t>{0, 1, 2});
  // While the transaction is open nothing is readable and the signal stays at 0.
  for (int i = 0; i < 10; ++i) CHECK_FALSE(consumer.poll(std::chrono::milliseconds(20)).has_value());
  CHECK(consumer.position_advance(topic, 0) == 0);

  producer.commit();  // marker at 3
  auto records = consumer.consume(3);
  CHECK(records.back().offset == 2);
  auto more = poll_until_advance(consumer, topic, 4);
  CHECK(more.empty());
  INFO("position " << consumer.position(topic, 0) << ", last EOF " << consumer.last_eof(topic, 0));
  CHECK(consumer.position_advance(topic, 0) == 4);
}

// Fact 2: while a transaction is open, the last stable offset (LSO) stays at the transaction's
// first offset, below the high watermark (HWM); once the commit marker is written both move past
// it. librdkafka reports the LSO as "high" from rd_kafka_query_watermark_offsets on a
// read_committed handle and the HWM on a read_uncommitted handle.
//
// The protocol relies on this to tell "nothing more is readable yet" (position == LSO while
// an open transaction holds records back) from "caught up" (position == LSO == HWM), and the
// explain/baseline commands report the LSO as the end a read_committed reader can reach.
#include <catch2/catch.hpp>

#include <string>

#include "broker_env.hpp"

using namespace causal::test;

TEST_CASE("an open transaction holds the LSO below the high watermark until its commit marker") {
  const std::string topic = create_topic("fact-lso", 1);
  HandlePtr committed = make_handle(RD_KAFKA_CONSUMER, {{"isolation.level", "read_committed"}});
  HandlePtr uncommitted = make_handle(RD_KAFKA_CONSUMER, {{"isolation.level", "read_uncommitted"}});
  const auto lso = [&] { return query_watermarks(committed.get(), topic, 0).high; };
  const auto hwm = [&] { return query_watermarks(uncommitted.get(), topic, 0).high; };

  TransactionalProducer producer;

  // A first committed transaction: record 0, commit marker 1. LSO == HWM == 2 once the marker
  // is written. The marker is written by the coordinator after commit_transaction returns, so
  // wait for it (bounded).
  producer.begin();
  REQUIRE(producer.send(topic, Record("committed")) == 0);
  producer.commit();
  eventually([&] { return lso() == 2; });
  REQUIRE(lso() == 2);
  REQUIRE(hwm() == 2);

  // An open transaction: records at 2 and 3. The HWM moves to 4; the LSO stays at 2, the first
  // offset of the open transaction.
  producer.begin();
  REQUIRE(producer.send(topic, {{"open-0"}, {"open-1"}}) == std::vector<int64_t>{2, 3});
  CHECK(hwm() == 4);
  CHECK(lso() == 2);
  CHECK(lso() < hwm());
  // isolation.level defaults to read_committed: a handle that does not set it sees the LSO.
  HandlePtr by_default = make_handle(RD_KAFKA_CONSUMER);
  CHECK(query_watermarks(by_default.get(), topic, 0).high == 2);

  // Commit: marker at 4; both move to 5 once the marker is written.
  producer.commit();
  eventually([&] { return lso() == 5; });
  CHECK(lso() == 5);
  CHECK(hwm() == 5);
}

TEST_CASE("an aborted transaction also holds the LSO until its abort marker") {
  const std::string topic = create_topic("fact-lso-abort", 1);
  HandlePtr committed = make_handle(RD_KAFKA_CONSUMER, {{"isolation.level", "read_committed"}});
  HandlePtr uncommitted = make_handle(RD_KAFKA_CONSUMER, {{"isolation.level", "read_uncommitted"}});
  const auto lso = [&] { return query_watermarks(committed.get(), topic, 0).high; };
  const auto hwm = [&] { return query_watermarks(uncommitted.get(), topic, 0).high; };

  TransactionalProducer producer;
  producer.begin();
  REQUIRE(producer.send(topic, {{"doomed-0"}, {"doomed-1"}, {"doomed-2"}}) == std::vector<int64_t>{0, 1, 2});
  CHECK(lso() == 0);
  CHECK(hwm() == 3);

  producer.abort();  // abort marker at 3
  eventually([&] { return lso() == 4; });
  CHECK(lso() == 4);
  CHECK(hwm() == 4);
}

// Fact 1: transaction markers and aborted records occupy offsets, and a read_committed consumer
// returns exactly the committed records, at offsets that skip both.
//
// The protocol relies on this because a causal stamp names a record by (partition, offset):
// a gap in the offsets a reader sees is normal (markers, aborted batches) and must never be
// read as a lost record, and an aborted record must never be delivered under read_committed.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "broker_env.hpp"

using namespace causal::test;

namespace {

std::vector<int64_t> offsets_of(const std::vector<Received>& records, int32_t partition) {
  std::vector<int64_t> out;
  for (const auto& r : records) {
    if (r.partition == partition) out.push_back(r.offset);
  }
  return out;
}

std::vector<std::string> values_of(const std::vector<Received>& records, int32_t partition) {
  std::vector<std::string> out;
  for (const auto& r : records) {
    if (r.partition == partition) out.push_back(r.value);
  }
  return out;
}

}  // namespace

TEST_CASE("read_committed returns committed records only, at offsets that skip markers and aborted batches") {
  const std::string topic = create_topic("fact-txn-offsets", 2);
  TransactionalProducer producer;

  // Committed: three records on each partition → offsets 0,1,2; commit marker at 3.
  producer.begin();
  auto committed1_p0 = producer.send(topic, {{"c1-0", 0}, {"c1-1", 0}, {"c1-2", 0}});
  auto committed1_p1 = producer.send(topic, {{"c1-0", 1}, {"c1-1", 1}, {"c1-2", 1}});
  producer.commit();
  CHECK(committed1_p0 == std::vector<int64_t>{0, 1, 2});
  CHECK(committed1_p1 == std::vector<int64_t>{0, 1, 2});

  // Aborted: two records on each partition → offsets 4,5 (after the marker at 3); abort marker at 6.
  producer.begin();
  auto aborted_p0 = producer.send(topic, {{"a-0", 0}, {"a-1", 0}});
  auto aborted_p1 = producer.send(topic, {{"a-0", 1}, {"a-1", 1}});
  producer.abort();
  CHECK(aborted_p0 == std::vector<int64_t>{4, 5});
  CHECK(aborted_p1 == std::vector<int64_t>{4, 5});

  // Committed: one record on each partition → offset 7; commit marker at 8.
  producer.begin();
  CHECK(producer.send(topic, Record{"c2-0", 0}) == 7);
  CHECK(producer.send(topic, Record{"c2-0", 1}) == 7);
  producer.commit();

  SECTION("read_committed: committed records only, offsets 0,1,2,7, caught up at 9") {
    Consumer consumer;  // read_committed
    consumer.assign(topic, {0, 1});
    auto records = consumer.drain();
    for (int32_t p : {0, 1}) {
      INFO("partition " << p);
      CHECK(offsets_of(records, p) == std::vector<int64_t>{0, 1, 2, 7});
      CHECK(values_of(records, p) == std::vector<std::string>{"c1-0", "c1-1", "c1-2", "c2-0"});
      // The last stable offset is past the final commit marker (8).
      CHECK(consumer.position_advance(topic, p) == 9);
    }
    CHECK(records.size() == 8);
  }

  SECTION("read_uncommitted: the aborted records too, but never a marker") {
    Consumer consumer(Properties{{"isolation.level", "read_uncommitted"}});
    consumer.assign(topic, {0, 1});
    auto records = consumer.drain();
    for (int32_t p : {0, 1}) {
      INFO("partition " << p);
      CHECK(offsets_of(records, p) == std::vector<int64_t>{0, 1, 2, 4, 5, 7});
      CHECK(values_of(records, p) == std::vector<std::string>{"c1-0", "c1-1", "c1-2", "a-0", "a-1", "c2-0"});
    }
  }
}

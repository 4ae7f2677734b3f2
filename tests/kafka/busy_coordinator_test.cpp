// OffsetsClient's group requests are sent again while the group's coordinator says it is busy
// (offsets.hpp). A broker answers COORDINATOR_LOAD_IN_PROGRESS only for a moment after it starts,
// too briefly to hit on purpose, so these tests inject the error codes with librdkafka's mock
// cluster. They test causal's reaction to an error code, not any Kafka behaviour: the mock is
// not a broker (docs/kafka-facts.md).
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>

#include <librdkafka/rdkafka.h>

#include "causal/kafka/offsets.hpp"
#include "injecting_mock.hpp"

using namespace causal::kafka;

namespace {


const std::vector<ChannelRef> kT0{{"t", 0}};
using causal::test::kOffsetCommit;
using causal::test::kOffsetFetch;

}  // namespace

TEST_CASE("committed offsets are written and read through a coordinator that is loading") {
  causal::test::InjectingMock m{"t"};
  auto c = OffsetsClient::open(m.conn(), 5000);
  REQUIRE(c);
  // OffsetCommit (AlterConsumerGroupOffsets) and OffsetFetch (ListConsumerGroupOffsets) each
  // meet three busy answers of the kinds Kafka gives, then the coordinator answers. (The mock
  // cannot answer an OffsetFetch of all partitions, so committed_topics is not tried here;
  // it shares list_group_offsets and with_busy_retry with committed.)
  m.answer(kOffsetCommit, 1, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS);
  m.answer(kOffsetCommit, 1, RD_KAFKA_RESP_ERR_NOT_COORDINATOR);
  m.answer(kOffsetCommit, 1, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE);
  const std::vector<OffsetsClient::NewOffset> to{{kT0[0], 7, "meta"}};
  auto w = c->alter_committed("g", to);
  REQUIRE(w);

  m.answer(kOffsetFetch, 3, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS);
  auto r = c->committed("g", kT0, false);
  REQUIRE(r);
  REQUIRE(r->size() == 1);
  CHECK((*r)[0].error.empty());
  REQUIRE((*r)[0].offset);
  CHECK(*(*r)[0].offset == 7);
  CHECK((*r)[0].metadata == "meta");
}

TEST_CASE("a coordinator busy for longer than the timeout fails the request and says so") {
  causal::test::InjectingMock m{"t"};
  auto c = OffsetsClient::open(m.conn(), 1000);
  REQUIRE(c);
  m.answer(kOffsetFetch, 1000, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c->committed("g", kT0, false);
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE_FALSE(r);
  INFO(r.error().message);
  CHECK(r.error().message.find("oordinator load in progress") != std::string::npos);
  CHECK(r.error().message.find("still busy after") != std::string::npos);
  // Retried until the timeout, and not far past it.
  CHECK(took >= std::chrono::milliseconds(500));
  CHECK(took < std::chrono::milliseconds(4000));
}

TEST_CASE("an error that is not a busy coordinator is not retried") {
  causal::test::InjectingMock m{"t"};
  auto c = OffsetsClient::open(m.conn(), 5000);
  REQUIRE(c);
  m.answer(kOffsetCommit, 1, RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE);
  m.answer(kOffsetCommit, 1, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS);
  const std::vector<OffsetsClient::NewOffset> to{{kT0[0], 3, ""}};
  auto w = c->alter_committed("g", to);
  REQUIRE_FALSE(w);
  INFO(w.error().message);
  CHECK(w.error().message.find("still busy") == std::string::npos);
  // The busy answer queued behind it is still there: nothing sent the request a second time.
  auto again = c->alter_committed("g", to);
  REQUIRE(again);
}

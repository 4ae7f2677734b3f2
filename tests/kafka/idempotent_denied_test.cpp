// A producer refused IdempotentWrite on the cluster says so in causal's one-line form
// (causal(1), SECURITY), not as librdkafka's "fatal producer error ... Failed to acquire
// idempotence PID". A secured broker refuses InitProducerId so only to a user with no Write
// on any topic; librdkafka's mock cluster answers it with the code injected here. This tests
// causal's reaction to an error code, not a Kafka behaviour: the mock is not a broker.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "causal/kafka/producer_host.hpp"

using namespace causal::kafka;

TEST_CASE("an idempotent producer refused IdempotentWrite names the operation and the cluster") {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
  std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> owner(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err),
                                                           rd_kafka_destroy);
  REQUIRE(owner);
  std::unique_ptr<rd_kafka_mock_cluster_t, void (*)(rd_kafka_mock_cluster_t*)> cluster(
      rd_kafka_mock_cluster_new(owner.get(), 1), rd_kafka_mock_cluster_destroy);
  REQUIRE(cluster);
  REQUIRE(rd_kafka_mock_topic_create(cluster.get(), "t", 1, 1) == RD_KAFKA_RESP_ERR_NO_ERROR);
  constexpr int kInitProducerId = 22;  // Kafka's API key (librdkafka keeps its names private)
  for (int i = 0; i < 10; ++i) {
    rd_kafka_mock_push_request_errors(cluster.get(), kInitProducerId, 1, RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED);
  }

  ProducerOptions po;
  po.connection.brokers = rd_kafka_mock_cluster_bootstraps(cluster.get());
  po.connection.properties = {"log_level=0"};
  po.sink_topics = {"t"};
  po.timeout = std::chrono::milliseconds(5000);
  causal::Names names;
  auto host = ProducerHost::open(po, names);
  std::string message;
  if (!host) {
    message = host.error().message;
  } else {
    OutRecord r;
    r.topic = "t";
    r.value = "v";
    auto sent = (*host)->send(r);
    auto flushed = sent ? (*host)->flush() : std::expected<void, causal::Error>(std::unexpected(sent.error()));
    REQUIRE_FALSE(flushed);
    message = flushed.error().message;
  }
  INFO(message);
  CHECK(message.find("not authorised to IdempotentWrite cluster 'kafka-cluster' (CLUSTER_AUTHORIZATION_FAILED)") == 0);
  CHECK(message.find("or Write on some topic") != std::string::npos);
}

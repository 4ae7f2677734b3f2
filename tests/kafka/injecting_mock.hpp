// librdkafka's mock cluster for tests of causal's reaction to an error code the mock answers
// with (rd_kafka_mock_push_request_errors). The mock is not a broker: no test claims a Kafka
// behaviour on it (docs/kafka-facts.md).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include <catch2/catch.hpp>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "causal/kafka/client.hpp"

namespace causal::test {

// Kafka's API keys (the protocol's numbers; librdkafka keeps its names private).
constexpr int kOffsetCommit = 8;
constexpr int kOffsetFetch = 9;
constexpr int kTxnOffsetCommit = 28;

// A one-broker mock cluster with the given topics, one partition each.
struct InjectingMock {
  std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> owner{nullptr, rd_kafka_destroy};
  std::unique_ptr<rd_kafka_mock_cluster_t, void (*)(rd_kafka_mock_cluster_t*)> cluster{nullptr,
                                                                                       rd_kafka_mock_cluster_destroy};
  explicit InjectingMock(std::initializer_list<const char*> topics) {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
    owner.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err));
    REQUIRE(owner);
    cluster.reset(rd_kafka_mock_cluster_new(owner.get(), 1));
    REQUIRE(cluster);
    for (const char* t : topics) REQUIRE(rd_kafka_mock_topic_create(cluster.get(), t, 1, 1) == RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  causal::kafka::ConnectionOptions conn() const {
    causal::kafka::ConnectionOptions c;
    c.brokers = rd_kafka_mock_cluster_bootstraps(cluster.get());
    c.properties = {"log_level=0"};
    return c;
  }
  // The next `n` requests of `api` are answered with `code`.
  void answer(int api, int n, rd_kafka_resp_err_t code) {
    for (int i = 0; i < n; ++i) rd_kafka_mock_push_request_errors(cluster.get(), api, 1, code);
  }
};

}  // namespace causal::test

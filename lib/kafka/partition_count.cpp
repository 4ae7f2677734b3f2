// A topic's partition count from the brokers' metadata (consumer_host.hpp, partition_count).
#include <algorithm>
#include <memory>
#include <thread>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/authorization.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/reachability.hpp"

namespace causal::kafka {

std::expected<int, Error> partition_count(rd_kafka_t* rk, const std::string& topic,
                                          std::chrono::milliseconds timeout, std::string_view brokers) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  if (!rkt) return std::unexpected(runtime_error(fmt::format("topic {}: cannot create a handle", quoted_excerpt(topic))));
  const rd_kafka_metadata_t* md = nullptr;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  rd_kafka_resp_err_t err;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    err = rd_kafka_metadata(rk, 0, rkt, &md, static_cast<int>(std::max<std::int64_t>(left.count(), 1)));
    // A fresh cluster may briefly answer LEADER_NOT_AVAILABLE for a new topic: retry.
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 &&
        md->topics[0].err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_metadata_destroy(md);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    break;
  }
  rd_kafka_topic_destroy(rkt);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return std::unexpected(runtime_error(fmt::format(
        "cannot reach the Kafka brokers at {} (metadata for topic {} within {} ms: {}); {}", brokers,
        quoted_excerpt(topic), timeout.count(), rd_kafka_err2str(err), check_brokers_after(timeout))));
  }
  std::unique_ptr<const rd_kafka_metadata_t, void (*)(const rd_kafka_metadata_t*)> hold(md,
                                                                                          rd_kafka_metadata_destroy);
  if (md->topic_cnt != 1) return std::unexpected(runtime_error(fmt::format("topic {}: no metadata", quoted_excerpt(topic))));
  const auto& t = md->topics[0];
  if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || (t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt == 0)) {
    return std::unexpected(runtime_error(
        fmt::format("unknown topic {} on {}: check the name or create the topic", quoted_excerpt(topic), brokers)));
  }
  if (auto no = denied(t.err, "Describe", "topic", topic)) return std::unexpected(runtime_error(*no));
  if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return std::unexpected(
        runtime_error(fmt::format("topic {} on {}: {}", quoted_excerpt(topic), brokers, rd_kafka_err2str(t.err))));
  }
  return t.partition_cnt;
}

}  // namespace causal::kafka

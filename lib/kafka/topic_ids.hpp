// Which log a topic name stands for: Kafka's topic ID (KIP-516), read with DescribeTopics.
//
// Why: a topic deleted and re-created under the same name is a new log whose offsets start
// again at 0. A consumer that goes on reading it by name at the position it had reached would
// take the new log's records below that position for records already delivered (the replay
// guard drops them) and deliver the ones above it as if they followed the old log. The
// topic ID is the only thing that tells the two logs apart: Kafka gives every topic a new
// one at creation, and librdkafka reports no change of it (its metadata API has no topic ID;
// only rd_kafka_DescribeTopics, librdkafka 2.3+, does).
//
// Internal to causal_kafka (ConsumerHost watches the topics it reads).
#pragma once

#include <chrono>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/error.hpp"
#include "causal/kafka/handles.hpp"

namespace causal::kafka {

// topic -> its ID as Kafka's tools print it (base64url of the 16-byte Uuid, kafka-topics
// --describe's "TopicId:"); a topic the cluster does not know maps to "".
using TopicIds = std::map<std::string, std::string>;

// Asks once, waiting up to `timeout`: every topic's ID, "" for one the cluster does not know.
// Errors: the request timed out, or a topic was refused (not authorised to Describe it).
std::expected<TopicIds, Error> describe_topic_ids(rd_kafka_t* rk, const std::vector<std::string>& topics,
                                                  std::chrono::milliseconds timeout, const std::string& brokers);

// Watches topics whose IDs were read at start (an ID "" there: not known yet, taken from the
// first answer that gives one), asking again every `interval` without ever blocking the
// caller: poll() sends a request when one is due and none is out, and reads its
// answer once it has come. A topic is reported changed when an answer gives it an ID other
// than the one it had at start (re-created: definite, a broker cannot know an ID that was
// never made), or when two answers in a row, at least `interval` apart, say the cluster does
// not know it (deleted: one broker that has not caught up yet does not decide it alone).
// An answer that fails (timeout, a broker away) says nothing and is asked again.
class TopicIdWatch {
 public:
  struct Change {
    std::string topic;
    std::string was;  // its ID at start
    std::string now;  // its ID now; "": the cluster no longer knows the topic (deleted)
  };

  TopicIdWatch() = default;
  TopicIdWatch(rd_kafka_t* rk, TopicIds at_start, std::chrono::milliseconds interval);
  TopicIdWatch(TopicIdWatch&&) = default;
  TopicIdWatch& operator=(TopicIdWatch&&) = default;

  // The changes seen since the last call (each topic reported once).
  std::vector<Change> poll();
  // Waits up to `timeout` for an answer to the first request (sent at construction). An
  // error only when the answer refuses a topic (not authorised to Describe it); no answer,
  // or one that failed otherwise, leaves the IDs unknown for poll() to learn.
  std::expected<void, Error> await_first(std::chrono::milliseconds timeout);
  // The IDs the watch compares with (those at start, or first learnt; "" while not known).
  const TopicIds& at_start() const { return at_start_; }

 private:
  void send();
  // Takes an answer; an error when it refused a topic.
  std::expected<void, Error> take(rd_kafka_event_t* ev);

  rd_kafka_t* rk_ = nullptr;
  TopicIds at_start_;
  std::chrono::milliseconds interval_{1000};
  QueuePtr queue_;
  bool outstanding_ = false;
  std::chrono::steady_clock::time_point next_;
  std::map<std::string, int> unknown_in_a_row_;
  std::map<std::string, bool> reported_;
  std::vector<Change> changes_;
};

}  // namespace causal::kafka

// How the tool says that the cluster's ACLs refused something: one line naming the
// operation, the resource and Kafka's error, e.g.
//   not authorised to Describe topic 'payments' (TOPIC_AUTHORIZATION_FAILED): the cluster's
//   ACLs must allow Describe on topic 'payments' for this user
// Which operation a request needs is Kafka's rule (docs/kafka-facts.md, "ACLs"): metadata
// and ListOffsets need Describe on the topic, Fetch needs Read on it, Produce needs Write;
// reading a group's committed offsets or describing it needs Describe on the group,
// writing its offsets needs Read on the group.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <librdkafka/rdkafka.h>

namespace causal::kafka {

// True for Kafka's *_AUTHORIZATION_FAILED errors.
bool is_authorization_error(rd_kafka_resp_err_t err);

// The line above for `err` when it is an authorization error, else nullopt. `operation` is
// Kafka's name (Describe, Read, Write), `kind` "topic", "group" or "transactional id".
std::optional<std::string> denied(rd_kafka_resp_err_t err, std::string_view operation, std::string_view kind,
                                  std::string_view name);

}  // namespace causal::kafka

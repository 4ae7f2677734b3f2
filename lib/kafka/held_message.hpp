// The message a gate's tag carries: the consumer host hands the gate each record's
// rd_kafka_message_t* as its Received::tag and frees it when the record is delivered or
// discarded. Private to lib/kafka: held heads' timestamps (lookups, explain) read it.
#pragma once

#include <cstdint>

#include <librdkafka/rdkafka.h>

namespace causal::kafka {

// The held record's message; nullptr if tag is 0.
inline const rd_kafka_message_t* message_of(std::uint64_t tag) {
  return reinterpret_cast<const rd_kafka_message_t*>(tag);
}

}  // namespace causal::kafka

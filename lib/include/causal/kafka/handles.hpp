// Owning pointers for librdkafka objects: each destroys its object with the matching
// rd_kafka_*_destroy. One set for the whole library and the app, so that no file spells
// its own deleters.
#pragma once

#include <memory>

#include <librdkafka/rdkafka.h>

namespace causal::kafka {

namespace detail {
template <class T, void (*Destroy)(T*)>
struct Destroyer {
  void operator()(T* p) const { Destroy(p); }
};
template <class T, void (*Destroy)(T*)>
using Owned = std::unique_ptr<T, Destroyer<T, Destroy>>;
}  // namespace detail

using ConfPtr = detail::Owned<rd_kafka_conf_t, rd_kafka_conf_destroy>;
using HandlePtr = detail::Owned<rd_kafka_t, rd_kafka_destroy>;
using ListPtr = detail::Owned<rd_kafka_topic_partition_list_t, rd_kafka_topic_partition_list_destroy>;
using QueuePtr = detail::Owned<rd_kafka_queue_t, rd_kafka_queue_destroy>;
using EventPtr = detail::Owned<rd_kafka_event_t, rd_kafka_event_destroy>;
using AdminOptionsPtr = detail::Owned<rd_kafka_AdminOptions_t, rd_kafka_AdminOptions_destroy>;
using TopicPtr = detail::Owned<rd_kafka_topic_t, rd_kafka_topic_destroy>;
using MessagePtr = detail::Owned<rd_kafka_message_t, rd_kafka_message_destroy>;

}  // namespace causal::kafka

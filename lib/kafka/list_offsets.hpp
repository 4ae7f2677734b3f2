// Listing offsets: the log start, the high watermark and the last stable offset (LSO) of
// partitions, through Kafka's ListOffsets with the isolation level named per request
// (rd_kafka_ListOffsets), so that any handle can ask either end: a producer its high
// watermarks, a read_committed consumer both.
#pragma once
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include <librdkafka/rdkafka.h>

#include "causal/error.hpp"

namespace causal::kafka {

// Which end RD_KAFKA_OFFSET_END names: the high watermark (read_uncommitted) or the LSO
// (read_committed), as a consumer of that isolation level would read to.
enum class Isolation { read_uncommitted, read_committed };

// The offsets of every partition of `list` at once: each element's offset names what to ask,
// RD_KAFKA_OFFSET_BEGINNING (the log start) or RD_KAFKA_OFFSET_END (see Isolation), and
// receives the answer, or its err is set. ONE ListOffsets request per partition leader, never
// one per partition: a host with thousands of partitions must not pay a round trip for each.
// Partitions whose leadership is settling (a topic created a moment ago, a leader that just
// moved: errors Kafka's protocol calls retriable, which kcat and the Kafka tools retry too)
// are asked again, for up to timeout_ms in all. `list` holds each partition once. Returns a
// request-level error (no answer at all), else NO_ERROR with per-element errors.
rd_kafka_resp_err_t list_offsets(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* list, Isolation isolation,
                                 int timeout_ms);

// list_offsets, with the first partition left without an answer as the error, worded
// "TOPIC/PARTITION on BROKERS: cannot list offsets (ISOLATION): REASON".
std::expected<void, Error> list_offsets_or_error(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* list,
                                                 Isolation isolation, int timeout_ms, std::string_view brokers);

// One partition's log start (`low`) and end (`high`, see Isolation): list_offsets twice.
// Returns the first error, request-level or the partition's.
rd_kafka_resp_err_t query_watermarks(rd_kafka_t* rk, const std::string& topic, std::int32_t partition,
                                     Isolation isolation, std::int64_t* low, std::int64_t* high, int timeout_ms);

}  // namespace causal::kafka

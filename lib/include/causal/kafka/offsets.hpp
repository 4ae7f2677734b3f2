// Offsets and consumer groups, read and written without joining any group:
//
//   list_offsets       per channel: log start, last stable offset (LSO), high watermark,
//                      in ONE ListOffsets request per partition leader for each of the
//                      three (rd_kafka_ListOffsets groups partitions by leader; "latest"
//                      asked read_committed is the LSO, asked read_uncommitted the high
//                      watermark). Never one request per partition.
//   committed          a group's committed offsets and their commit metadata (where a
//                      causal node saves its resolution state, causal/resolution_state.hpp),
//                      read with require_stable_offsets: an offset still pending inside an
//                      open transaction is reported as pending (UNSTABLE_OFFSET_COMMIT),
//                      never as committed.
//   committed_channels the partitions the group has committed offsets on (pending ones too),
//                      sorted by topic and partition; committed_topics, their topics.
//   describe_group     the group's state, protocol and active members (DescribeConsumerGroups:
//                      librdkafka asks ConsumerGroupDescribe, then DescribeGroups, so groups of
//                      both protocols are described).
//   alter_committed    writes committed offsets (AlterConsumerGroupOffsets); the broker
//                      refuses while the group has members, and callers should refuse first.
//
// The group requests (committed, committed_topics, describe_group, alter_committed) are sent
// again while the group's coordinator answers that it is busy (COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE: a broker just started or a partition moved), as
// Kafka's AdminClient does, until the client's timeout has passed since the first attempt.
//
// Thread-safety: an OffsetsClient owns librdkafka handles; use it from one thread.
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "causal/error.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/config.hpp"
#include "causal/names.hpp"

namespace causal::kafka {

struct ChannelRef {
  std::string topic;
  std::int32_t partition = 0;
  friend bool operator==(const ChannelRef&, const ChannelRef&) = default;
  friend auto operator<=>(const ChannelRef&, const ChannelRef&) = default;
};

struct ChannelOffsets {
  ChannelRef channel;
  Offset log_start = kNoOffset;
  Offset lso = kNoOffset;      // last stable offset: where a read_committed consumer stops
  Offset log_end = kNoOffset;  // high watermark
  // Offsets held back by an open transaction (log_end - lso); 0 when none is open.
  Offset open_span() const { return log_end - lso; }
};

struct CommittedOffset {
  ChannelRef channel;
  std::optional<Offset> offset;  // nullopt: nothing committed (or pending only)
  std::string metadata;          // commit metadata, verbatim
  // What a causal member's metadata holds: its committed state (the core's "causal1:..." /
  // "causal2:..." text) and the topic ID of the log the offset belongs to ("" when the
  // metadata names none: an older causal, another tool). state is the whole metadata when
  // it names no ID.
  std::string state;
  std::string topic_id;
  bool pending = false;          // an offset commit is pending in an open transaction
  std::string error;             // per-partition error other than "pending", if any
};

struct GroupMember {
  std::string member_id;
  std::string client_id;
  std::string host;
  std::vector<ChannelRef> assignment;         // what the member holds now
  // consumer protocol only: what the coordinator wants it to hold once the member has
  // revoked and taken what it was told to (KIP-848's target assignment); empty otherwise.
  std::vector<ChannelRef> target_assignment;
};

struct GroupDescription {
  std::string group;
  std::string state;  // librdkafka's name: Unknown, PreparingRebalance, ..., Stable, Dead, Empty
  // The group's protocol, as group.protocol names it: "classic" (JoinGroup/SyncGroup, what
  // every client before KIP-848 runs), "consumer" (KIP-848, the coordinator assigns), or
  // "unknown" when the group does not exist or the broker did not say.
  std::string protocol = "unknown";
  std::vector<GroupMember> members;
  // False when the broker does not know the group (state Dead, or GROUP_ID_NOT_FOUND).
  bool exists = true;
};

struct AlteredOffset {
  ChannelRef channel;
  std::optional<Offset> old_offset;
  Offset new_offset = kNoOffset;
};

// Parses "topic", "topic/partition" and (when allow_offset) "topic/partition@offset".
struct ChannelSpec {
  std::string topic;
  std::optional<std::int32_t> partition;
  std::optional<Offset> offset;
};
std::expected<ChannelSpec, Error> parse_channel_spec(std::string_view text, bool allow_offset);

class OffsetsClient {
 public:
  // Opens the handles (no network traffic yet). `timeout_ms` bounds each request round.
  static std::expected<OffsetsClient, Error> open(const ConnectionOptions& opts, int timeout_ms = 10000);

  // Expands topics into their partitions (metadata); checks named partitions exist.
  // Errors name the unknown topic or partition. Result is sorted, without duplicates.
  std::expected<std::vector<ChannelRef>, Error> resolve(std::span<const ChannelSpec> specs);
  // Partitions of `topic`, or an error naming it.
  std::expected<std::vector<ChannelRef>, Error> partitions(const std::string& topic);

  std::expected<std::vector<ChannelOffsets>, Error> list_offsets(std::span<const ChannelRef> channels);

  // require_stable: offsets pending in an open transaction come back as `pending` (no
  // offset). Without it the broker answers with the last stable committed offset.
  std::expected<std::vector<CommittedOffset>, Error> committed(const std::string& group,
                                                               std::span<const ChannelRef> channels,
                                                               bool require_stable = true);

  // committed() with require_stable, and for each partition whose commit is pending the last
  // stable committed offset and its metadata (a second request, without require_stable),
  // `pending` still set: what a consumer restarting now would start from.
  std::expected<std::vector<CommittedOffset>, Error> committed_or_stable(const std::string& group,
                                                                         std::span<const ChannelRef> channels);

  // Every partition on which the group has a committed offset (ListConsumerGroupOffsets of
  // all partitions), sorted, each once; and their topics.
  std::expected<std::vector<ChannelRef>, Error> committed_channels(const std::string& group);
  std::expected<std::vector<std::string>, Error> committed_topics(const std::string& group);

  std::expected<GroupDescription, Error> describe_group(const std::string& group);

  // Each topic's cleanup.policy ("delete", "compact", "compact,delete"), by DescribeConfigs
  // in one request. A topic whose answer is an error (DescribeConfigs refused by an ACL, say)
  // is left out: the caller says what it did not learn.
  std::map<std::string, std::string> cleanup_policies(std::span<const std::string> topics);
  // Each topic's ID (DescribeTopics), as Kafka's tools print it; "" for a topic the cluster
  // does not know.
  std::expected<std::map<std::string, std::string>, Error> topic_ids(const std::vector<std::string>& topics);

  // Writes `offsets` (with optional metadata, kept from `keep_metadata` when the caller
  // wants it) as the group's committed offsets. Errors name the partition that failed.
  struct NewOffset {
    ChannelRef channel;
    Offset offset = 0;
    std::string metadata;
  };
  std::expected<void, Error> alter_committed(const std::string& group, std::span<const NewOffset> offsets);

  const std::string& brokers() const { return brokers_; }

 private:
  OffsetsClient() = default;
  // One ListOffsets round for every channel: `logical` RD_KAFKA_OFFSET_BEGINNING or _END, the
  // end being the LSO when `read_committed`, else the high watermark.
  std::expected<std::vector<Offset>, Error> offsets_round(std::span<const ChannelRef> channels, std::int64_t logical,
                                                          bool read_committed, const char* what);
  // One attempt each; `busy` is set when the coordinator said it is busy (offsets.cpp).
  std::expected<GroupDescription, Error> describe_group_once(const std::string& group, rd_kafka_resp_err_t& busy);
  std::expected<void, Error> alter_committed_once(const std::string& group, std::span<const NewOffset> offsets,
                                                  rd_kafka_resp_err_t& busy);
  // Declared before the handles, so that it outlives them: they log into it until destroyed.
  std::unique_ptr<ClientLog> log_;
  HandlePtr committed_;  // isolation.level=read_committed; ListOffsets names its isolation per request
  int timeout_ms_ = 10000;
  std::string brokers_;
};

}  // namespace causal::kafka

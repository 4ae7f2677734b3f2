// Fact 4: a consumer group's committed offsets can be written by a consumer that only assign()s
// (never joins) and read back without joining the group: with the admin API
// (ListConsumerGroupOffsets) and with rd_kafka_committed on a handle that has the group.id but
// never subscribes. Neither reader becomes a member: the group stays Empty.
//
// The protocol relies on this because `causal explain` and `causal baseline` read an application's
// group offsets to say where it stands, and must never join that group: joining would trigger a
// rebalance of the application's own consumers and could steal their partitions.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#include "broker_env.hpp"

using namespace causal::test;

namespace {

struct GroupState {
  std::string state;
  size_t members = 0;
  bool simple = false;
};

GroupState describe_group(const std::string& group) {
  HandlePtr rk = make_handle(RD_KAFKA_PRODUCER);
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk.get());
  const char* groups[] = {group.c_str()};
  rd_kafka_DescribeConsumerGroups(rk.get(), groups, 1, nullptr, queue);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(queue, 30'000);
  REQUIRE(ev != nullptr);
  REQUIRE(rd_kafka_event_type(ev) == RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT);
  REQUIRE(rd_kafka_event_error(ev) == RD_KAFKA_RESP_ERR_NO_ERROR);
  size_t n = 0;
  const rd_kafka_ConsumerGroupDescription_t** descs =
      rd_kafka_DescribeConsumerGroups_result_groups(rd_kafka_event_DescribeConsumerGroups_result(ev), &n);
  REQUIRE(n == 1);
  const rd_kafka_error_t* error = rd_kafka_ConsumerGroupDescription_error(descs[0]);
  INFO("describe error: " << (error ? rd_kafka_error_string(error) : "none"));
  REQUIRE(error == nullptr);
  GroupState s{.state = rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(descs[0])),
               .members = rd_kafka_ConsumerGroupDescription_member_count(descs[0]),
               .simple = rd_kafka_ConsumerGroupDescription_is_simple_consumer_group(descs[0]) != 0};
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(queue);
  return s;
}

}  // namespace

TEST_CASE("group offsets are written by an assign()ed consumer and read without joining the group") {
  const std::string topic = create_topic("fact-group-offsets", 2);
  const std::string group = unique_name("fact-group");
  Producer producer;
  for (int i = 0; i < 10; ++i) {
    producer.send(topic, {{"p0-" + std::to_string(i), 0}, {"p1-" + std::to_string(i), 1}});
  }

  // Write: assign() (no subscribe, no join) and commit an explicit list synchronously.
  {
    HandlePtr writer = make_handle(RD_KAFKA_CONSUMER, {{"group.id", group}, {"enable.auto.commit", "false"}});
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(2);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 0)->offset = 7;
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 1)->offset = 3;
    REQUIRE(rd_kafka_assign(writer.get(), list) == RD_KAFKA_RESP_ERR_NO_ERROR);
    REQUIRE(rd_kafka_commit(writer.get(), list, 0) == RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(list);
    REQUIRE(rd_kafka_consumer_close(writer.get()) == RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  SECTION("ListConsumerGroupOffsets (admin API, require_stable_offsets)") {
    auto offsets = committed_offsets(group, topic, {0, 1});
    CHECK(offsets == std::map<int32_t, int64_t>{{0, 7}, {1, 3}});
  }

  SECTION("rd_kafka_committed on a handle with the group.id that never subscribes") {
    HandlePtr reader = make_handle(RD_KAFKA_CONSUMER, {{"group.id", group}, {"enable.auto.commit", "false"}});
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(2);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 0);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 1);
    REQUIRE(rd_kafka_committed(reader.get(), list, 10'000) == RD_KAFKA_RESP_ERR_NO_ERROR);
    CHECK(list->elems[0].err == RD_KAFKA_RESP_ERR_NO_ERROR);
    CHECK(list->elems[0].offset == 7);
    CHECK(list->elems[1].err == RD_KAFKA_RESP_ERR_NO_ERROR);
    CHECK(list->elems[1].offset == 3);
    rd_kafka_topic_partition_list_destroy(list);
    // Still not a member while the reading handle is alive.
    GroupState s = describe_group(group);
    CHECK(s.members == 0);
    CHECK(s.state == "Empty");
    REQUIRE(rd_kafka_consumer_close(reader.get()) == RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  SECTION("a partition without a committed offset reads as RD_KAFKA_OFFSET_INVALID") {
    const std::string other = unique_name("fact-group-empty");
    auto offsets = committed_offsets(other, topic, {0, 1});
    CHECK(offsets == std::map<int32_t, int64_t>{{0, RD_KAFKA_OFFSET_INVALID}, {1, RD_KAFKA_OFFSET_INVALID}});
  }

  // After all of it, the group has committed offsets and no members.
  GroupState s = describe_group(group);
  CHECK(s.members == 0);
  CHECK(s.state == "Empty");

  // The helper writes the same way: it moves the offsets and the group stays empty.
  commit_offsets(group, topic, {{0, 9}, {1, 10}});
  CHECK(committed_offsets(group, topic, {0, 1}) == std::map<int32_t, int64_t>{{0, 9}, {1, 10}});
  CHECK(describe_group(group).members == 0);
}

// Fact 4b: the brokers keep at most offset.metadata.max.bytes (4096 by default) of commit
// metadata per partition, and refuse a longer one with OFFSET_METADATA_TOO_LARGE instead of
// truncating it. A group member's resolution state (docs/library.md, "The metadata bound")
// must therefore fit, or the commit fails: this is why the member prunes or fails itself.
TEST_CASE("commit metadata over offset.metadata.max.bytes is refused, at the bound it is kept whole") {
  const std::string topic = create_topic("fact-group-metadata", 1);
  const std::string group = unique_name("fact-group-metadata");
  HandlePtr writer = make_handle(RD_KAFKA_CONSUMER, {{"group.id", group}, {"enable.auto.commit", "false"}});
  auto commit = [&](std::size_t bytes) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    auto* e = rd_kafka_topic_partition_list_add(list, topic.c_str(), 0);
    e->offset = static_cast<int64_t>(bytes);
    std::string meta(bytes, 'm');
    e->metadata = std::malloc(bytes);  // freed by rd_kafka_topic_partition_list_destroy
    std::memcpy(e->metadata, meta.data(), bytes);
    e->metadata_size = bytes;
    rd_kafka_resp_err_t err = rd_kafka_commit(writer.get(), list, 0);
    rd_kafka_resp_err_t part = list->elems[0].err;
    rd_kafka_topic_partition_list_destroy(list);
    return err != RD_KAFKA_RESP_ERR_NO_ERROR ? err : part;
  };
  CHECK(commit(4096) == RD_KAFKA_RESP_ERR_NO_ERROR);
  CHECK(commit(4097) == RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE);

  // What was kept is the 4096-byte commit, whole: the refused one changed nothing.
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), 0);
  REQUIRE(rd_kafka_committed(writer.get(), list, 10'000) == RD_KAFKA_RESP_ERR_NO_ERROR);
  CHECK(list->elems[0].offset == 4096);
  CHECK(list->elems[0].metadata_size == 4096);
  rd_kafka_topic_partition_list_destroy(list);
  REQUIRE(rd_kafka_consumer_close(writer.get()) == RD_KAFKA_RESP_ERR_NO_ERROR);
}

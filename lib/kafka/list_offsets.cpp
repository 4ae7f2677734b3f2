#include "list_offsets.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "causal/kafka/handles.hpp"

namespace causal::kafka {
namespace {

bool settling(rd_kafka_resp_err_t err) {
  return err == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION || err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE ||
         err == RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH || err == RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH ||
         err == RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE;
}

const rd_kafka_topic_partition_t* find_in(const rd_kafka_topic_partition_list_t* l, const char* topic,
                                          std::int32_t partition) {
  return rd_kafka_topic_partition_list_find(const_cast<rd_kafka_topic_partition_list_t*>(l), topic, partition);
}

// One ListOffsets round for `round` (each element's offset an OffsetSpec: EARLIEST is
// RD_KAFKA_OFFSET_BEGINNING, LATEST is RD_KAFKA_OFFSET_END). The answers replace the
// elements' offsets and errors.
rd_kafka_resp_err_t one_round(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* round, Isolation isolation,
                              int timeout_ms) {
  AdminOptionsPtr o{rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_LISTOFFSETS)};
  char err[256];
  if (rd_kafka_AdminOptions_set_request_timeout(o.get(), timeout_ms, err, sizeof err)) {
    return RD_KAFKA_RESP_ERR__INVALID_ARG;
  }
  rd_kafka_error_t* e = rd_kafka_AdminOptions_set_isolation_level(
      o.get(), isolation == Isolation::read_committed ? RD_KAFKA_ISOLATION_LEVEL_READ_COMMITTED
                                                      : RD_KAFKA_ISOLATION_LEVEL_READ_UNCOMMITTED);
  if (e) {
    rd_kafka_error_destroy(e);
    return RD_KAFKA_RESP_ERR__INVALID_ARG;
  }
  QueuePtr q{rd_kafka_queue_new(rk)};
  rd_kafka_ListOffsets(rk, round, o.get(), q.get());
  // The request timeout bounds the answer; the margin covers librdkafka's own queueing.
  EventPtr ev{rd_kafka_queue_poll(q.get(), timeout_ms + 1000)};
  if (!ev) return RD_KAFKA_RESP_ERR__TIMED_OUT;
  if (rd_kafka_resp_err_t top = rd_kafka_event_error(ev.get())) return top;
  const rd_kafka_ListOffsets_result_t* res = rd_kafka_event_ListOffsets_result(ev.get());
  if (!res) return RD_KAFKA_RESP_ERR__BAD_MSG;
  std::size_t cnt = 0;
  const rd_kafka_ListOffsetsResultInfo_t** infos = rd_kafka_ListOffsets_result_infos(res, &cnt);
  for (int i = 0; i < round->cnt; ++i) round->elems[i].err = RD_KAFKA_RESP_ERR__BAD_MSG;  // until answered
  for (std::size_t i = 0; i < cnt; ++i) {
    const rd_kafka_topic_partition_t* a = rd_kafka_ListOffsetsResultInfo_topic_partition(infos[i]);
    auto* mine = const_cast<rd_kafka_topic_partition_t*>(find_in(round, a->topic, a->partition));
    if (!mine) continue;
    mine->err = a->err;
    // The log start and the ends are offsets, never negative. An answer without an error
    // but without an offset (librdkafka answers so while the partition's leader is gone) is
    // not one: it is taken for what it is, no leader, and asked again as while leadership
    // settles; past the timeout the caller says "Leader not available".
    if (!a->err && a->offset < 0) mine->err = RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE;
    if (!mine->err) mine->offset = a->offset;
  }
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace

rd_kafka_resp_err_t list_offsets(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* list, Isolation isolation,
                                 int timeout_ms) {
  using std::chrono::milliseconds;
  using std::chrono::steady_clock;
  const auto deadline = steady_clock::now() + milliseconds(timeout_ms);
  // Asked: indexes into `list` still without an answer; each round asks them in one call.
  std::vector<int> asked(static_cast<std::size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i) asked[static_cast<std::size_t>(i)] = i;
  for (;;) {
    ListPtr round{rd_kafka_topic_partition_list_new(static_cast<int>(asked.size()))};
    for (int i : asked) {
      rd_kafka_topic_partition_list_add(round.get(), list->elems[i].topic, list->elems[i].partition)->offset =
          list->elems[i].offset;
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
    const auto err = one_round(rk, round.get(), isolation, static_cast<int>(std::max<std::int64_t>(left.count(), 1)));
    const bool retry_time = steady_clock::now() + milliseconds(100) < deadline;
    if (err) {
      if (!settling(err) || !retry_time) return err;
    } else {
      std::vector<int> again;
      for (std::size_t k = 0; k < asked.size(); ++k) {
        const auto& e = round->elems[k];
        auto& out = list->elems[asked[k]];
        out.err = e.err;
        if (!e.err) out.offset = e.offset;
        if (e.err && settling(e.err) && retry_time) again.push_back(asked[k]);
      }
      if (again.empty()) return RD_KAFKA_RESP_ERR_NO_ERROR;
      asked = std::move(again);
    }
    std::this_thread::sleep_for(milliseconds(100));
  }
}

std::expected<void, Error> list_offsets_or_error(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* list,
                                                 Isolation isolation, int timeout_ms, std::string_view brokers) {
  const auto err = list_offsets(rk, list, isolation, timeout_ms);
  for (int i = 0; i < list->cnt; ++i) {
    if (const auto e = err ? err : list->elems[i].err) {
      return std::unexpected(runtime_error(fmt::format(
          "{}/{} on {}: cannot list offsets ({}): {}", list->elems[i].topic, list->elems[i].partition, brokers,
          isolation == Isolation::read_committed ? "read_committed" : "read_uncommitted", rd_kafka_err2str(e))));
    }
  }
  return {};
}

rd_kafka_resp_err_t query_watermarks(rd_kafka_t* rk, const std::string& topic, std::int32_t partition,
                                     Isolation isolation, std::int64_t* low, std::int64_t* high, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (auto [spec, out] : {std::pair{RD_KAFKA_OFFSET_BEGINNING, low}, std::pair{RD_KAFKA_OFFSET_END, high}}) {
    ListPtr l{rd_kafka_topic_partition_list_new(1)};
    rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), partition)->offset = spec;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (auto err = list_offsets(rk, l.get(), isolation, static_cast<int>(std::max<std::int64_t>(left.count(), 1)))) {
      return err;
    }
    if (l->elems[0].err) return l->elems[0].err;
    *out = l->elems[0].offset;
  }
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace causal::kafka

// A log read that is gone or restarted under the consumer host: its topic deleted (or deleted
// and re-created), or a position out of range (consumer_host_impl.hpp: check_partition_gone,
// watch_topics, check_topic_ids, out_of_range).
#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "consumer_host_impl.hpp"
#include "list_offsets.hpp"

namespace causal::kafka {

std::expected<void, Error> ConsumerHost::Impl::check_partition_gone() {
  std::string gone = log.partition_gone();
  if (gone.empty()) return {};
  // librdkafka's "TOPIC [P]: ..." in the topic/partition form every message uses.
  if (auto open = gone.find(" ["), close = gone.find("]: "); open != std::string::npos && close != std::string::npos &&
                                                               open < close) {
    const std::string topic = gone.substr(0, open);
    for (ChannelId c : position_channels) {  // every channel read (a member's: this generation's)
      if (host->names_.channel_topic(c) == topic) ch(c).log_replaced = true;
    }
    gone = topic + "/" + gone.substr(open + 2, close - open - 2) + gone.substr(close + 1);
  }
  return std::unexpected(runtime_error(
      fmt::format("a partition read no longer exists on the brokers at {} (its topic deleted?): {}{}", brokers, gone,
                  member ? "; nothing more is committed for its topic" : "")));
}

std::expected<void, Error> ConsumerHost::Impl::watch_topics(const std::vector<std::string>& topics, bool wait) {
  TopicIds unknown;
  for (const auto& t : topics) unknown[t] = "";
  topic_ids = TopicIdWatch(rk.get(), std::move(unknown), kTopicIdInterval);
  if (!wait) return {};
  // Where a start position depends on the IDs (a commit of an earlier topic of the same name
  // is not resumed from), their first answer is waited for. No answer (a cluster that does
  // not serve DescribeTopics, such as librdkafka's mock cluster, or one slow to answer): the
  // watch goes on asking, and a commit is checked only once its topic's ID is known.
  return topic_ids.await_first(opts.connect_timeout);
}

std::expected<void, Error> ConsumerHost::Impl::check_topic_ids() {
  for (const auto& c : topic_ids.poll()) {
    std::string partitions;
    for (ChannelId ch_id : position_channels) {  // every channel read (a member's: this generation's)
      if (host->names_.channel_topic(ch_id) != c.topic) continue;
      ch(ch_id).log_replaced = true;
      partitions += (partitions.empty() ? "" : ", ") + host->names_.channel_text(ch_id);
    }
    if (log_restart) continue;
    const std::string which = partitions.empty() ? std::string("none of its partitions was assigned")
                                                 : "its partitions read: " + partitions;
    const std::string commits = member ? "; nothing more is committed for its topic" : "";
    if (c.now.empty()) {
      log_restart = runtime_error(fmt::format(
          "a partition read no longer exists on the brokers at {} (its topic deleted?): topic {} (topic ID {}) is no "
          "longer in the cluster ({}){}",
          brokers, quoted_excerpt(c.topic), c.was, which, commits));
    } else {
      log_restart = runtime_error(fmt::format(
          "topic {} was deleted and re-created: its topic ID is {}, not {} as when this consumer started ({}); "
          "stopping, since the new log's records below the positions reached would be taken for records already "
          "delivered and dropped{}",
          quoted_excerpt(c.topic), c.now, c.was, which, commits));
    }
  }
  if (log_restart) return std::unexpected(*log_restart);
  return {};
}

std::expected<void, Error> ConsumerHost::Impl::out_of_range(rd_kafka_message_t* m) {
  const ChannelId c = channel_of(m);
  auto& st = ch(c);
  if (!st.assigned || st.failed || st.log_replaced) return {};
  const std::string topic = rd_kafka_topic_name(m->rkt);
  const Offset at = m->offset;
  // A logical offset (RD_KAFKA_OFFSET_INVALID): no position was reached. A member's partition
  // assigned before its baseline was known (generation_pending: the committed offsets could
  // not be read) had no commit for librdkafka to start from, and librdkafka stopped it. The
  // report can come after the rewind sought the partition to its baseline: it is sought again
  // to where this host reads next, asynchronously.
  if (at < 0) {
    ListPtr l(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(l.get(), rd_kafka_topic_name(m->rkt), m->partition)->offset =
        st.returned >= 0 ? st.returned : st.baseline;
    if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), l.get(), 0)) rd_kafka_error_destroy(e);
    return {};
  }
  int64_t low = 0, high = 0;
  const auto err = query_watermarks(rk.get(), topic, m->partition, Isolation::read_committed, &low, &high,
                                    static_cast<int>(opts.connect_timeout.count()));
  if (!err && at < low) {
    // Retention or DeleteRecords passed the position: those records are gone for everyone;
    // the read goes on at the log start, as a consumer that resets to the earliest does.
    if (host->observer_) {
      host->observer_->note(fmt::format("{}/{}: offset {} is below the log start {} (records deleted: retention or "
                                        "DeleteRecords); reading on from {}",
                                        topic, m->partition, at, low, low));
    }
    ListPtr l(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), m->partition)->offset = low;
    if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), l.get(), static_cast<int>(opts.connect_timeout.count()))) {
      const std::string text = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      return std::unexpected(runtime_error(fmt::format("{}/{}: cannot seek to the log start {}: {}", topic, m->partition,
                                                       low, text)));
    }
    return {};
  }
  // A restart; or, when the log's bounds could not be read, retention and a restart cannot be
  // told apart: stopped as for a restart, the side that loses nothing, saying so.
  st.log_replaced = true;
  if (log_restart) return std::unexpected(*log_restart);
  const std::string why =
      err ? fmt::format("offset {} is out of range, and the log's bounds could not be read ({}): stopping, since if the "
                        "log restarted below {}",
                        at, rd_kafka_err2str(err), at)
          : fmt::format("its log restarted below the position this consumer had reached (offset {} is out of range: the "
                        "log is now [{}, {}); the topic deleted and re-created, or its log truncated?); stopping, since",
                        at, low, high);
  log_restart = runtime_error(fmt::format(
      "{}/{}: {} the records now below {} would be taken for records already delivered and dropped{}", topic,
      m->partition, why, at, member ? "; nothing more is committed for it" : ""));
  return std::unexpected(*log_restart);
}

}  // namespace causal::kafka

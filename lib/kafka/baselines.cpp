// Where each channel starts: its start position resolved to an offset against the log's
// bounds and the group's commit (consumer_host_impl.hpp, Impl::baseline_for).
#include <algorithm>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "consumer_host_impl.hpp"
#include "list_offsets.hpp"

namespace causal::kafka {

std::expected<Offset, Error> ConsumerHost::Impl::high_watermark(const std::string& topic, std::int32_t partition) {
  ListPtr l{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), partition)->offset = RD_KAFKA_OFFSET_END;
  if (auto ok = list_offsets_or_error(rk.get(), l.get(), Isolation::read_uncommitted,
                                      static_cast<int>(opts.connect_timeout.count()), brokers);
      !ok) {
    return std::unexpected(ok.error());
  }
  return l->elems[0].offset;
}

std::expected<Offset, Error> ConsumerHost::Impl::baseline_for(const std::string& topic, std::int32_t partition,
                                                              const StartPosition& from,
                                                              const rd_kafka_topic_partition_t* committed,
                                                              Offset low, Offset lso,
                                                              std::optional<Offset> high) {
  using K = StartPosition::Kind;
  auto high_wm = [&]() -> std::expected<Offset, Error> {
    if (high) return *high;
    return high_watermark(topic, partition);
  };
  HostObserver* observer = host->observer_;
  switch (from.kind) {
    case K::beginning: return low;
    case K::lso: return lso;
    case K::end: return high_wm();
    case K::from_end: {
      auto h = high_wm();
      if (!h) return std::unexpected(h.error());
      return std::max<Offset>(low, *h - from.value);
    }
    case K::offset: {
      auto h = high_wm();
      if (!h) return std::unexpected(h.error());
      Offset baseline = std::clamp<Offset>(from.value, low, std::max<Offset>(low, *h));
      if (baseline != from.value && observer) {
        observer->note(fmt::format("{}/{}: offset {} is outside [{}, {}]; starting at {}", topic, partition,
                                   from.value, low, *h, baseline));
      }
      return baseline;
    }
    case K::committed: {
      const std::string group = opts.group.value_or("");
      if (committed && committed->err) {
        return std::unexpected(runtime_error(fmt::format("group {}: committed offset of {}/{}: {}", quoted_excerpt(group), topic,
                                                         partition, rd_kafka_err2str(committed->err))));
      }
      if (committed && committed->offset >= 0) {
        if (const std::string other = commit_of_other_log(*committed); !other.empty()) {
          if (observer) {
            observer->note(fmt::format("{}/{}: group {}'s committed offset {} {}; starting at the log start {}, "
                                       "without the commit's resolution state",
                                       topic, partition, quoted_excerpt(group), committed->offset, other, low));
          }
          return low;
        }
      }
      if (committed && committed->offset >= 0 && committed->offset < low) {
        // Retention or DeleteRecords passed the commit: the records between are gone, and the
        // read skips them; said, as --commit's member says it (group_membership.cpp).
        if (observer) {
          observer->note(fmt::format("{}/{}: the committed offset {} is below the log start {} (records deleted: "
                                     "retention or DeleteRecords); starting at the log start, without the commit's "
                                     "resolution state",
                                     topic, partition, committed->offset, low));
        }
        return low;
      }
      if (committed && committed->offset >= 0 && committed->offset <= lso) return committed->offset;
      if (committed && committed->offset >= 0) {
        // Past the LSO: within the log up to the high watermark (a commit another tool made
        // while a transaction was open); past it, the commit belongs to a log that is gone
        // (see begin_generation) and the read starts at the log start, as without one.
        auto h = high_wm();
        if (!h) return std::unexpected(h.error());
        if (committed->offset <= *h) return committed->offset;
        if (observer) {
          observer->note(fmt::format("{}/{}: group {}'s committed offset {} is past the log end {} (the topic "
                                     "re-created, or its log truncated?); starting at the log start {}",
                                     topic, partition, quoted_excerpt(group), committed->offset, *h, low));
        }
        return low;
      }
      if (observer) {
        observer->note(fmt::format("{}/{}: group {} has no committed offset; starting at the log start {}", topic,
                                   partition, quoted_excerpt(group), low));
      }
      return low;
    }
  }
  return low;
}

}  // namespace causal::kafka

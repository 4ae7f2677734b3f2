#include "causal/kafka/explain_scan.hpp"

#include <chrono>
#include <random>

#include <fmt/core.h>

#include "causal/codec.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/partition_reader.hpp"

namespace causal::kafka {

namespace {

// The longest one wait for a record lasts.
constexpr std::chrono::milliseconds kPoll{100};

std::string private_group() {
  std::random_device rd;
  return fmt::format("causal-explain-{:08x}{:08x}", rd(), rd());
}

// A consumer that never joins its (private) group and never commits. Its librdkafka log
// goes to `log` (see route_client_log), which the caller declares before the handle.
std::expected<HandlePtr, Error> scanner(const ConnectionOptions& conn, const char* isolation, ClientLog& log) {
  auto conf = make_conf(conn, {{"group.id", private_group()},
                               {"enable.auto.commit", "false"},
                               {"enable.auto.offset.store", "false"},
                               {"enable.partition.eof", "true"},
                               {"fetch.wait.max.ms", "100"}});
  if (!conf) return std::unexpected(conf.error());
  route_client_log(conf->get(), log);
  char err[512];
  if (rd_kafka_conf_set(conf->get(), "isolation.level", isolation, err, sizeof err) != RD_KAFKA_CONF_OK) {
    return std::unexpected(runtime_error(fmt::format("cannot set isolation.level: {}", err)));
  }
  rd_kafka_t* h = rd_kafka_new(RD_KAFKA_CONSUMER, conf->get(), err, sizeof err);
  if (!h) return std::unexpected(client_refused("consumer", err));
  conf.value().release();
  return HandlePtr{h};
}

}  // namespace

std::expected<LocatedSend, Error> locate_send(const ConnectionOptions& conn, const ChannelRef& channel,
                                              const std::string& sender, SeqNo seq, Offset from, Offset to,
                                              int timeout_ms, const std::function<void(Offset)>& progress) {
  LocatedSend out{channel.topic, channel.partition, sender, seq, std::nullopt, from, from, std::nullopt};
  if (from >= to) return out;
  ClientLog log;
  auto h = scanner(conn, "read_committed", log);
  if (!h) return std::unexpected(h.error());
  PartitionReader reader(std::move(*h), kPoll);
  if (auto r = reader.assign({PartitionRange{channel.topic, channel.partition, from, to}}); !r) {
    return std::unexpected(
        runtime_error(fmt::format("cannot read {}/{} from {}: {}", channel.topic, channel.partition, from, r.error())));
  }
  struct Scan : ReadHandler {
    LocatedSend& out;
    const ChannelRef& channel;
    const std::string& sender;
    SeqNo seq;
    Offset to;
    const std::function<void(Offset)>& progress;
    Names names;
    Clock clock;
    std::optional<Error> failure;

    Step record(std::size_t, const ReadRecord& r) {
      out.scanned_to = r.offset() + 1;
      if (progress && out.scanned_to % 1000 == 0) progress(out.scanned_to);
      ClockHeader hdr = find_clock_header(&r.message());
      if (!hdr.present || hdr.duplicated) return Step::more;
      if (!decode(std::span(static_cast<const std::byte*>(hdr.data), hdr.size), names, clock)) return Step::more;
      if (clock.origin && clock.origin->seq == seq && names.sender_name(clock.origin->sender) == sender) {
        out.offset = r.offset();
        return Step::stop;
      }
      return Step::more;
    }
    Step end(std::size_t, const RangeEnd& e) {
      // The log ends (at the LSO) before `to`, or the range is read.
      out.scanned_to = e.kind == RangeEnd::Kind::log_end ? std::max(out.scanned_to, std::min(e.at, to)) : to;
      return Step::done;
    }
    Step error(const ReadError& e) {
      if (e.code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || e.code == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
          e.code == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
        failure = runtime_error(fmt::format("cannot scan {}/{}: {}", channel.topic, channel.partition, e.text));
        return Step::stop;
      }
      return Step::more;  // transient: librdkafka retries
    }
  } scan{{}, out, channel, sender, seq, to, progress, {}, {}, {}};
  reader.read(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms), scan);
  if (scan.failure) return std::unexpected(*scan.failure);
  return out;
}

std::expected<std::optional<std::int64_t>, Error> first_timestamp(const ConnectionOptions& conn,
                                                                  const ChannelRef& channel, Offset at,
                                                                  int timeout_ms) {
  ClientLog log;
  auto h = scanner(conn, "read_uncommitted", log);
  if (!h) return std::unexpected(h.error());
  PartitionReader reader(std::move(*h), kPoll);
  if (auto r = reader.assign({PartitionRange{channel.topic, channel.partition, at, std::nullopt}}); !r) {
    return std::unexpected(
        runtime_error(fmt::format("cannot read {}/{} from {}: {}", channel.topic, channel.partition, at, r.error())));
  }
  struct First : ReadHandler {
    std::optional<std::int64_t> ts;
    Step record(std::size_t, const ReadRecord& r) {
      ts = r.timestamp();
      return Step::stop;
    }
  } first;
  reader.read(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms), first);
  return first.ts;
}

std::expected<std::optional<Offset>, Error> offset_for_time(const ConnectionOptions& conn, const ChannelRef& channel,
                                                            std::int64_t ts_ms, int timeout_ms) {
  ClientLog log;
  auto h = scanner(conn, "read_committed", log);
  if (!h) return std::unexpected(h.error());
  ListPtr l{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(l.get(), channel.topic.c_str(), channel.partition)->offset = ts_ms;
  auto err = rd_kafka_offsets_for_times(h->get(), l.get(), timeout_ms);
  if (!err) err = l->elems[0].err;
  if (err) {
    std::string message = fmt::format("cannot find the offset of time {} on {}/{}: {}", ts_ms, channel.topic,
                                      channel.partition, rd_kafka_err2str(err));
    return std::unexpected(runtime_error(log.with_cause(std::move(message))));
  }
  if (l->elems[0].offset < 0) return std::optional<Offset>{};
  return std::optional<Offset>{l->elems[0].offset};
}

}  // namespace causal::kafka

#include "causal/kafka/explain_scan.hpp"

#include <chrono>
#include <random>

#include <fmt/core.h>

#include "causal/codec.hpp"
#include "causal/kafka/consumer_host.hpp"

namespace causal::kafka {

namespace {

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

std::expected<void, Error> assign_at(rd_kafka_t* h, const ChannelRef& c, Offset at) {
  ListPtr l{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(l.get(), c.topic.c_str(), c.partition)->offset = at;
  if (auto err = rd_kafka_assign(h, l.get()); err) {
    return std::unexpected(runtime_error(fmt::format("cannot read {}/{} from {}: {}", c.topic, c.partition, at,
                                                     rd_kafka_err2str(err))));
  }
  return {};
}

void close(rd_kafka_t* h) {
  rd_kafka_assign(h, nullptr);
  rd_kafka_consumer_close(h);
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
  if (auto r = assign_at(h->get(), channel, from); !r) return std::unexpected(r.error());
  Names names;
  Clock clock;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::optional<Error> failure;
  while (std::chrono::steady_clock::now() < deadline) {
    MessagePtr m{rd_kafka_consumer_poll(h->get(), 100)};
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      out.scanned_to = std::max(out.scanned_to, std::min(m->offset, to));
      break;  // the log ends (at the LSO) before `to`
    }
    if (m->err) {
      if (m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || m->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
          m->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
        failure = runtime_error(fmt::format("cannot scan {}/{}: {}", channel.topic, channel.partition,
                                            rd_kafka_message_errstr(m.get())));
        break;
      }
      continue;  // transient: librdkafka retries
    }
    if (m->offset >= to) {
      out.scanned_to = to;
      break;
    }
    out.scanned_to = m->offset + 1;
    if (progress && out.scanned_to % 1000 == 0) progress(out.scanned_to);
    ClockHeader hdr = find_clock_header(m.get());
    if (!hdr.present || hdr.duplicated) continue;
    if (!decode(std::span(static_cast<const std::byte*>(hdr.data), hdr.size), names, clock)) continue;
    if (clock.origin && clock.origin->seq == seq && names.sender_name(clock.origin->sender) == sender) {
      out.offset = m->offset;
      break;
    }
    if (out.scanned_to >= to) break;
  }
  close(h->get());
  if (failure) return std::unexpected(*failure);
  return out;
}

std::expected<std::optional<std::int64_t>, Error> first_timestamp(const ConnectionOptions& conn,
                                                                  const ChannelRef& channel, Offset at,
                                                                  int timeout_ms) {
  ClientLog log;
  auto h = scanner(conn, "read_uncommitted", log);
  if (!h) return std::unexpected(h.error());
  if (auto r = assign_at(h->get(), channel, at); !r) return std::unexpected(r.error());
  std::optional<std::int64_t> ts;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    MessagePtr m{rd_kafka_consumer_poll(h->get(), 100)};
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) break;
    if (m->err) continue;
    rd_kafka_timestamp_type_t type;
    std::int64_t t = rd_kafka_message_timestamp(m.get(), &type);
    if (t >= 0) ts = t;
    break;
  }
  close(h->get());
  return ts;
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

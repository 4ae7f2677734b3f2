// Reading ranges of partitions: see causal/kafka/partition_reader.hpp.
#include "causal/kafka/partition_reader.hpp"

#include <algorithm>

#include "causal/codec.hpp"

namespace causal::kafka {

std::optional<std::int64_t> ReadRecord::timestamp() const {
  rd_kafka_timestamp_type_t type;
  const std::int64_t t = rd_kafka_message_timestamp(m_, &type);
  if (t < 0) return std::nullopt;
  return t;
}

ClockHeaders ReadRecord::clock_headers() const {
  ClockHeaders out;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m_, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR || !hdrs) return out;
  static const std::string name(kClockHeader);
  const void* v = nullptr;
  std::size_t sz = 0;
  for (std::size_t i = 0; rd_kafka_header_get(hdrs, i, name.c_str(), &v, &sz) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
    ++out.count;
    out.value = v;
    out.size = sz;
  }
  return out;
}

PartitionReader::PartitionReader(HandlePtr handle, std::chrono::milliseconds poll)
    : rk_(std::move(handle)), poll_ms_(static_cast<int>(poll.count())) {}

std::expected<PartitionReader, Error> PartitionReader::open(
    const ConnectionOptions& conn, const std::vector<std::pair<std::string, std::string>>& defaults, ClientLog& log,
    std::chrono::milliseconds poll) {
  auto rk = make_client(RD_KAFKA_CONSUMER, conn, defaults, log);
  if (!rk) return std::unexpected(rk.error());
  return PartitionReader(std::move(*rk), poll);
}

PartitionReader::~PartitionReader() {
  if (!rk_) return;
  rd_kafka_assign(rk_.get(), nullptr);
  rd_kafka_consumer_close(rk_.get());
}

std::expected<void, std::string> PartitionReader::assign(std::vector<PartitionRange> ranges) {
  ranges_ = std::move(ranges);
  done_.assign(ranges_.size(), false);
  finished_ = 0;
  ListPtr l{rd_kafka_topic_partition_list_new(static_cast<int>(std::max<std::size_t>(ranges_.size(), 1)))};
  for (const auto& r : ranges_) rd_kafka_topic_partition_list_add(l.get(), r.topic.c_str(), r.partition)->offset = r.from;
  if (auto err = rd_kafka_assign(rk_.get(), l.get()); err) return std::unexpected(std::string(rd_kafka_err2str(err)));
  return {};
}

void PartitionReader::unassign() {
  rd_kafka_assign(rk_.get(), nullptr);
  ranges_.clear();
  done_.clear();
  finished_ = 0;
}

void PartitionReader::finish(std::size_t range) {
  if (range < done_.size() && !done_[range]) {
    done_[range] = true;
    ++finished_;
  }
}

std::size_t PartitionReader::range_of(const rd_kafka_message_t* m) const {
  if (!m->rkt) return ReadError::kClient;
  const char* topic = rd_kafka_topic_name(m->rkt);
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    if (!done_[i] && ranges_[i].partition == m->partition && ranges_[i].topic == topic) return i;
  }
  return ReadError::kClient;
}

PartitionReader::Event PartitionReader::next() {
  Event e;
  MessagePtr m{rd_kafka_consumer_poll(rk_.get(), poll_ms_)};
  if (!m) return e;
  const std::size_t range = range_of(m.get());
  if (m->err) {
    // The private group is never joined: a refused lookup of its coordinator is no failure.
    if (m->err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED && !m->rkt) return e;
    if (m->rkt && range == ReadError::kClient) return e;  // a finished range's, or one not assigned now
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      e.kind = Event::Kind::end;
      e.range = range;
      e.end = RangeEnd{RangeEnd::Kind::log_end, m->offset};
      finish(range);
      return e;
    }
    e.kind = Event::Kind::error;
    e.error = ReadError{range, m->err, rd_kafka_message_errstr(m.get())};
    return e;
  }
  if (range == ReadError::kClient) return e;
  const PartitionRange& r = ranges_[range];
  e.range = range;
  if (r.to && m->offset >= *r.to) {
    e.kind = Event::Kind::end;
    e.end = RangeEnd{RangeEnd::Kind::past_range, m->offset};
    finish(range);
    return e;
  }
  e.kind = Event::Kind::record;
  e.last = r.to && m->offset + 1 >= *r.to;
  e.message = std::move(m);
  return e;
}

}  // namespace causal::kafka

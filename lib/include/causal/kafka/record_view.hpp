// A record the consumer host delivered (HostObserver::delivered), read without librdkafka
// calls of one's own: key, value, timestamp and headers. Inline and copying nothing, since
// tail writes every record through it.
//
// Thread-safety: as the message it views, which the host owns until the observer returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <librdkafka/rdkafka.h>

namespace causal::kafka {

class RecordView {
 public:
  explicit RecordView(const rd_kafka_message_t& m) : m_(const_cast<rd_kafka_message_t*>(&m)) {}

  enum class TimestampType { none, create, log_append };
  struct Timestamp {
    std::int64_t ms = -1;  // since the epoch; -1 when there is none
    TimestampType type = TimestampType::none;
  };
  Timestamp timestamp() const {
    rd_kafka_timestamp_type_t t = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    std::int64_t ms = rd_kafka_message_timestamp(m_, &t);
    return {ms, t == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? TimestampType::create
                : t == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? TimestampType::log_append
                                                          : TimestampType::none};
  }
  // Null when the record has no key (or no value: a tombstone).
  const void* key() const { return m_->key; }
  std::size_t key_size() const { return m_->key_len; }
  const void* value() const { return m_->payload; }
  std::size_t value_size() const { return m_->len; }

  // Calls f(name, value, size) for each header in the record's order; `value` is null for a
  // header with a null value. Returns the number of headers.
  template <class F>
  std::size_t for_each_header(F&& f) const {
    rd_kafka_headers_t* hdrs = nullptr;
    if (rd_kafka_message_headers(m_, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR || !hdrs) return 0;
    const char* n;
    const void* v;
    std::size_t sz;
    std::size_t i = 0;
    for (; rd_kafka_header_get_all(hdrs, i, &n, &v, &sz) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      f(std::string_view(n), v, sz);
    }
    return i;
  }

 private:
  rd_kafka_message_t* m_;  // librdkafka's accessors take it non-const; none changes it
};

}  // namespace causal::kafka

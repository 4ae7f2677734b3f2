// The causal.clock header of a consumed record (consumer_host.hpp, find_clock_header).
#include <string>

#include "causal/codec.hpp"
#include "causal/kafka/consumer_host.hpp"

namespace causal::kafka {

ClockHeader find_clock_header(const rd_kafka_message_t* msg) {
  ClockHeader h;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(msg, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR || !hdrs) return h;
  const void* v = nullptr;
  size_t sz = 0;
  static const std::string name(kClockHeader);
  if (rd_kafka_header_get(hdrs, 0, name.c_str(), &v, &sz) != RD_KAFKA_RESP_ERR_NO_ERROR) return h;
  h.present = true;
  h.data = v;
  h.size = v ? sz : 0;
  h.null_value = v == nullptr;
  const void* v2 = nullptr;
  size_t sz2 = 0;
  h.duplicated = rd_kafka_header_get(hdrs, 1, name.c_str(), &v2, &sz2) == RD_KAFKA_RESP_ERR_NO_ERROR;
  return h;
}

}  // namespace causal::kafka

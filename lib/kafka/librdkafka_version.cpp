#include "causal/kafka/librdkafka_version.hpp"

#include <array>
#include <cstddef>

#include <fmt/core.h>
#include <librdkafka/rdkafka.h>

namespace causal::kafka {

std::string librdkafka_version_text() {
  std::string text = fmt::format("librdkafka {}", rd_kafka_version_str());
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::array<char, 512> features{};
  std::size_t size = features.size();
  if (rd_kafka_conf_get(conf, "builtin.features", features.data(), &size) == RD_KAFKA_CONF_OK) {
    text += fmt::format(" (builtin.features: {})", features.data());
  }
  rd_kafka_conf_destroy(conf);
  return text;
}

}  // namespace causal::kafka

// Connection options shared by every Kafka-facing subcommand, and the librdkafka
// configuration built from them. Secrets (any property whose name contains "password",
// "secret", "sasl.jaas" or "key") are never printed: see redacted().
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/error.hpp"
#include "causal/kafka/handles.hpp"

namespace causal::kafka {

struct ConnectionOptions {
  std::string brokers;                                     // -b; falls back to $CAUSAL_BROKERS
  std::vector<std::string> properties;                     // -X key=value, in order
  std::vector<std::string> property_files;                 // -F file, in order (before -X)
};

// Builds a configuration: library defaults, then `defaults` (the subcommand's own), then
// -F files, then -X properties, then bootstrap.servers from -b (or, when neither -b nor a
// -X/-F bootstrap.servers gave one, from $CAUSAL_BROKERS). Errors name the property (value
// redacted when secret) or the file and line. No brokers from any of them is a usage
// error: there is no default broker.
std::expected<ConfPtr, Error> make_conf(const ConnectionOptions& opts,
                                        const std::vector<std::pair<std::string, std::string>>& defaults);

// The value to show for a property in output or logs.
std::string redacted(std::string_view key, std::string_view value);

// The brokers in effect (for messages), e.g. "127.0.0.1:9092": bootstrap.servers as
// make_conf sets it, whichever of -b, $CAUSAL_BROKERS, -X and -F gave it.
std::string brokers_in_effect(const ConnectionOptions& opts);

}  // namespace causal::kafka

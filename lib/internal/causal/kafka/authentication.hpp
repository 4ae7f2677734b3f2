// Whether the brokers accept the configuration's credentials, asked once before a client
// would otherwise retry a refused login until its timeout (librdkafka treats an
// authentication failure as a transient connection error and tries again forever).
//
// check_authentication does nothing for security.protocol plaintext. Otherwise it makes a
// throwaway client from a copy of `conf` and asks for the brokers' metadata until the
// first answer, a failed SASL authentication or TLS handshake, or `wait` passes:
//   - an answer, or no verdict within `wait`: ok (the caller's client goes on as usual);
//   - SASL authentication failed: runtime error "cannot authenticate to Kafka at BROKERS:
//     <librdkafka's reason>; check sasl.mechanism, sasl.username and sasl.password";
//   - TLS handshake failed: runtime error "TLS handshake with Kafka at BROKERS failed: ...".
// The reason is librdkafka's text with every secret scrubbed (config.hpp). A configuration
// that passed is remembered for the life of the process and not checked again.
//
// Thread-safety: may be called from any thread.
#pragma once

#include <chrono>
#include <expected>
#include <string>

#include <librdkafka/rdkafka.h>

#include "causal/error.hpp"

namespace causal::kafka {

std::expected<void, Error> check_authentication(
    const rd_kafka_conf_t* conf, const std::string& brokers,
    std::chrono::milliseconds wait = std::chrono::milliseconds(4000));

}  // namespace causal::kafka

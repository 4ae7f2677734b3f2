// Connection options shared by every Kafka-facing subcommand, and the librdkafka
// configuration built from them. Secrets (any property whose name contains "password",
// "secret", "sasl.jaas", "key", "token" or "credentials") are never printed: see redacted()
// for values the tool prints itself, scrub_secrets() for text librdkafka wrote.
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
  std::string cluster;                                     // --cluster: a section of the config file
  // Whether make_conf reads the configuration file (config_file.hpp). The causal tool sets
  // it; a library user opts in, so that a service embedding the library never picks up a
  // user's ~/.config/causal/causal.conf unasked. A non-empty `cluster` reads it regardless.
  bool config_file = false;
};

// Builds a configuration, each step over the one before:
//   1. library defaults, then `defaults` (the subcommand's own);
//   2. the configuration file's lines outside any section (config_file.hpp), when
//      `config_file` is set or a `cluster` is named;
//   3. its section [cluster] when --cluster is given (a usage error when there is no such
//      section, or no file);
//   4. -F files, in order; 5. -X properties, in order;
//   6. bootstrap.servers from -b; without -b, from $CAUSAL_BROKERS unless step 3, 4 or 5 set
//      bootstrap.servers (so $CAUSAL_BROKERS beats the file's lines outside any section).
// Steps 2 to 5 may not change a property causal sets itself (owned_properties.hpp): a usage
// error naming it and where it came from; the `defaults` value of such a property is set
// again after step 5.
// Errors name the property (value redacted when secret) or the file and line. No brokers from
// any of them is a usage error: there is no default broker. Every secret value set is
// remembered for scrub_secrets().
//
// With security.protocol SASL_* or SSL, make_conf also connects once with a throwaway
// client and fails at once (runtime error, quoting librdkafka) when authentication or the
// TLS handshake fails, rather than letting the caller's client retry until its timeout.
std::expected<ConfPtr, Error> make_conf(const ConnectionOptions& opts,
                                        const std::vector<std::pair<std::string, std::string>>& defaults);

// The usage errors make_conf would return for `opts` (no brokers, a refused or unknown
// property, a missing file or section), without contacting any broker: for a command that
// must refuse bad options at start-up but goes on while the brokers are away.
std::expected<void, Error> check_conf(const ConnectionOptions& opts);

// The value to show for a property in output or logs.
std::string redacted(std::string_view key, std::string_view value);

// `text` with every secret value that a configuration of this process was given (see
// make_conf) replaced by "[redacted]": for librdkafka's log lines and error texts, which
// the tool prints but does not write. Thread-safe.
std::string scrub_secrets(std::string_view text);

// The brokers in effect (for messages), e.g. "127.0.0.1:9092": bootstrap.servers as
// make_conf sets it, whichever of -b, $CAUSAL_BROKERS, -X and -F gave it.
std::string brokers_in_effect(const ConnectionOptions& opts);

// security.protocol as make_conf sets it, in lower case ("plaintext" when nothing sets it):
// for advice that names another tool, which then needs credentials of its own.
std::string security_protocol_in_effect(const ConnectionOptions& opts);

}  // namespace causal::kafka

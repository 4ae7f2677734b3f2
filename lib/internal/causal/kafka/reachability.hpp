// Whether any bootstrap broker can be reached at all, asked before a client waits out its
// timeouts (10 s and more) on brokers that are not there.
//
// probe_bootstrap connects once (TCP, no Kafka protocol) to every address of every entry of
// a bootstrap.servers list ("host:port", "[v6]:port", "SCHEME://host:port"). It fails only
// when every entry failed to resolve or every address refused the connection: that is
// certain, so the tool can say so at once. An address that accepts, or that does not answer
// within `per_address` (a firewall dropping packets, a slow route), lets the client try as
// usual. Results are remembered per list for the life of the process.
//
// Thread-safety: may be called from any thread.
#pragma once

#include <chrono>
#include <expected>
#include <string>

#include "causal/error.hpp"

namespace causal::kafka {

// The end of every "cannot reach the brokers" message: where the list can have come from
// (the fields of ConnectionOptions, in backquotes: error.hpp).
inline constexpr const char* kCheckBrokers =
    "check the broker list (`brokers`, $CAUSAL_BROKERS, or bootstrap.servers from `properties`, `property_files` or "
    "the configuration file) and that the brokers are up";

// kCheckBrokers after a request that waited `waited` for its answer, which may have been too
// short rather than the brokers down: it names the wait and the field `timeout_ms`.
std::string check_brokers_after(std::chrono::milliseconds waited);

std::expected<void, Error> probe_bootstrap(const std::string& bootstrap_servers,
                                           std::chrono::milliseconds per_address = std::chrono::milliseconds(1500));

}  // namespace causal::kafka

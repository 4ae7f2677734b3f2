// Text form of the gate's resolution state (delivered_seq), saved beside committed
// offsets, e.g. in Kafka offset-commit metadata: "causal1:" then base64 of a compact
// binary list of (topic, partition, sender, seq). Documented in docs/wire-format.md.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <vector>

#include "causal/error.hpp"
#include "causal/gate.hpp"

namespace causal {

// Entries for one channel only (commit metadata is per partition).
std::string encode_resolution_state(std::span<const ResolutionEntry> entries, const Names& names);
std::expected<std::vector<ResolutionEntry>, Error> decode_resolution_state(std::string_view text, Names& names);

}  // namespace causal

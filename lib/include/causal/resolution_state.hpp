// Text form of the gate's committed state, saved beside committed offsets, e.g. in Kafka
// offset-commit metadata: "causal1:" then base64 of a compact binary list of (topic,
// partition, sender, seq) (the resolution state, delivered_seq), or "causal2:" with the
// custody restatement appended. Documented in docs/wire-format.md.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <vector>

#include "causal/error.hpp"
#include "causal/gate.hpp"

namespace causal {

// What a node commits beside one channel's position: the resolution state, and what
// custody must restate after a restart (Gate::custody_restatement; docs/protocol.md,
// "Custody across a restart").
struct CommittedState {
  std::vector<ResolutionEntry> resolution;
  Clock custody;  // empty: nothing to restate
};

// Entries for one channel only (commit metadata is per partition). With an empty custody
// the text is "causal1:..." (the resolution state alone, as before custody was committed);
// otherwise "causal2:...", the same state followed by the custody clock in the causal.clock
// header format without origin.
std::string encode_committed_state(std::span<const ResolutionEntry> entries, const Clock& custody,
                                   const Names& names);
std::expected<CommittedState, Error> decode_committed_state(std::string_view text, Names& names);

// The resolution state alone: encode writes "causal1:"; decode reads either form and
// ignores a custody restatement.
std::string encode_resolution_state(std::span<const ResolutionEntry> entries, const Names& names);
std::expected<std::vector<ResolutionEntry>, Error> decode_resolution_state(std::string_view text, Names& names);

}  // namespace causal

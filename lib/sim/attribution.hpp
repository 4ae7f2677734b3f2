// Attribution of stalls: why a quiescent node still holds records.
//
// The walk re-derives every held head's unsatisfied claims from the head's clock by the
// protocol's rules (normalise: skip claims on the head's own channel and sequence claims
// naming its own sender; restrict: skip channels outside the scope; gate: offset claims
// against the frontier, sequence claims against delivered_seq) rather than asking the gate,
// so a gate that breaks a rule cannot explain its own stall away. It follows each claim
// along the wait chain (to the head of the claimed channel) to a root:
//   frozen_claim      a sequence claim on a send below the node's baseline: it can never
//                     be delivered here. The only attributable root (late joiners without
//                     lookups, verification.md).
//   lost_resolution   a sequence claim on a send below the committed position but at or
//                     above the original baseline: the saved resolution state should cover it
//   deliverable_held  a head whose claims are all satisfied is still held
//   missed_position   an offset claim on a channel with an empty queue whose consumer
//                     position has passed the claimed offset: a bridge/position advance missed
//   unfetched         the claimed record was never received although the world is quiescent
//   unappended_send   a sequence claim names a send that is not in any log
//   cycle             the wait chain returns to a channel it already visited
// Thread-safety: none.
#pragma once

#include <string>
#include <vector>

#include "causal/sim/world.hpp"

namespace causal::sim {

struct Root {
  enum class Kind : std::uint8_t {
    frozen_claim,
    lost_resolution,
    deliverable_held,
    missed_position,
    unfetched,
    unappended_send,
    cycle,
  } kind;
  ChannelIndex channel = 0;
  Offset offset = kNoOffset;  // offset claims; frozen claims: where the send sits
  SenderId sender = 0;        // sequence claims
  SeqNo seq = 0;
  bool signature = false;     // frozen claim: the sender has no post-baseline presence
  std::string text;
};
const char* to_string(Root::Kind k);

struct Attribution {
  std::vector<Root> roots;  // distinct roots of every held head's wait chains
  bool all_frozen() const;
  std::size_t frozen() const;
  std::size_t signature_caught() const;
  std::string summary() const;
};

// REQUIRES: n is up.
Attribution attribute(const World& w, const Node& n);

}  // namespace causal::sim

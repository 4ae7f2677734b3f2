// The runtime's transitions of a stamper, as one function each, so that the Kafka host
// (lib/kafka/relay.cpp) and the simulator (lib/sim/transitions.cpp) make the same calls in
// the same order and cannot drift apart. docs/protocol.md, "The relay's transitions", says
// what each must keep; docs/verification.md says how the simulator checks it.
//
//   new generation  a group member replaced its gate (a rebalance, or the rewind after an
//                   abort): the stamp keeps claiming what the old gate knew, because the
//                   process that delivered those records is the one that emits next
//   fencing         the transactional producer was fenced and is made again: the new
//                   producer's stamps claim what the old one's claimed, less its sends that
//                   were never acknowledged (Kafka aborted them: a claim on them could never
//                   be satisfied)
//
// Thread-safety: none; called from the thread that owns the gate and the stamper.
#pragma once

#include "causal/clock.hpp"
#include "causal/gate.hpp"
#include "causal/stamper.hpp"

namespace causal {

// New generation. REQUIRES: `stamper` still reads the old gate (which must be alive), and
// `new_gate` has not received anything yet. Joins the old gate's knowledge into every
// later stamp (Stamper::carry of the current clock), then reads `new_gate`.
void carry_into_generation(Stamper& stamper, const Gate* new_gate);

// Fencing, first half: the claims a fenced producer's successor must carry. Drops the
// fenced stamper's unacknowledged sends (Stamper::transaction_abandoned) and only then
// reads its clock. The fenced stamper is not used for sending again.
Clock claims_of_fenced(Stamper& fenced);

// Fencing, second half: the new producer's stamper carries `claimed` (from
// claims_of_fenced) and reads `gate`, the gate the old one read.
void take_over(Stamper& fresh, const Clock& claimed, const Gate* gate);

}  // namespace causal

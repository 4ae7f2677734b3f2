// Custody across a restart (docs/protocol.md, "Custody across a restart"): what a node
// saves beside each committed position so that a restarted incarnation's stamps still
// restate the causal past its state carries.
#include <stdexcept>

#include "causal/gate.hpp"
#include "gate_state.hpp"

namespace causal {

Clock Gate::custody_restatement(ChannelId ch) const {
  Clock out;
  const Clock& k = custody(ch);
  for (const OffsetClaim& c : k.offsets()) {
    if (c.channel != ch) out.append_unsorted(c);
  }
  for (const SeqClaim& c : k.seqs()) {
    if (c.channel == ch) continue;
    // Resolved here: the send was delivered here (or located below the baseline), so it
    // sits at or below the frontier of its channel. The offset claim says as much without
    // the resolution state, which the next owner of ch may not have.
    if (consumes(c.channel) && delivered_seq(c.channel, c.sender) >= c.seq) {
      if (const Offset f = frontier(c.channel); f >= 0) out.append_unsorted(OffsetClaim{c.channel, f});
    } else {
      out.append_unsorted(c);
    }
  }
  out.normalize();
  return out;
}

void Gate::restore_custody(ChannelId ch, const Clock& restated) {
  if (!consumes(ch)) throw std::logic_error("Gate::restore_custody: channel not in scope");
  state(ch).custody.join(restated);
  ++version_;
}

}  // namespace causal

// The runtime's transitions of a stamper (see causal/transitions.hpp).
#include "causal/transitions.hpp"

#include "causal/rules.hpp"

namespace causal {

using rules::on;
using rules::Rule;

void carry_into_generation(Stamper& stamper, const Gate* new_gate) {
  stamper.carry(stamper.current_clock());
  stamper.set_gate(new_gate);
}

Clock claims_of_fenced(Stamper& fenced) {
  // The order is the point: read after the drop, the clock has no sequence claim on a send
  // Kafka aborted with the fenced transaction.
  if (!on(Rule::abandon_first)) {
    Clock early = fenced.current_clock();
    fenced.transaction_abandoned();
    return early;
  }
  fenced.transaction_abandoned();
  return fenced.current_clock();
}

void take_over(Stamper& fresh, const Clock& claimed, const Gate* gate) {
  fresh.carry(claimed);
  fresh.set_gate(gate);
}

}  // namespace causal

// Fixed, scripted worlds.
//
// late_joiner: the liveness page's scenario. A transactional producer p sends s1 to a/0 and,
// before s1 is acknowledged, s2 to b/0: s2 carries the sequence claim (a/0, p, 1). While
// the transaction is still open, three joiners of {a/0, c/0} take their baselines: from the
// start (0), at the LSO (s1's offset) and at the log end (above s1). Then p commits, never
// writes a/0 again, and a relay consuming only b/0 delivers s2 and emits to c/0, passing
// the claim on in custody (it does not consume a/0, so it cannot resolve it).
// Expected: without lookups the at-log-end joiner holds the relayed record forever (a
// frozen claim, attributed, not a failure) while the from-start and at-LSO joiners drain;
// with lookups all three drain.
#pragma once

#include <string>

#include "causal/sim/world.hpp"

namespace causal::sim {

struct LateJoinerOutcome {
  WorldResult result;
  std::size_t held_start = 0, held_lso = 0, held_end = 0;  // held records at drain
};

WorldConfig late_joiner_config(bool lookups);
LateJoinerOutcome run_late_joiner(bool lookups, std::string* trace = nullptr);

// restored_lookup: the minimised world of sweep seeds 5531, 5822 and 10389. A joiner x at
// the log end of {a/0, c/0}, with lookups, resolves the relayed claim (a/0, p, 1) by a
// lookup and commits its positions with its resolution state. A second joiner y starts
// from x's committed positions and restored resolution state. The relay then passes on the
// claim (a/0, p, 3) - p's next send to a/0, also below both joiners' baselines. x asks for
// a lookup and drains; y must do the same. Expected: every node drains, no violation.
// (With a gate that counts restored resolution entries as post-baseline presence, y never
// asks for the lookup and holds the record forever: an unattributable stall.)
struct RestoredLookupOutcome {
  WorldResult result;
  std::size_t held_x = 0, held_y = 0;
};
RestoredLookupOutcome run_restored_lookup(std::string* trace = nullptr);

}  // namespace causal::sim

// Counters of a world and of a sweep: what happened, and the anti-vacuity evidence that
// every protocol mechanism was exercised (verification.md, "Anti-vacuity").
//
// CAUSAL_SIM_COUNTERS lists each counter once: (name, must_fire, description). A sweep fails
// when a must_fire counter is still zero at its end: a mechanism that never fired was not
// tested, whatever the oracle says.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace causal::sim {

// clang-format off
#define CAUSAL_SIM_COUNTERS(X)                                                                     \
  X(worlds,              false, "worlds run")                                                      \
  X(steps,               false, "scheduler steps")                                                 \
  X(records,             false, "business sends appended")                                         \
  X(deliveries,          false, "deliveries checked by the oracle")                                \
  X(pairs_checked,       true,  "ordered pairs a->b on consumed channels checked at b's delivery") \
  X(holds,               true,  "records held at least once (gate)")                               \
  X(cascades_multi,      true,  "deliveries releasing >= 2 other heads (gate)")                    \
  X(bridges_at_receive,  true,  "bridges at receive that raised a frontier (gate)")                 \
  X(head_fold_ins,       true,  "head gap fold-ins that raised a frontier (gate)")                 \
  X(position_advances,   true,  "position advances that raised a frontier (gate)")                 \
  X(position_remembered, true,  "positions reported while a head was held, applied later (gate)")  \
  X(replays_dropped,     true,  "replayed records dropped by the replay guard (gate)")             \
  X(seq_claims_resolved, true,  "blocking sequence claims satisfied by a delivered_seq advance (gate)") \
  X(seq_holds,           true,  "holds on a sequence claim (observer)")                            \
  X(seq_normalised,      true,  "resolved sequence claims dropped from a stamp")                   \
  X(txn_taught,          true,  "deliveries that taught an earlier send of the record's transaction") \
  X(seq_boundary_holds,  true,  "holds on a true sequence claim (ch,S,q) with delivered_seq = q-1") \
  X(lookups_resolved,    true,  "sequence claims satisfied by a lookup (gate)")                    \
  X(seed_delays,         true,  "holds whose blocker was an end-offset seed claim")                \
  X(scope_growths,       true,  "channels added to a running gate")                                \
  X(restarts,            true,  "node restarts from committed positions")                          \
  X(reassignments,       true,  "channels reassigned and re-fetched from an earlier position")     \
  X(commits,             true,  "transactions committed")                                          \
  X(aborts,              true,  "transactions aborted")                                            \
  X(joiners,             true,  "joiners started mid-run")                                         \
  X(generations,         true,  "gates replaced by a new generation (rebalance, rewind, fencing)")  \
  X(generations_behind,  true,  "new generations whose old gate had delivered past the committed positions") \
  X(rebalances,          true,  "rebalances (commit, then a new generation)")                      \
  X(rewinds,             true,  "aborts followed by a rewind to the committed positions")          \
  X(fencings,            true,  "producers fenced and made again, their claims carried")           \
  X(refetches,           true,  "fetches reset to a held channel's queue tail")                    \
  X(queue_tail_drops,    true,  "held records fetched again and dropped by the queue-tail check (gate)") \
  X(handovers,           true,  "scope channels moved between workers at a rebalance")           \
  X(attributed_stalls,   false, "late joiners without lookups held on frozen claims (attributed)") \
  X(frozen_roots,        false, "distinct frozen sequence claims at the root of attributed stalls") \
  X(signature_caught,    false, "frozen roots the no-post-baseline-presence signature catches")   \
  X(inversions,          false, "structural inversions (expected zero)")                           \
  X(budget_pauses,       true,  "channels paused by the hold budget (the test sweep `Knobs::held_budget` only)")                   \
  X(budget_resumes,      true,  "channels resumed by the hold budget (the test sweep `Knobs::held_budget` only)")                  \
  X(budget_over,         false, "times over the hold budget with only awaited channels fetched")
// clang-format on

struct Counters {
#define CAUSAL_SIM_FIELD(name, must, desc) std::uint64_t name = 0;
  CAUSAL_SIM_COUNTERS(CAUSAL_SIM_FIELD)
#undef CAUSAL_SIM_FIELD

  Counters& operator+=(const Counters& o) {
#define CAUSAL_SIM_ADD(name, must, desc) name += o.name;
    CAUSAL_SIM_COUNTERS(CAUSAL_SIM_ADD)
#undef CAUSAL_SIM_ADD
    return *this;
  }

  struct Entry {
    const char* name;
    bool must_fire;
    const char* description;
    std::uint64_t value;
  };
  std::vector<Entry> entries() const;
};

struct Knobs;

// The must-fire counters that are zero, except those `knobs` excuses.
std::vector<std::string> vacuous(const Counters& c, const Knobs& knobs);
// The must-fire counters whose every mechanism `knobs` switched off (--faults, --no-lookups):
// a sweep that runs no crash cannot be asked to restart a node. Only a mechanism the user
// turned off excuses a counter; the default knobs excuse none.
std::vector<std::string> excused(const Knobs& knobs);

}  // namespace causal::sim

// The seam that lets the verification suite break one protocol rule at a time.
//
// Production builds leave CAUSAL_BROKEN_RULE undefined: `rules::on(r)` is then a constant
// `true` for every rule and the compiler folds every check away, so the seam costs the
// production gate nothing. The mutant builds in tests/sim recompile the core and the
// simulator with -DCAUSAL_BROKEN_RULE=<name> (one executable per rule) and assert that
// the standard sweep fails.
#pragma once

namespace causal::rules {

enum class Rule {
  none,
  restrict,             // gate step 7: ignore claims on unconsumed channels
  fold_in,              // steps 2 and 5: bridge at receive and head gap fold-in (one mechanism)
  position_advance,     // step 10: position advance raises an empty channel's frontier
  remembered_position,  // step 10: a position reported while a head was held is kept
  replay_guard,         // step 1: offsets at or below the frontier are dropped
  self_channel,         // step 6: claims on the record's own channel are ignored
  own_sender_seq,       // step 6: sequence claims naming the record's own sender are ignored
  seq_resolution,       // steps 8-9: a delivery resolves sequence claims on its send (delivered_seq)
  own_send_claim,       // stamp item 4: the latest acknowledged own send is claimed by offset
  seq_off_by_one,       // step 8: a claim on send q needs delivered_seq >= q (the mutant: >= q - 1)
  pause_wrong_partition,  // hold budget: pause the channels blocked heads wait on, not those that hold (sim budget.cpp)
  // Off-by-one mutants: each breaks one comparison by one, in the direction named.
  frontier_off_by_one,  // step 8: a claimed offset is covered once frontier >= it (mutant: > it)
  position_off_by_one,  // step 10: a position p raises the frontier to p - 1 (mutant: to p)
  baseline_off_by_one,  // the baseline seed: add_channel(ch, b) raises the frontier to b - 1 (mutant: to b)
  // The runtime's transitions (causal/transitions.hpp, docs/protocol.md "The relay's transitions").
  carry_offsets,   // Stamper::carry joins the carried offset claims (mutant: drops them)
  carry_seqs,      // Stamper::carry joins the carried sequence claims (mutant: drops them)
  queue_tail,      // step 1: an offset not above the queue's tail is a re-read (mutant: admits the tail again)
  abandon_first,   // claims_of_fenced drops unacknowledged sends before reading the clock (mutant: after)
};

#ifndef CAUSAL_BROKEN_RULE
#define CAUSAL_BROKEN_RULE none
#endif

inline constexpr Rule broken = Rule::CAUSAL_BROKEN_RULE;

// True unless this build breaks `r`.
constexpr bool on(Rule r) { return r != broken; }

}  // namespace causal::rules

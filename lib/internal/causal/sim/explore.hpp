// The exhaustive explorer: every schedule of one small world, on the real Gate and Stamper.
//
// The random sweep samples worlds; it cannot say that no small world fails. The explorer
// fixes one small world (explore_config: up to 3 channels, a transactional source whose
// last transaction aborts, an idempotent source, one EOS relay of one of two shapes
// (RelayMode), optionally a crash and
// restart of the relay, a replay, and a late joiner at the LSO with or without lookups;
// every choice inside an event fixed, WorldConfig::fixed_choices) and enumerates every
// schedule: every order in which the enabled events can happen.
//
// Search: breadth-first over schedule length, stateless (a state is rebuilt by replaying
// its schedule from the initial world), deduplicated on World::state_hash (sound: equal
// hashes have equal futures as far as the checks go; state_hash.cpp says what is hashed),
// and by default reduced: from each state only a persistent set of the enabled events is
// expanded (World::persistent_set, reduction.cpp), which reaches every terminal state and
// every verdict of the full search (ExploreBounds::reduction = false runs the full one).
// Checks: the oracle's safety checks at every delivery of every transition, and at every
// terminal state (nothing enabled) the drain checks: completeness, stalls (attributed
// only for a late joiner without lookups held on frozen claims), EOS effects. The first
// violation found is printed as a replayable schedule (`--replay`); with stop_at_first it
// is a shortest one (breadth-first; with the reduction, then shortened by a full search of
// the shorter schedules, see explore()).
//
// Thread-safety: none; reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "causal/sim/config.hpp"
#include "causal/sim/world.hpp"

namespace causal::sim {

enum class JoinerMode : std::uint8_t { none, lso, lso_no_lookups };
const char* to_string(JoinerMode j);
std::optional<JoinerMode> parse_joiner(const std::string& s);

// The relay's shape. narrow: it consumes b/0 only and emits to c/0 (a claim on a/0 is
// relayed in custody past a channel it does not consume). wide (at most 2 channels): it
// consumes a/0 and b/0 and emits crosswise into them (a delivery from a/0 emits to b/0, one
// from b/0 to a/0), so it reads its own output, holds heads on both channels, and its
// emissions and the sources' transactions can write the two channels in opposite orders.
enum class RelayMode : std::uint8_t { narrow, wide };
const char* to_string(RelayMode r);
std::optional<RelayMode> parse_relay(const std::string& s);

struct ExploreBounds {
  int channels = 3;      // 1..3 (a/0, b/0, c/0)
  // Source records, both sources together: 1..6. The default, with the defaults below, is
  // the configuration CI runs (about 2 s); 6 records need --max-states far above its default.
  int sends = 3;
  int q_sends = -1;      // of which the idempotent source q sends (0..sends); -1: sends / 3
  bool abort = true;     // the transactional source's last transaction aborts
  bool crash = true;     // the relay crashes once, then restarts from its committed positions
  bool replay = false;   // the relay reassigns its first channel and re-reads it from its baseline
  // The runtime's transitions (lib/sim/transitions.cpp), once each:
  bool rebalance = false;  // the relay commits, then a new generation replaces its gate
  bool rewind = false;     // the relay aborts its open transaction and rewinds (a new generation)
  bool fence = false;      // the relay's producer is fenced and made again, then it rewinds
  bool refetch = false;    // a held channel of the relay is fetched again from its queue's tail
  JoinerMode joiner = JoinerMode::lso_no_lookups;
  RelayMode relay = RelayMode::narrow;
  std::size_t fetch = 1;              // records per fetch (1..64)
  std::uint64_t max_states = 4'000'000;  // a search that would exceed it stops: incomplete, a failure
  bool strip_clocks = false;          // test hook (WorldConfig::strip_clocks): must be caught
  bool reduction = true;              // partial-order reduction (persistent sets, reduction.cpp)
};

// Parses the optional events: "none", or a comma-separated list among abort, crash, replay,
// rebalance, rewind, fence, refetch (each present is on, each absent off). Sets `error` and
// returns false on an unknown name (the error names the field as `events`: error.hpp).
bool parse_explore_events(const std::string& text, ExploreBounds& b, std::string& error);

// The one world the bounds describe (documented in docs/verification.md, "The explorer").
WorldConfig explore_config(const ExploreBounds& b);
using Schedule = std::vector<std::uint32_t>;  // the index of the chosen enabled event, per step
std::string format_schedule(const Schedule& s);    // "0.3.1" ("-" when empty)
std::optional<Schedule> parse_schedule(const std::string& s);

struct Counterexample {
  Schedule schedule;
  bool at_drain = false;  // found by the drain checks at a terminal state, not at a delivery
  std::vector<Violation> violations;
};

struct ExploreResult {
  ExploreBounds bounds;
  std::uint64_t states = 0;         // distinct states (by state hash), the initial one included
  std::uint64_t transitions = 0;    // events applied from a distinct state
  std::uint64_t reduced = 0;        // states where the reduction expanded fewer than all enabled events
  std::uint64_t pruned = 0;         // enabled events the reduction did not expand, summed over states
  std::uint64_t terminal = 0;       // distinct terminal states, drain-checked
  std::uint64_t terminal_digest = 0;  // an order-free digest of their state hashes: the reduction
                                      // must reach the same set as the full search
  long double schedules = 0;        // complete schedules the distinct states stand for (with the
                                    // reduction: the schedules explored, one per equivalence class or more)
  bool schedules_exact = true;      // false: some paths reached a state after it was expanded
  std::uint64_t depth = 0;          // the longest schedule (of the reduced search's, with it)
  bool depth_exact = true;          // false: a longer path reached a state after it was expanded
  std::uint64_t violations = 0;     // transitions or terminal states that failed a check
  std::uint64_t attributed = 0;     // terminal states with an attributed (frozen-claim) stall
  std::vector<Counterexample> counterexamples;  // the first few, shortest first
  bool shortest = false;            // with the reduction and stop_at_first: the counterexample is a
                                    // shortest of all schedules (a full search of shorter ones found
                                    // none, or found it); without the reduction, always shortest
  std::uint64_t shortening_states = 0;  // states that full search of shorter schedules visited
  bool complete = true;             // false: max_states reached (not a pass)
  double seconds = 0;
  bool ok() const { return complete && violations == 0 && terminal > 0; }
};

// With stop_at_first and the reduction, a counterexample found is then shortened: a full
// search (no reduction) of every schedule shorter than it returns the shortest one there
// is, so the printed counterexample is a shortest one either way (unless that search hits
// max_states: `shortest` says).
ExploreResult explore(const ExploreBounds& b, bool stop_at_first);

// Replays `schedule` on the bounds' world, writing the step-by-step trace to `trace`; when
// the schedule ends in a terminal state, runs the drain checks too. An index that is not an
// enabled event sets `error` (naming the field as `replay`: error.hpp) and returns nullopt.
std::optional<WorldResult> replay_schedule(const ExploreBounds& b, const Schedule& schedule, std::string* trace,
                                           std::string& error);

// How a tool names what the explorer's texts refer to (apps/causal/simulate_commands.cpp).
struct ExploreWords {
  std::function<std::string(const ExploreBounds&)> bounds;  // the options that rebuild the bounds
  std::function<std::string(const ExploreBounds&, const Schedule&)> replay;  // the command that replays a schedule
};
// The step-by-step trace of the first (shortest) counterexample, replayed from its
// schedule; `reproduced` says whether the replay fails the checks again (a counterexample
// that does not replay would be a bug of the explorer). Empty when there is none.
std::string counterexample_trace(const ExploreResult& r, bool& reproduced);
// The summary: "explored" with words.bounds, each counterexample with words.replay; a search
// that reached max_states says so, naming the field as `max_states`.
std::string format_summary(const ExploreResult& r, const ExploreWords& words);
// As JSON; each counterexample's "replay" is words.replay's command.
nlohmann::json to_json(const ExploreResult& r, const ExploreWords& words);

}  // namespace causal::sim

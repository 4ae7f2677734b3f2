// Sweeps: many generated worlds, their summed counters, the anti-vacuity rule, and what
// reproduces any failing seed (its seed and knobs: a tool renders them as its command).
//
// A sweep fails when any world violates the oracle, or when a must-fire counter is zero at
// the end (counters.hpp): both are reported, and kept apart, so a mutant build can assert
// that it failed on the oracle rather than on vacuity.
// Thread-safety: run_sweep is reentrant; callbacks run on the calling thread, in seed order.
// With jobs > 1 it runs worlds on that many threads (each world is single-threaded and a
// pure function of its seed and knobs) and merges their results in seed order: the
// SweepResult is the serial one, field for field, except `seconds`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <csignal>

#include <nlohmann/json.hpp>

#include "causal/sim/config.hpp"
#include "causal/sim/counters.hpp"
#include "causal/sim/world.hpp"

namespace causal::sim {

struct SweepOptions {
  std::uint64_t first = 1;
  std::uint64_t last = 10000;  // inclusive
  Knobs knobs;
  bool stop_at_first = false;  // stop at the first world, in seed order, that violates the oracle
  unsigned jobs = 1;           // worker threads; 1 runs every world on the calling thread
  std::vector<std::uint64_t> skip;  // seeds not run (e.g. known production failures, for mutants)
  // Called after every world (for progress); `done` counts worlds run so far.
  std::function<void(std::uint64_t done, std::uint64_t total, const WorldResult&)> after_world;
  // When *stop becomes non-zero (a signal handler sets it), the sweep ends after the next
  // world it merges: SweepResult::interrupted, and the result covers the worlds merged so
  // far (a prefix of the seed range; with jobs > 1, worlds already running are finished
  // and discarded).
  const volatile std::sig_atomic_t* stop = nullptr;
};

// What replays a failing world step by step: its seed and the knobs that built it.
struct Repro {
  std::uint64_t seed = 0;
  Knobs knobs;
};
// The command a tool gives to run a Repro (causal simulate's: `causal simulate --seed N
// --trace ...`, apps/causal/simulate_commands.cpp).
using ReproCommand = std::function<std::string(const Repro&)>;

struct SweepResult {
  std::uint64_t worlds = 0;
  std::uint64_t failed_worlds = 0;
  std::uint64_t violations = 0;
  std::vector<WorldResult> failures;      // the first few failing worlds
  std::vector<Repro> repro;               // one per kept failure
  std::vector<std::string> attributed;    // a sample of attributed stalls, with their seed
  Counters counters;
  std::vector<std::string> vacuous;       // must-fire counters still at zero (excused ones aside)
  std::vector<std::string> excused;       // must-fire counters the knobs switched off (see counters.hpp)
  double seconds = 0;
  bool stopped_early = false;
  bool interrupted = false;  // SweepOptions::stop ended it before its last seed: not a pass
  bool ok() const { return failed_worlds == 0 && vacuous.empty() && !interrupted; }
};

SweepResult run_sweep(const SweepOptions& opts);
// The summary, each kept failure with the command `repro` gives for it ("reproduce: ...").
// Its counters' descriptions name knobs as fields in backquotes (counters.hpp).
std::string format_summary(const SweepResult& r, const ReproCommand& repro);
// As JSON; each kept failure's "reproduce" is the command `repro` gives.
nlohmann::json to_json(const SweepResult& r, const ReproCommand& repro);
nlohmann::json to_json(const WorldResult& r);

}  // namespace causal::sim

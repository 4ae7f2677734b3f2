// Sweeps over generated worlds (see causal/sim/sweep.hpp).
#include "causal/sim/sweep.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/core.h>

namespace causal::sim {

namespace {
constexpr std::size_t kKeptFailures = 5;
constexpr std::size_t kKeptAttributed = 5;
}  // namespace

std::string repro_command(const std::string& program, std::uint64_t seed, const Knobs& k) {
  std::string cmd = fmt::format("{} --seed {} --trace", program, seed);
  if (k.channels) cmd += fmt::format(" --channels {}", *k.channels);
  if (k.nodes) cmd += fmt::format(" --nodes {}", *k.nodes);
  if (k.sources) cmd += fmt::format(" --sources {}", *k.sources);
  if (k.sends) cmd += fmt::format(" --sends {}", *k.sends);
  const std::string faults = to_string(k.faults);
  if (faults != to_string(FaultMix{})) cmd += fmt::format(" --faults {}", faults);
  if (!k.lookups) cmd += " --no-lookups";
  if (k.step_budget) cmd += fmt::format(" --step-budget {}", *k.step_budget);
  if (k.stateful_restarts) cmd += " --stateful-restarts";
  if (k.held_budget) cmd += fmt::format(" --held-budget {}", *k.held_budget);
  return cmd;
}

SweepResult run_sweep(const SweepOptions& opts) {
  SweepResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t total = opts.last >= opts.first ? opts.last - opts.first + 1 : 0;
  for (std::uint64_t seed = opts.first; seed <= opts.last && seed >= opts.first; ++seed) {
    if (std::find(opts.skip.begin(), opts.skip.end(), seed) != opts.skip.end()) continue;
    const WorldConfig cfg = generate_config(seed, opts.knobs);
    World world(cfg);
    WorldResult wr = world.run();
    ++r.worlds;
    r.counters += wr.counters;
    r.violations += wr.violation_count;
    for (const std::string& a : wr.attributed)
      if (r.attributed.size() < kKeptAttributed) r.attributed.push_back(fmt::format("seed {}: {}", seed, a));
    const bool failed = !wr.ok();
    if (failed) {
      ++r.failed_worlds;
      if (r.failures.size() < kKeptFailures) {
        r.repro.push_back(repro_command(opts.program, seed, opts.knobs));
        r.failures.push_back(wr);
      }
    }
    if (opts.after_world) opts.after_world(r.worlds, total, wr);
    if (failed && opts.stop_at_first) {
      r.stopped_early = true;
      break;
    }
    if (seed == UINT64_MAX) break;
    if (opts.stop && *opts.stop && seed < opts.last) {
      r.interrupted = true;
      break;
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Anti-vacuity is a property of a whole sweep; a sweep stopped at its first failure has
  // already failed, and a single world cannot be expected to fire every mechanism.
  // An interrupted sweep is not judged for vacuity either: it is not a pass whatever it shows.
  if (!r.stopped_early && !r.interrupted && r.worlds >= 100) r.vacuous = vacuous(r.counters, opts.knobs);
  r.excused = excused(opts.knobs);
  return r;
}

std::string format_summary(const SweepResult& r) {
  std::string s;
  const double rate = r.seconds > 0 ? static_cast<double>(r.worlds) / r.seconds : 0;
  s += fmt::format("worlds {}  steps {}  violations {} in {} worlds  {:.1f}s  {:.0f} worlds/s\n", r.worlds,
                   r.counters.steps, r.violations, r.failed_worlds, r.seconds, rate);
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    const WorldResult& w = r.failures[i];
    s += fmt::format("FAILED seed {} ({} violations):\n", w.seed, w.violation_count);
    for (const Violation& v : w.violations) s += fmt::format("  {}: {}\n", to_string(v.kind), v.detail);
    s += fmt::format("  reproduce: {}\n", r.repro[i]);
  }
  s += "counters:\n";
  for (const auto& e : r.counters.entries()) {
    const bool is_excused = std::find(r.excused.begin(), r.excused.end(), e.name) != r.excused.end();
    s += fmt::format("  {:<20} {:>12}  {}{}\n", e.name, e.value, e.description,
                     (e.must_fire && e.value == 0) ? (is_excused ? "  (not required: switched off)" : "  <-- MUST FIRE")
                                                   : "");
  }
  if (r.counters.frozen_roots > 0) {
    s += fmt::format("presence signature caught {} of {} frozen roots ({:.1f}%)\n", r.counters.signature_caught,
                     r.counters.frozen_roots,
                     100.0 * static_cast<double>(r.counters.signature_caught) / static_cast<double>(r.counters.frozen_roots));
  }
  for (const std::string& a : r.attributed) s += fmt::format("attributed: {}\n", a);
  if (!r.vacuous.empty()) {
    s += "VACUOUS: these mechanisms never fired:";
    for (const std::string& v : r.vacuous) s += " " + v;
    s += "\n";
  }
  if (r.interrupted) s += "INTERRUPTED: the sweep ended before its last seed; the worlds above are all it ran\n";
  s += r.ok() ? "PASS\n" : r.interrupted && r.failed_worlds == 0 ? "INCOMPLETE\n" : "FAIL\n";
  return s;
}

nlohmann::json to_json(const WorldResult& w) {
  nlohmann::json j;
  j["seed"] = w.seed;
  j["drained"] = w.drained;
  j["steps"] = w.steps;
  j["violation_count"] = w.violation_count;
  j["violations"] = nlohmann::json::array();
  for (const Violation& v : w.violations) j["violations"].push_back({{"kind", to_string(v.kind)}, {"detail", v.detail}});
  j["attributed"] = w.attributed;
  nlohmann::json c;
  for (const auto& e : w.counters.entries()) c[e.name] = e.value;
  j["counters"] = c;
  return j;
}

nlohmann::json to_json(const SweepResult& r) {
  nlohmann::json j;
  j["ok"] = r.ok();
  j["worlds"] = r.worlds;
  j["failed_worlds"] = r.failed_worlds;
  j["violations"] = r.violations;
  j["seconds"] = r.seconds;
  j["worlds_per_second"] = r.seconds > 0 ? static_cast<double>(r.worlds) / r.seconds : 0.0;
  j["stopped_early"] = r.stopped_early;
  j["interrupted"] = r.interrupted;
  j["excused"] = r.excused;
  nlohmann::json c;
  for (const auto& e : r.counters.entries()) c[e.name] = e.value;
  j["counters"] = c;
  j["vacuous"] = r.vacuous;
  j["attributed_sample"] = r.attributed;
  j["failures"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    nlohmann::json f = to_json(r.failures[i]);
    f["reproduce"] = r.repro[i];
    j["failures"].push_back(f);
  }
  return j;
}

}  // namespace causal::sim

// causal simulate: the deterministic verification simulator and its oracle
// (docs/verification.md). Option parsing here; the work is causal::sim::run_sweep and
// causal::sim::World. Exit status: 0 every world passed and every must-fire counter fired;
// 1 (Errc::runtime) a violation, a stall that is not an attributed frozen claim, a world
// that did not drain, or a vacuous counter; 2 usage.
#include <algorithm>
#include <iterator>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "causal/eprint.hpp"
#include "causal/excerpt.hpp"
#include "causal/sim/explore.hpp"
#include "causal/sim/scenarios.hpp"
#include "causal/sim/sweep.hpp"
#include "option_words.hpp"
#include "simulate_commands.hpp"
#include "stop_signal.hpp"
#include "subcommands.hpp"

namespace causal::cli {

namespace {

struct SimulateOptions {
  std::string seeds = "1..10000";
  std::optional<std::uint64_t> seed;
  bool trace = false;
  Format format = Format::text;
  std::optional<int> channels, nodes, sources, sends;
  std::string faults = "all";
  bool no_lookups = false;
  bool stateful_restarts = false;
  std::optional<std::uint64_t> step_budget;
  bool stop_at_first = false;
  unsigned jobs = 1;
  std::string scenario;
  bool exhaustive = false;
  std::string events = "abort,crash";
  std::string joiner = "lso-no-lookups";
  std::string relay = "narrow";
  std::size_t fetch = 1;
  std::uint64_t max_states = 4'000'000;
  bool no_reduction = false;
  std::optional<int> q_sends;
  std::optional<std::string> replay;
};

std::expected<std::pair<std::uint64_t, std::uint64_t>, Error> parse_range(const std::string& s) {
  const auto dots = s.find("..");
  try {
    if (dots == std::string::npos) {
      std::size_t used = 0;
      const std::uint64_t n = std::stoull(s, &used);
      if (used != s.size()) throw std::invalid_argument(s);
      return std::pair{n, n};
    }
    std::size_t u1 = 0, u2 = 0;
    const std::string a = s.substr(0, dots), b = s.substr(dots + 2);
    const std::uint64_t lo = std::stoull(a, &u1), hi = std::stoull(b, &u2);
    if (u1 != a.size() || u2 != b.size() || hi < lo) throw std::invalid_argument(s);
    return std::pair{lo, hi};
  } catch (const std::exception&) {
    return std::unexpected(usage_error(fmt::format("--seeds {}: expected A..B with A <= B, e.g. 1..10000", quoted_excerpt(s))));
  }
}

Outcome run_restored_lookup(const SimulateOptions& o) {
  std::string trace;
  const sim::RestoredLookupOutcome r = sim::run_restored_lookup(o.trace ? &trace : nullptr);
  if (o.format == Format::json) {
    nlohmann::json j = sim::to_json(r.result);
    j["held"] = {{"x", r.held_x}, {"y", r.held_y}};
    fmt::print("{}\n", j.dump(2));
  } else {
    std::fputs(trace.c_str(), stdout);
    fmt::print("restored lookup: held at drain x {}, y {}\n", r.held_x, r.held_y);
    for (const auto& v : r.result.violations) fmt::print("VIOLATION {}: {}\n", sim::to_string(v.kind), v.detail);
  }
  if (!r.result.ok()) return std::unexpected(runtime_error("the restored-lookup world violated the oracle"));
  return {};
}

Outcome run_late_joiner(const SimulateOptions& o) {
  std::string trace;
  const sim::LateJoinerOutcome r = sim::run_late_joiner(!o.no_lookups, o.trace ? &trace : nullptr);
  if (o.format == Format::json) {
    nlohmann::json j = sim::to_json(r.result);
    j["held"] = {{"j-start", r.held_start}, {"j-lso", r.held_lso}, {"j-end", r.held_end}};
    fmt::print("{}\n", j.dump(2));
  } else {
    std::fputs(trace.c_str(), stdout);
    fmt::print("late joiner ({}): held at drain j-start {}, j-lso {}, j-end {}\n",
               o.no_lookups ? "no lookups" : "lookups", r.held_start, r.held_lso, r.held_end);
    for (const auto& a : r.result.attributed) fmt::print("attributed: {}\n", a);
    for (const auto& v : r.result.violations) fmt::print("VIOLATION {}: {}\n", sim::to_string(v.kind), v.detail);
  }
  if (!r.result.ok()) return std::unexpected(runtime_error("the late-joiner world violated the oracle"));
  return {};
}

// The fixed worlds of --scenario, by name: what it accepts and what completion offers.
struct Scenario {
  const char* name;
  Outcome (*run)(const SimulateOptions&);
};
constexpr Scenario kScenarios[] = {
    {"late-joiner", run_late_joiner},
    {"restored-lookup", run_restored_lookup},
};

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& s : kScenarios) names.emplace_back(s.name);
  return names;
}

Outcome run_scenario(const SimulateOptions& o) {
  const auto* s = std::find_if(std::begin(kScenarios), std::end(kScenarios),
                               [&](const Scenario& sc) { return o.scenario == sc.name; });
  if (s == std::end(kScenarios)) {
    std::string expected;
    const auto names = scenario_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
      expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    return std::unexpected(usage_error(fmt::format("--scenario {}: expected {}", quoted_excerpt(o.scenario), expected)));
  }
  // A scenario is one fixed world: the generator's knobs would be silently ignored.
  if (o.channels || o.nodes || o.sources || o.sends || o.step_budget || o.stateful_restarts || o.faults != "all" ||
      o.stop_at_first) {
    return std::unexpected(usage_error("--scenario runs a fixed world: it takes --trace, --format and (late-joiner) "
                                       "--no-lookups; the sweep's knobs do not apply"));
  }
  if (o.no_lookups && o.scenario != "late-joiner") {
    return std::unexpected(usage_error("--no-lookups applies to --scenario late-joiner only"));
  }
  return s->run(o);
}

// --exhaustive: every schedule of one small world (causal/sim/explore.hpp).
Outcome run_exhaustive(const SimulateOptions& o) {
  sim::ExploreBounds b;
  b.channels = o.channels.value_or(3);
  b.sends = o.sends.value_or(b.sends);
  if (b.channels > 3) return std::unexpected(usage_error("--exhaustive: --channels must be 1..3"));
  if (b.sends < 1 || b.sends > 6) return std::unexpected(usage_error("--exhaustive: --sends must be 1..6"));
  std::string err;
  if (!sim::parse_explore_events(o.events, b, err)) return std::unexpected(usage_error(err));
  const auto joiner = sim::parse_joiner(o.joiner);
  if (!joiner)
    return std::unexpected(usage_error(fmt::format("--joiner {}: expected none, lso or lso-no-lookups", quoted_excerpt(o.joiner))));
  b.joiner = *joiner;
  const auto relay = sim::parse_relay(o.relay);
  if (!relay) return std::unexpected(usage_error(fmt::format("--relay {}: expected narrow or wide", quoted_excerpt(o.relay))));
  b.relay = *relay;
  if (b.relay == sim::RelayMode::wide && b.channels > 2)
    return std::unexpected(usage_error("--exhaustive: --relay wide needs --channels 1 or 2"));
  b.fetch = o.fetch;
  b.max_states = o.max_states;
  b.reduction = !o.no_reduction;
  if (o.q_sends) {
    if (*o.q_sends > b.sends)
      return std::unexpected(usage_error(fmt::format("--q-sends {} exceeds --sends {}", *o.q_sends, b.sends)));
    b.q_sends = *o.q_sends;
  }
  if (o.replay) {
    const auto schedule = sim::parse_schedule(*o.replay);
    if (!schedule)
      return std::unexpected(usage_error(fmt::format("--replay {}: expected event indices like 0.3.1", quoted_excerpt(*o.replay))));
    std::string trace;
    const auto r = sim::replay_schedule(b, *schedule, o.format == Format::json ? nullptr : &trace, err);
    if (!r) return std::unexpected(usage_error(err));
    if (o.format == Format::json) {
      fmt::print("{}\n", sim::to_json(*r).dump(2));
    } else {
      std::fputs(trace.c_str(), stdout);
      fmt::print("schedule {}: {} events, {} deliveries checked, {} violations\n", *o.replay, schedule->size(),
                 r->counters.deliveries, r->violation_count);
    }
    if (!r->ok()) return std::unexpected(runtime_error("the schedule violates the oracle"));
    return {};
  }
  const sim::ExploreResult r = sim::explore(b, o.stop_at_first);
  const sim::ExploreWords words = explore_words("causal simulate");
  if (o.format == Format::json) {
    fmt::print("{}\n", sim::to_json(r, words).dump(2));
  } else {
    std::fputs(with_option_words(sim::format_summary(r, words)).c_str(), stdout);
    bool reproduced = false;
    const std::string ce = with_option_words(sim::counterexample_trace(r, reproduced));
    if (!ce.empty()) fmt::print("shortest counterexample, step by step:\n{}", ce);
  }
  if (!r.complete)
    return std::unexpected(runtime_error(fmt::format("the state limit of {} was reached: nothing is proved", b.max_states)));
  if (r.violations > 0)
    return std::unexpected(runtime_error(fmt::format("{} violations; shortest: {}", r.violations,
                                                     replay_command("causal simulate", r.bounds,
                                                                    r.counterexamples.front().schedule))));
  if (!r.ok()) return std::unexpected(runtime_error("no terminal state was checked"));
  return {};
}

Outcome run_simulate(const SimulateOptions& o) {
  if (o.exhaustive) {
    if (o.trace) return std::unexpected(usage_error("--exhaustive prints its counterexamples; --replay SCHEDULE prints one schedule"));
    if (o.nodes || o.sources || o.step_budget || o.no_lookups || o.stateful_restarts || o.faults != "all")
      return std::unexpected(usage_error("--exhaustive takes --channels, --sends, --events, --joiner, --relay, --fetch, "
                                         "--q-sends, --max-states, --no-reduction, --replay and --stop-at-first; the sweep's knobs do "
                                         "not apply"));
    return run_exhaustive(o);
  }
  if (o.replay) return std::unexpected(usage_error("--replay needs --exhaustive (and the same bounds)"));
  // --trace prints one world step by step: it needs that one world, and text.
  if (o.trace && !o.seed && o.scenario.empty()) {
    return std::unexpected(usage_error("--trace prints one world: give --seed N or --scenario NAME"));
  }
  if (o.trace && o.format == Format::json) {
    return std::unexpected(usage_error("--trace prints text: it excludes --format json"));
  }
  if (!o.scenario.empty()) return run_scenario(o);
  sim::Knobs knobs;
  knobs.channels = o.channels;
  knobs.nodes = o.nodes;
  knobs.sources = o.sources;
  knobs.sends = o.sends;
  knobs.lookups = !o.no_lookups;
  knobs.step_budget = o.step_budget;
  knobs.stateful_restarts = o.stateful_restarts;
  std::string err;
  const auto faults = sim::parse_faults(o.faults, err);
  if (!faults) return std::unexpected(usage_error("--faults: " + err));
  knobs.faults = *faults;

  if (o.seed) {
    std::string trace;
    sim::World world(sim::generate_config(*o.seed, knobs), o.trace ? &trace : nullptr);
    const sim::WorldResult r = world.run();
    if (o.format == Format::json) {
      fmt::print("{}\n", sim::to_json(r).dump(2));
    } else {
      std::fputs(trace.c_str(), stdout);
      fmt::print("seed {}: {} after {} steps, {} deliveries checked, {} violations\n", r.seed,
                 r.drained ? "drained" : "NOT drained", r.steps, r.counters.deliveries, r.violation_count);
      for (const auto& a : r.attributed) fmt::print("attributed: {}\n", a);
      for (const auto& v : r.violations) fmt::print("VIOLATION {}: {}\n", sim::to_string(v.kind), v.detail);
    }
    if (!r.ok())
      return std::unexpected(runtime_error(fmt::format("seed {} violates the oracle; replay it with: {}", *o.seed,
                                                       repro_command("causal simulate", {*o.seed, knobs}))));
    return {};
  }

  const auto range = parse_range(o.seeds);
  if (!range) return std::unexpected(range.error());
  sim::SweepOptions so;
  so.first = range->first;
  so.last = range->second;
  so.knobs = knobs;
  so.stop_at_first = o.stop_at_first;
  so.jobs = o.jobs;
  install_stop_signals();  // SIGINT/SIGTERM: end after the current world, report what ran, exit 130
  so.stop = &g_stop;
  if (show_progress()) {
    auto last = std::chrono::steady_clock::now();
    const auto t0 = last;
    std::uint64_t failing = 0;
    so.after_world = [last, t0, failing](std::uint64_t done, std::uint64_t total, const sim::WorldResult& w) mutable {
      if (!w.ok()) ++failing;
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(250) && done != total) return;
      last = now;
      const double s = std::chrono::duration<double>(now - t0).count();
      eprint("\r  {}/{} worlds  {:.0f}/s  {} failing ", done, total, s > 0 ? static_cast<double>(done) / s : 0.0,
                 failing);
      if (done == total) eprint("\n");
    };
  }
  const sim::SweepResult r = sim::run_sweep(so);
  const sim::ReproCommand repro = repro_commands("causal simulate");
  if (o.format == Format::json) {
    fmt::print("{}\n", sim::to_json(r, repro).dump(2));
  } else {
    std::fputs(with_option_words(sim::format_summary(r, repro)).c_str(), stdout);
  }
  if (!r.ok()) {
    if (r.interrupted) {
      return std::unexpected(Error{
          Errc::interrupted, fmt::format("interrupted after {} of {} worlds{}: not a pass", r.worlds,
                                         so.last - so.first + 1,
                                         r.failed_worlds ? fmt::format(" ({} violate the oracle; first: {})",
                                                                       r.failed_worlds, repro(r.repro.front()))
                                                         : std::string())});
    }
    if (r.failed_worlds > 0)
      return std::unexpected(runtime_error(fmt::format("{} of {} worlds violate the oracle; first: {}", r.failed_worlds,
                                                       r.worlds, repro(r.repro.front()))));
    return std::unexpected(runtime_error("vacuous sweep: some mechanisms never fired (see VACUOUS above); "
                                         "sweep more seeds or enable more faults"));
  }
  return {};
}

}  // namespace

void setup_simulate(CLI::App& sub, Outcome& result) {
  auto opts = std::make_shared<SimulateOptions>();
  auto* seeds = sub.add_option("--seeds", opts->seeds, "Sweep the worlds of seeds A..B (inclusive)")->default_str("1..10000");
  auto* seed = sub.add_option("--seed", opts->seed, "Run the single world of seed N (add --trace to see every step)")
                   ->check(whole_number(0))
                   ->excludes(seeds);
  sub.add_flag("--trace", opts->trace, "With --seed or --scenario: print the world step by step");
  add_format_option(sub, opts->format, {Format::text, Format::json}, Format::text);
  sub.add_option("--channels", opts->channels, "Channels per world (1..64; default: drawn from the seed; "
                 "with --exhaustive 1..3, default 3)")
      ->check(CLI::Range(1, 64));
  sub.add_option("--nodes", opts->nodes, "Worker nodes per world (0..8; default: drawn)")->check(CLI::Range(0, 8));
  sub.add_option("--sources", opts->sources, "Source producers per world (1..8; default: drawn)")
      ->check(CLI::Range(1, 8));
  sub.add_option("--sends", opts->sends, "Sends per source producer (default: drawn; with --exhaustive, source records "
                 "in all, 1..6, default 3)")->check(CLI::Range(0, 100000));
  completes(sub.add_option("--faults", opts->faults,
                           "Fault mix: all, none, or a list of crash,abort,replay,growth,joiners,nolookup,"
                           "rebalance,rewind,fence,refetch,handover (only those; prefix '-' to remove one, e.g. "
                           "all,-crash)")
                ->default_str("all"),
            {ValueCompletion::Kind::list_of, sim::fault_names()});
  sub.add_flag("--no-lookups", opts->no_lookups, "Run every node and joiner without frozen-claim lookups");
  sub.add_flag("--stateful-restarts", opts->stateful_restarts,
               "Truth mode: a restarted node inherits what it had committed (not promised by the "
               "protocol; measures the gap, see docs/verification.md)");
  sub.add_option("--step-budget", opts->step_budget, "Steps a world may take to drain (default 400000)")
      ->check(whole_number(1));
  sub.add_flag("--stop-at-first", opts->stop_at_first, "Stop the sweep at the first failing world");
  auto* jobs = sub.add_option("--jobs", opts->jobs,
                 "Run a sweep's worlds on N threads (1..256); the output is that of --jobs 1 but for the timing")
      ->default_str("1")
      ->check(CLI::Range(1, 256));
  auto* scenario = sub.add_option("--scenario", opts->scenario,
                                  "Run a fixed world instead: late-joiner (the liveness page's scenario; "
                                  "with --no-lookups the at-log-end joiner stays held) or restored-lookup "
                                  "(a node restored from committed state must still ask for lookups)")
                       ->excludes(seed)
                       ->excludes(seeds);
  completes(scenario, {ValueCompletion::Kind::one_of, scenario_names()});
  auto* exhaustive = sub.add_flag("--exhaustive", opts->exhaustive,
                                  "Explore every schedule of one small world (bounds: --channels 1..3, "
                                  "--sends 1..6, --q-sends, --events, --joiner, --relay, --fetch) instead of sweeping seeds")
                         ->excludes(seed)
                         ->excludes(seeds)
                         ->excludes(scenario)
                         ->excludes(jobs);
  sub.add_option("--events", opts->events,
                 "With --exhaustive: optional events, none or a list of abort,crash,replay,rebalance,rewind,"
                 "fence,refetch")
      ->default_str("abort,crash")
      ->needs(exhaustive);
  completes(sub.add_option("--joiner", opts->joiner,
                           "With --exhaustive: the late joiner at the LSO: none, lso (with lookups) or "
                           "lso-no-lookups")
                ->default_str("lso-no-lookups")
                ->needs(exhaustive),
            {ValueCompletion::Kind::one_of, {"none", "lso", "lso-no-lookups"}});
  completes(sub.add_option("--relay", opts->relay,
                           "With --exhaustive: the relay r: narrow (consumes b/0, emits to c/0) or wide "
                           "(consumes a/0 and b/0, emits crosswise into them; --channels 1 or 2)")
                ->default_str("narrow")
                ->needs(exhaustive),
            {ValueCompletion::Kind::one_of, {"narrow", "wide"}});
  sub.add_option("--q-sends", opts->q_sends,
                 "With --exhaustive: how many of the --sends records the idempotent source q sends "
                 "(0..6, at most --sends; default a third, rounded down)")
      ->check(CLI::Range(0, 6))
      ->needs(exhaustive);
  sub.add_option("--fetch", opts->fetch, "With --exhaustive: records per fetch (1..64)")
      ->default_str("1")
      ->check(CLI::Range(1, 64))
      ->needs(exhaustive);
  sub.add_option("--max-states", opts->max_states,
                 "With --exhaustive: stop (and fail) after this many distinct states")
      ->default_str("4000000")
      ->check(whole_number(1))
      ->needs(exhaustive);
  sub.add_flag("--no-reduction", opts->no_reduction,
               "With --exhaustive: expand every enabled event at every state (no partial-order "
               "reduction); slower, same verdicts, shortest counterexamples")
      ->needs(exhaustive);
  sub.add_option("--replay", opts->replay,
                 "With --exhaustive and the same bounds: print the schedule (event indices, e.g. 0.3.1) "
                 "step by step")
      ->needs(exhaustive);
  sub.footer(
      "Examples:\n"
      "  causal simulate                                 # the standard sweep (seeds 1..10000)\n"
      "  causal simulate --seeds 1..1000000              # the long sweep (one million worlds)\n"
      "  causal simulate --seed 416 --trace              # replay one world step by step\n"
      "  causal simulate --seeds 1..500 --channels 64 --faults none --format json\n"
      "  causal simulate --scenario late-joiner --no-lookups --trace\n"
      "  causal simulate --seeds 1..10000 --faults all,-crash --no-lookups\n"
      "  causal simulate --exhaustive --channels 3 --sends 3 --events abort,crash --joiner lso-no-lookups\n"
      "Exit status: 0 all worlds passed and every must-fire counter fired; 1 a violation, an\n"
      "unattributed stall, a world that did not drain, or a vacuous counter; 2 usage error;\n"
      "130 a sweep interrupted (SIGINT, SIGTERM) before its last seed.\n"
      "See causal-simulate(1) and docs/verification.md.");
  sub.callback([opts, &result] { result = run_simulate(*opts); });
}

}  // namespace causal::cli

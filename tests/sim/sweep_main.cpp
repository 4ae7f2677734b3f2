// sim_sweep: the sweep driver the CTest tests run, built once against the production core
// and once per mutant (tests/sim/CMakeLists.txt). `causal simulate` is the user-facing
// equivalent; this driver exists because mutant builds link no Kafka and no CLI.
//
//   sim_sweep --seeds A..B [--jobs N] [--stop-at-first] [--expect pass|violation|failure] [knobs]
//   (knobs: --channels --nodes --sources --sends --step-budget --faults --no-lookups
//    --stateful-restarts --held-budget N)
//   sim_sweep --seed N [--trace] [knobs]
//   sim_sweep --exhaustive [--channels N] [--sends N] [--events LIST] [--joiner MODE]
//             [--relay narrow|wide] [--q-sends N] [--fetch N] [--max-states N] [--no-reduction] [--stop-at-first] [--expect ...]
//   sim_sweep --exhaustive [bounds] --replay SCHEDULE
//
// --expect pass       exit 0 iff the sweep passed (no violation, no vacuous counter)
// --expect violation  exit 0 iff some world violated the oracle (a mutant must be caught by
//                     the oracle itself: a violation, stall or drain failure - not a crash)
// --expect failure    exit 0 iff the sweep failed in any way (violation or vacuity)
// --jobs N            run worlds on N threads (1..256, default 1); every byte printed is
//                     that of --jobs 1 except the timing fields of the summary's first line
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/core.h>

#include "broken_rule.hpp"
#include "causal/sim/explore.hpp"
#include "causal/sim/sweep.hpp"
#include "option_words.hpp"
#include "simulate_commands.hpp"

using namespace causal::sim;
using causal::cli::explore_words;
using causal::cli::repro_commands;
using causal::cli::with_option_words;

namespace {

bool parse_u64(const char* s, std::uint64_t& v) {
  const char* end = s + std::strlen(s);
  auto r = std::from_chars(s, end, v);
  return r.ec == std::errc() && r.ptr == end;
}

int usage(const char* msg) {
  fmt::print(stderr, "sim_sweep: {}\n", msg);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  SweepOptions opts;
  const std::string program = argv[0];
  std::string expect = "pass";
  std::optional<std::uint64_t> single;
  bool trace = false;
  bool exhaustive = false;
  ExploreBounds bounds;
  std::optional<std::string> replay;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    std::uint64_t n = 0;
    if (a == "--seeds") {
      const char* v = value();
      if (!v) return usage("--seeds needs A..B");
      const std::string s = v;
      const auto dots = s.find("..");
      if (dots == std::string::npos || !parse_u64(s.substr(0, dots).c_str(), opts.first) ||
          !parse_u64(s.substr(dots + 2).c_str(), opts.last))
        return usage("--seeds needs A..B");
    } else if (a == "--seed") {
      const char* v = value();
      if (!v || !parse_u64(v, n)) return usage("--seed needs a number");
      single = n;
    } else if (a == "--skip") {
      // Comma-separated seeds not to run (mutant sweeps skip seeds production fails).
      const char* v = value();
      if (!v) return usage("--skip needs seeds");
      std::string list = v;
      std::size_t at = 0;
      while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        if (!parse_u64(list.substr(at, comma - at).c_str(), n)) return usage("--skip needs comma-separated seeds");
        opts.skip.push_back(n);
        at = comma + 1;
      }
    } else if (a == "--jobs") {
      const char* v = value();
      if (!v || !parse_u64(v, n) || n < 1 || n > 256) return usage("--jobs needs a number of threads, 1..256");
      opts.jobs = static_cast<unsigned>(n);
    } else if (a == "--exhaustive") {
      exhaustive = true;
    } else if (a == "--events") {
      const char* v = value();
      std::string err;
      if (!v || !parse_explore_events(v, bounds, err)) {
        return usage(err.empty() ? "--events needs a list" : with_option_words(err).c_str());
      }
    } else if (a == "--joiner") {
      const char* v = value();
      const auto j = v ? parse_joiner(v) : std::nullopt;
      if (!j) return usage("--joiner needs none|lso|lso-no-lookups");
      bounds.joiner = *j;
    } else if (a == "--relay") {
      const char* v = value();
      const auto r = v ? parse_relay(v) : std::nullopt;
      if (!r) return usage("--relay needs narrow|wide");
      bounds.relay = *r;
    } else if (a == "--fetch" || a == "--max-states") {
      const char* v = value();
      if (!v || !parse_u64(v, n) || n == 0) return usage("--fetch and --max-states need a positive number");
      if (a == "--fetch") bounds.fetch = n;
      if (a == "--max-states") bounds.max_states = n;
    } else if (a == "--q-sends") {
      const char* v = value();
      if (!v || !parse_u64(v, n) || n > 6) return usage("--q-sends needs a number, 0..6");
      bounds.q_sends = static_cast<int>(n);
    } else if (a == "--no-reduction") {
      bounds.reduction = false;
    } else if (a == "--replay") {
      const char* v = value();
      if (!v || !parse_schedule(v)) return usage("--replay needs a schedule like 0.3.1");
      replay = v;
    } else if (a == "--trace") {
      trace = true;
    } else if (a == "--stop-at-first") {
      opts.stop_at_first = true;
    } else if (a == "--expect") {
      const char* v = value();
      if (!v) return usage("--expect needs pass|violation|failure");
      expect = v;
    } else if (a == "--channels" || a == "--nodes" || a == "--sources" || a == "--sends" || a == "--step-budget") {
      const char* v = value();
      if (!v || !parse_u64(v, n)) return usage("knob needs a number");
      if (a == "--channels") opts.knobs.channels = static_cast<int>(n);
      if (a == "--nodes") opts.knobs.nodes = static_cast<int>(n);
      if (a == "--sources") opts.knobs.sources = static_cast<int>(n);
      if (a == "--sends") opts.knobs.sends = static_cast<int>(n);
      if (a == "--step-budget") opts.knobs.step_budget = n;
    } else if (a == "--faults") {
      const char* v = value();
      std::string err;
      auto f = v ? parse_faults(v, err) : std::nullopt;
      if (!f) return usage(err.empty() ? "--faults needs a list" : err.c_str());
      opts.knobs.faults = *f;
    } else if (a == "--held-budget") {
      const char* v = value();
      if (!v || !parse_u64(v, n) || n == 0 || n > UINT32_MAX) return usage("--held-budget needs a number of records >= 1");
      opts.knobs.held_budget = static_cast<std::uint32_t>(n);
    } else if (a == "--stateful-restarts") {
      opts.knobs.stateful_restarts = true;
    } else if (a == "--no-lookups") {
      opts.knobs.lookups = false;
    } else {
      return usage(fmt::format("unknown argument '{}'", a).c_str());
    }
  }
  fmt::print("build: broken rule = {}\n", mutant_build() ? "MUTANT" : "none (production)");

  if (exhaustive || replay) {
    if (!exhaustive) return usage("--replay needs --exhaustive");
    if (opts.knobs.channels) bounds.channels = *opts.knobs.channels;
    if (opts.knobs.sends) bounds.sends = *opts.knobs.sends;
    if (bounds.channels < 1 || bounds.channels > 3) return usage("--exhaustive: --channels must be 1..3");
    if (bounds.sends < 1 || bounds.sends > 6) return usage("--exhaustive: --sends must be 1..6");
    if (bounds.relay == RelayMode::wide && bounds.channels > 2)
      return usage("--exhaustive: --relay wide needs --channels 1 or 2");
    if (replay) {
      std::string text, err;
      const auto r = replay_schedule(bounds, *parse_schedule(*replay), &text, err);
      std::fputs(text.c_str(), stdout);
      if (!r) return usage(with_option_words(err).c_str());
      fmt::print("{}\n", to_json(*r).dump(2));
      if (expect == "violation" || expect == "failure") return r->ok() ? 1 : 0;
      return r->ok() ? 0 : 1;
    }
    const ExploreResult r = explore(bounds, opts.stop_at_first);
    std::fputs(with_option_words(format_summary(r, explore_words(program))).c_str(), stdout);
    bool reproduced = false;
    const std::string ce = with_option_words(counterexample_trace(r, reproduced));
    if (!ce.empty()) fmt::print("shortest counterexample, step by step:\n{}", ce);
    if (expect == "pass") return r.ok() ? 0 : 1;
    bool crashed_only = true;
    for (const Counterexample& c : r.counterexamples)
      for (const Violation& v : c.violations)
        if (v.kind != ViolationKind::crash) crashed_only = false;
    if (expect == "violation") {
      if (r.violations > 0 && !crashed_only && reproduced) {
        fmt::print("expected: the explorer caught this build ({} events; the replay reproduces it)\n",
                   r.counterexamples.front().schedule.size());
        return 0;
      }
      fmt::print("UNEXPECTED: the explorer did not catch this build{}\n",
                 r.violations == 0 ? "" : crashed_only ? " (only crashes)" : " (the counterexample does not replay)");
      return 1;
    }
    if (expect == "failure") return r.ok() ? 1 : 0;
    return usage("--expect needs pass|violation|failure");
  }

  if (single) {
    std::string text;
    World w(generate_config(*single, opts.knobs), trace ? &text : nullptr);
    const WorldResult r = w.run();
    std::fputs(text.c_str(), stdout);
    fmt::print("{}\n", to_json(r).dump(2));
    return r.ok() ? 0 : 1;
  }

  const SweepResult r = run_sweep(opts);
  std::fputs(with_option_words(format_summary(r, repro_commands(program))).c_str(), stdout);
  bool crashed_only = true;
  for (const WorldResult& w : r.failures)
    for (const Violation& v : w.violations)
      if (v.kind != ViolationKind::crash) crashed_only = false;
  if (expect == "pass") return r.ok() ? 0 : 1;
  if (expect == "violation") {
    if (r.failed_worlds > 0 && !crashed_only) {
      fmt::print("expected: the oracle caught this build (first failing seed {})\n", r.failures.front().seed);
      return 0;
    }
    fmt::print("UNEXPECTED: the oracle did not catch this build{}\n",
               r.failed_worlds > 0 ? " (only crashes)" : r.vacuous.empty() ? "" : " (only vacuity)");
    return 1;
  }
  if (expect == "failure") return r.ok() ? 1 : 0;
  return usage("--expect needs pass|violation|failure");
}

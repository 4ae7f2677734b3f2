// The exhaustive explorer on the production gate and stamper: the state hash, a small
// complete search, and a counterexample (a host that drops clocks) that is shortest and
// replays.
#include <catch2/catch.hpp>

#include "causal/sim/explore.hpp"
#include "simulate_commands.hpp"

using namespace causal::sim;

namespace {

ExploreBounds tiny() {
  ExploreBounds b;
  b.channels = 2;
  b.sends = 2;
  b.abort = false;
  b.crash = false;
  b.joiner = JoinerMode::none;
  return b;
}

// Runs `s` on the bounds' world and returns the state hash at the end.
std::uint64_t hash_after(const ExploreBounds& b, const Schedule& s) {
  World w(explore_config(b));
  for (std::uint32_t c : s) w.step_event(c);
  return w.state_hash();
}

}  // namespace

TEST_CASE("explore: the state hash is a function of the state, and events change it") {
  const ExploreBounds b = tiny();
  World w(explore_config(b));
  const std::uint64_t h0 = w.state_hash();
  CHECK(h0 == hash_after(b, {}));
  REQUIRE(w.enabled_count() >= 2);  // both sources can start
  w.step_event(0);
  CHECK(w.state_hash() != h0);
  CHECK(w.state_hash() == hash_after(b, {0}));
  // Starting p then q, or q then p, is the same state (sources start independently).
  World pq(explore_config(b)), qp(explore_config(b));
  pq.step_event(0);  // start p (enumeration order: sources, senders, nodes)
  pq.step_event(1);  // start q
  qp.step_event(1);  // start q
  qp.step_event(0);  // start p
  CHECK(pq.state_hash() == qp.state_hash());
}

TEST_CASE("explore: a small world passes, every state checked, with fewer states than schedules") {
  const ExploreResult r = explore(tiny(), false);
  INFO(format_summary(r, causal::cli::explore_words("sim_sweep")));
  CHECK(r.ok());
  CHECK(r.complete);
  CHECK(r.violations == 0);
  CHECK(r.terminal > 0);
  CHECK(r.states > r.terminal);
  CHECK(r.schedules > static_cast<long double>(r.states));  // dedup at work
  // Every terminal schedule passes the drain checks when replayed on its own.
  std::string error;
  Schedule s;
  for (;;) {  // the first enabled event each time: one complete schedule
    World w(explore_config(tiny()));
    for (std::uint32_t c : s) w.step_event(c);
    if (w.enabled_count() == 0) break;
    s.push_back(0);
  }
  const auto w = replay_schedule(tiny(), s, nullptr, error);
  REQUIRE(w);
  CHECK(w->ok());
  CHECK(w->drained);
}

TEST_CASE("explore: a host that drops clocks is caught with a shortest counterexample that replays") {
  ExploreBounds b = tiny();
  b.joiner = JoinerMode::lso;  // consumes a/0 and b/0, where the relay's emissions land
  b.strip_clocks = true;
  const ExploreResult r = explore(b, true);
  INFO(format_summary(r, causal::cli::explore_words("sim_sweep")));
  REQUIRE(r.violations > 0);
  REQUIRE(!r.counterexamples.empty());
  const Counterexample& c = r.counterexamples.front();
  CHECK(c.violations.front().kind == ViolationKind::causal_order);
  // Replayable: the printed schedule parses back and fails the same way, step by step.
  const std::string printed = format_schedule(c.schedule);
  const auto parsed = parse_schedule(printed);
  REQUIRE(parsed);
  CHECK(*parsed == c.schedule);
  std::string trace, error;
  const auto w = replay_schedule(b, *parsed, &trace, error);
  REQUIRE(w);
  CHECK(!w->ok());
  CHECK(trace.find("VIOLATION causal_order") != std::string::npos);
  CHECK(causal::cli::replay_command("sim_sweep", r.bounds, c.schedule).find("--replay " + printed) !=
        std::string::npos);
  // Shortest: no schedule one event shorter fails (its every prefix passed; BFS checked
  // all schedules of each length before the next).
  Schedule shorter = c.schedule;
  shorter.pop_back();
  const auto p = replay_schedule(b, shorter, nullptr, error);
  REQUIRE(p);
  CHECK(p->ok());
  // Without the hook the same bounds pass.
  b.strip_clocks = false;
  CHECK(explore(b, true).ok());
}

TEST_CASE("explore: schedules and bounds parse, and bad ones are refused") {
  CHECK(parse_schedule("0.3.1") == Schedule{0, 3, 1});
  CHECK(parse_schedule("-") == Schedule{});
  CHECK(!parse_schedule("0..1"));
  CHECK(!parse_schedule("x"));
  CHECK(!parse_schedule(""));
  ExploreBounds b;
  std::string err;
  CHECK(parse_explore_events("crash,replay", b, err));
  CHECK((!b.abort && b.crash && b.replay));
  CHECK(parse_explore_events("none", b, err));
  CHECK((!b.abort && !b.crash && !b.replay));
  CHECK(!parse_explore_events("crash,meteor", b, err));
  CHECK(err.find("meteor") != std::string::npos);
  CHECK(parse_joiner("lso-no-lookups") == JoinerMode::lso_no_lookups);
  CHECK(!parse_joiner("end"));
  std::string error;
  CHECK(!replay_schedule(tiny(), {99}, nullptr, error));
  CHECK(error.find("only") != std::string::npos);
}

TEST_CASE("explore: the reduction reaches the terminal states and verdicts of the full search") {
  // Persistent sets keep every terminal state (docs/verification.md, "Partial-order
  // reduction"): the same set, by count and digest, with fewer states and transitions.
  for (const char* events : {"none", "abort", "crash", "abort,crash", "replay"}) {
    for (JoinerMode j : {JoinerMode::none, JoinerMode::lso, JoinerMode::lso_no_lookups}) {
      ExploreBounds b;
      b.channels = 3;
      b.sends = 2;
      std::string err;
      REQUIRE(parse_explore_events(events, b, err));
      b.joiner = j;
      const ExploreResult reduced = explore(b, false);
      b.reduction = false;
      const ExploreResult full = explore(b, false);
      INFO(format_summary(reduced, causal::cli::explore_words("sim_sweep"))
           << format_summary(full, causal::cli::explore_words("sim_sweep")));
      CHECK(reduced.ok() == full.ok());
      CHECK(reduced.violations == full.violations);
      CHECK(reduced.terminal == full.terminal);
      CHECK(reduced.attributed == full.attributed);
      CHECK(reduced.terminal_digest == full.terminal_digest);
      CHECK(reduced.states <= full.states);
      CHECK(reduced.transitions <= full.transitions);
    }
  }
}

TEST_CASE("explore: a persistent set is a non-empty subset of the enabled events") {
  ExploreBounds b;
  b.channels = 3;
  b.sends = 3;
  World w(explore_config(b));
  for (int step = 0; step < 200; ++step) {
    const std::size_t n = w.enabled_count();
    if (n == 0) break;
    const std::vector<std::size_t> p = w.persistent_set();
    REQUIRE(!p.empty());
    REQUIRE(p.size() <= n);
    for (std::size_t i = 0; i < p.size(); ++i) {
      CHECK(p[i] < n);
      if (i > 0) CHECK(p[i - 1] < p[i]);
    }
    w.step_event(p.back());  // walk one reduced schedule
  }
  CHECK(w.enabled_count() == 0);
}

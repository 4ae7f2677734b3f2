// The world with the real gate and stamper: determinism, a scripted tiny world, the
// late-joiner demonstration, and proof that the oracle catches a host that drops clocks.
#include <catch2/catch.hpp>

#include "causal/sim/scenarios.hpp"
#include "causal/sim/sweep.hpp"
#include "causal/sim/world.hpp"

using namespace causal::sim;

namespace {
bool any_kind(const WorldResult& r, ViolationKind k) {
  for (const auto& v : r.violations)
    if (v.kind == k) return true;
  return false;
}
}  // namespace

TEST_CASE("world: the same seed gives a byte-identical trace and tracing does not perturb the world") {
  for (std::uint64_t seed : {1ULL, 7ULL, 42ULL, 1234ULL}) {
    const WorldConfig cfg = generate_config(seed, Knobs{});
    std::string t1, t2;
    World w1(cfg, &t1);
    World w2(cfg, &t2);
    World w3(cfg);
    const WorldResult r1 = w1.run();
    const WorldResult r2 = w2.run();
    const WorldResult r3 = w3.run();
    REQUIRE(t1.size() > 100);
    CHECK(t1 == t2);
    CHECK(r1.steps == r3.steps);
    CHECK(r1.counters.deliveries == r3.counters.deliveries);
    CHECK(to_json(r1).dump() == to_json(r2).dump());
  }
  std::string a, b;
  World wa(generate_config(1, Knobs{}), &a);
  World wb(generate_config(2, Knobs{}), &b);
  wa.run();
  wb.run();
  CHECK(a != b);
}

TEST_CASE("world: generated worlds vary from 1 to 64 channels") {
  std::size_t lo = 64, hi = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const std::size_t c = generate_config(seed, Knobs{}).channels.size();
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  CHECK(lo == 1);
  CHECK(hi == 64);
}

TEST_CASE("world: a scripted tiny world holds an effect until its cause arrives") {
  // Idempotent producer p: a to x/0, acknowledged, then b to y/0 (b claims a by offset).
  // Node n consumes both and fetches y/0 first: b is held, then released by a.
  WorldConfig cfg;
  cfg.channels = {{"x", 0}, {"y", 0}};
  SourceSpec p;
  p.name = "p";
  p.sinks = {0, 1};
  p.seeded = false;
  cfg.sources.push_back(p);
  NodeSpec n;
  n.name = "n";
  n.eos = false;
  n.scope = {0, 1};
  cfg.nodes.push_back(n);
  World w(cfg);
  const std::uint32_t ps = w.source(0).sender;
  REQUIRE(w.start_source(0));
  REQUIRE(w.source_send(0, 0));
  REQUIRE(w.append(ps, 0));
  REQUIRE(w.ack(ps, 0));
  REQUIRE(w.source_send(0, 1));
  REQUIRE(w.append(ps, 1));
  REQUIRE(w.start_node(0));
  REQUIRE(w.fetch(0, 1));
  CHECK(w.node(0).gate->held_count() == 1);
  CHECK(w.oracle().deliveries() == 0);
  REQUIRE(w.fetch(0, 0));
  CHECK(w.node(0).gate->held_count() == 0);
  CHECK(w.oracle().deliveries() == 2);
  const WorldResult r = w.run();
  CHECK(r.ok());
  CHECK(r.drained);
  CHECK(r.counters.pairs_checked == 1);
}

TEST_CASE("world: the oracle catches a host that drops every clock") {
  std::uint64_t caught = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    WorldConfig cfg = generate_config(seed, Knobs{});
    cfg.strip_clocks = true;
    World w(cfg);
    const WorldResult r = w.run();
    if (any_kind(r, ViolationKind::causal_order)) ++caught;
  }
  CHECK(caught >= 10);
}

TEST_CASE("late joiner: without lookups the at-log-end joiner stays held on a frozen claim") {
  std::string trace;
  const LateJoinerOutcome o = run_late_joiner(/*lookups=*/false, &trace);
  INFO(trace);
  CHECK(o.result.drained);
  CHECK(o.result.ok());  // attributed, not a failure
  CHECK(o.held_start == 0);
  CHECK(o.held_lso == 0);
  CHECK(o.held_end > 0);
  REQUIRE(o.result.attributed.size() == 1);
  CHECK(o.result.attributed[0].find("j-end") != std::string::npos);
  CHECK(o.result.attributed[0].find("frozen_claim: p#1 on a/0") != std::string::npos);
  CHECK(o.result.counters.frozen_roots == 1);
  CHECK(o.result.counters.signature_caught == 1);  // p never writes a/0 again
}

TEST_CASE("late joiner: with lookups all three joiners drain") {
  std::string trace;
  const LateJoinerOutcome o = run_late_joiner(/*lookups=*/true, &trace);
  INFO(trace);
  CHECK(o.result.drained);
  CHECK(o.result.ok());
  CHECK(o.held_start == 0);
  CHECK(o.held_lso == 0);
  CHECK(o.held_end == 0);
  CHECK(o.result.attributed.empty());
  CHECK(o.result.counters.lookups_resolved >= 1);
}

// Regression (sweep seeds 5531, 5822, 10389): a node restored from committed positions and
// resolution state must still ask for lookups on claims its restored entries do not cover.
// Fails while Gate::restore_resolution_state marks restored entries as post-baseline
// presence (docs/verification.md, "Findings").
TEST_CASE("regression: restored resolution state does not suppress lookups") {
  std::string trace;
  const RestoredLookupOutcome o = run_restored_lookup(&trace);
  INFO(trace);
  CHECK(o.result.drained);
  CHECK(o.held_x == 0);
  CHECK(o.held_y == 0);
  CHECK(o.result.ok());
}

// The stateful-restart hole, closed (docs/protocol.md, "Custody across a restart"): n
// delivers x (whose cause a sits on a/0, which n does not consume) and commits without
// emitting; n crashes and restarts; its next emission y follows an unrelated record x2. With
// a stateless processor (the default truth) y does not depend on x; with a stateful one (its
// committed state carries x's effect) it does, so y must claim a. Before the fix the
// restarted gate started with empty custody, y named nothing on a/0, and m, consuming a/0
// and k/0 but not c/0, delivered y before a under the stateful truth. Now n commits its
// custody's restatement beside its positions and restores it: y claims a under both truths.
TEST_CASE("stateful restarts: a restarted gate restates the custody it committed") {
  enum : ChannelIndex { A = 0, C = 1, K = 2 };
  for (const bool stateful : {false, true}) {
    WorldConfig cfg;
    cfg.channels = {{"a", 0}, {"c", 0}, {"k", 0}};
    cfg.max_hops = 1;
    cfg.stateful_restarts = stateful;
    SourceSpec p;
    p.name = "p";
    p.sinks = {A};
    p.seeded = false;
    SourceSpec q = p;
    q.name = "q";
    q.sinks = {C};
    cfg.sources = {p, q};
    NodeSpec l;
    l.name = "l";
    l.scope = {A};
    l.sinks = {C};
    l.emit_per_mille = 1000;
    NodeSpec n = l;
    n.name = "n";
    n.scope = {C};
    n.sinks = {K};
    NodeSpec m;
    m.name = "m";
    m.eos = false;
    m.scope = {A, K};
    cfg.nodes = {l, n, m};
    World w(cfg);
    auto flush = [&](std::uint32_t node, ChannelIndex sink) {
      const std::uint32_t s = w.node(node).sender;
      while (w.append(s, sink)) {
      }
      while (w.ack(s, sink)) {
      }
      REQUIRE(w.commit(node));
      REQUIRE(w.complete_commit(node));
    };
    const std::uint32_t ps = w.source(0).sender, qs = w.source(1).sender;
    REQUIRE(w.start_source(0));
    REQUIRE(w.source_send(0, A));  // a
    REQUIRE(w.append(ps, A));
    REQUIRE(w.ack(ps, A));
    REQUIRE(w.start_node(0));
    REQUIRE(w.fetch(0, A));  // l delivers a, emits x (hop 1) to c/0
    flush(0, C);
    REQUIRE(w.start_node(1));
    REQUIRE(w.fetch(1, C));  // n delivers x; hop limit: no emission
    REQUIRE(w.commit(1));
    REQUIRE(w.complete_commit(1));
    REQUIRE(w.crash(1));
    REQUIRE(w.restart(1));
    REQUIRE(w.start_source(1));
    REQUIRE(w.source_send(1, C));  // x2, unrelated to a
    REQUIRE(w.append(qs, C));
    REQUIRE(w.ack(qs, C));
    REQUIRE(w.fetch(1, C));  // n (second incarnation) delivers x2, emits y to k/0
    flush(1, K);
    REQUIRE(w.start_node(2));
    INFO("stateful truth: " << stateful);
    // y (k/0 at 0) claims a (a/0 at 0), restated from the committed custody of c/0.
    const SimRecord& y = w.record(w.log(K).at(0).record);
    CHECK(y.clock.offset_of(A) == 0);
    REQUIRE(w.fetch(2, K));  // m receives y before a: held on the restated claim
    CHECK(w.oracle().deliveries() >= 4);
    const WorldResult r = w.run();
    CHECK(r.drained);
    CHECK(r.ok());
  }
}

TEST_CASE("fault lists: a list naming faults has only those, a removal starts from all") {
  // "crash" is not read as all faults (FaultMix starts all-on): otherwise a one-fault sweep
  // runs every fault, and the replay command printed for all,-crash rebuilds another world.
  using causal::sim::FaultMix;
  using causal::sim::parse_faults;
  using causal::sim::to_string;
  std::string err;
  auto check = [&](const std::string& list, const std::string& mix) {
    auto f = parse_faults(list, err);
    INFO(list);
    REQUIRE(f);
    CHECK(to_string(*f) == mix);
    // The replay command names to_string's mix: it must parse back to the same mix.
    auto again = parse_faults(to_string(*f), err);
    REQUIRE(again);
    CHECK(to_string(*again) == mix);
  };
  check("crash", "crash");
  check("crash,abort", "crash,abort");
  check("none,crash", "crash");
  check("all", "crash,abort,replay,growth,joiners,nolookup,rebalance,rewind,fence,refetch,handover");
  check("-crash", "abort,replay,growth,joiners,nolookup,rebalance,rewind,fence,refetch,handover");
  check("all,-crash", "abort,replay,growth,joiners,nolookup,rebalance,rewind,fence,refetch,handover");
  check("none", "none");
  check("crash,-crash", "none");
  CHECK_FALSE(parse_faults("crsh", err));
  CHECK(err.find("unknown fault 'crsh'") != std::string::npos);
}

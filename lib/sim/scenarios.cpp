// The liveness page's late-joiner world, scripted (see causal/sim/scenarios.hpp).
#include "causal/sim/scenarios.hpp"

#include <stdexcept>

namespace causal::sim {

namespace {
enum : ChannelIndex { A = 0, B = 1, C = 2 };
enum : std::uint32_t { kRelay = 0, kStart = 1, kLso = 2, kEnd = 3 };
}  // namespace

WorldConfig late_joiner_config(bool lookups) {
  WorldConfig w;
  w.seed = 0x1a7e;
  w.channels = {{"a", 0}, {"b", 0}, {"c", 0}};
  SourceSpec p;
  p.name = "p";
  p.transactional = true;
  p.sinks = {A, B};
  p.sends = 0;  // scripted
  p.seeded = false;
  w.sources.push_back(p);
  NodeSpec relay;
  relay.name = "relay";
  relay.scope = {B};
  relay.sinks = {C};
  relay.emit_per_mille = 1000;
  w.nodes.push_back(relay);
  const NodeKind kinds[] = {NodeKind::joiner_start, NodeKind::joiner_lso, NodeKind::joiner_end};
  const char* names[] = {"j-start", "j-lso", "j-end"};
  for (int i = 0; i < 3; ++i) {
    NodeSpec j;
    j.name = names[i];
    j.kind = kinds[i];
    j.eos = false;
    j.lookups = lookups;
    j.scope = {A, C};
    w.nodes.push_back(j);
  }
  w.max_hops = 1;
  w.step_budget = 10000;
  return w;
}

LateJoinerOutcome run_late_joiner(bool lookups, std::string* trace) {
  World w(late_joiner_config(lookups), trace);
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::logic_error(std::string("late-joiner script step not enabled: ") + what);
  };
  const std::uint32_t p = w.source(0).sender;
  require(w.start_source(0), "start p");
  require(w.source_send(0, A), "p sends s1 to a/0");
  require(w.source_send(0, B), "p sends s2 to b/0 (s1 unacknowledged: sequence claim)");
  require(w.append(p, A), "append s1");
  require(w.append(p, B), "append s2");
  // The transaction is open: a/0 has HWM 1 and LSO 0. The joiners baseline now.
  require(w.start_node(kStart), "j-start");
  require(w.start_node(kLso), "j-lso");
  require(w.start_node(kEnd), "j-end");
  require(w.ack(p, A), "ack s1");
  require(w.ack(p, B), "ack s2");
  require(w.source_end_txn(0, true), "commit");
  require(w.start_node(kRelay), "relay");
  require(w.fetch(kRelay, B), "relay fetches s2 and emits to c/0");

  LateJoinerOutcome out;
  out.result = w.run();
  out.held_start = w.node(kStart).gate->held_count();
  out.held_lso = w.node(kLso).gate->held_count();
  out.held_end = w.node(kEnd).gate->held_count();
  return out;
}

RestoredLookupOutcome run_restored_lookup(std::string* trace) {
  WorldConfig cfg;
  cfg.seed = 0x5531;
  cfg.channels = {{"a", 0}, {"b", 0}, {"c", 0}};
  SourceSpec p;
  p.name = "p";
  p.transactional = true;
  p.sinks = {A, B};
  p.seeded = false;
  cfg.sources.push_back(p);
  NodeSpec relay;
  relay.name = "relay";
  relay.scope = {B};
  relay.sinks = {C};
  relay.emit_per_mille = 1000;
  cfg.nodes.push_back(relay);
  NodeSpec x;
  x.name = "x";
  x.kind = NodeKind::joiner_end;
  x.eos = false;
  x.scope = {A, C};
  cfg.nodes.push_back(x);
  NodeSpec y = x;
  y.name = "y";
  y.kind = NodeKind::joiner_committed;
  y.copy_of = 1;
  cfg.nodes.push_back(y);
  cfg.max_hops = 1;
  cfg.step_budget = 10000;

  World w(cfg, trace);
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::logic_error(std::string("restored-lookup script step not enabled: ") + what);
  };
  const std::uint32_t ps = w.source(0).sender;
  require(w.start_source(0), "start p");
  // Two transactions, each: a send to a/0, then (before its ack) a send to b/0 that
  // carries a sequence claim on it.
  for (int t = 0; t < 2; ++t) {
    require(w.source_send(0, A), "p sends to a/0");
    require(w.source_send(0, B), "p sends to b/0 claiming the a/0 send by sequence");
    require(w.append(ps, A), "append a/0");
    require(w.append(ps, B), "append b/0");
    require(w.ack(ps, A), "ack a/0");
    require(w.ack(ps, B), "ack b/0");
    require(w.source_end_txn(0, true), "commit");
  }
  require(w.start_node(1), "x joins at the log end");
  require(w.start_node(0), "relay");
  // The relay's emissions become visible on c/0 once appended and committed.
  auto relay_commits = [&] {
    const std::uint32_t rs = w.node(0).sender;
    while (w.append(rs, C)) {
    }
    while (w.ack(rs, C)) {
    }
    require(w.commit(0), "relay commit");
    require(w.complete_commit(0), "relay commit completes");
  };
  require(w.fetch(0, B, 1), "relay delivers p#2 and relays the claim (a/0, p, 1) to c/0");
  relay_commits();
  require(w.fetch(1, C), "x receives the relayed record, looks up p#1 below its baseline, delivers");
  require(w.commit(1), "x commits positions and resolution state");
  require(w.complete_commit(1), "x's commit completes");
  require(w.start_node(2), "y starts from x's committed positions and resolution state");
  require(w.fetch(0, B), "relay delivers p#4 and relays the claim (a/0, p, 3)");
  relay_commits();

  RestoredLookupOutcome out;
  out.result = w.run();
  out.held_x = w.node(1).gate->held_count();
  out.held_y = w.node(2).gate->held_count();
  return out;
}

}  // namespace causal::sim

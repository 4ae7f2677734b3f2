// The world's scheduler and its drain checks (see causal/sim/world.hpp).
//
// Each step enumerates the enabled events, weights them, and lets the seed choose one.
// Quiescence (nothing enabled) means: every source finished, every send appended and
// acknowledged, every transaction ended, every node started and up, every node committed,
// every fault spent, and every consumer position at the end of its channel. That is the
// drain state verification.md asks every world to reach within its step budget.
#include <algorithm>
#include <exception>

#include "attribution.hpp"
#include "internal.hpp"

namespace causal::sim {


World::World(const WorldConfig& config, std::string* trace_out)
    : config_(config), trace_(trace_out), rng_(config.seed), oracle_(config.channels.size()) {
  for (std::size_t i = 0; i < config_.channels.size(); ++i) {
    const ChannelId id = names_.channel(config_.channels[i].topic, config_.channels[i].partition);
    if (id != i) throw std::logic_error("world channels must intern densely");
  }
  logs_.resize(config_.channels.size());
  oracle_.describe = [this](RecordId r) { return describe(r); };
  for (const SourceSpec& spec : config_.sources) {
    Source src;
    src.spec = spec;
    src.sender = new_sender(spec.name, spec.transactional, nullptr);
    sources_.push_back(std::move(src));
  }
  nodes_.reserve(config_.nodes.size());  // never grown after this (world.hpp)
  for (std::size_t i = 0; i < config_.nodes.size(); ++i) {
    nodes_.emplace_back();
    nodes_.back().spec = config_.nodes[i];
    nodes_.back().index = static_cast<LogicalId>(i);
  }
  if (trace_) {
    trace("world   seed {} with {} channels, {} sources, {} nodes, max hops {}", config_.seed,
          config_.channels.size(), config_.sources.size(), config_.nodes.size(), config_.max_hops);
    for (const SourceSpec& s : config_.sources) {
      std::string sinks;
      for (ChannelIndex c : s.sinks) sinks += " " + names_.channel_text(c);
      trace("source  {} {} sends {} (txn <= {}, abort {}/1000){}, sinks:{}", s.name,
            s.transactional ? "transactional" : "idempotent", s.sends, s.max_txn, s.abort_per_mille,
            s.seeded ? ", seeded" : "", sinks);
    }
    for (const NodeSpec& n : config_.nodes) {
      std::string scope, sinks, growth;
      for (ChannelIndex c : n.scope) scope += " " + names_.channel_text(c);
      for (ChannelIndex c : n.sinks) sinks += " " + names_.channel_text(c);
      for (ChannelIndex c : n.growth) growth += " " + names_.channel_text(c);
      trace("node    {} {} {}{} scope:{} sinks:{} growth:{} crashes {} aborts {} replays {}", n.name,
            to_string(n.kind), n.eos ? "eos" : "idempotent", n.lookups ? "" : " no-lookups",
            n.kind == NodeKind::joiner_committed ? " (copies " + config_.nodes[n.copy_of].name + ")" : scope, sinks,
            growth, n.crashes, n.aborts, n.replays);
    }
  }
}

World::~World() = default;

std::optional<RecordId> World::locate(SenderId s, SeqNo q) const {
  const std::uint32_t si = sender_index(s);
  if (si == UINT32_MAX || q == 0 || q > senders_[si].sends.size()) return std::nullopt;
  return senders_[si].sends[q - 1];
}

bool World::presence(ChannelIndex ch, SenderId s, Offset from) const {
  const Log& l = logs_[ch];
  for (Offset o = std::max<Offset>(from, 0); o < l.hwm(); ++o) {
    const LogEntry& e = l.at(o);
    if (e.kind != EntryKind::business) continue;
    if (e.txn != kNoTxn && txns_[e.txn] != TxnState::committed) continue;
    if (senders_[records_[e.record].sender].id == s) return true;
  }
  return false;
}

std::string World::describe(RecordId r) const {
  const SimRecord& rec = records_[r];
  if (rec.offset == kNoOffset)
    return fmt::format("{}#{}->{}", senders_[rec.sender].name, rec.seq, names_.channel_text(rec.channel));
  return fmt::format("{}#{}@{}:{}", senders_[rec.sender].name, rec.seq, names_.channel_text(rec.channel), rec.offset);
}

std::string World::describe(const Clock& c) const {
  std::string s = "{";
  for (const OffsetClaim& o : c.offsets()) {
    if (s.size() > 1) s += " ";
    s += fmt::format("{}:{}", names_.channel_text(o.channel), o.offset);
  }
  for (const SeqClaim& q : c.seqs()) {
    if (s.size() > 1) s += " ";
    s += fmt::format("{}:{}#{}", names_.channel_text(q.channel), names_.sender_name(q.sender), q.seq);
  }
  return s + "}";
}

// --- explicit source events ----------------------------------------------------------

bool World::start_source(std::uint32_t i) {
  Source& src = sources_[i];
  if (src.started) return false;
  src.started = true;
  Sender& s = senders_[src.sender];
  if (src.spec.seeded) {
    for (ChannelIndex sink : src.spec.sinks) {
      const Offset end = logs_[sink].hwm();
      s.stamper->seed(sink, end);
      s.seeds[sink] = end - 1;
    }
  }
  CAUSAL_SIM_TRACE("start   {}{}", s.name, src.spec.seeded ? " (end-offset seeds taken)" : "");
  return true;
}

bool World::source_send(std::uint32_t i, ChannelIndex ch) {
  Source& src = sources_[i];
  if (!src.started || src.flushing) return false;
  send(src.sender, ch, 0, nullptr);
  ++src.sent;
  return true;
}

bool World::source_end_txn(std::uint32_t i, bool commit) {
  Source& src = sources_[i];
  Sender& s = senders_[src.sender];
  if (s.txn == kNoTxn || s.in_flight != 0) return false;
  end_txn(src.sender, commit);
  src.flushing = false;
  src.txn_left = 0;
  return true;
}

// --- the scheduler -------------------------------------------------------------------

void World::enabled_actions(std::vector<Action>& out) {
  using K = Action::Kind;
  for (std::uint32_t i = 0; i < sources_.size(); ++i) {
    const Source& src = sources_[i];
    const Sender& s = senders_[src.sender];
    bool enabled;
    if (!src.started) {
      enabled = true;
    } else if (src.flushing) {
      enabled = s.in_flight == 0;
    } else {
      enabled = s.txn != kNoTxn || src.sent < src.spec.sends;
    }
    if (enabled) out.push_back({K::source_step, i, 0, (!src.started && src.spec.start_delay) ? 1u : 10u});
  }
  // Only senders with sends in flight can append or acknowledge (busy_senders_, ascending,
  // so the actions come in the order a walk over every sender gave them).
  for (std::uint32_t si : busy_senders_) {
    const Sender& s = senders_[si];
    if (!s.alive) continue;
    for (const auto& [ch, q] : s.unappended)
      if (!q.empty()) out.push_back({K::append, si, ch, 10});
    for (const auto& [ch, q] : s.unacked)
      if (!q.empty()) out.push_back({K::ack, si, ch, 8});
  }
  const Log* const logs = logs_.data();
  for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (!n.started) {
      if (n.spec.kind == NodeKind::joiner_committed && !nodes_[n.spec.copy_of].started) continue;
      out.push_back({K::start, i, 0, is_joiner(n.spec.kind) ? 1u : 40u});
      continue;
    }
    if (!n.up) {
      out.push_back({K::restart, i, 0, 15});
      continue;
    }
    if (n.flushing) {
      if (senders_[n.sender].in_flight == 0) out.push_back({K::complete_flush, i, 0, 20});
      continue;
    }
    // Every scope channel has a position (ChannelPositions::data). Paused channels are
    // nearly always none: then no tree lookup per channel.
    const Offset* const position = n.position.data();
    const bool any_paused = !n.paused.empty();
    for (ChannelIndex ch : n.scope)
      if (position[ch] < logs[ch].lso() && !(any_paused && n.paused.contains(ch))) out.push_back({K::fetch, i, ch, 12});
    if (n.dirty) out.push_back({K::commit, i, 0, 3});
    if (n.crashes_left > 0) out.push_back({K::crash, i, 0, 1});
    if (n.aborts_left > 0 && n.dirty && senders_[n.sender].txn != kNoTxn) out.push_back({K::abort, i, 0, 1});
    if (!n.growth_left.empty()) out.push_back({K::grow, i, 0, 1});
    if (n.replays_left > 0 && !n.scope.empty()) out.push_back({K::replay, i, 0, 1});
    if (n.rebalances_left > 0) out.push_back({K::rebalance, i, 0, 1});
    if (n.rewinds_left > 0 && n.dirty && senders_[n.sender].txn != kNoTxn) out.push_back({K::rewind, i, 0, 1});
    if (n.fencings_left > 0 && n.dirty && senders_[n.sender].txn != kNoTxn) out.push_back({K::fence, i, 0, 1});
    if (n.refetches_left > 0 && n.gate->held_count() > 0) out.push_back({K::refetch, i, 0, 2});
    if (n.handovers_left > 0 && !n.dirty && !handover_options(n, true).empty()) out.push_back({K::handover, i, 0, 2});
  }
}

void World::apply(const Action& a) {
  using K = Action::Kind;
  switch (a.kind) {
    case K::source_step: {
      Source& src = sources_[a.a];
      Sender& s = senders_[src.sender];
      if (!src.started) {
        start_source(a.a);
      } else if (src.flushing) {
        const bool commit = !src.abort_pending;
        source_end_txn(a.a, commit);
      } else if (src.spec.transactional && s.txn != kNoTxn && src.txn_left <= 0) {
        src.flushing = true;  // commit or abort: flush every send first
        src.abort_pending = config_.fixed_choices
                                ? src.spec.abort_per_mille > 0 && src.sent >= src.spec.sends  // the last one
                                : rng_.chance(static_cast<std::uint32_t>(src.spec.abort_per_mille));
        CAUSAL_SIM_TRACE("flush   {} ({} requested)", s.name, src.abort_pending ? "abort" : "commit");
      } else {
        if (src.spec.transactional && s.txn == kNoTxn)
          src.txn_left = config_.fixed_choices
                             ? std::clamp(src.spec.sends - src.sent, 1, std::max(1, src.spec.max_txn))
                             : static_cast<int>(rng_.between(1, std::max(1, src.spec.max_txn)));
        source_send(a.a, config_.fixed_choices ? src.spec.sinks[static_cast<std::size_t>(src.sent) % src.spec.sinks.size()]
                                               : rng_.pick(src.spec.sinks));
        --src.txn_left;
      }
      break;
    }
    case K::append: append(a.a, a.b); break;
    case K::ack: ack(a.a, a.b); break;
    case K::start: start_node(a.a); break;
    case K::fetch: fetch(a.a, a.b, config_.fixed_choices ? config_.fixed_fetch : 1 + rng_.below(4)); break;
    case K::commit: commit(a.a); break;
    case K::complete_flush: complete_flush(nodes_[a.a]); break;
    case K::crash:
      --nodes_[a.a].crashes_left;
      crash(a.a);
      break;
    case K::restart: restart(a.a); break;
    case K::abort: {
      Node& n = nodes_[a.a];
      --n.aborts_left;
      n.flushing = true;
      n.abort_pending = true;
      CAUSAL_SIM_TRACE("flush   {} (abort requested)", senders_[n.sender].name);
      break;
    }
    case K::grow: {
      Node& n = nodes_[a.a];
      const ChannelIndex ch = n.growth_left.back();
      n.growth_left.pop_back();
      if (std::find(n.scope.begin(), n.scope.end(), ch) == n.scope.end()) grow(n, ch);
      break;
    }
    case K::replay: {
      Node& n = nodes_[a.a];
      --n.replays_left;
      replay(n, config_.fixed_choices ? n.scope.front() : rng_.pick(n.scope));
      break;
    }
    case K::rebalance:
      --nodes_[a.a].rebalances_left;
      rebalance(nodes_[a.a]);
      break;
    case K::rewind:
      --nodes_[a.a].rewinds_left;
      rewind(nodes_[a.a]);
      break;
    case K::fence:
      --nodes_[a.a].fencings_left;
      fence(nodes_[a.a]);
      break;
    case K::refetch:
      --nodes_[a.a].refetches_left;
      refetch(nodes_[a.a]);
      break;
    case K::handover:
      --nodes_[a.a].handovers_left;
      handover(nodes_[a.a]);
      break;
  }
}

bool World::step() {
  std::vector<Action>& actions = actions_;
  actions.clear();
  enabled_actions(actions);
  if (actions.empty()) return false;
  std::uint64_t total = 0;
  for (const Action& a : actions) total += a.weight;
  std::uint64_t pick = rng_.below(total);
  const Action* chosen = &actions.back();
  for (const Action& a : actions) {
    if (pick < a.weight) {
      chosen = &a;
      break;
    }
    pick -= a.weight;
  }
  ++step_;
  apply(*chosen);
  return true;
}

std::size_t World::enabled_count() {
  std::vector<Action> actions;
  enabled_actions(actions);
  return actions.size();
}

void World::step_event(std::size_t i) {
  std::vector<Action> actions;
  enabled_actions(actions);
  ++step_;
  apply(actions.at(i));
}

WorldResult World::run() {
  try {
    while (step_ < config_.step_budget) {
      if (!step()) return finish(true);
    }
    return finish(false);
  } catch (const std::exception& e) {
    // A violated REQUIRES in the gate or stamper (or a simulator bug): a failure, never a pass.
    oracle_.violate(ViolationKind::crash, fmt::format("exception at step {}: {}", step_, e.what()));
    return finish(false);
  }
}

void World::check_node_at_drain(Node& n) {
  const Gate& g = *n.gate;
  const std::string name = senders_[n.sender].name;
  bool attributed = false;
  if (g.held_count() > 0) {
    const Attribution a = attribute(*this, n);
    const bool late = n.spec.kind == NodeKind::joiner_end || n.spec.kind == NodeKind::joiner_lso;
    if (late && !n.spec.lookups && a.all_frozen()) {
      attributed = true;
      ++counters_.attributed_stalls;
      counters_.frozen_roots += a.frozen();
      counters_.signature_caught += a.signature_caught();
      attributed_.push_back(fmt::format("{} ({}, no lookups) holds {} records: {}", name, to_string(n.spec.kind),
                                        g.held_count(), a.summary()));
      CAUSAL_SIM_TRACE("held    {} attributed: {}", name, a.summary());
    } else {
      // The gate's own account, beside the oracle's: what it says each head waits on, and
      // which lookups it asks for.
      std::string gate_view;
      for (ChannelId ch : g.scope()) {
        const auto h = g.head(ch);
        if (!h) continue;
        gate_view += fmt::format(" {}@{} waits on", names_.channel_text(ch), h->offset);
        for (const Blocker& b : g.unsatisfied(ch)) {
          gate_view += b.kind == Blocker::Kind::offset
                           ? fmt::format(" {}:{}", names_.channel_text(b.channel), b.offset)
                           : fmt::format(" {}:{}#{}", names_.channel_text(b.channel), names_.sender_name(b.sender), b.seq);
        }
        gate_view += ";";
      }
      std::string lookups;
      for (const LookupRequest& l : g.pending_lookups())
        lookups += fmt::format(" {}:{}#{}", names_.channel_text(l.channel), names_.sender_name(l.sender), l.seq);
      oracle_.violate(ViolationKind::stall,
                      fmt::format("{} ({}{}) holds {} records at drain: {} | gate:{} pending lookups:{}", name,
                                  to_string(n.spec.kind), n.spec.lookups ? "" : ", no lookups", g.held_count(),
                                  a.summary(), gate_view, lookups.empty() ? " none" : lookups));
    }
  }
  // Completeness: every business record at or above the baseline was delivered, or is
  // held (and then the stall above already accounts for it).
  for (RecordId r : oracle_.missing(n.consumer)) {
    const SimRecord& rec = records_[r];
    bool held = false;
    for (const auto& h : g.held(rec.channel))
      if (h.offset == rec.offset) held = true;
    if (held) continue;
    // Not fetched because the hold budget paused its channel behind a frozen head: held
    // back like the records the head holds (the attributed stall above accounts for it).
    if (attributed && n.paused.contains(rec.channel) && rec.offset >= n.position.at(rec.channel)) continue;
    oracle_.violate(ViolationKind::incomplete,
                    fmt::format("{}: {} was never delivered (frontier {} on its channel)", name, describe(r),
                                g.frontier(rec.channel)));
  }
  // EOS: every record of the logical node's scope, from its first baseline, has its effect
  // committed exactly once (duplicates were flagged as they were committed).
  if (n.spec.eos && !attributed && g.held_count() == 0) {
    for (ChannelIndex ch : n.scope) {
      for (RecordId r : oracle_.on_channel(ch)) {
        if (oracle_.state(r) != RecordState::committed || records_[r].offset < n.origin_baseline.at(ch)) continue;
        if (!oracle_.effect_was_committed(n.index, r))
          oracle_.violate(ViolationKind::incomplete,
                          fmt::format("{}: the effect of {} was never committed", name, describe(r)));
      }
    }
  }
}

WorldResult World::finish(bool quiescent) {
  if (quiescent) {
    CAUSAL_SIM_TRACE("quiet   after {} steps: drain checks", step_);
    try {
      for (Node& n : nodes_) check_node_at_drain(n);
    } catch (const std::exception& e) {
      oracle_.violate(ViolationKind::crash, fmt::format("exception in drain checks: {}", e.what()));
    }
  } else if (step_ >= config_.step_budget) {
    oracle_.violate(ViolationKind::no_drain,
                    fmt::format("not drained within the step budget of {} steps", config_.step_budget));
  }
  for (Node& n : nodes_)
    if (n.gate) collect_gate_stats(*n.gate);
  WorldResult res;
  res.seed = config_.seed;
  res.drained = quiescent;
  res.steps = step_;
  res.counters = counters_;
  res.counters.worlds = 1;
  res.counters.steps = step_;
  res.counters.deliveries = oracle_.deliveries();
  res.counters.pairs_checked = oracle_.pairs_checked();
  res.counters.inversions = oracle_.inversions();
  res.violations = oracle_.violations();
  res.violation_count = oracle_.violation_count();
  res.attributed = attributed_;
  if (trace_) {
    for (const Violation& v : res.violations) trace("VIOLATION {}: {}", to_string(v.kind), v.detail);
    for (const std::string& a : attributed_) trace("ATTRIBUTED {}", a);
  }
  return res;
}

}  // namespace causal::sim

// Nodes: the real causal::Gate and causal::Stamper driven as a Kafka host drives them.
//
// Host contract modelled here (protocol.md; the seeds' "liveness" page):
//   - fetch: read_committed, up to the LSO; every business record goes to gate.receive;
//     the consumer position is reported through gate.position_advance ONCE per new value
//     (hosts may report a position only once, e.g. from PARTITION_EOF), so a position
//     reported while a head is held must be remembered by the gate;
//   - deliveries are processed after the gate call returns (the observer must not call
//     back into the gate): the oracle checks them, the node's knowledge grows, and the
//     processor may emit stamped records to its sinks;
//   - commit: flush every send, then commit frontier + 1 per channel with the resolution
//     state (EOS: inside the transaction, making the deliveries' effects committed);
//   - crash: the incarnation dies; restart: new sender identity, new end-offset seeds, a
//     new gate restored from the committed positions and resolution state;
//   - lookups: for heads the gate says need one, locate the send (the world knows where
//     every send sits) and answer;
//   - scope growth: gate.add_channel while running; replay: gate.reassign(ch), then
//     re-fetch from an earlier position.
#include <algorithm>

#include "internal.hpp"

namespace causal::sim {

void NodeObserver::held(ChannelId ch, Offset o, const Blocker& b) {
    const RecordId r = world_.logs_[ch].at(o).record;
  if (b.kind == Blocker::Kind::seq) {
    ++world_.counters_.seq_holds;
    // The boundary of step 8 that the oracle's transaction truth makes observable: the
    // claimed send is a true ancestor of the held record and its sender's previous send on
    // the channel is the last one delivered, so a gate off by one would release it now.
    const std::uint32_t si = world_.sender_index(b.sender);
    if (si != UINT32_MAX && b.seq >= 1 && b.seq <= world_.senders_[si].sends.size() &&
        node_.gate->delivered_seq(b.channel, b.sender) + 1 == b.seq &&
        world_.oracle_.ancestors(r).test(world_.senders_[si].sends[b.seq - 1]))
      ++world_.counters_.seq_boundary_holds;
    return;
  }
  for (const OffsetClaim& sc : world_.records_[r].seed_claims) {
    if (sc.channel == b.channel && sc.offset == b.offset) {
      ++world_.counters_.seed_delays;
      break;
    }
  }
}

void World::collect_gate_stats(const Gate& g) {
  const GateStats& s = g.stats();
  counters_.holds += s.holds;
  counters_.cascades_multi += s.cascades_multi;
  counters_.bridges_at_receive += s.bridges_at_receive;
  counters_.head_fold_ins += s.head_fold_ins;
  counters_.position_advances += s.position_advances;
  counters_.position_remembered += s.position_remembered;
  counters_.replays_dropped += s.replays_dropped;
  counters_.seq_claims_resolved += s.seq_claims_resolved;
  counters_.lookups_resolved += s.lookups_resolved;
}

void World::start_incarnation(Node& n, const std::map<ChannelIndex, Offset>& baselines) {
  ++n.incarnation;
  const std::string name = fmt::format("{}.{}", n.spec.name, n.incarnation);
  n.observer = std::make_unique<NodeObserver>(*this, n);
  n.gate = std::make_unique<Gate>(names_, n.observer.get());
  n.consumer = oracle_.new_consumer(n.index, name);
  for (ChannelIndex ch : n.scope) {
    const Offset b = baselines.at(ch);
    n.gate->add_channel(ch, b);
    n.position[ch] = b;
    n.reported.erase(ch);
    oracle_.consume(n.consumer, ch, b);
  }
  n.gate->restore_resolution_state(n.committed_resolution);
  for (const auto& [ch, restated] : n.committed_custody) {
    if (!n.gate->consumes(ch)) continue;
    n.gate->restore_custody(ch, restated);
  }
  n.sender = new_sender(name, n.spec.eos, n.gate.get());
  Sender& s = senders_[n.sender];
  if (config_.stateful_restarts) s.knowledge = n.committed_knowledge;
  for (ChannelIndex sink : n.spec.sinks) {
    const Offset end = logs_[sink].hwm();
    s.stamper->seed(sink, end);
    s.seeds[sink] = end - 1;
  }
  n.dirty = false;
  n.flushing = false;
  n.abort_pending = false;
  n.rebalance_pending = false;
  n.generation = 0;
  n.producers = 0;
  n.uncommitted_effects.clear();
  n.paused.clear();  // a new consumer: nothing paused
  n.up = true;
  if (trace_) {
    std::string b;
    for (ChannelIndex ch : n.scope) b += fmt::format(" {}@{}", names_.channel_text(ch), baselines.at(ch));
    trace("start   {} ({}{}) baselines:{}", name, to_string(n.spec.kind), n.spec.lookups ? "" : ", no lookups", b);
  }
}

void World::end_incarnation(Node& n) {
  collect_gate_stats(*n.gate);
  oracle_.retire(n.consumer);
  kill_sender(n.sender);
  n.gate.reset();
  n.observer.reset();
  n.uncommitted_effects.clear();
  n.up = false;
  n.flushing = false;
  n.rebalance_pending = false;
  n.dirty = false;
}

Offset World::baseline_for(NodeKind kind, ChannelIndex ch) {
  switch (kind) {
    case NodeKind::joiner_end: return logs_[ch].hwm();
    case NodeKind::joiner_lso: return logs_[ch].lso();
    default: return 0;
  }
}

bool World::start_node(std::uint32_t i) {
  Node& n = nodes_[i];
  if (n.started) return false;
  if (n.spec.kind == NodeKind::joiner_committed) {
    const Node& x = nodes_[n.spec.copy_of];
    if (!x.started) return false;
    n.scope = x.scope;
    n.committed = x.committed;
    n.committed_resolution = x.committed_resolution;
    n.committed_custody = x.committed_custody;
    n.origin_baseline = x.origin_baseline;
  } else {
    n.scope = n.spec.scope;
    for (ChannelIndex ch : n.scope) n.committed[ch] = n.origin_baseline[ch] = baseline_for(n.spec.kind, ch);
  }
  n.started = true;
  n.crashes_left = n.spec.crashes;
  n.aborts_left = n.spec.aborts;
  n.replays_left = n.spec.replays;
  n.rebalances_left = n.spec.rebalances;
  n.rewinds_left = n.spec.rewinds;
  n.fencings_left = n.spec.fencings;
  n.refetches_left = n.spec.refetches;
  n.handovers_left = n.spec.handovers;
  n.growth_left = n.spec.growth;
  if (is_joiner(n.spec.kind)) ++counters_.joiners;
  start_incarnation(n, n.committed);
  return true;
}

void World::process_deliveries(Node& n) {
  while (!n.observer->pending.empty()) {
    // Swapped with a spare kept by the observer, so neither buffer is reallocated per batch.
    std::vector<NodeObserver::Delivered>& batch = n.observer->spare;
    batch.clear();
    batch.swap(n.observer->pending);
    for (const auto& d : batch) {
      const auto r = static_cast<RecordId>(d.tag);
      oracle_.delivered(n.consumer, r);
      Sender& s = senders_[n.sender];
      if (oracle_.learn_from_delivery(s.knowledge, r) > 0) ++counters_.txn_taught;
      n.uncommitted_effects.push_back(r);
      n.dirty = true;
      CAUSAL_SIM_TRACE("deliver {} {} ({})", senders_[n.sender].name, describe(r), to_string(d.release));
      const SimRecord& rec = records_[r];
      if (!n.spec.sinks.empty() && rec.hops < config_.max_hops && config_.fixed_choices) {
        if (n.spec.emit_per_mille > 0) send(n.sender, n.spec.sinks[rec.channel % n.spec.sinks.size()], rec.hops + 1, &n);
      } else if (!n.spec.sinks.empty() && rec.hops < config_.max_hops &&
                 rng_.chance(static_cast<std::uint32_t>(n.spec.emit_per_mille))) {
        const int k = 1 + static_cast<int>(rng_.below(2));
        const int hops = rec.hops + 1;
        for (int j = 0; j < k; ++j) send(n.sender, rng_.pick(n.spec.sinks), hops, &n);
      }
    }
  }
}

void World::answer_lookups(Node& n) {
  // Answering one lookup can move a head on to its next claim, which may be another
  // sequence claim needing a lookup, with no delivery in between: ask again until the gate
  // asks for nothing this call has not already answered.
  std::vector<LookupRequest> answered;
  for (int round = 0; round < 1024 && n.gate->held_count() > 0; ++round) {
    std::vector<LookupRequest> fresh;
    for (const LookupRequest& req : n.gate->pending_lookups())
      if (std::find(answered.begin(), answered.end(), req) == answered.end()) fresh.push_back(req);
    if (fresh.empty()) return;
    for (const LookupRequest& req : fresh) {
      answered.push_back(req);
      std::optional<Offset> located;
      // Only on a channel the node consumes (the gate asks for no other); the explorer's
      // reduction (reduction.cpp) relies on a lookup reading nothing else.
      const bool consumed = std::find(n.scope.begin(), n.scope.end(), req.channel) != n.scope.end();
      if (auto r = consumed ? locate(req.sender, req.seq) : std::nullopt) {
        const SimRecord& rec = records_[*r];
        if (rec.channel == req.channel && rec.offset != kNoOffset) located = rec.offset;
      }
      CAUSAL_SIM_TRACE("lookup  {} {}#{} on {} -> {}", senders_[n.sender].name, names_.sender_name(req.sender),
                       req.seq, names_.channel_text(req.channel), located ? fmt::format("@{}", *located) : "not found");
      n.gate->answer_lookup(req, located);
      process_deliveries(n);
    }
  }
}

bool World::fetch(std::uint32_t i, ChannelIndex ch, std::size_t max_records) {
  Node& n = nodes_[i];
  if (!n.up || n.flushing || !n.gate->consumes(ch)) return false;
  const Offset pos = n.position[ch];
  if (pos >= logs_[ch].lso()) return false;
  check_budget(n, ch);
  std::vector<Offset>& fetched = fetched_;  // nothing below fetches again
  const Offset next = logs_[ch].fetch(pos, max_records, txns_, fetched);
  CAUSAL_SIM_TRACE("fetch   {} {} from {}: {} records, position {}", senders_[n.sender].name, names_.channel_text(ch),
                   pos, fetched.size(), next);
  for (Offset o : fetched) {
    const RecordId r = logs_[ch].at(o).record;
    Received rcv{ch, o, config_.strip_clocks ? Clock{} : records_[r].clock, r, static_cast<std::int64_t>(step_)};
    const bool kept = n.gate->receive(std::move(rcv));
    // A dropped record changed nothing, so the frontier is the one it met: above it, the
    // queue-tail check dropped a held record fetched again (refetch).
    if (!kept && o > n.gate->frontier(ch)) ++counters_.queue_tail_drops;
    if (!kept) CAUSAL_SIM_TRACE("drop    {} {} (replay guard)", senders_[n.sender].name, describe(r));
    process_deliveries(n);
  }
  n.position[ch] = next;
  auto rep = n.reported.find(ch);
  if (rep == n.reported.end() || rep->second != next) {
    n.reported[ch] = next;
    n.gate->position_advance(ch, next);
    process_deliveries(n);
  }
  if (n.spec.lookups && n.gate->held_count() > 0) answer_lookups(n);
  apply_budget(n);
  return true;
}

bool World::commit(std::uint32_t i) {
  Node& n = nodes_[i];
  if (!n.up || n.flushing || !n.dirty) return false;
  n.flushing = true;
  CAUSAL_SIM_TRACE("flush   {} (commit requested)", senders_[n.sender].name);
  return true;
}

bool World::complete_commit(std::uint32_t i) {
  Node& n = nodes_[i];
  if (!n.up || !n.flushing || senders_[n.sender].in_flight != 0) return false;
  complete_flush(n);
  return true;
}

void World::complete_flush(Node& n) {
  const std::uint32_t si = n.sender;
  if (n.abort_pending) {
    end_txn(si, false);
    CAUSAL_SIM_TRACE("restart {} after abort", senders_[si].name);
    end_incarnation(n);
    start_incarnation(n, n.committed);
    ++counters_.restarts;
    return;
  }
  if (senders_[si].txn != kNoTxn) end_txn(si, true);
  for (ChannelId ch : n.gate->scope()) n.committed[ch] = n.gate->frontier(ch) + 1;
  n.committed_resolution = n.gate->resolution_state();
  for (ChannelId ch : n.gate->scope()) n.committed_custody[ch] = n.gate->custody_restatement(ch);
  if (config_.stateful_restarts) n.committed_knowledge = senders_[si].knowledge;
  if (n.spec.eos) {
    for (RecordId r : n.uncommitted_effects) oracle_.effect_committed(n.index, r);
  }
  if (trace_) {
    std::string c;
    for (const auto& [ch, p] : n.committed) c += fmt::format(" {}@{}", names_.channel_text(ch), p);
    trace("commit  {} positions:{} ({} effects)", senders_[si].name, c, n.uncommitted_effects.size());
  }
  n.uncommitted_effects.clear();
  n.dirty = false;
  n.flushing = false;
  if (n.rebalance_pending) new_generation(n);  // a rebalance: committed, now the new generation
}

bool World::crash(std::uint32_t i) {
  Node& n = nodes_[i];
  if (!n.up) return false;
  CAUSAL_SIM_TRACE("crash   {}", senders_[n.sender].name);
  end_incarnation(n);
  return true;
}

bool World::restart(std::uint32_t i) {
  Node& n = nodes_[i];
  if (!n.started || n.up) return false;
  // Fencing: the new incarnation's init aborts the previous one's open transaction.
  if (senders_[n.sender].txn != kNoTxn) end_txn(n.sender, false);
  start_incarnation(n, n.committed);
  ++counters_.restarts;
  return true;
}

void World::grow(Node& n, ChannelIndex ch) {
  // Without lookups, a baseline above 0 could freeze a claim on a send below it (the
  // late-joiner window); a node that has lookups may take any baseline.
  Offset b = 0;
  if (n.spec.lookups) {
    switch (config_.fixed_choices ? 1 : rng_.below(3)) {
      case 0: b = 0; break;
      case 1: b = logs_[ch].lso(); break;
      default: b = logs_[ch].hwm(); break;
    }
  }
  n.scope.push_back(ch);
  n.origin_baseline[ch] = b;
  n.committed[ch] = b;
  n.gate->add_channel(ch, b);
  n.position[ch] = b;
  n.reported.erase(ch);
  oracle_.consume(n.consumer, ch, b);
  ++counters_.scope_growths;
  CAUSAL_SIM_TRACE("grow    {} + {}@{}", senders_[n.sender].name, names_.channel_text(ch), b);
  process_deliveries(n);
  if (n.spec.lookups && n.gate->held_count() > 0) answer_lookups(n);
  apply_budget(n);
}

void World::replay(Node& n, ChannelIndex ch) {
  // Re-read from a committed-or-earlier position: at most frontier + 1, so nothing held
  // in the discarded queue is skipped.
  const Offset lo = n.gate->baseline(ch);
  const Offset hi = std::max(lo, n.gate->frontier(ch) + 1);
  const Offset pos = config_.fixed_choices ? lo : rng_.between(lo, hi);
  n.gate->reassign(ch);
  n.position[ch] = pos;
  n.reported.erase(ch);
  ++counters_.reassignments;
  CAUSAL_SIM_TRACE("replay  {} {} from {}", senders_[n.sender].name, names_.channel_text(ch), pos);
  apply_budget(n);  // the discarded queue may have been what kept a channel paused
}

}  // namespace causal::sim

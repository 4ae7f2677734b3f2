// The runtime's transitions of a node, as the Kafka layer makes them (lib/kafka/relay.cpp,
// lib/kafka/group_membership.cpp), with the same core calls (causal/transitions.hpp):
//   - new generation: the gate replaced (a rebalance, or the rewind after an abort); the
//     stamper carries what the old gate knew (carry_into_generation), and the new gate
//     starts from the committed positions, resolution state and custody restatements, as
//     begin_generation does. The process, its producer and its knowledge stay: truth
//     across a generation is the truth of one process (docs/verification.md);
//   - rebalance: what was delivered is committed first (the member commits before it gives
//     anything up), then a new generation;
//   - rewind: Relay::recover after an abort: the open transaction aborted with its
//     unacknowledged sends dropped (ProducerHost::abort_and_forget), then a new generation;
//   - fencing: Relay::reopen_output: the old producer's claims, its unacknowledged sends
//     dropped first (claims_of_fenced), carried into a new producer (take_over), which
//     takes end-offset seeds as every new producer does; Kafka aborts the fenced
//     transaction; then the rewind's new generation. The new producer is a new sender of
//     the same process: it inherits the process's knowledge;
//   - handover: a rebalance between members: a channel of one worker's scope moves to
//     another's. Both have committed (neither has anything uncommitted), and both start a
//     new generation, as every member does at every assignment change; the taker starts the
//     channel at the giver's committed position, with the giver's custody restatement and
//     resolution entries for it, which is what Kafka's commit metadata hands the next owner;
//   - refetch: a fetch reset (librdkafka re-fetching after an error, a seek back) while a
//     head is held: the records of the hold queue, its tail included, are received again
//     by the same gate, without reassign().
// Each generation is a new oracle consumer: within one, no record may reach the processor
// twice; across a rewind, every record's effect is committed exactly once. Under the
// stateful truth an abort also rolls the processor's state back (roll_back_state).
#include <algorithm>

#include "causal/transitions.hpp"
#include "internal.hpp"

namespace causal::sim {

void World::roll_back_state(const Node& n, Sender& s) {
  // The stateful truth (WorldConfig::stateful_restarts): the processor's knowledge is its
  // state, and an EOS processor's state is transactional. The abort rolls it back to what
  // its last commit saved, as the abort rolls back the transaction's records; keeping the
  // aborted deliveries' effects would count them twice once the rewind delivers them again.
  if (config_.stateful_restarts) s.knowledge = n.committed_knowledge;
}

void World::new_generation(Node& n) {
  collect_gate_stats(*n.gate);
  oracle_.retire(n.consumer);
  const std::unique_ptr<Gate> old_gate = std::move(n.gate);
  const std::unique_ptr<NodeObserver> old_observer = std::move(n.observer);
  ++n.generation;
  n.observer = std::make_unique<NodeObserver>(*this, n);
  n.gate = std::make_unique<Gate>(names_, n.observer.get());
  // As Relay's gate_replaced: before the new gate has any channel, while the old one lives.
  carry_into_generation(*senders_[n.sender].stamper, n.gate.get());
  const std::string name = fmt::format("{}.{}g{}", n.spec.name, n.incarnation, n.generation);
  n.consumer = oracle_.new_consumer(n.index, name);
  bool behind = false;
  for (ChannelIndex ch : n.scope) {
    const Offset b = n.committed.at(ch);
    n.gate->add_channel(ch, b);
    n.position[ch] = b;
    n.reported.erase(ch);
    oracle_.consume(n.consumer, ch, b);
    if (old_gate->frontier(ch) >= b) behind = true;  // delivered there, not committed: only the carry claims it
  }
  n.gate->restore_resolution_state(n.committed_resolution);
  for (const auto& [ch, restated] : n.committed_custody) {
    if (!n.gate->consumes(ch)) continue;
    n.gate->restore_custody(ch, restated);
  }
  if (behind) ++counters_.generations_behind;
  ++counters_.generations;
  n.dirty = false;
  n.flushing = false;
  n.abort_pending = false;
  n.rebalance_pending = false;
  n.uncommitted_effects.clear();
  n.paused.clear();  // the member's budget starts again with the generation
  if (trace_) {
    std::string b;
    for (ChannelIndex ch : n.scope) b += fmt::format(" {}@{}", names_.channel_text(ch), n.committed.at(ch));
    trace("generation {} (gate replaced, old gate's knowledge carried) baselines:{}", name, b);
  }
}

void World::rebalance(Node& n) {
  ++counters_.rebalances;
  if (n.dirty) {
    // Commit first (complete_flush starts the generation once the commit is done).
    n.flushing = true;
    n.rebalance_pending = true;
    CAUSAL_SIM_TRACE("flush   {} (rebalance: commit, then a new generation)", senders_[n.sender].name);
    return;
  }
  new_generation(n);
}

void World::abandon_sends(std::uint32_t si) {
  // ProducerHost::abort_and_forget: the abort purges what was not acknowledged (never
  // appended: lost; appended: an aborted record once the marker lands), then the stamper
  // drops its claims on those sends.
  Sender& s = senders_[si];
  for (auto& [ch, q] : s.unappended) {
    for (RecordId r : q) oracle_.lost(r);
    q.clear();
  }
  for (auto& [ch, q] : s.unacked) q.clear();
  if (s.in_flight != 0) std::erase(busy_senders_, si);
  s.in_flight = 0;
  s.stamper->transaction_abandoned();
}

void World::rewind(Node& n) {
  const std::uint32_t si = n.sender;
  CAUSAL_SIM_TRACE("rewind  {} (abort, unacknowledged sends dropped)", senders_[si].name);
  abandon_sends(si);
  end_txn(si, false);
  roll_back_state(n, senders_[si]);
  ++counters_.rewinds;
  new_generation(n);
}

void World::fence(Node& n) {
  const std::uint32_t old = n.sender;
  const Clock claimed = claims_of_fenced(*senders_[old].stamper);
  Bits knowledge = senders_[old].knowledge;
  CAUSAL_SIM_TRACE("fenced  {} (producer made again)", senders_[old].name);
  kill_sender(old);
  end_txn(old, false);  // the new producer's init aborts the fenced transaction
  ++n.producers;
  n.sender = new_sender(fmt::format("{}.{}f{}", n.spec.name, n.incarnation, n.producers), n.spec.eos, n.gate.get());
  Sender& s = senders_[n.sender];
  s.knowledge = std::move(knowledge);  // the same process
  roll_back_state(n, s);
  for (ChannelIndex sink : n.spec.sinks) {
    const Offset end = logs_[sink].hwm();
    s.stamper->seed(sink, end);
    s.seeds[sink] = end - 1;
  }
  take_over(*s.stamper, claimed, n.gate.get());
  ++counters_.fencings;
  new_generation(n);  // the rewind that follows (Relay::recover)
}

bool World::refetch(Node& n) {
  std::vector<ChannelIndex> held;
  for (ChannelIndex ch : n.scope)
    if (n.gate->held_count(ch) > 0) held.push_back(ch);
  if (held.empty()) return false;
  const ChannelIndex ch = config_.fixed_choices ? held.front() : rng_.pick(held);
  const Offset tail = n.gate->held(ch).back().offset;
  // From anywhere above the frontier up to the queue's tail: the tail is always fetched again.
  const Offset lo = n.gate->frontier(ch) + 1;
  const Offset pos = config_.fixed_choices ? tail : rng_.between(lo, tail);
  n.position[ch] = pos;
  ++counters_.refetches;
  CAUSAL_SIM_TRACE("refetch {} {} from {} (queue tail {}, no reassignment)", senders_[n.sender].name,
                   names_.channel_text(ch), pos, tail);
  return true;
}

std::vector<std::pair<std::uint32_t, ChannelIndex>> World::handover_options(const Node& from,
                                                                          bool first_only) const {
  std::vector<std::pair<std::uint32_t, ChannelIndex>> out;
  if (!from.up || from.flushing || from.dirty || from.scope.size() < 2) return out;
  for (std::uint32_t j = 0; j < nodes_.size(); ++j) {
    const Node& to = nodes_[j];
    if (&to == &from || to.spec.kind != NodeKind::worker || !to.up || to.flushing || to.dirty) continue;
    for (ChannelIndex c : from.scope) {
      // A channel the taker never consumed, and will not grow into: its obligations on the
      // channel start at this handover.
      if (to.origin_baseline.contains(c)) continue;
      if (std::find(to.growth_left.begin(), to.growth_left.end(), c) != to.growth_left.end()) continue;
      out.emplace_back(j, c);
      if (first_only) return out;
    }
  }
  return out;
}

bool World::handover(Node& from) {
  const auto options = handover_options(from);
  if (options.empty()) return false;
  const auto [j, c] = config_.fixed_choices ? options.front() : rng_.pick(options);
  Node& to = nodes_[j];
  to.scope.push_back(c);
  to.committed[c] = from.committed.at(c);
  to.origin_baseline[c] = from.committed.at(c);
  if (auto k = from.committed_custody.find(c); k != from.committed_custody.end()) to.committed_custody[c] = k->second;
  for (const ResolutionEntry& e : from.committed_resolution) {
    if (e.channel != c) continue;
    auto same = std::find_if(to.committed_resolution.begin(), to.committed_resolution.end(),
                             [&](const ResolutionEntry& x) { return x.channel == e.channel && x.sender == e.sender; });
    if (same == to.committed_resolution.end()) {
      to.committed_resolution.push_back(e);
    } else {
      same->seq = std::max(same->seq, e.seq);
    }
  }
  std::erase(from.scope, c);
  from.reported.erase(c);
  ++counters_.handovers;
  CAUSAL_SIM_TRACE("handover {} -> {}: {}@{}", senders_[from.sender].name, senders_[to.sender].name,
                   names_.channel_text(c), to.committed.at(c));
  new_generation(from);
  new_generation(to);
  return true;
}

}  // namespace causal::sim

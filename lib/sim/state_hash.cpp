// The world's state hash: what the exhaustive explorer (explore.hpp) deduplicates on.
//
// Contract: two worlds of the same WorldConfig (with fixed_choices) whose state_hash is
// equal have the same futures as far as the oracle's checks go: the same enabled events
// in the same order, and for every schedule the same deliveries, violations and drain
// verdicts. (Up to a 64-bit hash collision; the explorer reports its state count, so the
// collision odds are about states^2 / 2^65.)
//
// What is hashed, and why that is enough:
//   - logs: every entry (kind, record, transaction); the open-transaction list of a log is
//     a function of its entries and the transactions' states, which are hashed too;
//   - records: channel, sender, send number, transaction, offset, hop count, and the clock
//     stamped on them (what every later receive hands the gate);
//   - senders: identity, liveness, open transaction with its sends and channels, the
//     unappended and unacknowledged queues, the oracle's knowledge (ancestors of the next
//     send), the sends, the seeds, and `history`: the Stamper is deterministic, so its
//     private state is a function of the calls made on it, which `history` hashes in order
//     (with the node's gate history at each stamp, since stamp_send reads the gate);
//   - sources: every field the scheduler and apply() read;
//   - nodes: every field the scheduler, fetches, commits and restarts read, and
//     `gate_history`: the Gate is deterministic and its state a function of the calls made
//     on it since it was built (add_channel, restore_resolution_state, receive,
//     position_advance, answer_lookup, reassign), hashed in order. The `now` passed to
//     receive is left out: it only feeds held-time figures, never a decision;
//   - the oracle (Oracle::state_hash): every record's state, offset and ancestors, every
//     consumer's baselines, last offsets, obligations and deliveries, every logical node's
//     committed effects, and the violation count;
//   - the Rng's next value (fixed_choices never draws from it; hashed so that a world that
//     did could not be merged wrongly).
// Left out: counters, the step number, trace text, attributed-stall lines (reporting only),
// and names (a function of the senders created, which are hashed in order).
#include "internal.hpp"

namespace causal::sim {

namespace {

struct Hasher {
  std::uint64_t h = 0x5eed;
  void operator()(std::uint64_t v) { h = mix64(h, v); }
  void bits(const Bits& b) {
    std::size_t n = b.words();
    while (n > 0 && b.word(n - 1) == 0) --n;  // equal sets hash equal whatever their capacity
    (*this)(n);
    for (std::size_t k = 0; k < n; ++k) (*this)(b.word(k));
  }
  void clock(const Clock& c) {
    (*this)(c.offsets().size());
    for (const OffsetClaim& o : c.offsets()) (*this)(o.channel), (*this)(static_cast<std::uint64_t>(o.offset));
    (*this)(c.seqs().size());
    for (const SeqClaim& q : c.seqs()) (*this)(q.channel), (*this)(q.sender), (*this)(q.seq);
    (*this)(c.origin ? c.origin->sender + 1 : 0);
    (*this)(c.origin ? c.origin->seq : 0);
  }
  template <class C>
  void seq(const C& v) {
    (*this)(v.size());
    for (const auto& x : v) (*this)(static_cast<std::uint64_t>(x));
  }
  template <class K, class V>
  void map(const std::map<K, V>& m) {
    (*this)(m.size());
    for (const auto& [k, v] : m) (*this)(static_cast<std::uint64_t>(k)), (*this)(static_cast<std::uint64_t>(v));
  }
};

}  // namespace

std::uint64_t Oracle::state_hash() const {
  Hasher h;
  h(recs_.size());
  for (const Rec& r : recs_) {
    h(r.channel);
    h(static_cast<std::uint64_t>(r.offset));
    h(static_cast<std::uint64_t>(r.state));
    h.bits(r.ancestors);
  }
  h(cons_.size());
  for (const Consumer& c : cons_) {
    h(c.logical);
    h(c.live);
    h.seq(c.baseline);
    h.seq(c.last);
    h.bits(c.need);
    h.bits(c.delivered);
  }
  h(effects_.size());
  for (const Bits& e : effects_) h.bits(e);
  h(violation_count_);
  return h.h;
}

std::uint64_t World::state_hash() const {
  Hasher h;
  for (const Log& l : logs_) {
    h(static_cast<std::uint64_t>(l.hwm()));
    for (Offset o = 0; o < l.hwm(); ++o) {
      const LogEntry& e = l.at(o);
      h(static_cast<std::uint64_t>(e.kind));
      h(e.record);
      h(e.txn);
    }
  }
  h.seq(txns_);
  h(records_.size());
  for (const SimRecord& r : records_) {
    h(r.channel);
    h(r.sender);
    h(r.seq);
    h(r.txn);
    h(static_cast<std::uint64_t>(r.offset));
    h(static_cast<std::uint64_t>(r.hops));
    h.clock(r.clock);
  }
  h(senders_.size());
  for (const Sender& s : senders_) {
    h(s.id);
    h(s.alive);
    h(s.txn);
    h.seq(s.txn_sends);
    h.seq(s.txn_channels);
    for (const auto* queues : {&s.unappended, &s.unacked}) {
      h(queues->size());
      for (const auto& [ch, q] : *queues) h(ch), h.seq(q);
    }
    h(s.in_flight);
    h.bits(s.knowledge);
    h.seq(s.sends);
    h.map(s.seeds);
    h(s.history);
  }
  for (const Source& s : sources_) {
    h(s.sender);
    h(s.started);
    h(static_cast<std::uint64_t>(s.sent));
    h(static_cast<std::uint64_t>(s.txn_left));
    h(s.flushing);
    h(s.abort_pending);
  }
  for (const Node& n : nodes_) {
    h(n.started);
    h(n.up);
    h(n.incarnation);
    h(n.sender);
    h(n.consumer);
    h.seq(n.scope);
    h.map(n.position);
    h.map(n.reported);
    h.map(n.committed);
    h.map(n.origin_baseline);
    h(n.committed_resolution.size());
    for (const ResolutionEntry& e : n.committed_resolution) h(e.channel), h(e.sender), h(e.seq);
    h(n.dirty);
    h(n.flushing);
    h(n.abort_pending);
    h.seq(n.uncommitted_effects);
    h.bits(n.committed_knowledge);
    h(static_cast<std::uint64_t>(n.crashes_left));
    h(static_cast<std::uint64_t>(n.aborts_left));
    h(static_cast<std::uint64_t>(n.replays_left));
    h.seq(n.growth_left);
    h(n.gate ? n.gate_history : 0);
  }
  h(oracle_.state_hash());
  Rng next = rng_;
  h(next.next());
  return h.h;
}

}  // namespace causal::sim

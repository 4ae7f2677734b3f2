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
//     send), the sends, the seeds, and the Stamper's own state (Stamper::digest: with the
//     node's gate, hashed below, it decides every later stamp);
//   - sources: every field the scheduler and apply() read;
//   - nodes: every field the scheduler, fetches, commits and restarts read (what a node
//     committed, i.e. positions, resolution state, custody and knowledge, only while an
//     incarnation may still start from it: before its start, while it is down, while a crash
//     or abort is left or pending, or when a joiner copies it; the deliveries not yet
//     committed only at an EOS node, the only kind that turns them into effects), and
//     the gate's state (Gate::digest, with record tags renamed as below). Its state, not
//     the calls that led to it: two orders of a node's fetches on two channels that leave
//     the gate alike merge (on the wide relay's two-record world, 7,837 states against
//     54,621 when the history of calls was hashed). Gate::digest leaves out only what
//     decides nothing (received times, statistics, the release fields between calls,
//     registration epochs beyond whether each is current), so equal digests have equal
//     futures;
//   - the oracle (Oracle::state_hash): every record's state, offset and ancestors, every
//     consumer's baselines, last offsets, obligations and deliveries, every logical node's
//     committed effects, and the violation count;
//   - record ids are renamed canonically: a RecordId is the order in which sends happened
//     across all senders, so two schedules that interleave p's and q's sends differently
//     would otherwise never meet. Every id is replaced by the rank of (SenderId, send
//     number), a name that does not depend on that order. Sound because nothing decides on
//     a RecordId's value: the gate gets it as an opaque tag (renamed in its digest too),
//     and the world and the oracle use it as an index;
//     only the order in which violation details would be listed can differ;
//   - transaction ids are renamed likewise: a TxnId is the order in which transactions
//     opened across all senders; each is replaced by the rank of (owner's SenderId, TxnId),
//     a name that does not depend on how two senders' transactions interleaved (a sender's
//     own transactions open in order). Nothing decides on a TxnId's value: it indexes the
//     transaction table and tags log entries;
//   - the Rng's next value (fixed_choices never draws from it; hashed so that a world that
//     did could not be merged wrongly).
// Left out: counters, the step number, trace text, attributed-stall lines (reporting only),
// and names (a function of the senders created, which are hashed in order).
#include <algorithm>
#include <functional>

#include "internal.hpp"

namespace causal::sim {

namespace {

struct Hasher {
  std::uint64_t h = 0x5eed;
  void operator()(std::uint64_t v) { h = mix64(h, v); }
  // For the digests of the gate and the stamper: this hasher's operator(), by reference.
  std::function<void(std::uint64_t)> sink() { return std::ref(*this); }
  // The set `b` of record ids, renamed through `canon` (see the contract above).
  void bits(const Bits& b, const std::vector<std::uint32_t>& canon) {
    Bits renamed;
    Bits::for_each_and_not(b, Bits{}, [&](std::size_t i) { renamed.set(canon[i]); });
    std::size_t n = renamed.words();
    while (n > 0 && renamed.word(n - 1) == 0) --n;  // equal sets hash equal whatever their capacity
    (*this)(n);
    for (std::size_t k = 0; k < n; ++k) (*this)(renamed.word(k));
  }
  template <class C>
  void ids(const C& v, const std::vector<std::uint32_t>& canon) {
    (*this)(v.size());
    for (const auto& x : v) (*this)(canon[x]);
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

std::uint64_t Oracle::state_hash(const std::vector<std::uint32_t>& canon, const std::vector<RecordId>& by_rank) const {
  Hasher h;
  h(recs_.size());
  for (RecordId id : by_rank) {
    const Rec& r = recs_[id];
    h(r.channel);
    h(static_cast<std::uint64_t>(r.offset));
    h(static_cast<std::uint64_t>(r.state));
    h.bits(r.ancestors, canon);
  }
  h(cons_.size());
  for (const Consumer& c : cons_) {
    h(c.logical);
    h(c.live);
    h.seq(c.baseline);
    h.seq(c.last);
    h.bits(c.need, canon);
    h.bits(c.delivered, canon);
  }
  h(effects_.size());
  for (const Bits& e : effects_) h.bits(e, canon);
  h(violation_count_);
  return h.h;
}

std::uint64_t World::state_hash() const {
  // The canonical name of every record: the rank of (SenderId, send number).
  std::vector<RecordId> by_rank(records_.size());
  for (RecordId r = 0; r < by_rank.size(); ++r) by_rank[r] = r;
  std::sort(by_rank.begin(), by_rank.end(), [&](RecordId x, RecordId y) {
    const SenderId sx = senders_[records_[x].sender].id, sy = senders_[records_[y].sender].id;
    return sx != sy ? sx < sy : records_[x].seq < records_[y].seq;
  });
  std::vector<std::uint32_t> canon(records_.size());
  for (std::uint32_t k = 0; k < by_rank.size(); ++k) canon[by_rank[k]] = k;
  // The canonical name of every transaction: the rank of (owner's SenderId, TxnId).
  std::vector<TxnId> txn_by_rank(txns_.size());
  for (TxnId t = 0; t < txn_by_rank.size(); ++t) txn_by_rank[t] = t;
  std::sort(txn_by_rank.begin(), txn_by_rank.end(), [&](TxnId x, TxnId y) {
    const SenderId sx = senders_[txn_owner_[x]].id, sy = senders_[txn_owner_[y]].id;
    return sx != sy ? sx < sy : x < y;
  });
  std::vector<std::uint32_t> txn_canon(txns_.size());
  for (std::uint32_t k = 0; k < txn_by_rank.size(); ++k) txn_canon[txn_by_rank[k]] = k;
  const auto txn = [&](TxnId t) -> std::uint64_t { return t == kNoTxn ? kNoTxn : txn_canon[t]; };
  Hasher h;
  for (const Log& l : logs_) {
    h(static_cast<std::uint64_t>(l.hwm()));
    for (Offset o = 0; o < l.hwm(); ++o) {
      const LogEntry& e = l.at(o);
      h(static_cast<std::uint64_t>(e.kind));
      h(e.kind == EntryKind::business ? canon[e.record] : 0);
      h(txn(e.txn));
    }
  }
  h(txns_.size());
  for (TxnId t : txn_by_rank) h(static_cast<std::uint64_t>(txns_[t]));
  h(records_.size());
  for (RecordId id : by_rank) {
    const SimRecord& r = records_[id];
    h(r.channel);
    h(r.sender);
    h(r.seq);
    h(txn(r.txn));
    h(static_cast<std::uint64_t>(r.offset));
    h(static_cast<std::uint64_t>(r.hops));
    h.clock(r.clock);
  }
  h(senders_.size());
  for (const Sender& s : senders_) {
    h(s.id);
    h(s.alive);
    h(txn(s.txn));
    h.ids(s.txn_sends, canon);
    h.seq(s.txn_channels);
    for (const auto* queues : {&s.unappended, &s.unacked}) {
      h(queues->size());
      for (const auto& [ch, q] : *queues) h(ch), h.ids(q, canon);
    }
    h(s.in_flight);
    h.bits(s.knowledge, canon);
    h.ids(s.sends, canon);
    h.map(s.seeds);
    h(s.stamper != nullptr);  // none once the sender is dead
    if (s.stamper) s.stamper->digest(h.sink());
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
    n.position.for_each([&](ChannelIndex ch, Offset p) { h(ch), h(p); });
    h.map(n.reported);
    h.map(n.origin_baseline);
    // What a node committed is read only when an incarnation starts from it (a restart, an
    // abort's restart, a joiner copying it): dead once none of those can happen again.
    const bool copied = std::any_of(config_.nodes.begin(), config_.nodes.end(), [&](const NodeSpec& x) {
      return x.kind == NodeKind::joiner_committed && x.copy_of == n.index;
    });
    const bool restarts = !n.started || !n.up || n.crashes_left > 0 || n.aborts_left > 0 || n.abort_pending || copied ||
                          n.rebalances_left > 0 || n.rewinds_left > 0 || n.fencings_left > 0 || n.rebalance_pending ||
                          n.handovers_left > 0;
    h(restarts);
    if (restarts) {
      h.map(n.committed);
      h(n.committed_resolution.size());
      for (const ResolutionEntry& e : n.committed_resolution) h(e.channel), h(e.sender), h(e.seq);
      h(n.committed_custody.size());
      for (const auto& [ch, k] : n.committed_custody) {
        h(ch);
        for (const OffsetClaim& c : k.offsets()) h(c.channel), h(c.offset);
        for (const SeqClaim& c : k.seqs()) h(c.channel), h(c.sender), h(c.seq);
      }
      h.bits(n.committed_knowledge, canon);
    }
    h.seq(std::vector<ChannelIndex>(n.paused.begin(), n.paused.end()));
    h(n.dirty);
    h(n.flushing);
    h(n.abort_pending);
    // The deliveries since the last commit become committed effects only at an EOS node.
    if (n.spec.eos) h.ids(n.uncommitted_effects, canon);
    h(static_cast<std::uint64_t>(n.crashes_left));
    h(static_cast<std::uint64_t>(n.aborts_left));
    h(static_cast<std::uint64_t>(n.replays_left));
    h(static_cast<std::uint64_t>(n.rebalances_left));
    h(static_cast<std::uint64_t>(n.rewinds_left));
    h(static_cast<std::uint64_t>(n.fencings_left));
    h(static_cast<std::uint64_t>(n.refetches_left));
    h(static_cast<std::uint64_t>(n.handovers_left));
    h(n.rebalance_pending);
    h(n.generation);
    h(n.producers);
    h.seq(n.growth_left);
    h(n.gate != nullptr);
    if (n.gate) n.gate->digest(h.sink(), [&](std::uint64_t tag) -> std::uint64_t { return canon[tag]; });
  }
  h(oracle_.state_hash(canon, by_rank));
  Rng next = rng_;
  h(next.next());
  return h.h;
}

}  // namespace causal::sim

// The delivery gate. See gate.hpp for the rules and docs/protocol.md for why they hold.
//
// Mechanics in one paragraph: a record is appended to its channel's hold queue; when it
// becomes head its channel is put on the worklist; run_cascade() evaluates worklist heads
// until none is left. evaluate() checks the head's claims once and registers the head in
// the waiter index of every claim that blocks it (per channel: a list for claims on the
// offset right above the frontier, which any rise satisfies, a min-heap for offset claims
// further ahead, a small list for sequence claims), counting them in `pending`. A frontier or
// delivered_seq advance pops exactly the registrations it satisfies and decrements their
// heads' counts; a head whose count reaches 0 goes on the worklist and is delivered without
// its clock being checked again. Every claim is therefore checked once while held, a
// satisfied claim costs a decrement rather than a re-evaluation of the head, and a delivery
// touches only the registrations it satisfies.
#include "causal/gate.hpp"

#include <algorithm>
#include <stdexcept>

#include "causal/rules.hpp"
#include "gate_state.hpp"

namespace causal {

using rules::on;
using rules::Rule;

std::string_view to_string(Release r) {
  switch (r) {
    case Release::immediate:
      return "immediate";
    case Release::head_of_line:
      return "head_of_line";
    case Release::frontier:
      return "frontier";
    case Release::seq_resolved:
      return "seq_resolved";
    case Release::position_advance:
      return "position_advance";
    case Release::fold_in:
      return "fold_in";
    case Release::lookup:
      return "lookup";
    case Release::scope:
      return "scope";
  }
  return "unknown";
}

namespace {
// Min-heap order on `needed` for std::push_heap / pop_heap.
constexpr auto kLaterNeedFirst = [](const auto& a, const auto& b) { return a.needed > b.needed; };
}  // namespace

void Gate::HoldQueue::pop_front() {
  ++begin_;
  if (begin_ == items_.size()) {
    clear();
  } else if (begin_ >= 64 && begin_ * 2 >= items_.size()) {
    items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(begin_));
    begin_ = 0;
  }
}

Gate::Gate(Names& names, GateObserver* observer) : names_(names), observer_(observer) {}
Gate::~Gate() = default;

Gate::ChannelState& Gate::state(ChannelId ch) {
  if (ch >= channels_.size()) cover(std::max<std::size_t>(std::size_t{ch} + 1, names_.channel_count()));
  return channels_[ch];
}

void Gate::cover(std::size_t channels) {
  if (channels_.size() >= channels) return;
  channels_.resize(channels);
  reach_.resize(channels);
}

void Gate::cover_all_names() {
  // Every channel id in any clock comes from names_, so after this no evaluation resizes
  // channels_ (which would invalidate the references it holds).
  cover(names_.channel_count());
}

const Gate::ChannelState* Gate::find(ChannelId ch) const { return in_scope(ch) ? &channels_[ch] : nullptr; }

Gate::SeqEntry* Gate::find_seq(ChannelState& st, SenderId s) {
  for (auto& e : st.delivered_seq) {
    if (e.sender == s) return &e;
  }
  return nullptr;
}

const Gate::SeqEntry* Gate::find_seq(const ChannelState& st, SenderId s) const {
  for (const auto& e : st.delivered_seq) {
    if (e.sender == s) return &e;
  }
  return nullptr;
}

// --- scope ---------------------------------------------------------------------------

void Gate::add_channel(ChannelId ch, Offset baseline) {
  if (baseline < 0) throw std::invalid_argument("Gate::add_channel: negative baseline");
  cover_all_names();
  ++version_;  // the scope (raise_frontier counts the seed)
  ChannelState& st = state(ch);
  // Scope growth: a channel added after records were received.
  const bool growth = !reach_[ch].consumed && stats_.received > 0;
  if (!reach_[ch].consumed) {
    reach_[ch].consumed = true;
    st.baseline = baseline;
    scope_.push_back(ch);
  }
  // The seed: everything below the baseline is accounted for (never delivered here).
  raise_frontier(ch, baseline - (on(Rule::baseline_off_by_one) ? 1 : 0), Release::scope, kNoOffset);
  if (growth) {
    // Scope growth: claims on `ch` were ignored by the restrict step until now, so every
    // held head is evaluated again from its first claim.
    ++stats_.scope_growths;
    for (ChannelId c : scope_) {
      if (!channels_[c].queue.empty()) {
        restart_evaluation(c);
        schedule(c, Release::scope, ch, kNoOffset);
      }
    }
  }
  run_cascade();
}

GateStats& operator+=(GateStats& a, const GateStats& b) {
  a.received += b.received;
  a.delivered += b.delivered;
  a.holds += b.holds;
  a.cascades_multi += b.cascades_multi;
  a.bridges_at_receive += b.bridges_at_receive;
  a.head_fold_ins += b.head_fold_ins;
  a.position_advances += b.position_advances;
  a.position_remembered += b.position_remembered;
  a.replays_dropped += b.replays_dropped;
  a.seq_claims_resolved += b.seq_claims_resolved;
  a.lookups_resolved += b.lookups_resolved;
  a.scope_growths += b.scope_growths;
  a.reassignments += b.reassignments;
  a.failed_closed += b.failed_closed;
  return a;
}

bool Gate::consumes(ChannelId ch) const { return find(ch) != nullptr; }

void Gate::restart_evaluation(ChannelId ch) {
  ChannelState& st = channels_[ch];
  ++st.epoch;  // makes every registration of this head stale
  st.pending = 0;
  st.waiting = false;
}

// --- receive side ----------------------------------------------------------------------

bool Gate::receive(Received&& r) {
  cover_all_names();
  if (!in_scope(r.channel)) throw std::logic_error("Gate::receive: channel not in scope");
  ChannelState& st = channels_[r.channel];
  if (reach_[r.channel].failed) return false;  // fail closed: nothing at or after the failed offset
  ++stats_.received;

  // 1 replay guard. A record not above the queue's tail is a re-read without reassign():
  // it was already received, so it is a replay too.
  if ((on(Rule::replay_guard) && r.offset <= reach_[r.channel].frontier) ||
      (!st.queue.empty() && (r.offset < st.queue.back().offset ||
                             (on(Rule::queue_tail) && r.offset == st.queue.back().offset)))) {
    ++stats_.replays_dropped;
    if (observer_) observer_->replay_dropped(r.channel, r.offset);
    return false;
  }
  // 3 custody: fold at receive, not delivery (an over-claim only delays). A clock whose
  // every claim the frontier already covers is not folded: custody only ever reaches the
  // stamp joined with the frontier, and frontiers never go down, so those claims would add
  // nothing. In a stream that arrives in causal order that is nearly every record.
  const bool covered = frontier_covers(r.clock);
  if (!covered) {
    st.custody.join(r.clock);
    ++version_;
  }
  if (covered && st.queue.empty()) {
    // The common case, without the queue: the record becomes head on arrival (2 bridge at
    // receive), and with every claim covered the gate (8) passes at once, so it is
    // delivered (9) without being copied into the hold queue and out again.
    if (on(Rule::fold_in) && raise_frontier(r.channel, r.offset - 1, Release::fold_in, kNoOffset)) {
      ++stats_.bridges_at_receive;
    }
    report(Delivery{r.channel, r.offset, r.clock, r.tag, r.now, Release::immediate, r.channel, kNoOffset});
    delivered(r.channel, r.offset, r.clock.origin);
    run_cascade();
    return true;
  }
  // 4 queue.
  const bool was_empty = st.queue.empty();
  st.queue.push_back(Held{r.offset, std::move(r.clock), r.tag, r.now});
  ++held_total_;
  if (was_empty) {
    became_head(r.channel, /*at_receive=*/true);  // 2 bridge at receive
    run_cascade();
  }
  const bool delivered_at_once = st.queue.empty() || st.queue.back().offset != r.offset;
  if (!delivered_at_once) ++stats_.holds;
  return true;
}

void Gate::became_head(ChannelId ch, bool at_receive) {
  restart_evaluation(ch);
  ChannelState& st = channels_[ch];
  // 5 head fold-in: head-of-line order means every business record below the head was
  // delivered, so the rest of the prefix was skipped (markers, aborted records).
  if (on(Rule::fold_in)) {
    if (raise_frontier(ch, st.queue.front().offset - 1, Release::fold_in, kNoOffset)) {
      ++(at_receive ? stats_.bridges_at_receive : stats_.head_fold_ins);
    }
  }
  schedule(ch, at_receive ? Release::immediate : Release::head_of_line, ch, kNoOffset);
}

void Gate::schedule(ChannelId ch, Release why, ChannelId by_channel, Offset by_offset) {
  ChannelState& st = channels_[ch];
  st.release = why;
  st.released_by_channel = by_channel;
  st.released_by_offset = by_offset;
  worklist_.push_back(ch);
}

void Gate::position_advance(ChannelId ch, Offset p) {
  if (!on(Rule::position_advance)) return;
  if (!in_scope(ch)) return;
  ChannelState& st = channels_[ch];
  if (!st.queue.empty() && !on(Rule::remembered_position)) return;
  st.position = std::max(st.position, p);
  if (st.queue.empty()) {
    apply_position(ch, /*remembered=*/false);
    run_cascade();
  }
}

void Gate::apply_position(ChannelId ch, bool remembered) {
  ChannelState& st = channels_[ch];
  if (st.position == kNoOffset) return;
  if (raise_frontier(ch, st.position - (on(Rule::position_off_by_one) ? 1 : 0), Release::position_advance, st.position)) {
    ++stats_.position_advances;
    if (remembered) ++stats_.position_remembered;
  }
}

void Gate::fail_closed(ChannelId ch, Offset offset) {
  ChannelState& st = state(ch);
  if (reach_[ch].failed) return;
  reach_[ch].failed = true;
  st.failed_offset = offset;
  ++version_;
  ++stats_.failed_closed;
}

bool Gate::failed(ChannelId ch) const {
  const ChannelState* st = find(ch);
  return st && reach_[ch].failed;
}

std::optional<Offset> Gate::failed_at(ChannelId ch) const {
  const ChannelState* st = find(ch);
  if (!st || !reach_[ch].failed) return std::nullopt;
  return st->failed_offset;
}

void Gate::reassign(ChannelId ch) {
  ChannelState& st = state(ch);
  if (observer_) {
    for (std::size_t i = 0; i < st.queue.size(); ++i)
      observer_->discarded(ch, st.queue.at(i).offset, st.queue.at(i).tag);
  }
  held_total_ -= st.queue.size();
  st.queue.clear();
  st.position = kNoOffset;
  reach_[ch].failed = false;  // a re-read is the retry that fail-closed left room for
  st.failed_offset = kNoOffset;
  restart_evaluation(ch);
  ++stats_.reassignments;
  ++version_;
}

// --- frontier and delivered_seq advances ----------------------------------------------

bool Gate::raise_frontier(ChannelId ch, Offset to, Release why, Offset by_offset) {
  ChannelState& st = channels_[ch];
  if (reach_[ch].failed) to = std::min(to, st.failed_offset - 1);
  Offset& frontier = reach_[ch].frontier;
  if (to <= frontier) return false;
  frontier = to;
  ++version_;
  // Registrations on the offset right above the old frontier: any rise satisfies them.
  for (const NextWaiter& w : st.next_waiters) {
    const ChannelState& head = channels_[w.head_channel];
    if (head.epoch != w.epoch || !head.waiting) continue;  // stale registration
    claim_satisfied(w.head_channel, why, ch, by_offset);
  }
  st.next_waiters.clear();
  auto& heap = st.offset_waiters;
  while (!heap.empty() && heap.front().needed <= to) {
    OffsetWaiter w = heap.front();
    std::pop_heap(heap.begin(), heap.end(), kLaterNeedFirst);
    heap.pop_back();
    const ChannelState& head = channels_[w.head_channel];
    if (head.epoch != w.epoch || !head.waiting) continue;  // stale registration
    claim_satisfied(w.head_channel, why, ch, by_offset);
  }
  return true;
}

void Gate::raise_delivered_seq(ChannelId ch, SenderId s, SeqNo q, bool delivered_here, Release why,
                               Offset by_offset) {
  ChannelState& st = channels_[ch];
  SeqEntry* e = find_seq(st, s);
  if (e == nullptr) {
    st.delivered_seq.push_back({s, q, delivered_here});
  } else {
    e->delivered_here = e->delivered_here || delivered_here;
    if (q <= e->seq) return;
    e->seq = q;
  }
  ++version_;
  if (st.seq_waiters.empty()) return;
  std::erase_if(st.seq_waiters, [&](const SeqWaiter& w) {
    if (w.sender != s || w.needed > q) return false;
    const ChannelState& head = channels_[w.head_channel];
    if (head.epoch == w.epoch && head.waiting) {
      ++stats_.seq_claims_resolved;
      claim_satisfied(w.head_channel, why, ch, by_offset);
    }
    return true;
  });
}

void Gate::claim_satisfied(ChannelId head_ch, Release why, ChannelId by_channel, Offset by_offset) {
  // Ready at 0: every claim is satisfied. Delivered from the worklist, so that deliveries
  // happen in run_cascade() and never inside the waiter loop that called this.
  if (--channels_[head_ch].pending == 0) schedule(head_ch, why, by_channel, by_offset);
}

// --- the predicate ---------------------------------------------------------------------

bool Gate::offset_claim_blocks(ChannelId record_ch, const OffsetClaim& c) const {
  // 6 normalise: a claim on the record's own channel is either a self-cycle (at or above
  // its offset) or already enforced by per-channel FIFO (below it).
  if (on(Rule::self_channel) && c.channel == record_ch) return false;
  // A clock handed to unsatisfied() may name channels interned after reach_ last grew.
  const bool known = c.channel < reach_.size();
  // 7 restrict: the ignore branch. Sound because every consumed ancestor behind an
  // unconsumed coordinate is claimed directly in the same clock (docs/protocol.md).
  if (on(Rule::restrict) && !(known && reach_[c.channel].consumed)) return false;
  // 8 gate: the frontier must have reached the claimed offset.
  return !(known && reach_[c.channel].frontier >= c.offset + (on(Rule::frontier_off_by_one) ? 0 : 1));
}

// 8 gate: a sequence claim (ch, S, q) is satisfied once delivered_seq(ch, S) reaches q.
// The mutant seq_off_by_one accepts q - 1 (the boundary the oracle's transaction truth
// must catch: docs/verification.md).
constexpr SeqNo needed_seq(SeqNo q) { return on(Rule::seq_off_by_one) ? q : q - 1; }

bool Gate::ignores_seq_claim(ChannelId record_ch, const Clock& clock, const SeqClaim& c) const {
  if (on(Rule::self_channel) && c.channel == record_ch) return true;
  // 6 normalise: a sequence claim naming the record's own sender names a send of its own
  // transaction (concurrent with it) or an earlier own send its own-send offset claim
  // already covers. Enforcing it deadlocks opposite-order concurrent transactions.
  if (on(Rule::own_sender_seq) && clock.origin && clock.origin->sender == c.sender) return true;
  if (on(Rule::restrict) && !in_scope(c.channel)) return true;
  return false;
}

bool Gate::frontier_covers(const Clock& clock) const {
  if (!clock.seqs().empty()) return false;
  for (const OffsetClaim& c : clock.offsets()) {
    const Reach& target = reach_[c.channel];  // covered: receive() ran cover_all_names()
    if (!target.consumed || target.frontier < c.offset + (on(Rule::frontier_off_by_one) ? 0 : 1)) return false;
  }
  return true;
}

bool Gate::seq_satisfied(const SeqClaim& c) const {
  if (c.channel >= channels_.size()) return false;
  const SeqEntry* e = find_seq(channels_[c.channel], c.sender);
  return (e != nullptr ? e->seq : 0) >= needed_seq(c.seq);
}

bool Gate::needs_lookup(const SeqClaim& c) const {
  const ChannelState* st = find(c.channel);
  if (st == nullptr) return false;
  const SeqEntry* e = find_seq(*st, c.sender);
  if (e != nullptr && e->delivered_here) return false;
  return std::find(answered_at_or_above_baseline_.begin(), answered_at_or_above_baseline_.end(),
                   LookupRequest{c.channel, c.sender, c.seq}) == answered_at_or_above_baseline_.end();
}

bool Gate::evaluate(ChannelId ch) {
  ChannelState& st = channels_[ch];
  if (st.queue.empty()) return false;
  if (st.waiting) {
    if (st.pending > 0) return false;  // still blocked (a duplicate worklist entry)
    deliver_head(ch);                  // ready: its last blocking claim was satisfied
    return true;
  }
  // The head's one check: register it on every claim that blocks it. Claims are walked
  // through local pointers: this loop runs for every claim of every record that is held.
  const Held& head = st.queue.front();
  std::uint32_t blocking = 0;
  for (const OffsetClaim* it = head.clock.offsets().begin(), *end = head.clock.offsets().end(); it != end; ++it) {
    const OffsetClaim& c = *it;
    if (!offset_claim_blocks(ch, c)) continue;
    // 8 gate: blocked. Register on the claim's frontier: a rise to c.offset satisfies it.
    ++blocking;
    ChannelState& target = channels_[c.channel];
    if (c.offset == reach_[c.channel].frontier + 1) {
      target.next_waiters.push_back({ch, st.epoch});
    } else {
      target.offset_waiters.push_back({c.offset, ch, st.epoch});
      std::push_heap(target.offset_waiters.begin(), target.offset_waiters.end(), kLaterNeedFirst);
    }
    if (observer_) observer_->held(ch, head.offset, Blocker{Blocker::Kind::offset, c.channel, c.offset});
  }
  for (const SeqClaim& c : head.clock.seqs()) {
    if (ignores_seq_claim(ch, head.clock, c) || seq_satisfied(c)) continue;
    // 8 gate: blocked. Register on delivered_seq of the claimed sender on the claim's channel.
    ++blocking;
    channels_[c.channel].seq_waiters.push_back({c.sender, needed_seq(c.seq), ch, st.epoch});
    if (observer_) {
      observer_->held(ch, head.offset, Blocker{Blocker::Kind::seq, c.channel, kNoOffset, c.sender, c.seq});
      if (needs_lookup(c)) observer_->needs_lookup(c.channel, c.sender, c.seq);
    }
  }
  if (blocking == 0) {
    deliver_head(ch);
    return true;
  }
  st.waiting = true;
  st.pending = blocking;
  return false;
}

std::optional<Blocker> Gate::first_unsatisfied(ChannelId ch) const {
  const Held& head = channels_[ch].queue.front();
  for (const OffsetClaim& c : head.clock.offsets()) {
    if (offset_claim_blocks(ch, c)) return Blocker{Blocker::Kind::offset, c.channel, c.offset};
  }
  for (const SeqClaim& c : head.clock.seqs()) {
    if (!ignores_seq_claim(ch, head.clock, c) && !seq_satisfied(c)) {
      return Blocker{Blocker::Kind::seq, c.channel, kNoOffset, c.sender, c.seq};
    }
  }
  return std::nullopt;
}

void Gate::deliver_head(ChannelId ch) {
  ChannelState& st = channels_[ch];
  const Held& head = st.queue.front();
  const Offset offset = head.offset;
  const std::optional<Origin> origin = head.clock.origin;
  if (st.release != Release::immediate) ++released_in_cascade_;
  report(Delivery{ch, offset, head.clock, head.tag, head.received_at, st.release, st.released_by_channel,
                  st.released_by_offset});
  st.queue.pop_front();
  --held_total_;
  delivered(ch, offset, origin);
}

void Gate::report(const Delivery& d) {
  ++stats_.delivered;
  if (observer_) observer_->delivered(d);
}

void Gate::delivered(ChannelId ch, Offset offset, const std::optional<Origin>& origin) {
  ChannelState& st = channels_[ch];
  // 9 deliver: the frontier advances to the delivered offset; wake what it releases.
  raise_frontier(ch, offset, Release::frontier, offset);
  // Sequence-claim resolution: the delivered send number resolves claims on it.
  if (origin && on(Rule::seq_resolution)) {
    raise_delivered_seq(ch, origin->sender, origin->seq, true, Release::seq_resolved, offset);
  }
  if (!st.queue.empty()) {
    became_head(ch, /*at_receive=*/false);
  } else if (on(Rule::remembered_position)) {
    apply_position(ch, /*remembered=*/true);  // 10: a position reported while the head was held
  }
}

void Gate::run_cascade() {
  released_in_cascade_ = 0;
  while (!worklist_.empty()) {
    ChannelId ch = worklist_.back();
    worklist_.pop_back();
    evaluate(ch);
  }
  if (released_in_cascade_ >= 2) ++stats_.cascades_multi;
}

// --- lookups -----------------------------------------------------------------------------

std::vector<LookupRequest> Gate::pending_lookups() const {
  std::vector<LookupRequest> out;
  for (ChannelId ch : scope_) {
    const ChannelState& st = channels_[ch];
    if (!st.waiting || st.pending == 0) continue;
    const std::optional<Blocker> b = first_unsatisfied(ch);
    if (!b || b->kind != Blocker::Kind::seq) continue;
    SeqClaim c{b->channel, b->sender, b->seq};
    if (!needs_lookup(c)) continue;
    LookupRequest req{c.channel, c.sender, c.seq};
    if (std::find(out.begin(), out.end(), req) == out.end()) out.push_back(req);
  }
  return out;
}

void Gate::answer_lookup(const LookupRequest& req, std::optional<Offset> located) {
  cover_all_names();
  if (!in_scope(req.channel)) return;
  ChannelState& st = channels_[req.channel];
  if (located && *located < st.baseline) {
    // The send sits below the baseline: accounted for exactly as an offset claim below the
    // baseline is (the frontier was seeded past it).
    ++stats_.lookups_resolved;
    raise_delivered_seq(req.channel, req.sender, req.seq, false, Release::lookup, *located);
    run_cascade();
  } else {
    // At or above the baseline (it will arrive), or not found (keep waiting; say so).
    answered_at_or_above_baseline_.push_back(req);
  }
}

// --- resolution state --------------------------------------------------------------------

std::vector<ResolutionEntry> Gate::resolution_state() const {
  std::vector<ResolutionEntry> out;
  for (ChannelId ch : scope_) {
    for (const auto& e : channels_[ch].delivered_seq) out.push_back({ch, e.sender, e.seq});
  }
  return out;
}

void Gate::restore_resolution_state(std::span<const ResolutionEntry> entries) {
  cover_all_names();
  ++version_;
  // Restored entries resolve claims but are not presence: they may come from lookups, and
  // every one sits below the committed position, which is the new baseline. Counting them
  // as presence suppressed the lookup a later claim of the same sender needed (simulator
  // world "restored-lookup", seeds 5531, 5822, 10389).
  for (const auto& e : entries) {
    ChannelState& st = state(e.channel);
    SeqEntry* existing = find_seq(st, e.sender);
    if (existing) {
      existing->seq = std::max(existing->seq, e.seq);
    } else {
      st.delivered_seq.push_back({e.sender, e.seq, false});
    }
  }
}

// --- inspection --------------------------------------------------------------------------

Offset Gate::frontier(ChannelId ch) const { return in_scope(ch) ? reach_[ch].frontier : kNoOffset; }

Offset Gate::baseline(ChannelId ch) const {
  const ChannelState* st = find(ch);
  return st ? st->baseline : 0;
}

std::optional<Offset> Gate::remembered_position(ChannelId ch) const {
  const ChannelState* st = find(ch);
  if (!st || st->position == kNoOffset) return std::nullopt;
  return st->position;
}

const Clock& Gate::custody(ChannelId ch) const {
  static const Clock kEmpty{};
  const ChannelState* st = find(ch);
  return st ? st->custody : kEmpty;
}

SeqNo Gate::delivered_seq(ChannelId ch, SenderId s) const {
  if (ch >= channels_.size()) return 0;
  const SeqEntry* e = find_seq(channels_[ch], s);
  return e ? e->seq : 0;
}

std::size_t Gate::held_count(ChannelId ch) const {
  const ChannelState* st = find(ch);
  return st ? st->queue.size() : 0;
}

std::optional<Gate::HeadView> Gate::head(ChannelId ch) const {
  const ChannelState* st = find(ch);
  if (!st || st->queue.empty()) return std::nullopt;
  const Held& h = st->queue.front();
  return HeadView{ch, h.offset, &h.clock, h.received_at, h.tag};
}

std::vector<Gate::HeadView> Gate::held(ChannelId ch) const {
  std::vector<HeadView> out;
  const ChannelState* st = find(ch);
  if (!st) return out;
  for (std::size_t i = 0; i < st->queue.size(); ++i) {
    const Held& h = st->queue.at(i);
    out.push_back({ch, h.offset, &h.clock, h.received_at, h.tag});
  }
  return out;
}

std::vector<Blocker> Gate::unsatisfied(ChannelId ch, const Clock& clock) const {
  std::vector<Blocker> out;
  for (const auto& c : clock.offsets()) {
    if (offset_claim_blocks(ch, c)) {
      out.push_back({Blocker::Kind::offset, c.channel, c.offset});
    }
  }
  for (const auto& c : clock.seqs()) {
    if (!ignores_seq_claim(ch, clock, c) && !seq_satisfied(c)) {
      out.push_back({Blocker::Kind::seq, c.channel, kNoOffset, c.sender, c.seq});
    }
  }
  return out;
}

std::vector<Blocker> Gate::unsatisfied(ChannelId ch) const {
  auto h = head(ch);
  if (!h) return {};
  return unsatisfied(ch, *h->clock);
}

}  // namespace causal

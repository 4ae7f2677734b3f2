// The stamper. See stamper.hpp for the stamp's four parts and docs/protocol.md for why
// each is there.
#include "causal/stamper.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "causal/rules.hpp"

namespace causal {

using rules::on;
using rules::Rule;

namespace {
// The offset claims of one stamp, merged by channel as they are gathered: a slot per
// channel id holding the highest offset so far, and the ids touched. The frontier and
// every custody clock claim mostly the same few channels, so appending them all and
// normalising sorted several times more claims than the stamp keeps (normalize() was
// half of current_clock() in the simulator's sweep, callgrind); this sorts only the
// distinct channels. The claims come out as normalize() leaves them: by channel, one
// each, the max offset.
class OffsetMerger {
 public:
  // Always inlined: it runs for every claim of every custody clock at every stamp, and
  // GCC 12 left it a call (a third of its cost) even with its resize out of line.
  [[gnu::always_inline]] void add(const OffsetClaim& c) {
    if (c.channel >= best_.size()) [[unlikely]]
      cover(c.channel);
    Offset& b = best_[c.channel];
    if (b == kUnset) {
      touched_.push_back(c.channel);
      b = c.offset;
    } else {
      b = std::max(b, c.offset);
    }
  }
  // Appends the merged claims to `c` (which holds no offset claims yet) and resets.
  void emit(Clock& c) {
    std::sort(touched_.begin(), touched_.end());
    OffsetClaim* out = c.append_offsets_for_overwrite(touched_.size());
    for (ChannelId ch : touched_) {
      *out++ = OffsetClaim{ch, best_[ch]};
      best_[ch] = kUnset;
    }
    touched_.clear();
  }

 private:
  // Out of line: rare (the first claims on a channel id), and it would bloat add().
  [[gnu::noinline]] void cover(ChannelId ch) { best_.resize(std::size_t{ch} + 1, kUnset); }

  static constexpr Offset kUnset = std::numeric_limits<Offset>::min();
  std::vector<Offset> best_;  // by channel id; kUnset where untouched
  std::vector<ChannelId> touched_;
};

// A sequence claim the node has not resolved: its gate does not consume the channel, or has
// not delivered that send (delivered_seq below it). A resolved one is covered by the frontier
// entry on its channel, an offset claim, and is left out of a stamp.
bool unresolved(const Gate* gate, const SeqClaim& sc) {
  return gate == nullptr || !gate->consumes(sc.channel) ||
         gate->delivered_seq(sc.channel, sc.sender) < sc.seq;
}

}  // namespace

Stamper::Stamper(SenderId self, Mode mode, const Gate* gate) : self_(self), mode_(mode), gate_(gate) {}

void Stamper::seed(ChannelId sink, Offset end) {
  SinkState& s = sinks_[sink];
  s.seed = std::max(s.seed, end - 1);
}

const Stamper::Base& Stamper::base() const {
  if (base_.valid && (gate_ == nullptr || gate_->version() == base_.gate_version)) return base_;
  thread_local OffsetMerger offsets;  // no allocation once warm
  Clock merged;
  // A sequence claim this node resolved (delivered_seq covers it) is dropped: it is covered
  // by the frontier entry on its channel, which is an offset claim (no late-joiner window).
  // Claims on channels not consumed here pass through unchanged. Dropped as they are
  // gathered rather than after normalize(): a claim (ch, S, q) is dropped iff q <=
  // delivered_seq(ch, S), so the highest claim per (ch, S) survives exactly when it would
  // have survived normalize() then the drop, with the same q, and the stamp is the same.
  // Most custody claims are resolved (in the simulator's sweep, 7 of 10), and sorting
  // them only to drop them was most of normalize()'s cost here.
  const auto keep = [this](const SeqClaim& sc) { return unresolved(gate_, sc); };
  if (gate_ != nullptr) {
    for (ChannelId ch : gate_->scope()) {
      // 1 the frontier; 2 custody (folded at receive).
      if (Offset f = gate_->frontier(ch); f >= 0) offsets.add(OffsetClaim{ch, f});
      const Clock& custody = gate_->custody(ch);
      for (const auto& oc : custody.offsets()) offsets.add(oc);
      for (const auto& sc : custody.seqs())
        if (keep(sc)) merged.append_unsorted(sc);
    }
  }
  for (const auto& oc : carried_.offsets()) offsets.add(oc);
  for (const auto& sc : carried_.seqs())
    if (keep(sc)) merged.append_unsorted(sc);
  offsets.emit(merged);
  base_.offsets.assign(merged.offsets().begin(), merged.offsets().end());
  base_.seqs.assign(merged.seqs().begin(), merged.seqs().end());
  base_.gate_version = gate_ != nullptr ? gate_->version() : 0;
  base_.valid = true;
  return base_;
}

Clock Stamper::current_clock() const {
  Clock c;
  thread_local OffsetMerger offsets;  // no allocation once warm
  const Base& b = base();
  for (const auto& oc : b.offsets) offsets.add(oc);
  for (const auto& sc : b.seqs) c.append_unsorted(sc);
  // As in base(): a sequence claim this node resolved is dropped as it is gathered.
  const auto keep = [this](const SeqClaim& sc) { return unresolved(gate_, sc); };
  for (const auto& [sink, s] : sinks_) {
    // 3 the end-offset seed: covers everything appended to the sink before this incarnation.
    if (s.seed >= 0) offsets.add(OffsetClaim{sink, s.seed});
    // 4 own sends: the latest acknowledged send by offset, kept across transactions ...
    if (on(Rule::own_send_claim) && s.acked >= 0) offsets.add(OffsetClaim{sink, s.acked});
    // ... and, for a transactional sender only, the latest still-unacknowledged send by
    // sequence number (its offset is not known yet). An idempotent sender claims
    // acknowledged sends only; to order after an in-flight send it waits for the ack.
    if (mode_ == Mode::transactional && !s.in_flight.empty()) {
      const SeqClaim own{sink, self_, s.in_flight.back()};
      if (keep(own)) c.append_unsorted(own);
    }
  }
  offsets.emit(c);
  c.normalize();  // the sequence claims; the offset claims are already normal
  return c;
}

void Stamper::carry(const Clock& clock) {
  base_.valid = false;
  if (on(Rule::carry_offsets) && on(Rule::carry_seqs)) {
    carried_.join(clock);
    return;
  }
  Clock kept;  // a mutant build: one kind of claim dropped
  if (on(Rule::carry_offsets))
    for (const auto& oc : clock.offsets()) kept.claim(oc.channel, oc.offset);
  if (on(Rule::carry_seqs))
    for (const auto& sc : clock.seqs()) kept.claim_seq(sc.channel, sc.sender, sc.seq);
  carried_.join(kept);
}

Clock Stamper::stamp_send(ChannelId sink) {
  Clock c = current_clock();
  const SeqNo q = next_seq_++;
  c.origin = Origin{self_, q};
  sinks_[sink].in_flight.push_back(q);  // ascending: q is the largest number so far
  return c;
}

void Stamper::acknowledged(ChannelId sink, SeqNo q, Offset offset) {
  auto it = sinks_.find(sink);
  if (it == sinks_.end()) throw std::logic_error("Stamper::acknowledged: no send to this sink");
  SinkState& s = it->second;
  auto pos = std::lower_bound(s.in_flight.begin(), s.in_flight.end(), q);
  if (pos == s.in_flight.end() || *pos != q) {
    if (q <= abandoned_through_) return;  // forgotten by transaction_abandoned: a late report
    throw std::logic_error("Stamper::acknowledged: unknown send");
  }
  s.in_flight.erase(pos);
  if (q > s.acked_seq) {
    s.acked_seq = q;
    s.acked = std::max(s.acked, offset);
  }
}

void Stamper::transaction_ended() {
  if (unacknowledged() != 0) {
    throw std::logic_error("Stamper::transaction_ended: sends still unacknowledged (flush first)");
  }
}

void Stamper::transaction_abandoned() {
  for (auto& [sink, s] : sinks_) s.in_flight.clear();
  abandoned_through_ = next_seq_ - 1;
}

std::size_t Stamper::unacknowledged() const {
  std::size_t n = 0;
  for (const auto& [sink, s] : sinks_) n += s.in_flight.size();
  return n;
}

}  // namespace causal

// State digests for model checkers: Gate::digest and Stamper::digest (their headers state
// the contracts). Every container is passed with its length first, so that two sequences
// can only be equal when their shapes are.
#include <algorithm>

#include "causal/gate.hpp"
#include "causal/stamper.hpp"
#include "gate_state.hpp"

namespace causal {

namespace {

void digest_clock(const Clock& c, const std::function<void(std::uint64_t)>& out) {
  out(c.offsets().size());
  for (const OffsetClaim& o : c.offsets()) out(o.channel), out(static_cast<std::uint64_t>(o.offset));
  out(c.seqs().size());
  for (const SeqClaim& q : c.seqs()) out(q.channel), out(q.sender), out(q.seq);
  out(c.origin ? 1 : 0);
  if (c.origin) out(c.origin->sender), out(c.origin->seq);
}

}  // namespace

void Gate::digest(const std::function<void(std::uint64_t)>& out,
                  const std::function<std::uint64_t(std::uint64_t)>& tag) const {
  // Whether a registration on a head of `head_ch` taken at `epoch` is still current.
  const auto current = [&](ChannelId head_ch, std::uint32_t epoch) -> std::uint64_t {
    return channels_[head_ch].epoch == epoch ? 1 : 0;
  };
  out(channels_.size());
  for (std::size_t ch = 0; ch < channels_.size(); ++ch) {
    const ChannelState& st = channels_[ch];
    const Reach& r = reach_[ch];
    out(static_cast<std::uint64_t>(r.frontier)), out(r.consumed), out(r.failed);
    out(st.queue.size());
    for (std::size_t i = 0; i < st.queue.size(); ++i) {
      const Held& h = st.queue.at(i);
      out(static_cast<std::uint64_t>(h.offset));
      out(tag(h.tag));
      digest_clock(h.clock, out);
    }
    out(st.next_waiters.size());
    for (const NextWaiter& w : st.next_waiters) out(w.head_channel), out(current(w.head_channel, w.epoch));
    out(static_cast<std::uint64_t>(st.position));
    // The heap's layout as it is: it decides the order in which equal `needed` pop.
    out(st.offset_waiters.size());
    for (const OffsetWaiter& w : st.offset_waiters) {
      out(static_cast<std::uint64_t>(w.needed)), out(w.head_channel), out(current(w.head_channel, w.epoch));
    }
    out(st.pending), out(st.waiting);
    out(st.delivered_seq.size());
    for (const SeqEntry& e : st.delivered_seq) out(e.sender), out(e.seq), out(e.delivered_here);
    out(st.seq_waiters.size());
    for (const SeqWaiter& w : st.seq_waiters) {
      out(w.sender), out(w.needed), out(w.head_channel), out(current(w.head_channel, w.epoch));
    }
    out(static_cast<std::uint64_t>(st.failed_offset));
    out(static_cast<std::uint64_t>(st.baseline));
    digest_clock(st.custody, out);
  }
  out(scope_.size());
  for (ChannelId ch : scope_) out(ch);
  out(worklist_.size());
  for (ChannelId ch : worklist_) out(ch);
  out(answered_at_or_above_baseline_.size());
  for (const LookupRequest& q : answered_at_or_above_baseline_) out(q.channel), out(q.sender), out(q.seq);
  out(stats_.received > 0);
  // held_total_ is the sum of the queues' sizes, passed with them above.
}

void Stamper::digest(const std::function<void(std::uint64_t)>& out) const {
  out(self_), out(static_cast<std::uint64_t>(mode_)), out(next_seq_);
  digest_clock(carried_, out);
  // sinks_ is unordered: passed by channel, the order every stamp reads them in after
  // normalising (current_clock() sorts the claims it gathers).
  std::vector<ChannelId> sinks;
  for (const auto& [sink, s] : sinks_) sinks.push_back(sink);
  std::sort(sinks.begin(), sinks.end());
  out(sinks.size());
  for (ChannelId sink : sinks) {
    const SinkState& s = sinks_.at(sink);
    out(sink), out(static_cast<std::uint64_t>(s.seed)), out(static_cast<std::uint64_t>(s.acked)), out(s.acked_seq);
    out(s.in_flight.size());
    for (SeqNo q : s.in_flight) out(q);
  }
}

}  // namespace causal

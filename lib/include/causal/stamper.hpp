// The stamper: builds the causal.clock of every record a node emits (protocol.md,
// "The stamp"). The stamp is the join of
//   1 the frontier: (c, frontier[c]) for every consumed c with frontier[c] >= 0
//   2 custody[c] for every consumed c (folded at receive: over-claims delay, never reorder)
//   3 the end-offset seed of every sink: (sink, e - 1), a snapshot taken at init
//   4 own sends: per sink, the offset of the latest acknowledged own send (kept across
//     transactions), and, for a transactional sender only, a sequence claim for the
//     latest later send to that sink that is still unacknowledged
// then sequence claims this node has resolved (delivered_seq covers them) are dropped.
// A restart is a new Stamper with a new sender identity and a new end-offset seed.
//
// Thread-safety: none. Used from the thread that owns the gate.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "causal/clock.hpp"
#include "causal/gate.hpp"

namespace causal {

class Stamper {
 public:
  enum class Mode { idempotent, transactional };

  // `gate` may be null for a pure producer (no consumed channels).
  Stamper(SenderId self, Mode mode, const Gate* gate = nullptr);

  // End-offset seed: the sink's end offset `end` at init (the next offset to be written).
  void seed(ChannelId sink, Offset end);
  // The gate the stamp reads its frontier and custody from, from now on (a group member's
  // new generation brings a new gate). May be null.
  void set_gate(const Gate* gate) {
    gate_ = gate;
    base_.valid = false;
  }
  // Joins `clock` (its origin ignored) into every later stamp: what a gate this node used
  // before knew (its frontier and custody), so that records emitted after a new generation
  // still claim what was delivered here before it. Over-claims delay, never reorder.
  void carry(const Clock& clock);

  // Starts a send to `sink`: assigns the next send number and returns the record's stamp,
  // origin included. The send is unacknowledged until acknowledged() is called.
  Clock stamp_send(ChannelId sink);
  // The delivery report for send `q` to `sink` came back with `offset`. A report for a send
  // transaction_abandoned() forgot is ignored: a fenced producer's sends are forgotten
  // before the producer is destroyed (claims_of_fenced), and its destruction serves the
  // reports still queued, successes included.
  void acknowledged(ChannelId sink, SeqNo q, Offset offset);
  // Commit or abort: the host flushed every send first, so all are acknowledged.
  // REQUIRES: no unacknowledged sends (checked).
  void transaction_ended();
  // An aborted transaction whose sends were not all acknowledged (a failed delivery): its
  // sends were never appended as committed records, so their claims are dropped.
  void transaction_abandoned();

  SenderId self() const { return self_; }
  SeqNo last_seq() const { return next_seq_ - 1; }
  std::size_t unacknowledged() const;

  // The clock a stamp would carry now, without origin and without minting a send.
  Clock current_clock() const;
  // Passes `out`, in a fixed order, the stamper's own state (lib/core/digest.cpp, as
  // Gate::digest): with the gate's digest it decides every later stamp.
  void digest(const std::function<void(std::uint64_t)>& out) const;

 private:
  struct SinkState {
    Offset seed = kNoOffset;   // e - 1
    Offset acked = kNoOffset;  // offset of the latest acknowledged own send
    SeqNo acked_seq = 0;       // its send number
    // Unacknowledged send numbers, ascending. A deque: acknowledgements come mostly in send
    // order, so the one erased is mostly the first, which a vector would shift the rest
    // down for (thousands in flight per sink in a relay's transaction).
    std::deque<SeqNo> in_flight;
  };

  // What current_clock() takes from the gate and from carried_: their offset claims merged
  // (by channel, one each, the max) and their sequence claims this node has not resolved.
  // A relay stamps thousands of records between two changes of its gate; this is read
  // again only when the gate's version (Gate::version), the gate itself or carried_
  // changed since it was taken, so every stamp is what reading them afresh would give.
  struct Base {
    bool valid = false;
    std::uint64_t gate_version = 0;
    std::vector<OffsetClaim> offsets;
    std::vector<SeqClaim> seqs;
  };
  const Base& base() const;

  SenderId self_;
  Mode mode_;
  const Gate* gate_;
  Clock carried_;  // see carry()
  mutable Base base_;
  SeqNo next_seq_ = 1;
  // Sends up to this one were forgotten by transaction_abandoned(); not in digest(): it
  // decides no stamp, only that a late report of one is ignored rather than refused.
  SeqNo abandoned_through_ = 0;
  std::unordered_map<ChannelId, SinkState> sinks_;
};

}  // namespace causal

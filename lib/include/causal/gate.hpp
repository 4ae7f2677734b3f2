// The delivery gate: the predicate that decides whether a received record may reach
// the user processor, and the hold queues, frontiers and cascade around it.
// Read docs/protocol.md (and the seed pages it cites) beside this file; every
// rule there is named here as it is named there.
//
// Per consumed channel c the gate keeps:
//   hold queue   FIFO of received, undelivered records in offset order; only the head
//                is ever evaluated (head-of-line blocking)
//   frontier[c]  highest offset such that every business record at or below it was
//                delivered here or skipped; contiguous by construction; seeded to
//                baseline - 1
//   custody[c]   join of the clocks of every record *received* on c (a clock the frontier
//                already covers on arrival is left out: it would add nothing to a stamp)
//   position     the highest consumer position reported for c (position_advance)
//   delivered_seq[c][S]  highest send number of sender S delivered here on c
//
// Rules, in the order a record meets them (protocol.md, "The gate"):
//   1 replay guard      receive: offset <= frontier[c] -> dropped, no effect
//   2 bridge at receive receive onto an empty queue: frontier[c] := max(., offset-1)
//   3 custody           receive: custody[c] joins the record's clock
//   4 queue             append to c's hold queue
//   5 head fold-in      whenever a record becomes head: frontier[c] := max(., offset-1)
//                       (rule 2 is this rule on an empty queue; one mechanism)
//   6 normalise         ignore claims on c itself and sequence claims naming the
//                       record's own sender
//   7 restrict          ignore claims on channels outside the scope (the ignore branch)
//   8 gate              deliverable iff frontier dominates the remaining offset claims
//                       and delivered_seq covers the remaining sequence claims
//   9 deliver           pop, frontier[c] := offset, delivered_seq update, hand to the
//                       sink, cascade to a fixpoint
//  10 position advance  remember p; whenever c's queue is empty, frontier[c] := max(., p-1)
//  11 fail closed       an undecodable header fails the channel: nothing at or after it
//                       on that channel is delivered
//  12 reassignment      a channel re-read from an earlier position discards its queue
//                       and remembered position; custody stays
//
// Cost: a head's claims are checked once, when it becomes head; it is then registered on
// every claim that blocks it and counts them. A frontier or delivered_seq advance touches
// only the registrations it satisfies, each a decrement of that count; the head is
// delivered when the count reaches 0, without checking its clock again. Per-delivery cost
// does not grow with the number of channels or held records.
//
// Thread-safety: none. One gate per consumer thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "causal/clock.hpp"
#include "causal/names.hpp"

namespace causal {

// Why a held record was released (reported with each delivery).
enum class Release : std::uint8_t {
  immediate,         // deliverable when it became head at receive; never held
  head_of_line,      // it was only waiting behind an earlier record of its channel
  frontier,          // a delivery on another channel advanced the frontier it needed
  seq_resolved,      // a delivery of the claimed sender's send resolved its sequence claim
  position_advance,  // a position advance raised the frontier it needed
  fold_in,           // a head gap fold-in (a skipped run behind a head) raised it
  lookup,            // a lookup located the claimed send below the baseline
  scope,             // a scope change (the claim's channel left or was reseeded)
};
std::string_view to_string(Release r);

// The claim a head is blocked on, after normalisation and restriction.
struct Blocker {
  enum class Kind : std::uint8_t { offset, seq } kind;
  ChannelId channel;
  Offset offset = kNoOffset;  // kind == offset: the claimed offset
  SenderId sender = 0;        // kind == seq
  SeqNo seq = 0;              // kind == seq
  friend bool operator==(const Blocker&, const Blocker&) = default;
};

// What the host hands to the gate for each received record.
struct Received {
  ChannelId channel;
  Offset offset;
  Clock clock;            // empty when the record had no causal.clock header
  std::uint64_t tag = 0;  // opaque to the gate; returned in Delivery (host payload handle)
  std::int64_t now = 0;   // host time at receive (any monotone unit); used for held time
};

struct Delivery {
  ChannelId channel;
  Offset offset;
  const Clock& clock;
  std::uint64_t tag;
  std::int64_t received_at;  // Received::now
  Release release;
  // For Release::frontier / seq_resolved: the delivery that released it (channel, offset).
  ChannelId released_by_channel = 0;
  Offset released_by_offset = kNoOffset;
};

// Observer hooks. All optional; the default does nothing. Called synchronously from
// inside gate calls; the observer must not call back into the gate.
class GateObserver {
 public:
  virtual ~GateObserver() = default;
  virtual void delivered(const Delivery&) {}
  // A record became head and is blocked on `b`. Called when the gate checks the head, once
  // for each claim that blocks it, in claim order (offset claims, then sequence claims); again
  // only if scope growth makes the gate check it anew.
  virtual void held(ChannelId, Offset, const Blocker&) {}
  // Called after held() for a blocking sequence claim on a consumed channel whose sender has
  // no delivered post-baseline record there: the send may have to be located (lookup). Which
  // lookups to answer now is pending_lookups()'s to say.
  virtual void needs_lookup(ChannelId /*ch*/, SenderId, SeqNo) {}
  virtual void replay_dropped(ChannelId, Offset) {}
  // Reassignment discarded a held record that was never delivered; its tag is handed back
  // so that a host keeping a payload behind the tag can free it. Called head first.
  virtual void discarded(ChannelId, Offset, std::uint64_t /*tag*/) {}
};

// Counters for anti-vacuity (verification.md) and for tools. Monotone.
struct GateStats {
  std::uint64_t received = 0;
  std::uint64_t delivered = 0;
  std::uint64_t holds = 0;                // records that were held at least once
  std::uint64_t cascades_multi = 0;       // deliveries that released >= 2 other heads
  std::uint64_t bridges_at_receive = 0;   // receive onto empty queue raised the frontier
  std::uint64_t head_fold_ins = 0;        // fold-in behind a new head (non-empty queue) raised it
  std::uint64_t position_advances = 0;    // position advances that raised a frontier
  std::uint64_t position_remembered = 0;  // positions reported while a head was held, applied later
  std::uint64_t replays_dropped = 0;
  std::uint64_t seq_claims_resolved = 0;  // blocking sequence claims satisfied by a delivered_seq advance
  std::uint64_t lookups_resolved = 0;     // sequence claims satisfied by a lookup
  std::uint64_t scope_growths = 0;
  std::uint64_t reassignments = 0;
  std::uint64_t failed_closed = 0;
};
// Adds every counter of `b` to `a` (the counts of several gates of one run: a member's
// generations). Kept beside the struct, so that a new counter is added here too.
GateStats& operator+=(GateStats& a, const GateStats& b);

// Resolution state: delivered_seq per (channel, sender). Committed state: saved with the
// committed positions and restored on restart (protocol.md, sequence claims rule 3).
struct ResolutionEntry {
  ChannelId channel;
  SenderId sender;
  SeqNo seq;
  friend bool operator==(const ResolutionEntry&, const ResolutionEntry&) = default;
};

// A lookup the gate wants answered: locate sender's send `seq` on `channel`.
struct LookupRequest {
  ChannelId channel;
  SenderId sender;
  SeqNo seq;
  friend bool operator==(const LookupRequest&, const LookupRequest&) = default;
};

class Gate {
 public:
  explicit Gate(Names& names, GateObserver* observer = nullptr);
  ~Gate();

  // --- scope -----------------------------------------------------------------------
  // Adds `ch` to the scope with its baseline (the first offset this node will consume).
  // Seeds frontier[ch] := baseline - 1. Adding a channel while running is scope growth:
  // held heads are re-evaluated, since claims on `ch` were ignored until now.
  // REQUIRES: baseline >= 0. Re-adding a consumed channel raises its frontier to at
  // least baseline - 1 (never lowers it).
  void add_channel(ChannelId ch, Offset baseline);
  bool consumes(ChannelId ch) const;

  // --- receive side ----------------------------------------------------------------
  // A received business record. Runs the replay guard, bridge at receive, custody fold,
  // queue append, and the gate with its cascade. Deliveries are reported through the
  // observer before this returns. Returns false when the record was dropped as a replay.
  // REQUIRES: consumes(r.channel), the channel has not failed closed.
  bool receive(Received&& r);

  // The consumer's position on `ch` is `p`: everything below p was fetched or skipped.
  void position_advance(ChannelId ch, Offset p);

  // Fail closed: the record at `offset` on `ch` has an undecodable header. Nothing at or
  // after it on `ch` will be delivered (later receives on ch are refused).
  void fail_closed(ChannelId ch, Offset offset);
  bool failed(ChannelId ch) const;
  std::optional<Offset> failed_at(ChannelId ch) const;

  // Reassignment: `ch` will be re-read from `position`. Discards its hold queue (each
  // record reported to GateObserver::discarded) and the remembered position; the replay
  // guard then drops what was already delivered.
  void reassign(ChannelId ch);

  // --- lookups (protocol.md, late joiners) -----------------------------------------
  // Heads whose first unsatisfied claim (offset claims first, then sequence claims) is a
  // sequence claim whose sender has no delivered record on the claim's (consumed) channel
  // since the baseline, less those answered "at or above the baseline". A sequence claim
  // behind an unsatisfied earlier claim is asked for only once that claim is satisfied: the
  // delivery that satisfies it often brings the send too, and a lookup is a scan of the log.
  std::vector<LookupRequest> pending_lookups() const;
  // The host located the send: `located` is its offset, or nullopt when not found.
  // If it sits below baseline[ch], the claim is accounted for (delivered_seq raised) and
  // the cascade runs. Otherwise nothing changes: the send will arrive.
  void answer_lookup(const LookupRequest& req, std::optional<Offset> located);

  // --- resolution state ------------------------------------------------------------
  std::vector<ResolutionEntry> resolution_state() const;
  // REQUIRES: called before any receive (restart from committed positions).
  void restore_resolution_state(std::span<const ResolutionEntry> entries);

  // --- custody restatement (docs/protocol.md, "Custody across a restart") ----------
  // What custody[ch] must restate after a restart, saved beside ch's committed position:
  // custody[ch] without its claims on ch itself (the committed position of ch covers
  // them: a delivered record's claims on its own channel sit below it), and with each
  // sequence claim this gate resolved replaced by an offset claim on the frontier of its
  // channel (which covers the resolved send, and needs no resolution state to read).
  // Claims on other channels are kept whether or not this gate consumes them: whoever
  // consumes ch next may not consume them. No origin.
  Clock custody_restatement(ChannelId ch) const;
  // Restart: joins a saved restatement into custody[ch], so that every later stamp, and
  // every later restatement, carries it. REQUIRES: consumes(ch).
  void restore_custody(ChannelId ch, const Clock& restated);

  // --- inspection (stamper, snapshot, tools) ---------------------------------------
  Offset frontier(ChannelId ch) const;
  Offset baseline(ChannelId ch) const;
  std::optional<Offset> remembered_position(ChannelId ch) const;
  // custody[ch]: what the stamp needs of the clocks received on ch. Joined with the
  // frontiers it dominates every clock received here; claims the frontier covered when
  // their record arrived may be left out of it.
  const Clock& custody(ChannelId ch) const;
  SeqNo delivered_seq(ChannelId ch, SenderId s) const;  // 0 when none
  std::span<const ChannelId> scope() const { return scope_; }
  std::size_t held_count() const { return held_total_; }
  std::size_t held_count(ChannelId ch) const;

  struct HeadView {
    ChannelId channel;
    Offset offset;
    const Clock* clock;
    std::int64_t received_at;
    std::uint64_t tag;
  };
  std::optional<HeadView> head(ChannelId ch) const;
  // Every claim of the head of `ch` that is unsatisfied now, after normalise and restrict.
  std::vector<Blocker> unsatisfied(ChannelId ch) const;
  // Claims of `clock` for a record on `ch` that are unsatisfied now (normalise, restrict, gate).
  std::vector<Blocker> unsatisfied(ChannelId ch, const Clock& clock) const;
  // Records still held on `ch`, head first.
  std::vector<HeadView> held(ChannelId ch) const;

  const GateStats& stats() const { return stats_; }
  Names& names() const { return names_; }
  // Rises whenever something a stamp reads of the gate may have changed: the scope, a
  // frontier, a custody clock, a delivered_seq entry (at the change itself, so also in the
  // middle of receive() and its cascade, from which an observer may stamp). Equal values
  // read twice mean none of those changed in between, which is what lets a reader keep
  // what it computed from them (Stamper::current_clock). It says nothing across gates.
  std::uint64_t version() const { return version_; }

  // --- model checking (lib/core/digest.cpp) ----------------------------------------
  // Passes `out`, in a fixed order, every value of the gate's state that can decide what a
  // later call does or hands the observer, each record's tag first renamed by `tag`. Two
  // gates on the same Names that pass equal sequences (and equal renamed tags) deliver the
  // same records in the same order under the same later calls. The simulator's exhaustive
  // explorer hashes it, so that schedules which leave a gate in the same state merge.
  // Left out because they decide nothing: received times, statistics other than whether
  // anything was received (scope growth reads that), and a head's release fields between
  // calls (schedule() sets them before every delivery from the queue). Of a registration's
  // epoch only whether it is current is passed: epochs only rise, a registration takes its
  // head's current epoch, and evaluation only compares them for equality.
  void digest(const std::function<void(std::uint64_t)>& out,
              const std::function<std::uint64_t(std::uint64_t)>& tag) const;

 private:
  // The gate's state per channel: its hold queue, the heads registered on its frontier and
  // sends, its custody. Defined in lib/core/gate_state.hpp, private to the core, so that
  // its layout (tuned for the delivery path) is not part of the interface.
  struct Held;
  class HoldQueue;
  struct OffsetWaiter;
  struct NextWaiter;
  struct SeqWaiter;
  struct SeqEntry;
  struct Reach;
  struct ChannelState;

  ChannelState& state(ChannelId ch);
  void cover(std::size_t channels);
  void cover_all_names();
  bool in_scope(ChannelId ch) const;
  const ChannelState* find(ChannelId ch) const;
  SeqEntry* find_seq(ChannelState& st, SenderId s);
  const SeqEntry* find_seq(const ChannelState& st, SenderId s) const;

  // Raises frontier[ch] to at least `to` (never past a failed-closed offset) and wakes the
  // heads waiting on it. Returns true when the frontier rose.
  bool raise_frontier(ChannelId ch, Offset to, Release why, Offset by_offset);
  // Raises delivered_seq[ch][s] to at least q and wakes the heads waiting on it.
  void raise_delivered_seq(ChannelId ch, SenderId s, SeqNo q, bool delivered_here, Release why,
                           Offset by_offset);
  // A record just became head of ch: the head fold-in (the bridge at receive when the queue
  // was empty), then queue it for evaluation.
  void became_head(ChannelId ch, bool at_receive);
  void schedule(ChannelId ch, Release why, ChannelId by_channel, Offset by_offset);
  // Evaluates queued heads to a fixpoint.
  void run_cascade();
  // A record just became head (or its evaluation restarted): checks every claim, registers
  // the head on each that blocks it, delivers it if none does. A ready head is delivered.
  bool evaluate(ChannelId ch);
  // A registration of the head of `head_ch` fired: one of its blocking claims is satisfied.
  // Schedules the head when that was the last.
  void claim_satisfied(ChannelId head_ch, Release why, ChannelId by_channel, Offset by_offset);
  // The first claim of the head of `ch` that blocks it now, if any.
  std::optional<Blocker> first_unsatisfied(ChannelId ch) const;
  void deliver_head(ChannelId ch);
  // What follows every delivery on ch, whether from the queue or at once on arrival: the
  // frontier advance, sequence-claim resolution, and the next head or remembered position.
  void delivered(ChannelId ch, Offset offset, const std::optional<Origin>& origin);
  // Counts a delivery and hands it to the observer.
  void report(const Delivery& d);
  void apply_position(ChannelId ch, bool remembered);
  void restart_evaluation(ChannelId ch);
  // Normalise and restrict (gate steps 6 and 7): true when the claim takes no part.
  bool ignores_seq_claim(ChannelId record_ch, const Clock& clock, const SeqClaim& c) const;
  // Gate steps 6-8 for one offset claim of a record on record_ch: true when it blocks
  // (neither normalised away, nor restricted away, nor reached by the frontier).
  bool offset_claim_blocks(ChannelId record_ch, const OffsetClaim& c) const;
  // True when every claim of `clock` is an offset claim on a consumed channel at or below
  // its frontier (custody need not fold it).
  bool frontier_covers(const Clock& clock) const;
  bool seq_satisfied(const SeqClaim& c) const;
  bool needs_lookup(const SeqClaim& c) const;

  Names& names_;
  GateObserver* observer_;
  std::vector<ChannelState> channels_;  // indexed by ChannelId
  std::vector<Reach> reach_;            // indexed by ChannelId, as long as channels_
  std::vector<ChannelId> scope_;
  std::vector<ChannelId> worklist_;
  std::vector<LookupRequest> answered_at_or_above_baseline_;  // lookups that said "will arrive"
  std::size_t held_total_ = 0;
  std::size_t released_in_cascade_ = 0;
  std::uint64_t version_ = 0;  // see version()
  GateStats stats_;
};

}  // namespace causal

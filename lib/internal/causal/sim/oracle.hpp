// The oracle: ground truth the simulator tracks itself, and the checks against it.
//
// Ground truth is a hidden happens-before over records, kept as explicit ancestor sets
// (Bits over RecordId). It never reads the protocol's clocks. The world reports:
//   sent(ch, ancestors, txn_previous)
//                         a send, with the set of records that happen before it:
//                         program order of its sender (transactions: every send of an
//                         earlier transaction; idempotent: every send acknowledged before
//                         this one was made) and everything the node knew when it
//                         emitted (learn_from_delivery), and, for a send of a transaction,
//                         the previous send of the same transaction (or kNoRecord)
//   appended / resolved   where the send landed, and whether it became a business record
//                         (committed, or non-transactional) or not (aborted, lost)
//   delivered(c, r)       consumer c (one node incarnation) handed r to its processor
//
// Checks made at each delivery of b at consumer c:
//   causal order          every ancestor a of b that sits on a channel c consumes, at or
//                         above c's baseline there, and is a business record, was delivered
//                         at c before b (different channel: causal_order; same channel and
//                         appended after b: structural_inversion, counted separately)
//   fifo                  offsets delivered on a channel strictly increase
//   duplicate_delivery    no record is delivered twice at one consumer
//   bad_delivery          only business records at or above the baseline are delivered
// and, for EOS nodes, effect_committed() flags a record whose effect is committed twice
// at one logical node (duplicate_effect). Completeness and drain are checked by the world
// at quiescence through missing() (attribution.hpp decides what a stall means).
//
// What a delivery teaches (learn_from_delivery; docs/protocol.md "What a delivery of a
// transaction's record teaches"): delivering r adds r, r's ancestors and every send of r's
// transaction made before r to the consumer's knowledge. Those earlier sends are not
// ancestors of r (sends of one transaction are concurrent: r's direct consumers may
// deliver them in either order), but by the time anyone can deliver r its transaction has
// committed atomically, so they are committed facts the consumer knows. This is the truth
// a relayed sequence claim serves: the stamp of anything the consumer emits afterwards
// must order those sends before it for every downstream consumer of their channels.
//
// Thread-safety: none; one oracle per world.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "causal/names.hpp"
#include "causal/sim/bits.hpp"
#include "causal/sim/config.hpp"

namespace causal::sim {

using RecordId = std::uint32_t;
using ConsumerId = std::uint32_t;  // one per node incarnation
using LogicalId = std::uint32_t;   // one per node (across incarnations)
inline constexpr RecordId kNoRecord = UINT32_MAX;

enum class ViolationKind : std::uint8_t {
  causal_order,
  structural_inversion,
  fifo,
  duplicate_delivery,
  bad_delivery,
  duplicate_effect,
  incomplete,   // drained, but a record at or above the baseline was never delivered
  stall,        // quiescent with held records, not attributable to a frozen claim
  no_drain,     // step budget exhausted
  crash,        // the gate or stamper threw (a violated REQUIRES)
  budget_overrun,  // a node fetched a channel the hold budget should have paused (budget.cpp)
};
const char* to_string(ViolationKind k);

struct Violation {
  ViolationKind kind;
  std::string detail;
};

enum class RecordState : std::uint8_t { in_flight, pending, committed, aborted, lost };

class Oracle {
 public:
  explicit Oracle(std::size_t channels);

  // Names records in violation details (set by the world; defaults to "#id").
  std::function<std::string(RecordId)> describe;

  // --- ground truth ----------------------------------------------------------------
  // txn_previous: the previous send of the same open transaction, kNoRecord for the first
  // send of a transaction and for sends outside transactions.
  RecordId sent(ChannelIndex ch, const Bits& ancestors, RecordId txn_previous = kNoRecord);
  // REQUIRES: r in_flight. A transactional send becomes pending, others committed.
  void appended(RecordId r, Offset offset, bool transactional);
  // A pending send's transaction ended.
  void resolved(RecordId r, bool committed);
  // An in-flight send that will never be appended (its sender crashed).
  void lost(RecordId r);

  const Bits& ancestors(RecordId r) const { return recs_[r].ancestors; }
  // Adds to `knowledge` what delivering r teaches (see above): r, its ancestors, and the
  // sends of its transaction made before it. Returns how many of those transaction sends
  // were not already ancestors (they are, when an acknowledgement preceded the send).
  std::size_t learn_from_delivery(Bits& knowledge, RecordId r) const;
  RecordId txn_previous(RecordId r) const { return recs_[r].txn_previous; }
  RecordState state(RecordId r) const { return recs_[r].state; }
  ChannelIndex channel(RecordId r) const { return recs_[r].channel; }
  Offset offset(RecordId r) const { return recs_[r].offset; }
  std::size_t record_count() const { return recs_.size(); }
  // Records appended to ch, in offset order.
  const std::vector<RecordId>& on_channel(ChannelIndex ch) const { return by_channel_[ch]; }

  // --- observations ----------------------------------------------------------------
  ConsumerId new_consumer(LogicalId logical, std::string name);
  // The consumer reads `ch` from `baseline`: every business record there at or above it
  // must be delivered, and counts as a possible ancestor in causal checks from now on.
  void consume(ConsumerId c, ChannelIndex ch, Offset baseline);
  // The incarnation ended (crash, abort-restart): it stops accumulating obligations.
  void retire(ConsumerId c);
  void delivered(ConsumerId c, RecordId r);
  void effect_committed(LogicalId node, RecordId r);
  bool effect_was_committed(LogicalId node, RecordId r) const;

  // Business records consumer c must deliver but has not, ascending by id.
  std::vector<RecordId> missing(ConsumerId c) const;
  bool was_delivered(ConsumerId c, RecordId r) const { return cons_[c].delivered.test(r); }

  void violate(ViolationKind k, std::string detail);
  const std::vector<Violation>& violations() const { return violations_; }
  std::uint64_t violation_count() const { return violation_count_; }
  std::uint64_t inversions() const { return inversions_; }
  std::uint64_t pairs_checked() const { return pairs_checked_; }
  std::uint64_t deliveries() const { return deliveries_; }
  // Hash of the truth and observations that decide future checks, with every RecordId r
  // renamed canon[r] and records visited in `by_rank` order (state_hash.cpp).
  std::uint64_t state_hash(const std::vector<std::uint32_t>& canon, const std::vector<RecordId>& by_rank) const;

 private:
  struct Rec {
    ChannelIndex channel;
    Offset offset = kNoOffset;
    RecordState state = RecordState::in_flight;
    Bits ancestors;
    RecordId txn_previous = kNoRecord;
  };
  struct Consumer {
    LogicalId logical;
    std::string name;
    bool live = true;
    std::vector<Offset> baseline;   // per channel; kNoOffset: not consumed
    std::vector<Offset> last;       // per channel: last delivered offset
    Bits need;                      // business (or pending) records it must deliver
    Bits delivered;
  };

  std::vector<Rec> recs_;
  std::vector<std::vector<RecordId>> by_channel_;
  std::vector<std::vector<ConsumerId>> consumers_of_;  // live consumers per channel
  std::vector<Consumer> cons_;
  std::vector<Bits> effects_;  // per logical node
  std::vector<Violation> violations_;
  std::uint64_t violation_count_ = 0;
  std::uint64_t inversions_ = 0;
  std::uint64_t pairs_checked_ = 0;
  std::uint64_t deliveries_ = 0;
};

}  // namespace causal::sim

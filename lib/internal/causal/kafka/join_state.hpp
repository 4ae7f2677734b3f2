// Where librdkafka's consumer-group state machine is, as its debug log tells it, and whether
// a commit sent now can be accepted by the group coordinator.
//
// Why a member needs it: librdkafka sends an application's OffsetCommit with the generation
// it knows when the request leaves. Sent while this member's JoinGroup or SyncGroup waits at
// the coordinator (the broker answers one connection's requests in order), the commit is
// answered after the join, against the new generation: ILLEGAL_GENERATION. Before 2.10
// librdkafka then also gave up the assignment (its issue #4059); since 2.10 it keeps it, but
// the commit is still refused, because the coordinator refuses it: a member's periodic
// commit fails, and a relay's send_offsets_to_transaction fails, which aborts its
// transaction and rewinds its input. So a member does not send a commit that cannot be
// accepted. An application cannot ask librdkafka for its join state, but librdkafka logs
// every transition (the "CGRPJOINSTATE" debug line of context `cgrp`), so a member enables
// that context and follows the lines here.
//
// Thread-safety: take() runs on librdkafka's threads (its log callback), the rest on the
// owner's thread.
#pragma once

#include <atomic>
#include <string_view>

namespace causal::kafka {

class JoinState {
 public:
  // The states librdkafka names (rd_kafka_cgrp_join_state_names, 1.6 to 2.x).
  enum class State { unknown, init, wait_join, wait_metadata, wait_sync, wait_assign_call, wait_unassign_call,
                     wait_unassign_to_complete, wait_incr_unassign_to_complete, steady };

  // Feeds one librdkafka log line (facility, text). True if it was a join-state transition.
  bool take(std::string_view fac, std::string_view line);
  // The state last logged; unknown before any transition was seen.
  State state() const { return state_.load(std::memory_order_acquire); }
  // Whether a commit sent now carries the generation the coordinator will check it against:
  // none of this member's JoinGroup or SyncGroup is outstanding and a generation is known
  // (steady; waiting for the application's assign or unassign call, where the rebalance
  // callback commits; waiting for an unassign to complete, which itself waits for
  // outstanding commits before rejoining). Not in init (about to rejoin), wait-join,
  // wait-metadata or wait-sync. When no transition was ever seen (the lines do not come):
  // true, so that commits are never stopped by a log that is missing.
  bool committable() const;
  // Back to unknown: the member's client was made again, and its join state is not known
  // until its first transition.
  void forget() { state_.store(State::unknown, std::memory_order_release); }

  // The state a "changed join state A -> B (state S)" line names as B; unknown if `line` is
  // not such a line or B is not a state named above.
  static State parse(std::string_view line);
  // librdkafka's name of `s` ("unknown" for unknown).
  static std::string_view name(State s);

 private:
  std::atomic<State> state_{State::unknown};
};

}  // namespace causal::kafka

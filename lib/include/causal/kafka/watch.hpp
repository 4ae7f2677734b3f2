// Watching consumer groups from the outside, round after round: what `causal watch` runs,
// as a library object (docs/library.md, "Watching groups"). It joins no group and commits
// nothing: each round reads the groups' commits and the partitions' offsets and gives each
// group explain_group's verdict (causal/kafka/explain.hpp), at little more than the cost of
// the records written since the last round.
//
// What it keeps, per group: the committed offsets of the scope as last read (offset,
// metadata, pending), each partition's LSO, the members, the replay's consumer host (its
// gate, over the group's Names, and its read position), the lookups made beside that gate,
// the topics' cleanup policies, and the last verdict.
//
// A round, in order:
//   1. Per group (read_group): DescribeConsumerGroups; OffsetFetch of all the group's
//      partitions (its committed topics, and the left-out ones); Metadata of the scope's
//      topics; OffsetFetch of the scope with require_stable (and once more without it for
//      a commit pending in an open transaction).
//   2. One ListOffsets round for the partitions of every group together: per partition
//      leader one request for the log start, one for the LSO, one for the high watermark.
//   3. Per group, by what changed since its last round:
//        reused     commits, LSOs and members unchanged, the last replay complete: the last
//                   verdict again; no record read, no lookup, no other request.
//        continued  commits unchanged, an LSO advanced (or the last round stopped at the
//                   bound, or the members changed): the replay goes on with the same gate
//                   from where it stopped to the new LSOs, then the diagnosis again.
//        replayed   the first round, commits moved, or the scope changed: a new replay from
//                   the commits (explain_group's), then the diagnosis.
//      The diagnosis (diagnose_replay) makes the lookups the held heads need, each once per
//      gate (answers kept), and reads each topic's cleanup policy once per gate. A channel
//      whose LSO is pinned below its high watermark costs one record read (the open
//      transaction's first timestamp) per diagnosis.
//   At most max_scan_records offsets are read by one group's replay in one round: at the
//   bound the verdict is undecided with reason "scan bound" and the next round goes on
//   from there (a backlog takes as many rounds as it needs).
//
// An error for a group (an unknown group, a broker down, a request refused) is that
// group's report for the round; the others go on, and so does the next round (a group
// that failed replays again from its commits).
//
// Cost: between rounds each group whose replay is kept holds one librdkafka consumer
// handle assigned to the scope's partitions, paused (ConsumerHost::pause_fetching): it
// sends no fetch request until the next round that reads; its memory is the held records'.
// Thread-safety: none; one GroupWatch is used from one thread.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "causal/diagnosis.hpp"
#include "causal/error.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/offsets.hpp"

namespace causal::kafka {

struct WatchOptions {
  ConnectionOptions connection;
  std::vector<std::string> groups;  // REQUIRES: not empty; each once
  // The scope of every group, as ExplainOptions::topics; empty: each group's committed
  // topics, as read each round (a topic the group starts committing joins the scope).
  std::vector<std::string> topics;
  std::uint64_t max_scan_records = 100'000;          // per group per round (REQUIRES: > 0)
  std::int64_t max_transaction_ms = 15 * 60 * 1000;  // as ExplainOptions
  std::int64_t lookup_max_offsets = 1'000'000;       // as ExplainOptions
  int timeout_ms = 10000;                            // each metadata or offset request
  int replay_timeout_ms = 120000;                    // one group's replay in one round; each lookup scan
  // When *stop becomes non-zero, the round in progress ends early: the groups not done yet
  // report "interrupted".
  const volatile std::sig_atomic_t* stop = nullptr;
};

// explain's verdict on a group: drains (`stuck` and `undecided` false in explain's JSON),
// stuck, or undecided (claims on left-out topics ignored, or the scan bound reached).
enum class GroupVerdict { drains, stuck, undecided };
std::string_view to_string(GroupVerdict v);  // "drains", "stuck", "undecided"

// How a round reached a group's verdict (see the file comment).
enum class WatchPath { replayed, continued, reused };
std::string_view to_string(WatchPath p);  // "replayed", "continued", "reused"

struct WatchedPartition {
  ChannelRef channel;
  std::optional<Offset> committed;  // the stable committed offset (nullopt: none)
  bool pending = false;             // a commit pending in an open transaction
  Offset log_start = kNoOffset;
  Offset lso = kNoOffset;
  Offset high_watermark = kNoOffset;
  // The held head's age (ms; now minus its record's timestamp); nullopt when nothing is
  // held there or the verdict is not from a complete replay.
  std::optional<std::int64_t> head_age_ms;
};

struct GroupReport {
  std::string group;
  // Set: the round failed for this group (nothing below is from this round).
  std::optional<Error> error;
  std::string state;              // DescribeConsumerGroups' state
  std::string protocol;           // "classic" or "consumer"
  std::size_t members = 0;
  std::vector<WatchedPartition> partitions;  // the scope, in channel order
  GroupVerdict verdict = GroupVerdict::undecided;
  // Why undecided: "scan bound" (the replay stopped at max_scan_records below the LSO),
  // "ignored claims" (Diagnosis::undecided()); "" otherwise.
  std::string undecided_reason;
  // The diagnosis of the replay at the LSO; nullopt at the scan bound.
  std::optional<Diagnosis> diagnosis;
  // True when this verdict differs from the last one this watch reported for the group
  // (verdict, reason, or its roots: verdict, summary, held record, remedy), and on the
  // group's first verdict.
  bool changed = false;
  WatchPath path = WatchPath::replayed;
  std::uint64_t scanned_records = 0;  // offsets the replay read this round
  std::uint64_t lookups_made = 0;     // lookups scanned this round
  std::uint64_t lookups_cached = 0;   // lookups answered from those of earlier rounds
  std::vector<std::string> notes;     // a new replay's notes (explain's)
};

struct WatchRound {
  std::vector<GroupReport> groups;  // in WatchOptions::groups order
  std::chrono::steady_clock::duration duration{};
};

class GroupWatch {
 public:
  explicit GroupWatch(WatchOptions options);
  ~GroupWatch();
  GroupWatch(GroupWatch&&) noexcept;
  GroupWatch& operator=(GroupWatch&&) noexcept;

  // One round (see the file comment). Never fails as a whole: errors are per group.
  WatchRound round();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace causal::kafka

// The diagnosis of a consumer group, from the log: what `causal explain --group` runs,
// as a library call (docs/library.md, "Diagnosing a group").
//
// explain_group reads the group's committed offsets without joining it (require_stable:
// offsets pending in an open transaction are reported as pending and the last stable ones
// used), restores the resolution state saved in the commit metadata, replays every channel
// of the scope from its committed position to the last stable offset through a gate that
// performs NO lookups and commits nothing (replay_to_lso), then does the lookups beside the
// gate: it scans each claimed channel below its baseline for the origin of every sequence
// claim a held head waits on, first from the held record's timestamp minus
// max_transaction_ms, then, when that window misses, widened toward the log start by at
// most lookup_max_offsets offsets (a lagging relay passes a claim on long after the send),
// and for the lowest claimed send per channel and sender of the records queued behind the
// heads. A scan that stops short of the log start without finding the send gives
// send_not_located with a search_further remedy, never "not appended". It then diagnoses
// the gate's snapshot with the log facts (causal/diagnosis.hpp).
//
// The group's committed topics the scope leaves out are named, and claims on them that the
// replay ignored (restrict step) are collected: with any, the diagnosis is undecided.
//
// It prints nothing: notes and progress go to the ExplainObserver, and what it read comes
// back as fields. Errors name fields (error.hpp).
// Thread-safety: none needed; every call opens its own clients and closes them.
#pragma once

#include <csignal>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "causal/diagnosis.hpp"
#include "causal/error.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/offsets.hpp"
#include "causal/snapshot.hpp"

namespace causal::kafka {

struct ExplainOptions {
  ConnectionOptions connection;
  std::string group;
  // The scope: the topics the group's node consumes, "T" for a whole topic or "T/P" for one
  // partition. REQUIRES: not empty.
  std::vector<std::string> topics;
  bool lookups = true;                           // false: no scans (frozen claims stay suspected)
  std::int64_t max_transaction_ms = 15 * 60 * 1000;  // the longest transaction a lookup window allows for
  std::int64_t lookup_max_offsets = 1'000'000;   // how far below the baseline a missed window widens (0: not)
  int timeout_ms = 10000;                        // each metadata or offset request
  int replay_timeout_ms = 120000;                // the replay to the LSO; each lookup scan
  // When *stop becomes non-zero (a signal handler sets it) the replay stops: the call fails.
  const volatile std::sig_atomic_t* stop = nullptr;
};

// What the call tells as it goes (every member may be left as it is).
class ExplainObserver {
 public:
  virtual ~ExplainObserver() = default;
  // A note, one line: a commit replayed without its resolution state, a commit pending, a
  // topic whose configuration could not be read, the replaying host's own notes.
  virtual void note(std::string_view) {}
  // The replay starts (after every note said before it), and ends (replay_done, whether or
  // not it succeeded): a tool installs its interrupt handler (ExplainOptions::stop) for it.
  virtual void replay_starting() {}
  // The replay delivered or held another record: the totals so far.
  virtual void replaying(std::uint64_t /*delivered*/, std::uint64_t /*holds*/) {}
  virtual void replay_done() {}
  // A lookup scan of `channel` for sender's send `seq` over [from, to) is at offset `at`.
  virtual void scanning(const ChannelRef& /*channel*/, std::string_view /*sender*/, SeqNo /*seq*/, Offset /*at*/,
                        Offset /*from*/, Offset /*to*/) {}
  virtual void scan_done() {}
};

// The group's committed position on a channel of the scope, as the replay used it.
struct ExplainCommitted {
  ChannelRef channel;
  std::optional<Offset> offset;   // nullopt: no commit (replayed from the log start)
  bool pending = false;           // a commit pending in an open transaction (the stable one used)
  bool resolution_state = false;  // its commit metadata restored the resolution state
};

struct ExplainResult {
  std::string group_state;     // DescribeConsumerGroups' state
  std::string group_protocol;  // "classic" or "consumer"
  std::size_t group_member_count = 0;
  std::vector<ExplainCommitted> committed;  // per channel of the scope, in channel order
  // Said before the replay (also given to ExplainObserver::note): commits replayed from
  // the log start or without their resolution state, commits pending.
  std::vector<std::string> notes;
  std::uint64_t delivered = 0;              // records the replay delivered
  std::uint64_t ignored_claims_total = 0;   // claims on left-out topics it ignored (facts lists 100)
  // What was not looked at: topics whose configuration could not be read (DescribeConfigs),
  // so whether they are compacted is not known and a claimed send compaction removed is
  // diagnosed as not appended.
  std::vector<std::string> unread_configs;
  // The facts the diagnosis was given: log facts, the lookups made (located, in the order
  // made), the group, the scope as named, the members, the left-out topics.
  DiagnosisFacts facts;
  GateSnapshot snapshot;
  Diagnosis diagnosis;  // its channels' head ages from the held records' timestamps
};

// REQUIRES: !opts.group.empty(), !opts.topics.empty().
// Errors: an unknown group, a group with no stable committed offset on the scope, a Kafka
// request that fails (Errc::runtime); a topic spec that does not parse (Errc::usage);
// *opts.stop set during the replay (Errc::runtime, "interrupted ...").
std::expected<ExplainResult, Error> explain_group(const ExplainOptions& opts, ExplainObserver* observer = nullptr);

}  // namespace causal::kafka

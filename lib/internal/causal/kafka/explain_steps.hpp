// The steps of explain_group (causal/kafka/explain.hpp), apart, so that GroupWatch
// (causal/kafka/watch.hpp) runs them one by one and keeps what a step found for the next
// round instead of doing it again:
//
//   read_group       the group without joining it: its description (DescribeConsumerGroups),
//                    the partitions it commits (OffsetFetch of all), the scope resolved
//                    (Metadata), the left-out topics, and the committed offsets with their
//                    metadata (OffsetFetch with require_stable, again without it for a
//                    pending one).
//   plan_replay      the replay's consumer options: per channel a start rule at the
//                    committed offset (the log start without one, past the log end, or of
//                    an earlier topic of the same name), the resolution state restored, the
//                    notes said; lookups off.
//   ReplayObserver   counts what the replay delivered and collects the claims on left-out
//                    topics the gate ignored (the restrict step).
//   diagnose_replay  once the replay reached every channel's LSO: the log facts, the
//                    lookups beside the gate (LookupCache keeps their answers: the same
//                    gate asks the same of the same log below its baselines), the diagnosis
//                    and the held heads' ages.
//
// Thread-safety: none; one caller's clients and gates.
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/explain.hpp"
#include "causal/kafka/offsets.hpp"

namespace causal::kafka {

struct GroupRead {
  GroupDescription desc;
  std::vector<ChannelRef> channels;        // the scope, resolved, sorted
  std::vector<std::string> scope;          // as named, each once
  std::vector<std::string> left_out;       // committed by the group, not in the scope
  std::vector<CommittedOffset> committed;  // per channel of `channels`
};

// `topics` as ExplainOptions::topics; empty: the group's committed topics (a watch's
// default scope). Errors as explain_group's: an unknown group, no stable committed offset
// on the scope, a partition's commit unreadable, a request that fails.
std::expected<GroupRead, Error> read_group(OffsetsClient& client, const std::string& group,
                                           const std::vector<std::string>& topics);

struct ReplayPlan {
  ConsumerOptions options;
  std::vector<ExplainCommitted> committed;
  std::vector<std::string> notes;
};

// REQUIRES: offsets[i].channel == group.channels[i] for every i.
std::expected<ReplayPlan, Error> plan_replay(OffsetsClient& client, const ExplainOptions& o, const GroupRead& group,
                                             std::span<const ChannelOffsets> offsets, Names& names);

class ReplayObserver : public HostObserver {
 public:
  static constexpr std::size_t kMaxIgnored = 100;  // claims listed; the rest are counted only
  ReplayObserver(ExplainObserver& obs, const Names& names, std::vector<std::string> left_out)
      : obs_(obs), names_(names), left_out_(std::move(left_out)) {}
  void delivered(const Delivery& d, const rd_kafka_message_t&) override;
  void held(ChannelId, Offset, const Blocker&) override;
  void note(std::string_view line) override { obs_.note(line); }
  std::uint64_t delivered_count() const { return delivered_; }
  const std::vector<IgnoredClaim>& ignored() const { return ignored_; }
  std::uint64_t ignored_count() const { return ignored_count_; }

 private:
  void collect_ignored(const Delivery& d);

  ExplainObserver& obs_;
  const Names& names_;
  std::vector<std::string> left_out_;
  std::uint64_t delivered_ = 0;
  std::uint64_t held_ = 0;
  std::vector<IgnoredClaim> ignored_;
  std::uint64_t ignored_count_ = 0;
};

// What diagnose_replay keeps for the next call on the same gate: the lookups made
// (topic, partition, sender, seq) and the topics' cleanup policies.
struct LookupCache {
  std::map<std::tuple<std::string, std::int32_t, std::string, SeqNo>, LocatedSend> located;
  std::optional<std::map<std::string, std::string>> policies;
  std::uint64_t hits = 0;  // lookups answered from the cache
};

// Fills out.facts, out.unread_configs, out.snapshot, out.diagnosis (head ages as of now).
// `cache` may be null (every lookup made).
// REQUIRES: the gate's replay reached the LSO of every channel in `offsets`.
std::expected<void, Error> diagnose_replay(OffsetsClient& client, const ExplainOptions& o, const GroupRead& group,
                                           std::span<const ChannelOffsets> offsets, const Gate& gate, Names& names,
                                           const ReplayObserver& replay, ExplainObserver& obs, LookupCache* cache,
                                           ExplainResult& out);

}  // namespace causal::kafka

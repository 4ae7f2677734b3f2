#include "causal/kafka/explain_steps.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/explain_scan.hpp"
#include "causal/resolution_state.hpp"
#include "held_message.hpp"

namespace causal::kafka {

namespace {

std::string chan(const ChannelRef& c) { return fmt::format("{}/{}", c.topic, c.partition); }

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void ReplayObserver::delivered(const Delivery& d, const rd_kafka_message_t&) {
  ++delivered_;
  if (!left_out_.empty()) collect_ignored(d);
  obs_.replaying(delivered_, held_);
}

void ReplayObserver::held(ChannelId, Offset, const Blocker&) {
  ++held_;
  obs_.replaying(delivered_, held_);
}

void ReplayObserver::collect_ignored(const Delivery& d) {
  auto left_out = [&](ChannelId ch) {
    return is_left_out(left_out_, names_.channel_topic(ch), names_.channel_partition(ch));
  };
  auto add = [&](ClaimView v) {
    ++ignored_count_;
    if (ignored_.size() < kMaxIgnored) {
      ignored_.push_back({std::string(names_.channel_topic(d.channel)), names_.channel_partition(d.channel), d.offset,
                          true, std::move(v)});
    }
  };
  for (const auto& c : d.clock.offsets()) {
    if (!left_out(c.channel)) continue;
    add({"offset", std::string(names_.channel_topic(c.channel)), names_.channel_partition(c.channel), c.offset, "", 0,
         false});
  }
  for (const auto& c : d.clock.seqs()) {
    if (!left_out(c.channel)) continue;
    add({"seq", std::string(names_.channel_topic(c.channel)), names_.channel_partition(c.channel), kNoOffset,
         std::string(names_.sender_name(c.sender)), c.seq, false});
  }
}

std::expected<GroupRead, Error> read_group(OffsetsClient& client, const std::string& group,
                                           const std::vector<std::string>& topics) {
  GroupRead g;
  std::vector<ChannelSpec> specs;
  auto resolve = [&](const std::vector<std::string>& named) -> std::expected<void, Error> {
    for (const auto& t : named) {
      auto s = parse_channel_spec(t, /*allow_offset=*/false);
      if (!s) return std::unexpected(s.error());
      specs.push_back(std::move(*s));
    }
    auto channels = client.resolve(specs);
    if (!channels) return std::unexpected(channels.error());
    g.channels = std::move(*channels);
    return {};
  };
  // A named scope is checked first (an unknown topic is said before the group is asked).
  if (!topics.empty()) {
    if (auto r = resolve(topics); !r) return std::unexpected(r.error());
  }
  auto desc = client.describe_group(group);
  if (!desc) return std::unexpected(desc.error());
  if (!desc->exists) {
    return std::unexpected(runtime_error(fmt::format(
        "unknown group {}: {} has no such consumer group (no members, no committed offsets); check the name",
        quoted_excerpt(group), client.brokers())));
  }
  g.desc = std::move(*desc);
  // The group's committed topics that the scope left out: the diagnosis is of a consumer of
  // the named topics only, and says so.
  auto group_channels = client.committed_channels(group);
  if (!group_channels) return std::unexpected(group_channels.error());
  std::vector<std::string> named = topics;
  if (named.empty()) {
    for (const auto& c : *group_channels) {
      if (named.empty() || named.back() != c.topic) named.push_back(c.topic);
    }
    if (named.empty()) {
      return std::unexpected(runtime_error(fmt::format(
          "group {} has no committed offset: nothing to reconstruct (is it the right group?)", quoted_excerpt(group))));
    }
    if (auto r = resolve(named); !r) return std::unexpected(r.error());
  }
  for (const auto& s : specs) {
    std::string entry = s.topic + (s.partition ? fmt::format("/{}", *s.partition) : "");
    if (std::find(g.scope.begin(), g.scope.end(), entry) == g.scope.end()) g.scope.push_back(std::move(entry));
  }
  // Left out: a topic the scope does not name ("T"), or, of a topic it names only some
  // partitions of, a partition the group commits that it does not name ("T/P").
  for (const auto& c : *group_channels) {
    bool is_named = false, covered = false;
    for (const auto& s : specs) {
      if (s.topic != c.topic) continue;
      is_named = true;
      covered = covered || !s.partition || *s.partition == c.partition;
    }
    std::string entry = is_named ? chan(c) : c.topic;
    if (!covered && std::find(g.left_out.begin(), g.left_out.end(), entry) == g.left_out.end()) {
      g.left_out.push_back(entry);
    }
  }
  // Pending commits: replayed from the last stable committed offset.
  auto committed = client.committed_or_stable(group, g.channels);
  if (!committed) return std::unexpected(committed.error());
  if (std::none_of(committed->begin(), committed->end(), [](const auto& c) { return c.offset.has_value(); })) {
    std::string scope;
    for (const auto& t : named) scope += (scope.empty() ? "" : ", ") + t;
    std::string pending;
    for (const auto& c : *committed) {
      if (c.pending) pending += (pending.empty() ? "" : " ") + chan(c.channel);
    }
    if (!pending.empty()) {
      return std::unexpected(runtime_error(fmt::format(
          "group {} has no stable committed offset on {}: its offset commit on {} is pending in an open transaction; "
          "explain again once that transaction commits or aborts",
          quoted_excerpt(group), scope, pending)));
    }
    return std::unexpected(runtime_error(
        fmt::format("group {} has no committed offset on {}: nothing to reconstruct (is it the right group and "
                    "topic?)",
                    quoted_excerpt(group), scope)));
  }
  for (const auto& c : *committed) {
    if (!c.error.empty()) {
      return std::unexpected(runtime_error(fmt::format("group {}: cannot read the committed offset of {}: {}",
                                                       quoted_excerpt(group), chan(c.channel), c.error)));
    }
  }
  g.committed = std::move(*committed);
  return g;
}

std::expected<ReplayPlan, Error> plan_replay(OffsetsClient& client, const ExplainOptions& o, const GroupRead& group,
                                             std::span<const ChannelOffsets> offsets, Names& names) {
  ReplayPlan plan;
  ConsumerOptions& co = plan.options;
  co.connection = o.connection;
  co.lookups = false;
  co.connect_timeout = std::chrono::milliseconds(o.timeout_ms);
  co.max_transaction_duration = std::chrono::milliseconds(o.max_transaction_ms);
  std::vector<std::string>& notes = plan.notes;
  std::vector<std::string> topics_read;
  for (const auto& c : group.channels) {
    if (std::find(topics_read.begin(), topics_read.end(), c.topic) == topics_read.end()) topics_read.push_back(c.topic);
  }
  auto ids = client.topic_ids(topics_read);
  if (!ids) return std::unexpected(ids.error());
  for (std::size_t i = 0; i < group.channels.size(); ++i) {
    const auto& c = group.committed[i];
    const auto& lo = offsets[i];
    Offset start = c.offset.value_or(lo.log_start);
    if (!c.offset) notes.push_back(fmt::format("{}: the group has no committed offset; replayed from the log start {}",
                                               chan(c.channel), lo.log_start));
    // A commit past the log end: a member starts at the log start without the commit's
    // resolution state (docs/library.md), and so does the replay.
    // A commit of an earlier topic of the same name (its metadata names another topic ID):
    // the same.
    const std::string& now_id = (*ids)[c.channel.topic];
    const bool other_log = c.offset && !c.topic_id.empty() && !now_id.empty() && c.topic_id != now_id;
    const bool past_end = (c.offset && lo.log_end >= 0 && *c.offset > lo.log_end) || other_log;
    if (other_log) {
      start = lo.log_start;
      notes.push_back(fmt::format("{}: the committed offset {} belongs to an earlier topic {} (its commit names topic "
                                  "ID {}; the topic's is {}: deleted and re-created); a member starts at the log "
                                  "start {}, and so does this replay",
                                  chan(c.channel), *c.offset, quoted_excerpt(c.channel.topic), c.topic_id, now_id,
                                  lo.log_start));
    } else if (past_end) {
      start = lo.log_start;
      notes.push_back(fmt::format("{}: the committed offset {} is past the log end {} (the topic re-created, or its "
                                  "log truncated?); a member starts at the log start {}, and so does this replay",
                                  chan(c.channel), *c.offset, lo.log_end, lo.log_start));
    }
    co.channels.push_back({c.channel.topic, c.channel.partition});
    StartRule rule;
    rule.scope = Selector{c.channel.topic, c.channel.partition};
    rule.position = {StartPosition::Kind::offset, start};
    co.start.push_back(rule);
    bool restored = false;
    if (c.offset && !past_end && c.metadata.empty()) {
      notes.push_back(fmt::format("{}: the commit at {} carries no resolution state (another tool wrote it, such as "
                                  "kafka-consumer-groups --reset-offsets); replayed without it, as a member starts",
                                  chan(c.channel), *c.offset));
    }
    if (!past_end && !c.state.empty() && (c.state.starts_with("causal1:") || c.state.starts_with("causal2:"))) {
      auto entries = decode_resolution_state(c.state, names);
      if (entries) {
        co.resolution_state.insert(co.resolution_state.end(), entries->begin(), entries->end());
        restored = true;
      } else {
        notes.push_back(fmt::format("{}: the commit metadata does not decode as resolution state ({}); replayed "
                                    "without it",
                                    chan(c.channel), entries.error().message));
      }
    }
    plan.committed.push_back({c.channel, c.offset, c.pending, restored});
    if (c.pending) {
      notes.push_back(fmt::format("{}: an offset commit is pending in an open transaction; replayed from the last "
                                  "stable committed offset {}",
                                  chan(c.channel), c.offset ? fmt::format("{}", *c.offset) : std::string("(none)")));
    }
  }
  return plan;
}

std::expected<void, Error> diagnose_replay(OffsetsClient& client, const ExplainOptions& o, const GroupRead& group,
                                           std::span<const ChannelOffsets> offsets, const Gate& gate, Names& names,
                                           const ReplayObserver& replay, ExplainObserver& obs, LookupCache* cache,
                                           ExplainResult& out) {
  DiagnosisFacts facts;
  facts.group = o.group;
  facts.scope = group.scope;
  for (const auto& m : group.desc.members) {
    MemberFact f{m.member_id, m.client_id, m.host, {}};
    for (const auto& c : m.assignment) f.assignment.push_back({c.topic, c.partition});
    facts.members.push_back(std::move(f));
  }
  facts.left_out_topics = group.left_out;
  facts.ignored_claims = replay.ignored();
  // Whether each topic is compacted: compaction removes records from inside the log, so a
  // send not found may have been removed (diagnosis: send_not_in_log, not not_appended).
  std::vector<std::string> scope_topics;
  for (const auto& lo : offsets) {
    if (std::find(scope_topics.begin(), scope_topics.end(), lo.channel.topic) == scope_topics.end()) {
      scope_topics.push_back(lo.channel.topic);
    }
  }
  std::map<std::string, std::string> fetched;
  if (!cache || !cache->policies) {
    fetched = client.cleanup_policies(scope_topics);
    if (cache && fetched.size() == scope_topics.size()) cache->policies = fetched;
  }
  const auto& policies = cache && cache->policies ? *cache->policies : fetched;
  out.unread_configs.clear();
  for (const auto& topic : scope_topics) {
    if (!policies.contains(topic)) out.unread_configs.push_back(topic);
  }
  for (const auto& lo : offsets) {
    ChannelFacts f;
    f.topic = lo.channel.topic;
    f.partition = lo.channel.partition;
    f.log_start = lo.log_start;
    f.lso = lo.lso;
    f.log_end = lo.log_end;
    f.caught_up = true;  // the replay reached every channel's LSO
    if (auto p = policies.find(lo.channel.topic); p != policies.end()) {
      f.compacted = p->second.find("compact") != std::string::npos;
    }
    if (lo.lso < lo.log_end) {
      auto ts = first_timestamp(o.connection, lo.channel, lo.lso, o.timeout_ms);
      if (!ts) return std::unexpected(ts.error());
      f.open_txn_since_ms = *ts;
    }
    facts.channels.push_back(std::move(f));
  }

  // Lookups, beside the gate: every unsatisfied sequence claim of a held head; then, per
  // claimed channel and sender no head's claim asked about, the lowest unsatisfied send
  // claimed by a record queued behind a head (it holds once the records ahead of it are
  // released: a frozen one is diagnosed now, so that one rewind covers it; the lowest
  // send is enough, since a sender's sends reach a channel in send-number order).
  std::set<std::tuple<ChannelId, SenderId, SeqNo>> asked;
  std::map<ChannelId, std::int64_t> head_ts;
  auto look_up = [&](ChannelId claimed, SenderId sender_id, SeqNo seq, std::int64_t ts) -> std::expected<void, Error> {
    ChannelRef target{std::string(names.channel_topic(claimed)), names.channel_partition(claimed)};
    const std::string sender = std::string(names.sender_name(sender_id));
    const auto key = std::tuple{target.topic, target.partition, sender, seq};
    if (cache) {
      if (auto it = cache->located.find(key); it != cache->located.end()) {
        ++cache->hits;
        facts.located.push_back(it->second);
        return {};
      }
    }
    Offset to = gate.baseline(claimed);
    Offset log_start = 0;
    for (const auto& lo : offsets) {
      if (lo.channel == target) log_start = lo.log_start;
    }
    // The window: the send was made inside a transaction that ended before the claiming
    // record became visible, so normally at or after (its timestamp - max transaction).
    // No record below the LSO that recent (offset_for_time's nullopt) makes the window
    // empty, not the whole log: the widening below then scans at most
    // `lookup_max_offsets` below the baseline, as on any other miss.
    Offset from = log_start;
    if (ts >= 0) {
      auto at = offset_for_time(o.connection, target, ts - o.max_transaction_ms, o.timeout_ms);
      if (!at) return std::unexpected(at.error());
      from = *at ? std::max(from, **at) : to;
    }
    from = std::min(from, to);
    auto scan_progress = [&](Offset at) { obs.scanning(target, sender, seq, at, from, to); };
    auto loc = locate_send(o.connection, target, sender, seq, from, to, o.replay_timeout_ms, scan_progress);
    if (!loc) return std::unexpected(loc.error());
    // The window missed: widen toward the log start, at most `lookup_max_offsets` below
    // the baseline, and only when the window itself was scanned to its end.
    const Offset floor = std::max(log_start, to - o.lookup_max_offsets);
    bool timed_out = loc->scanned_to < to;
    if (!loc->offset && !timed_out && from > floor) {
      auto wide = locate_send(o.connection, target, sender, seq, floor, from, o.replay_timeout_ms, scan_progress);
      if (!wide) return std::unexpected(wide.error());
      loc->offset = wide->offset;
      if (wide->offset || wide->scanned_to >= from) {
        loc->scanned_from = floor;  // [floor, to) scanned without a hole
      } else {
        timed_out = true;  // a hole [wide->scanned_to, from): only [from, to) counts as scanned
      }
    }
    obs.scan_done();
    if (!loc->offset && (loc->scanned_from > log_start || timed_out)) {
      Remedy further{Remedy::Kind::search_further, o.group, {}, group.scope, std::max<Offset>(to - log_start, 1),
                     std::nullopt};
      if (timed_out) further.replay_timeout_ms = 4 * std::int64_t{o.replay_timeout_ms};
      loc->search_further = further;
    }
    // A scan cut short by its timeout is not kept: the next call scans again.
    if (cache && !timed_out) cache->located.emplace(key, *loc);
    facts.located.push_back(std::move(*loc));
    return {};
  };
  auto timestamp = [](std::uint64_t tag) {
    const rd_kafka_message_t* m = message_of(tag);
    return m ? rd_kafka_message_timestamp(m, nullptr) : std::int64_t{-1};
  };
  std::set<std::pair<ChannelId, SenderId>> asked_of_heads;
  for (ChannelId ch : gate.scope()) {
    auto head = gate.head(ch);
    if (!head) continue;
    std::int64_t ts = timestamp(head->tag);
    if (ts >= 0) head_ts[ch] = ts;
    if (!o.lookups) continue;
    for (const Blocker& b : gate.unsatisfied(ch)) {
      if (b.kind != Blocker::Kind::seq || !gate.consumes(b.channel)) continue;
      asked_of_heads.emplace(b.channel, b.sender);
      if (!asked.emplace(b.channel, b.sender, b.seq).second) continue;
      if (auto r = look_up(b.channel, b.sender, b.seq, ts); !r) return std::unexpected(r.error());
    }
  }
  // A send held on its own channel sits above the baseline (the replay received it): no
  // lookup. The replay reached every channel's LSO, so a send neither delivered nor held
  // there is below the baseline, not written yet, or deleted: the lookup tells.
  if (o.lookups) {
    // One pass over the held records: their own sends, and the claims of those queued
    // behind a head; the claims are filtered once every held send is known.
    std::set<std::tuple<ChannelId, SenderId, SeqNo>> held_sends;
    std::vector<std::pair<Blocker, std::uint64_t>> claims;  // a queued record's claim, its tag
    for (ChannelId ch : gate.scope()) {
      auto held = gate.held(ch);
      for (std::size_t i = 0; i < held.size(); ++i) {
        if (held[i].clock->origin) held_sends.emplace(ch, held[i].clock->origin->sender, held[i].clock->origin->seq);
        if (i == 0) continue;  // the head: asked about above
        for (const Blocker& b : gate.unsatisfied(ch, *held[i].clock)) {
          if (b.kind == Blocker::Kind::seq && gate.consumes(b.channel)) claims.emplace_back(b, held[i].tag);
        }
      }
    }
    std::map<std::pair<ChannelId, SenderId>, std::pair<SeqNo, std::uint64_t>> queued;  // lowest seq, its record's tag
    for (const auto& [b, tag] : claims) {
      if (asked_of_heads.contains({b.channel, b.sender}) || held_sends.contains({b.channel, b.sender, b.seq})) continue;
      auto [it, fresh] = queued.emplace(std::pair{b.channel, b.sender}, std::pair{b.seq, tag});
      if (!fresh && b.seq < it->second.first) it->second = {b.seq, tag};
    }
    for (const auto& [key, at] : queued) {
      if (auto r = look_up(key.first, key.second, at.first, timestamp(at.second)); !r) return std::unexpected(r.error());
    }
  }

  GateSnapshot snap = take_snapshot(gate);
  Diagnosis d = diagnose(snap, facts);
  const std::int64_t now = wall_ms();
  for (auto& c : d.channels) {
    if (!c.head_offset) continue;
    auto chid = names.channel(c.topic, c.partition);
    if (auto it = head_ts.find(chid); it != head_ts.end()) c.head_age = now - it->second;
  }
  out.facts = std::move(facts);
  out.snapshot = std::move(snap);
  out.diagnosis = std::move(d);
  return {};
}

}  // namespace causal::kafka

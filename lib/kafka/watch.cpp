#include "causal/kafka/watch.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/explain_steps.hpp"

namespace causal::kafka {

std::string_view to_string(GroupVerdict v) {
  switch (v) {
    case GroupVerdict::drains: return "drains";
    case GroupVerdict::stuck: return "stuck";
    case GroupVerdict::undecided: return "undecided";
  }
  return "undecided";
}

std::string_view to_string(WatchPath p) {
  switch (p) {
    case WatchPath::replayed: return "replayed";
    case WatchPath::continued: return "continued";
    case WatchPath::reused: return "reused";
  }
  return "replayed";
}

namespace {

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A replay kept between rounds, with everything its gate stands on. Members are destroyed
// in reverse order: the host (its gate, its handle) before its observer and the names.
struct Replay {
  Names names;
  ExplainObserver quiet;
  std::unique_ptr<ReplayObserver> observer;
  std::unique_ptr<ConsumerHost> host;
  LookupCache cache;
  bool at_lso = false;  // the last round's replay reached the LSO (not stopped at the bound)
};

// A commit as the replay started from it: offset, metadata, pending.
using CommitKey = std::tuple<std::optional<Offset>, std::string, bool>;

struct Watched {
  std::string group;
  std::unique_ptr<Replay> replay;
  // What the replay was started from, and what the last round read.
  std::vector<ChannelRef> channels;
  std::vector<std::string> left_out;
  std::vector<CommitKey> commits;
  std::vector<Offset> lsos;
  std::vector<std::string> members;
  std::optional<GroupReport> last;         // the last verdict
  std::map<ChannelRef, std::int64_t> head_ts;  // its held heads' record timestamps
  std::string reported;                    // what `changed` compares (verdict_key)
};

// What makes a verdict another one: the verdict, its reason, and its roots.
std::string verdict_key(const GroupReport& r) {
  std::string key = fmt::format("{}|{}", to_string(r.verdict), r.undecided_reason);
  if (r.diagnosis) {
    for (const auto& root : r.diagnosis->roots) {
      key += fmt::format("|{}:{}:{}/{}@{}:{}", to_string(root.verdict), root.summary, root.held_topic,
                         root.held_partition, root.held_offset,
                         root.located_offset ? fmt::format("{}", *root.located_offset) : std::string());
    }
  }
  return key;
}

std::vector<std::string> member_keys(const GroupDescription& d) {
  std::vector<std::string> out;
  for (const auto& m : d.members) {
    std::string k = m.member_id;
    for (const auto& c : m.assignment) k += fmt::format(" {}/{}", c.topic, c.partition);
    out.push_back(std::move(k));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

struct GroupWatch::State {
  WatchOptions o;
  std::optional<OffsetsClient> client;
  std::vector<Watched> groups;

  ExplainOptions explain_options(const Watched& w, const GroupRead& g) const {
    ExplainOptions eo;
    eo.connection = o.connection;
    eo.group = w.group;
    eo.topics = g.scope;
    eo.max_transaction_ms = o.max_transaction_ms;
    eo.lookup_max_offsets = o.lookup_max_offsets;
    eo.timeout_ms = o.timeout_ms;
    eo.replay_timeout_ms = o.replay_timeout_ms;
    eo.stop = o.stop;
    return eo;
  }

  std::expected<void, Error> watch_group(Watched& w, const GroupRead& g, const std::vector<ChannelOffsets>& offs,
                                         GroupReport& r);
};

std::expected<void, Error> GroupWatch::State::watch_group(Watched& w, const GroupRead& g,
                                                          const std::vector<ChannelOffsets>& offs, GroupReport& r) {
  r.state = g.desc.state;
  r.protocol = g.desc.protocol;
  r.members = g.desc.members.size();
  std::vector<CommitKey> commits;
  std::vector<Offset> lsos;
  for (const auto& c : g.committed) commits.emplace_back(c.offset, c.metadata, c.pending);
  for (const auto& lo : offs) lsos.push_back(lo.lso);
  std::vector<std::string> members = member_keys(g.desc);
  const bool same_scope = w.replay && w.channels == g.channels && w.left_out == g.left_out;
  const bool same_commits = same_scope && w.commits == commits;
  const std::int64_t now = wall_ms();

  auto fill_partitions = [&](const std::optional<Diagnosis>& d) {
    r.partitions.clear();
    for (std::size_t i = 0; i < g.channels.size(); ++i) {
      WatchedPartition p;
      p.channel = g.channels[i];
      p.committed = g.committed[i].offset;
      p.pending = g.committed[i].pending;
      p.log_start = offs[i].log_start;
      p.lso = offs[i].lso;
      p.high_watermark = offs[i].log_end;
      if (d) {
        if (auto it = w.head_ts.find(p.channel); it != w.head_ts.end()) p.head_age_ms = now - it->second;
      }
      r.partitions.push_back(std::move(p));
    }
  };

  // Reused: nothing the verdict stands on moved.
  if (same_commits && w.lsos == lsos && w.members == members && w.replay->at_lso && w.last) {
    r.verdict = w.last->verdict;
    r.undecided_reason = w.last->undecided_reason;
    r.diagnosis = w.last->diagnosis;
    r.path = WatchPath::reused;
    if (r.diagnosis) {
      for (auto& c : r.diagnosis->channels) {
        if (auto it = w.head_ts.find({c.topic, c.partition}); it != w.head_ts.end()) c.head_age = now - it->second;
      }
    }
    fill_partitions(r.diagnosis);
    return {};
  }

  ExplainOptions eo = explain_options(w, g);
  if (same_commits) {
    r.path = WatchPath::continued;
  } else {
    // Replayed: from the commits, as explain_group does.
    w.replay.reset();
    w.head_ts.clear();
    auto fresh = std::make_unique<Replay>();
    auto plan = plan_replay(*client, eo, g, offs, fresh->names);
    if (!plan) return std::unexpected(plan.error());
    // A poll takes at most a batch: no more than the bound, so that the bound holds.
    plan->options.batch_size = static_cast<std::size_t>(
        std::min<std::uint64_t>(plan->options.batch_size, std::max<std::uint64_t>(o.max_scan_records, 1)));
    fresh->observer = std::make_unique<ReplayObserver>(fresh->quiet, fresh->names, g.left_out);
    auto host = ConsumerHost::open(plan->options, fresh->names, fresh->observer.get());
    if (!host) return std::unexpected(host.error());
    fresh->host = std::move(*host);
    r.notes = std::move(plan->notes);
    r.path = WatchPath::replayed;
    w.replay = std::move(fresh);
    w.channels = g.channels;
    w.left_out = g.left_out;
    w.commits = commits;
  }
  Replay& rp = *w.replay;
  ConsumerHost& host = *rp.host;
  if (auto resumed = host.resume_fetching(); !resumed) {
    w.replay.reset();
    return std::unexpected(resumed.error());
  }
  // The LSOs this round goes to: those just listed.
  for (const auto& p : host.plan()) {
    ChannelRef c{std::string(rp.names.channel_topic(p.channel)), rp.names.channel_partition(p.channel)};
    auto it = std::lower_bound(g.channels.begin(), g.channels.end(), c);
    if (it != g.channels.end() && *it == c) host.raise_lso(p.channel, offs[it - g.channels.begin()].lso);
  }
  // The replay, bounded: offsets read are counted by the position signals' advance.
  auto position = [&] {
    std::uint64_t sum = 0;
    for (const auto& p : host.plan()) sum += static_cast<std::uint64_t>(std::max(p.baseline, host.position_signal(p.channel)) - p.baseline);
    return sum;
  };
  const std::uint64_t start = position();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.replay_timeout_ms);
  bool bounded = false;
  while (!host.caught_up()) {
    if (o.stop && *o.stop) {
      w.replay.reset();
      return std::unexpected(runtime_error("interrupted before the replay reached the last stable offset"));
    }
    if (position() - start >= o.max_scan_records) {
      bounded = true;
      break;
    }
    if (std::chrono::steady_clock::now() > until) {
      w.replay.reset();
      return std::unexpected(runtime_error(fmt::format(
          "the replay of group {} did not reach the last stable offset within {} ms (`replay_timeout_ms`)",
          quoted_excerpt(w.group), o.replay_timeout_ms)));
    }
    if (auto p = host.poll(); !p) {
      w.replay.reset();
      return std::unexpected(p.error());
    }
  }
  r.scanned_records = position() - start;
  host.pause_fetching();  // idle until the next round: no fetch requests
  w.lsos = lsos;
  w.members = members;
  if (bounded) {
    rp.at_lso = false;
    r.verdict = GroupVerdict::undecided;
    r.undecided_reason = "scan bound";
    fill_partitions(std::nullopt);
    return {};
  }
  rp.at_lso = true;
  ExplainResult er;
  const std::uint64_t hits = rp.cache.hits;
  if (auto d = diagnose_replay(*client, eo, g, offs, host.gate(), rp.names, *rp.observer, rp.quiet, &rp.cache, er);
      !d) {
    w.replay.reset();
    return std::unexpected(d.error());
  }
  r.lookups_cached = rp.cache.hits - hits;
  r.lookups_made = er.facts.located.size() - r.lookups_cached;
  const Diagnosis& d = er.diagnosis;
  r.verdict = d.stuck() ? GroupVerdict::stuck : d.undecided() ? GroupVerdict::undecided : GroupVerdict::drains;
  if (d.undecided()) r.undecided_reason = "ignored claims";
  w.head_ts.clear();
  for (const auto& c : d.channels) {
    if (c.head_age) w.head_ts[{c.topic, c.partition}] = now - *c.head_age;
  }
  r.diagnosis = std::move(er.diagnosis);
  fill_partitions(r.diagnosis);
  return {};
}

GroupWatch::GroupWatch(WatchOptions options) : state_(std::make_unique<State>()) {
  state_->o = std::move(options);
  for (const auto& g : state_->o.groups) {
    Watched w;
    w.group = g;
    state_->groups.push_back(std::move(w));
  }
}

GroupWatch::~GroupWatch() = default;
GroupWatch::GroupWatch(GroupWatch&&) noexcept = default;
GroupWatch& GroupWatch::operator=(GroupWatch&&) noexcept = default;

WatchRound GroupWatch::round() {
  State& s = *state_;
  const auto t0 = std::chrono::steady_clock::now();
  WatchRound out;
  auto fail_all = [&](const Error& e) {
    for (auto& w : s.groups) {
      GroupReport r;
      r.group = w.group;
      r.error = e;
      out.groups.push_back(std::move(r));
    }
    out.duration = std::chrono::steady_clock::now() - t0;
    return out;
  };
  if (!s.client) {
    auto c = OffsetsClient::open(s.o.connection, s.o.timeout_ms);
    if (!c) return fail_all(c.error());
    s.client.emplace(std::move(*c));
  }
  const Error interrupted = runtime_error("interrupted before this group's turn");
  // 1. Each group's description, commits and scope.
  std::vector<std::expected<GroupRead, Error>> reads;
  for (const auto& w : s.groups) {
    if (s.o.stop && *s.o.stop) {
      reads.push_back(std::unexpected(interrupted));
      continue;
    }
    reads.push_back(read_group(*s.client, w.group, s.o.topics));
  }
  // 2. One ListOffsets round for every group's partitions.
  std::vector<ChannelRef> all;
  for (const auto& g : reads) {
    if (g) all.insert(all.end(), g->channels.begin(), g->channels.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::expected<std::vector<ChannelOffsets>, Error> listed = std::vector<ChannelOffsets>{};
  if (!all.empty()) listed = s.client->list_offsets(all);
  // 3. Each group's verdict.
  for (std::size_t i = 0; i < s.groups.size(); ++i) {
    Watched& w = s.groups[i];
    GroupReport r;
    r.group = w.group;
    if (!reads[i]) {
      r.error = reads[i].error();
      w.replay.reset();
    } else if (!listed) {
      r.error = listed.error();
    } else if (s.o.stop && *s.o.stop) {
      r.error = interrupted;
    } else {
      std::vector<ChannelOffsets> offs;
      for (const auto& c : reads[i]->channels) {
        auto it = std::lower_bound(all.begin(), all.end(), c);
        offs.push_back((*listed)[static_cast<std::size_t>(it - all.begin())]);
      }
      if (auto done = s.watch_group(w, *reads[i], offs, r); !done) {
        r.error = done.error();
      } else {
        const std::string key = verdict_key(r);
        r.changed = key != w.reported;
        w.reported = key;
        w.last = r;
      }
    }
    out.groups.push_back(std::move(r));
  }
  out.duration = std::chrono::steady_clock::now() - t0;
  return out;
}

}  // namespace causal::kafka

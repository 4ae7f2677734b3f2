// causal explain: diagnose a stuck consumer (man/causal-explain.1, docs/explain-format.md).
//
// From a group (--group G --topic T...): read G's committed offsets without joining it
// (require_stable: offsets pending in an open transaction are reported as pending and the
// last stable ones used), restore the resolution state saved in the commit metadata,
// replay every channel from its committed position to the last stable offset through a
// gate that performs NO lookups and commits nothing (kafka::replay_to_lso), then do the
// lookups here, beside the gate: scan each claimed channel below its baseline for the
// origin of every sequence claim a held head waits on: first from the held record's
// timestamp minus --max-transaction-ms, then, when that window misses, widened down to the
// log start by at most --lookup-max-offsets offsets (a lagging relay passes a claim on long
// after the send). A scan that stops short of the log start without finding the send gives
// send_not_located, never "not appended". The diagnosis (causal/diagnosis.hpp) then names
// each root and its remedy.
// The group's committed topics that --topic left out are named, and claims on them that the
// replay ignored (restrict step) are listed: with any, the answer is undecided (exit 4).
// From a file (--snapshot FILE): the gate snapshot JSON a library gate wrote.
//
// Exit: 0 the gate would drain; 4 records are held; 1 Kafka failure, unknown group or
// topic; 2 usage error, or a snapshot file that cannot be read or parsed.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "causal/eprint.hpp"
#include "causal/diagnosis.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/explain_scan.hpp"
#include "causal/excerpt.hpp"
#include "causal/kafka/offsets.hpp"
#include "causal/resolution_state.hpp"
#include "causal/shell_word.hpp"
#include "causal/snapshot.hpp"
#include "stop_signal.hpp"
#include "subcommands.hpp"

namespace causal::cli {

namespace {

struct ExplainOptions {
  kafka::ConnectionOptions conn;
  std::string group;
  std::vector<std::string> topics;
  std::string snapshot_file;
  Format format = Format::text;
  bool no_lookup = false;
  std::int64_t max_transaction_ms = 15 * 60 * 1000;
  std::int64_t lookup_max_offsets = 1'000'000;
  int timeout_ms = 10000;
  int replay_timeout_ms = 120000;
};

// The connection options for the remedies (common.hpp, connection_words): a remedy reaches
// the cluster this run reached. A secret -X is not printed; stderr says to give it again.
std::optional<std::string> remedy_connection(const kafka::ConnectionOptions& conn) {
  std::vector<std::string> left_out;
  std::string words = connection_words(conn, left_out);
  for (const auto& what : left_out) {
    eprint("causal explain: remedies leave out {}: add it when you run them\n", what);
  }
  if (words.empty()) return std::nullopt;
  return words;
}

std::string chan(const kafka::ChannelRef& c) { return fmt::format("{}/{}", c.topic, c.partition); }

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Progress on stderr (TTY only) and the host's notes. Also collects the claims of
// delivered records on left-out topics (the gate ignored them: the restrict step).
class Progress : public kafka::HostObserver {
 public:
  static constexpr std::size_t kMaxIgnored = 100;  // claims listed; the rest are counted only
  Progress(bool tty, const Names& names, std::vector<std::string> left_out)
      : tty_(tty), names_(names), left_out_(std::move(left_out)) {}
  void delivered(const Delivery& d, const rd_kafka_message_t&) override {
    ++delivered_;
    if (!left_out_.empty()) collect_ignored(d);
    tick();
  }
  void held(ChannelId, Offset, const Blocker&) override {
    ++held_;
    tick();
  }
  void note(std::string_view line) override { eprint("causal explain: {}\n", line); }
  bool tty() const { return tty_; }
  void done() {
    if (tty_ && shown_) eprint("\r\033[K");
  }
  std::uint64_t delivered_count() const { return delivered_; }
  const std::vector<IgnoredClaim>& ignored() const { return ignored_; }
  std::uint64_t ignored_count() const { return ignored_count_; }

 private:
  bool left_out(ChannelId ch) const {
    return is_left_out(left_out_, names_.channel_topic(ch), names_.channel_partition(ch));
  }
  void collect_ignored(const Delivery& d) {
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

  void tick() {
    if (!tty_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    shown_ = true;
    eprint("\rreplaying to the LSO: {} delivered, {} holds", delivered_, held_);
  }
  bool tty_;
  bool shown_ = false;
  std::uint64_t delivered_ = 0;
  std::uint64_t held_ = 0;
  std::chrono::steady_clock::time_point last_{};
  const Names& names_;
  std::vector<std::string> left_out_;
  std::vector<IgnoredClaim> ignored_;
  std::uint64_t ignored_count_ = 0;
};

Outcome print(const Diagnosis& d, nlohmann::json extra, const std::string& preface, Format format) {
  if (format == Format::json) {
    nlohmann::json j = to_json(d);
    for (auto& [k, v] : extra.items()) j[k] = v;
    fmt::print("{}\n", j.dump(2));
  } else {
    std::string text = to_text(d);
    // The short verdict stays first; what explain read follows it.
    auto nl = text.find('\n');
    fmt::print("{}\n{}{}", text.substr(0, nl), preface, text.substr(nl + 1));
  }
  // Undecided (claims on left-out topics ignored) is not "drains": exit 4 as well.
  if (d.stuck() || d.undecided()) return std::unexpected(Error{Errc::held, ""});
  return {};
}

Outcome explain_snapshot(const ExplainOptions& o) {
  std::string text;
  if (o.snapshot_file == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(o.snapshot_file, ec)) {
      return std::unexpected(usage_error(fmt::format("cannot read snapshot file '{}': {}", o.snapshot_file,
                                                     std::strerror(EISDIR))));
    }
    std::ifstream in(o.snapshot_file, std::ios::binary);
    if (!in) {
      return std::unexpected(usage_error(fmt::format("cannot read snapshot file '{}': {}", o.snapshot_file,
                                                     std::strerror(errno))));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
      return std::unexpected(usage_error(fmt::format("cannot read snapshot file '{}': {}", o.snapshot_file,
                                                     std::strerror(errno))));
    }
    text = ss.str();
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return std::unexpected(usage_error(fmt::format(
        "snapshot file '{}' is not valid JSON (byte {}): write it with the library's snapshot to_json", o.snapshot_file,
        e.byte)));
  }
  auto snap = snapshot_from_json(j);
  if (!snap) {
    return std::unexpected(
        usage_error(fmt::format("snapshot file '{}' is not a gate snapshot: {}", o.snapshot_file, snap.error().message)));
  }
  DiagnosisFacts facts;
  if (!o.group.empty()) facts.group = o.group;
  facts.connection_args = remedy_connection(o.conn);
  Diagnosis d = diagnose(*snap, facts);
  // Nothing is modelled (the snapshot is the gate's own state) and no lookup is made.
  nlohmann::json extra{{"source", {{"snapshot", o.snapshot_file}}},
                       {"modelled_consumer", nullptr},
                       {"lookups", nlohmann::json::array()}};
  return print(d, extra, fmt::format("source: snapshot file {} (no log facts, no lookups)\n", o.snapshot_file),
               o.format);
}

Outcome explain_group(const ExplainOptions& o) {
  auto client = kafka::OffsetsClient::open(o.conn, o.timeout_ms);
  if (!client) return std::unexpected(client.error());
  std::vector<kafka::ChannelSpec> specs;
  for (const auto& t : o.topics) {
    auto s = kafka::parse_channel_spec(t, /*allow_offset=*/false);
    if (!s) return std::unexpected(s.error());
    specs.push_back(std::move(*s));
  }
  auto channels = client->resolve(specs);
  if (!channels) return std::unexpected(channels.error());

  auto desc = client->describe_group(o.group);
  if (!desc) return std::unexpected(desc.error());
  if (!desc->exists) {
    return std::unexpected(runtime_error(fmt::format(
        "unknown group {}: {} has no such consumer group (no members, no committed offsets); check the name",
        quoted_excerpt(o.group), client->brokers())));
  }
  // The group's committed topics that --topic left out: the diagnosis is of a consumer of
  // the named topics only, and says so.
  auto group_channels = client->committed_channels(o.group);
  if (!group_channels) return std::unexpected(group_channels.error());
  std::vector<std::string> left_out;
  std::string scope_args;
  for (const auto& s : specs) {
    if (scope_args.find(" --topic " + s.topic + (s.partition ? fmt::format("/{}", *s.partition) : "")) ==
        std::string::npos) {
      scope_args += " --topic " + s.topic + (s.partition ? fmt::format("/{}", *s.partition) : "");
    }
  }
  // Left out: a topic the scope does not name ("T"), or, of a topic it names only some
  // partitions of, a partition the group commits that it does not name ("T/P").
  for (const auto& c : *group_channels) {
    bool named = false, covered = false;
    for (const auto& s : specs) {
      if (s.topic != c.topic) continue;
      named = true;
      covered = covered || !s.partition || *s.partition == c.partition;
    }
    std::string entry = named ? chan(c) : c.topic;
    if (!covered && std::find(left_out.begin(), left_out.end(), entry) == left_out.end()) left_out.push_back(entry);
  }
  // Pending commits: replayed from the last stable committed offset.
  auto committed = client->committed_or_stable(o.group, *channels);
  if (!committed) return std::unexpected(committed.error());
  if (std::none_of(committed->begin(), committed->end(), [](const auto& c) { return c.offset.has_value(); })) {
    std::string topics;
    for (const auto& t : o.topics) topics += (topics.empty() ? "" : ", ") + t;
    std::string pending;
    for (const auto& c : *committed) {
      if (c.pending) pending += (pending.empty() ? "" : " ") + chan(c.channel);
    }
    if (!pending.empty()) {
      return std::unexpected(runtime_error(fmt::format(
          "group {} has no stable committed offset on {}: its offset commit on {} is pending in an open transaction; "
          "explain again once that transaction commits or aborts",
          quoted_excerpt(o.group), topics, pending)));
    }
    return std::unexpected(runtime_error(
        fmt::format("group {} has no committed offset on {}: nothing to reconstruct (is it the right group and "
                    "topic?)",
                    quoted_excerpt(o.group), topics)));
  }
  for (const auto& c : *committed) {
    if (!c.error.empty()) {
      return std::unexpected(runtime_error(
          fmt::format("group {}: cannot read the committed offset of {}: {}", quoted_excerpt(o.group), chan(c.channel), c.error)));
    }
  }
  auto offsets = client->list_offsets(*channels);
  if (!offsets) return std::unexpected(offsets.error());

  // The replay: start rules at the committed positions, resolution state restored.
  Names names;
  kafka::ConsumerOptions co;
  co.connection = o.conn;
  co.lookups = false;
  co.connect_timeout = std::chrono::milliseconds(o.timeout_ms);
  co.max_transaction_duration = std::chrono::milliseconds(o.max_transaction_ms);
  nlohmann::json committed_json = nlohmann::json::array();
  std::vector<std::string> notes;
  std::vector<std::string> topics_read;
  for (const auto& c : *channels) {
    if (std::find(topics_read.begin(), topics_read.end(), c.topic) == topics_read.end()) topics_read.push_back(c.topic);
  }
  auto ids = client->topic_ids(topics_read);
  if (!ids) return std::unexpected(ids.error());
  for (std::size_t i = 0; i < channels->size(); ++i) {
    const auto& c = (*committed)[i];
    const auto& lo = (*offsets)[i];
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
    kafka::StartRule rule;
    rule.scope = kafka::Selector{c.channel.topic, c.channel.partition};
    rule.position = {kafka::StartPosition::Kind::offset, start};
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
    committed_json.push_back({{"topic", c.channel.topic},
                              {"partition", c.channel.partition},
                              {"offset", c.offset ? nlohmann::json(*c.offset) : nlohmann::json(nullptr)},
                              {"pending", c.pending},
                              {"resolution_state", restored}});
    if (c.pending) {
      notes.push_back(fmt::format("{}: an offset commit is pending in an open transaction; replayed from the last "
                                  "stable committed offset {}",
                                  chan(c.channel), c.offset ? fmt::format("{}", *c.offset) : std::string("(none)")));
    }
  }
  for (const auto& n : notes) eprint("causal explain: {}\n", n);

  Progress progress(show_progress(), names, left_out);
  stop_on_sigint();
  auto host = kafka::replay_to_lso(co, names, &progress, std::chrono::milliseconds(o.replay_timeout_ms), &g_stop);
  progress.done();
  default_sigint();
  if (!host) return std::unexpected(host.error());
  if (g_stop) return std::unexpected(runtime_error("interrupted before the replay reached the last stable offset"));
  const Gate& gate = (*host)->gate();

  DiagnosisFacts facts;
  facts.group = o.group;
  facts.scope_args = scope_args.substr(1);
  facts.connection_args = remedy_connection(o.conn);
  for (const auto& m : desc->members) {
    MemberFact f{m.member_id, m.client_id, m.host, {}};
    for (const auto& c : m.assignment) f.assignment.push_back({c.topic, c.partition});
    facts.members.push_back(std::move(f));
  }
  facts.left_out_topics = left_out;
  facts.ignored_claims = progress.ignored();
  // Whether each topic is compacted: compaction removes records from inside the log, so a
  // send not found may have been removed (diagnosis: send_not_in_log, not not_appended).
  std::vector<std::string> scope_topics;
  for (const auto& lo : *offsets) {
    if (std::find(scope_topics.begin(), scope_topics.end(), lo.channel.topic) == scope_topics.end()) {
      scope_topics.push_back(lo.channel.topic);
    }
  }
  const auto policies = client->cleanup_policies(scope_topics);
  for (const auto& topic : scope_topics) {
    if (!policies.contains(topic)) {
      eprint(
                 "causal explain: the configuration of topic {} could not be read (DescribeConfigs): whether it is "
                 "compacted is not known, and a claimed send that compaction removed would be diagnosed as not "
                 "appended\n",
                 quoted_excerpt(topic));
    }
  }
  for (const auto& lo : *offsets) {
    ChannelFacts f;
    f.topic = lo.channel.topic;
    f.partition = lo.channel.partition;
    f.log_start = lo.log_start;
    f.lso = lo.lso;
    f.log_end = lo.log_end;
    f.caught_up = true;  // replay_to_lso returned: every channel reached its LSO
    if (auto p = policies.find(lo.channel.topic); p != policies.end()) {
      f.compacted = p->second.find("compact") != std::string::npos;
    }
    if (lo.lso < lo.log_end) {
      auto ts = kafka::first_timestamp(o.conn, lo.channel, lo.lso, o.timeout_ms);
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
  nlohmann::json lookups_json = nlohmann::json::array();
  std::map<std::tuple<ChannelId, SenderId, SeqNo>, bool> asked;
  std::map<ChannelId, std::int64_t> head_ts;
  auto look_up = [&](ChannelId claimed, SenderId sender_id, SeqNo seq, std::int64_t ts) -> std::expected<void, Error> {
    kafka::ChannelRef target{names.channel_topic(claimed), names.channel_partition(claimed)};
    Offset to = gate.baseline(claimed);
    Offset log_start = 0;
    for (const auto& lo : *offsets) {
      if (lo.channel == target) log_start = lo.log_start;
    }
    // The window: the send was made inside a transaction that ended before the claiming
    // record became visible, so normally at or after (its timestamp - max transaction).
    // No record below the LSO that recent (offset_for_time's nullopt) makes the window
    // empty, not the whole log: the widening below then scans at most
    // --lookup-max-offsets below the baseline, as on any other miss.
    Offset from = log_start;
    if (ts >= 0) {
      auto at = kafka::offset_for_time(o.conn, target, ts - o.max_transaction_ms, o.timeout_ms);
      if (!at) return std::unexpected(at.error());
      from = *at ? std::max(from, **at) : to;
    }
    from = std::min(from, to);
    const std::string sender = std::string(names.sender_name(sender_id));
    auto scan_progress = [&](Offset at) {
      if (progress.tty()) eprint("\rlooking up {}/{} sender '{}' send #{}: at offset {} (scan [{}, {}))\033[K",
                                     target.topic, target.partition, sender, seq, at, from, to);
    };
    auto loc = kafka::locate_send(o.conn, target, sender, seq, from, to, o.replay_timeout_ms, scan_progress);
    if (!loc) return std::unexpected(loc.error());
    // The window missed: widen toward the log start, at most --lookup-max-offsets below
    // the baseline, and only when the window itself was scanned to its end.
    const Offset floor = std::max(log_start, to - o.lookup_max_offsets);
    bool timed_out = loc->scanned_to < to;
    if (!loc->offset && !timed_out && from > floor) {
      auto wide = kafka::locate_send(o.conn, target, sender, seq, floor, from, o.replay_timeout_ms, scan_progress);
      if (!wide) return std::unexpected(wide.error());
      loc->offset = wide->offset;
      if (wide->offset || wide->scanned_to >= from) {
        loc->scanned_from = floor;  // [floor, to) scanned without a hole
      } else {
        timed_out = true;  // a hole [wide->scanned_to, from): only [from, to) counts as scanned
      }
    }
    if (progress.tty()) eprint("\r\033[K");
    if (!loc->offset && (loc->scanned_from > log_start || timed_out)) {
      // With the connection options the diagnosis's remedies carry (worked out once, above).
      std::string further = fmt::format("causal explain{} --group {}{} --lookup-max-offsets {}",
                                        facts.connection_args ? " " + *facts.connection_args : std::string(),
                                        shell_word(o.group), scope_args, std::max<Offset>(to - log_start, 1));
      if (timed_out) further += fmt::format(" --replay-timeout-ms {}", 4 * std::int64_t{o.replay_timeout_ms});
      loc->search_further = further;
    }
    lookups_json.push_back({{"topic", target.topic},
                            {"partition", target.partition},
                            {"sender", loc->sender},
                            {"seq", loc->seq},
                            {"scanned_from", loc->scanned_from},
                            {"scanned_to", loc->scanned_to},
                            {"complete", !loc->search_further.has_value()},
                            {"located_offset", loc->offset ? nlohmann::json(*loc->offset) : nlohmann::json(nullptr)}});
    facts.located.push_back(std::move(*loc));
    return {};
  };
  auto timestamp = [](std::uint64_t tag) {
    const rd_kafka_message_t* m = kafka::ConsumerHost::message_of(tag);
    return m ? rd_kafka_message_timestamp(m, nullptr) : std::int64_t{-1};
  };
  std::set<std::pair<ChannelId, SenderId>> asked_of_heads;
  for (ChannelId ch : gate.scope()) {
    auto head = gate.head(ch);
    if (!head) continue;
    std::int64_t ts = timestamp(head->tag);
    if (ts >= 0) head_ts[ch] = ts;
    if (o.no_lookup) continue;
    for (const Blocker& b : gate.unsatisfied(ch)) {
      if (b.kind != Blocker::Kind::seq || !gate.consumes(b.channel)) continue;
      asked_of_heads.emplace(b.channel, b.sender);
      if (!asked.emplace(std::tuple{b.channel, b.sender, b.seq}, true).second) continue;
      if (auto r = look_up(b.channel, b.sender, b.seq, ts); !r) return std::unexpected(r.error());
    }
  }
  // A send held on its own channel sits above the baseline (the replay received it): no
  // lookup. The replay reached every channel's LSO, so a send neither delivered nor held
  // there is below the baseline, not written yet, or deleted: the lookup tells.
  if (!o.no_lookup) {
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
  // A hung transaction (its producer gone) pins the LSO until the coordinator's timeout
  // aborts it: Kafka's own tool (KIP-664) shows the producer and aborts the transaction that
  // starts at the LSO, which is the first offset of the oldest transaction open there.
  const std::string bootstrap = shell_word(kafka::brokers_in_effect(o.conn));
  // A topic may start with '-', which the tool's parser takes for an option: --topic=T then.
  auto topic_arg = [](const std::string& t) {
    return t.starts_with('-') ? "--topic=" + shell_word(t) : "--topic " + shell_word(t);
  };
  // Kafka's tool reads no -X: on a secured cluster it connects only with a properties file in
  // the Java client's names, which are not librdkafka's (sasl.jaas.config against
  // sasl.username). Its --command-config is an option of the tool, before the subcommand.
  const std::string protocol = kafka::security_protocol_in_effect(o.conn);
  const bool secured = protocol != "plaintext";
  const std::string tool =
      "kafka-transactions.sh --bootstrap-server " + bootstrap + (secured ? " --command-config FILE" : "");
  const std::string file_is =
      secured ? fmt::format(" FILE: on this cluster (security.protocol={}) a Java client properties file with "
                            "credentials allowed to abort (Java's names: sasl.jaas.config, ssl.truststore.*, not "
                            "librdkafka's).",
                            protocol)
              : std::string();
  for (const auto& t : d.open_transactions) {
    d.advice.push_back(fmt::format(
        "{}: if the producer of the transaction that pins its LSO is gone (a hung transaction), Kafka's own tool "
        "shows it, then aborts that transaction: {} describe-producers {} --partition {}; {} abort {} --partition {} "
        "--start-offset {}. A live producer commits or aborts by itself within its transaction.timeout.ms; "
        "aborting its transaction fails it.{}",
        chan({t.topic, t.partition}), tool, topic_arg(t.topic), t.partition, tool, topic_arg(t.topic), t.partition,
        t.lso, file_is));
  }
  const std::int64_t now = wall_ms();
  for (auto& c : d.channels) {
    if (!c.head_offset) continue;
    auto chid = names.channel(c.topic, c.partition);
    if (auto it = head_ts.find(chid); it != head_ts.end()) c.head_age = now - it->second;
  }

  std::string preface = fmt::format(
      "source: group {} ({}, {} protocol, {} member(s)), replayed from its committed offsets to the LSO: {} record(s) "
      "delivered, nothing committed; {} lookup(s)\n"
      "modelled: a consumer WITHOUT lookups (causal tail --no-lookup, or a node that does not implement them); "
      "explain's own lookups say what a consumer with lookups (causal tail, ConsumerHost with lookups on) would do\n",
      quoted_excerpt(o.group), desc->state, desc->protocol, desc->members.size(), progress.delivered_count(),
      lookups_json.size());
  for (const auto& m : facts.members) {
    std::string held;
    for (const auto& p : m.assignment) held += (held.empty() ? "" : ", ") + fmt::format("{}/{}", p.topic, p.partition);
    preface += fmt::format("member: client {} on host {} (member {}), assigned {}\n", m.client_id, m.host, m.member_id,
                           held.empty() ? "nothing" : held);
  }
  if (!left_out.empty()) {
    std::string list;
    for (const auto& t : left_out) list += (list.empty() ? "" : ", ") + t;
    preface += fmt::format(
        "left out: group {} also has committed offsets on {}, not named with --topic. This is the diagnosis of a "
        "consumer of only the named topics: the replay ignored claims on {} (the gate's restrict step), {} of them; a "
        "node that consumes {} may hold where this one does not\n",
        quoted_excerpt(o.group), list, list, progress.ignored_count(), list);
  }
  for (const auto& c : *committed) {
    if (c.pending) preface += fmt::format("pending: {} has an offset commit pending in an open transaction\n", chan(c.channel));
  }
  for (const auto& n : notes) preface += fmt::format("note: {}\n", n);
  nlohmann::json extra{{"source",
                        {{"group", o.group},
                         {"group_state", desc->state},
                         {"group_protocol", desc->protocol},
                         {"members", desc->members.size()},
                         {"group_members", members_json(facts.members)},
                         {"committed", committed_json},
                         {"delivered", progress.delivered_count()},
                         {"ignored_claims_total", progress.ignored_count()}}},
                       {"modelled_consumer", "without_lookups"},
                       {"lookups", lookups_json}};
  return print(d, extra, preface, o.format);
}

Outcome run_explain(const ExplainOptions& o) {
  if (!o.snapshot_file.empty()) {
    if (!o.topics.empty()) return std::unexpected(usage_error("--snapshot and --topic exclude each other"));
    return explain_snapshot(o);
  }
  if (o.group.empty()) {
    return std::unexpected(usage_error("name what to explain: --group G --topic T... , or --snapshot FILE"));
  }
  if (o.topics.empty()) {
    return std::unexpected(usage_error(fmt::format("--group {} needs the topics its node consumes: --topic T...", quoted_excerpt(o.group))));
  }
  return explain_group(o);
}

}  // namespace

void setup_explain(CLI::App& sub, Outcome& result) {
  auto opts = std::make_shared<ExplainOptions>();
  add_kafka_options(sub, opts->conn);
  sub.add_option("-g,--group", opts->group, "Consumer group whose committed positions to reconstruct (never joined)")
      ->check(not_empty("group name"));
  sub.add_option("-t,--topic", opts->topics, "Topic (or TOPIC/PARTITION) the group's node consumes; repeatable")
      ->allow_extra_args(false);
  completes(sub.add_option("--snapshot", opts->snapshot_file, "Explain a gate snapshot JSON file instead ('-' for stdin)"),
            {ValueCompletion::Kind::file, {}});
  add_format_option(sub, opts->format, {Format::text, Format::json}, Format::text);
  sub.add_flag("--no-lookup", opts->no_lookup,
               "Do not scan claimed channels for the sends of sequence claims (frozen claims stay suspected)");
  sub.add_option("--max-transaction-ms", opts->max_transaction_ms,
                 "Longest transaction to allow for when choosing where a lookup scan starts (default 900000)")
      ->check(whole_number(1));
  sub.add_option("--lookup-max-offsets", opts->lookup_max_offsets,
                 "When the lookup window misses, scan at most this many offsets below the baseline toward the log "
                 "start (default 1000000; 0: do not widen)")
      ->check(whole_number(0));
  sub.add_option("--timeout-ms", opts->timeout_ms, "Timeout of each metadata/offset request (default 10000)")
      ->check(whole_number(1));
  sub.add_option("--replay-timeout-ms", opts->replay_timeout_ms,
                 "Give up when the replay has not reached the LSO after this long (default 120000)")
      ->check(whole_number(1));
  sub.footer(R"(Examples:
  causal explain --group billing --topic orders --topic payments
  causal explain --group billing --topic orders --topic payments --format json | jq -r '.remedies[]'
  causal explain --group billing --topic orders --topic payments --max-transaction-ms 60000 --lookup-max-offsets 5000000
  causal explain --snapshot gate.json
Models a consumer WITHOUT lookups; each root says what one with lookups would do.
Exit status: 0 nothing held (the gate would drain), 4 records held or undecided (claims on
topics the group commits but --topic left out were ignored), 1 Kafka failure or unknown
group/topic, 2 usage error or unreadable/malformed snapshot file.)");
  sub.callback([opts, &result] { result = run_explain(*opts); });
}

}  // namespace causal::cli

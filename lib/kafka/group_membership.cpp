// ConsumerHost as a consumer-group member: join, rebalances as generations, causal commits.
// The contract is in consumer_host.hpp (ConsumerHost::join) and docs/library.md.
//
// Why a whole new generation at every assignment change, even for partitions a cooperative
// rebalance lets this member keep: the gate has no way to take a channel out of its scope.
// Removing one would let held heads ignore their claims on it (protocol rule 7), and if the
// channel came back before anyone else consumed it, its records would then be delivered
// after effects already delivered here. Starting again from the committed state is what a
// restarted node does, which the protocol covers (committed positions, restored resolution
// state, the replay guard); the cost is re-reading the records held at the rebalance.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>
#include <thread>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/resolution_state.hpp"
#include "commit_metadata.hpp"
#include "consumer_host_impl.hpp"
#include "list_offsets.hpp"

namespace causal::kafka {

namespace {

// Whether the group's rebalance protocol is cooperative. librdkafka answers NULL once the
// group is being closed (a rebalance callback served by rd_kafka_consumer_close): the
// protocol seen last, kept in `last`, holds then.
bool cooperative(rd_kafka_t* rk, bool& last) {
  if (const char* p = rd_kafka_rebalance_protocol(rk)) last = std::string_view(p) == "COOPERATIVE";
  return last;
}

void rebalance_cb(rd_kafka_t*, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, void* opaque) {
  auto* log = static_cast<ConsumerHost::Impl::MemberLog*>(static_cast<ClientLog*>(opaque));
  log->impl->rebalance(err, parts);
}

// Adds librdkafka's `cgrp` debug context to the member's configuration, so that its join
// state is logged (join_state.hpp). Returns whether the user had asked for debug lines
// (-X debug): only then are they printed, the member's own included.
bool follow_join_state(rd_kafka_conf_t* conf) {
  std::size_t n = 0;
  std::string was;
  if (rd_kafka_conf_get(conf, "debug", nullptr, &n) == RD_KAFKA_CONF_OK && n > 1) {
    was.resize(n);
    if (rd_kafka_conf_get(conf, "debug", was.data(), &n) != RD_KAFKA_CONF_OK) n = 1;
    was.resize(n - 1);  // n counts the terminating NUL
  }
  const std::string want = was.empty() ? "cgrp" : was + ",cgrp";
  char err[256];
  (void)rd_kafka_conf_set(conf, "debug", want.c_str(), err, sizeof err);  // a known context: cannot fail
  return !was.empty();
}

}  // namespace

std::expected<std::unique_ptr<ConsumerHost>, Error> ConsumerHost::join(const ConsumerOptions& opts, Names& names,
                                                                       HostObserver* observer) {
  if (!opts.group || opts.group->empty()) return std::unexpected(usage_error("joining a group needs a group id"));
  if (opts.channels.empty()) return std::unexpected(usage_error("no topic given"));
  std::vector<std::string> topics;
  for (const auto& sel : opts.channels) {
    if (sel.partition) {
      return std::unexpected(usage_error(fmt::format(
          "{}/{}: a group member subscribes to whole topics; the group assigns the partitions", sel.topic,
          *sel.partition)));
    }
    if (std::find(topics.begin(), topics.end(), sel.topic) == topics.end()) topics.push_back(sel.topic);
  }
  // A member's partitions are assigned later, so a rule's partition is not checked here.
  if (auto ok = check_start_rules(opts.start, [&](const std::string& topic, std::optional<std::int32_t>) {
        return std::find(topics.begin(), topics.end(), topic) != topics.end();
      });
      !ok) {
    return std::unexpected(ok.error());
  }
  auto committed_rule = [](const StartPosition& p) { return p.kind == StartPosition::Kind::committed; };
  if (committed_rule(opts.default_start) ||
      std::any_of(opts.start.begin(), opts.start.end(), [&](const StartRule& r) { return committed_rule(r.position); })) {
    return std::unexpected(usage_error(
        "a group member starts from its committed offsets; `start` says where a partition without a commit starts "
        "(beginning, end, lso, an offset or -N), so it cannot be 'committed'",
        "start"));
  }

  std::unique_ptr<ConsumerHost> host(new ConsumerHost(names, observer));
  Impl& im = *host->impl_;
  im.opts = opts;
  im.member = true;
  im.log.impl = &im;
  im.brokers = brokers_in_effect(opts.connection);
  im.subscribed = topics;
  if (auto c = im.make_member_client(); !c) return std::unexpected(c.error());
  // Unknown topics fail here, as tail's do, rather than leaving the member idle.
  for (const auto& t : topics) {
    auto n = partition_count(im.rk.get(), t, opts.connect_timeout, im.brokers);
    if (!n) {
      auto e = n.error();
      if (e.message.starts_with("cannot reach")) e.message = im.log.with_cause(std::move(e.message));
      return std::unexpected(e);
    }
  }
  if (auto ok = im.watch_topics(topics, /*wait=*/true); !ok) return std::unexpected(ok.error());
  host->gate_ = std::make_unique<Gate>(names, &im);
  im.positions = rd_kafka_topic_partition_list_new(1);
  if (auto s = im.subscribe(); !s) return std::unexpected(s.error());
  im.batch.resize(std::max<std::size_t>(opts.batch_size, 1));
  im.next_commit = std::chrono::steady_clock::now() + opts.commit_interval;
  im.drain_log();
  im.publish_health();
  return host;
}

std::expected<void, Error> ConsumerHost::Impl::make_member_client() {
  auto defaults = consumer_defaults(opts, *opts.group);
  if (opts.group_protocol == ConsumerOptions::GroupProtocol::consumer) defaults.emplace_back("group.protocol", "consumer");
  auto made = make_client(RD_KAFKA_CONSUMER, opts.connection, defaults, log, [&](rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb);
    log.debug_ours = !follow_join_state(conf);
  });
  if (!made) return std::unexpected(made.error());
  rk = std::move(*made);
  return {};
}

std::expected<void, Error> ConsumerHost::Impl::subscribe() {
  ListPtr sub(rd_kafka_topic_partition_list_new(static_cast<int>(subscribed.size())));
  for (const auto& t : subscribed) rd_kafka_topic_partition_list_add(sub.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  if (auto err = rd_kafka_subscribe(rk.get(), sub.get()); err) {
    return std::unexpected(runtime_error(fmt::format("group {} on {}: cannot subscribe: {}", quoted_excerpt(*opts.group),
                                                     brokers, rd_kafka_err2str(err))));
  }
  queue = rd_kafka_queue_get_consumer(rk.get());
  return {};
}

void ConsumerHost::Impl::commit_refused(rd_kafka_resp_err_t err) {
  if (err != RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID || !member || !rk) return;
  char protocol[16] = "";
  std::size_t size = sizeof protocol;
  if (rd_kafka_conf_get(rd_kafka_conf(rk.get()), "group.protocol", protocol, &size) != RD_KAFKA_CONF_OK) return;
  if (std::string_view(protocol) == "consumer") member_unknown = true;
}

std::expected<void, Error> ConsumerHost::Impl::join_afresh() {
  if (host->observer_) {
    host->observer_->note(fmt::format(
        "group {}: assignment lost (the group coordinator refused a commit as UNKNOWN_MEMBER_ID: it no longer knows "
        "this member, while librdkafka still has partitions assigned to it); what was delivered since the last commit "
        "is not committed; joining the group again as a new member, with a new client",
        quoted_excerpt(*opts.group)));
  }
  // The generation ends (its held records freed, a new gate) and nothing stays owned: the
  // new member's assignment starts the next generation.
  ++assignments_lost;
  reset_generation();
  owned.clear();
  generation_pending = false;
  rebalance_error.reset();
  topic_cache.clear();  // the old client's topic handles
  // What the old client holds goes before it: the topic-ID watch's and the consumer's queues.
  TopicIds ids = topic_ids.at_start();
  topic_ids = TopicIdWatch();
  if (queue) {
    rd_kafka_queue_destroy(queue);
    queue = nullptr;
  }
  // Destroyed without a consumer close: the group has no such member to leave, and a close
  // would wait on the coordinator connection that failed (and call the rebalance callback).
  if (rk) rd_kafka_destroy_flags(rk.release(), RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  log.join.forget();
  // Until the new client is subscribed, member_unknown stays set and poll() tries again.
  if (auto c = make_member_client(); !c) return c;
  topic_ids = TopicIdWatch(rk.get(), std::move(ids), kTopicIdInterval);
  if (auto s = subscribe(); !s) return s;
  member_unknown = false;
  return {};
}

int ConsumerHost::generations() const { return impl_->generations; }

std::expected<void, Error> ConsumerHost::commit() {
  if (!impl_->member) return std::unexpected(usage_error("commit: this consumer is not a group member"));
  return impl_->commit(Impl::InFlight::wait);
}

bool ConsumerHost::rebalancing() const { return impl_->member && !impl_->log.join.committable(); }

CommittedState ConsumerHost::Impl::committed_state(const rd_kafka_topic_partition_t& c) {
  if (c.metadata_size == 0) {
    // Every commit of a causal node carries its state ("causal1:" even when empty): a commit
    // without metadata was written by another tool (kafka-consumer-groups --reset-offsets,
    // a plain consumer), which drops the state the last causal commit saved.
    if (c.offset >= 0 && host->observer_) {
      host->observer_->note(fmt::format(
          "{}/{}: the commit at {} carries no resolution state (another tool wrote it, such as "
          "kafka-consumer-groups --reset-offsets); claims on sends below it are {}",
          c.topic, c.partition, c.offset, opts.lookups ? "looked up" : "held (lookups are off)"));
    }
    return {};
  }
  std::string_view text = parse_commit_metadata({static_cast<const char*>(c.metadata), c.metadata_size}).state;
  auto saved = decode_committed_state(text, host->names_);
  if (saved) return std::move(*saved);
  if (host->observer_) {
    host->observer_->note(fmt::format("{}/{}: commit metadata {} is not a resolution state ({}); starting without one",
                                      c.topic, c.partition, quoted_excerpt(text), saved.error().message));
  }
  return {};
}

std::string ConsumerHost::Impl::commit_of_other_log(const rd_kafka_topic_partition_t& c) const {
  if (c.metadata_size == 0) return {};
  const auto id = parse_commit_metadata({static_cast<const char*>(c.metadata), c.metadata_size}).topic_id;
  const auto now = topic_ids.at_start().find(c.topic);
  if (id.empty() || now == topic_ids.at_start().end() || now->second.empty() || id == now->second) return {};
  return fmt::format("belongs to an earlier topic {} (its commit names topic ID {}; the topic's is {}: deleted and "
                     "re-created)",
                     quoted_excerpt(c.topic), id, now->second);
}

void ConsumerHost::Impl::reset_generation() {
  std::unique_ptr<Gate> old = std::move(host->gate_);
  for (ChannelId c : old->scope()) {
    for (const auto& h : old->held(c)) {
      if (h.tag) rd_kafka_message_destroy(reinterpret_cast<rd_kafka_message_t*>(h.tag));
    }
  }
  reset_budget();
  host->gate_ = std::make_unique<Gate>(host->names_, this);
  if (host->observer_) host->observer_->gate_replaced(*old, *host->gate_);
  for (ChannelId c : assignment) chans[c] = Ch{};
  assignment.clear();
  host->plan_.clear();
  host->failures_.clear();
  asked.clear();
  rd_kafka_topic_partition_list_destroy(positions);
  positions = rd_kafka_topic_partition_list_new(1);
  position_channels.clear();
}

Error committed_unreadable(const std::string& group, const std::string& brokers, rd_kafka_resp_err_t err,
                           std::chrono::milliseconds waited) {
  std::string message = fmt::format("group {} on {}: cannot read committed offsets: {}", quoted_excerpt(group), brokers,
                                    rd_kafka_err2str(err));
  if (err == RD_KAFKA_RESP_ERR__TIMED_OUT) {
    message += fmt::format(
        " (within {} ms: the group coordinator did not answer, or a commit of the group's offsets is pending in "
        "a transaction still open, which keeps them unreadable until it ends; `baseline group={}` "
        "marks such a partition \"(pending)\")",
        waited.count(), group);
  }
  return runtime_error(message);
}

std::expected<void, Error> ConsumerHost::Impl::begin_generation(rd_kafka_topic_partition_list_t* parts) {
  ++generations;
  Names& names = host->names_;
  int tmo = static_cast<int>(opts.connect_timeout.count());
  ListPtr committed(rd_kafka_topic_partition_list_copy(parts));
  if (auto err = rd_kafka_committed(rk.get(), committed.get(), tmo); err) {
    return std::unexpected(committed_unreadable(*opts.group, brokers, err, opts.connect_timeout));
  }
  // Every assigned partition's log start and LSO in one round each (one ListOffsets request
  // per leader), not two round trips per partition.
  ListPtr lows(rd_kafka_topic_partition_list_copy(parts)), lsos(rd_kafka_topic_partition_list_copy(parts));
  for (auto [list, spec] : {std::pair{lows.get(), RD_KAFKA_OFFSET_BEGINNING}, std::pair{lsos.get(), RD_KAFKA_OFFSET_END}}) {
    for (int i = 0; i < list->cnt; ++i) list->elems[i].offset = spec;
    if (auto ok = list_offsets_or_error(rk.get(), list, Isolation::read_committed, tmo, brokers); !ok) return ok;
  }
  std::vector<ResolutionEntry> state;
  for (int i = 0; i < parts->cnt; ++i) {
    auto& p = parts->elems[i];
    const rd_kafka_topic_partition_t* c = &committed->elems[i];
    ChannelId cid = names.channel(p.topic, p.partition);
    Clock restated;  // the committed custody restatement, if any
    const int64_t low = lows->elems[i].offset, lso = lsos->elems[i].offset;
    if (c->err) {
      return std::unexpected(runtime_error(fmt::format("group {}: committed offset of {}/{}: {}", quoted_excerpt(*opts.group),
                                                       p.topic, p.partition, rd_kafka_err2str(c->err))));
    }
    StartPosition from{StartPosition::Kind::committed, 0};
    Offset baseline = c->offset;
    // A commit past the log end (the LSO can be below a commit another tool made, the high
    // watermark cannot) belongs to a log that is gone: the topic was deleted and re-created,
    // or its log truncated. Started there, librdkafka would reset the fetch to the log start
    // and the replay guard would drop every record below the commit: records lost. It is
    // treated as a commit below the log start is: the start rules, without its metadata.
    std::optional<Offset> past_end;
    if (c->offset > lso) {
      auto high = high_watermark(p.topic, p.partition);
      if (!high) return std::unexpected(high.error());
      if (c->offset > *high) past_end = *high;
    }
    // A commit of an earlier topic of the same name (its metadata names another topic ID):
    // the same, wherever its offset lies.
    const std::string other_log = c->offset >= 0 ? commit_of_other_log(*c) : std::string();
    if (c->offset < 0 || c->offset < low || past_end || !other_log.empty()) {
      from = start_for(opts, p.topic, p.partition);
      auto b = baseline_for(p.topic, p.partition, from, nullptr, low, lso, past_end);
      if (!b) return std::unexpected(b.error());
      baseline = *b;
      if (host->observer_) {
        host->observer_->note(
            c->offset < 0
                ? fmt::format("{}/{}: group {} has no committed offset; starting at {} ({})", p.topic, p.partition,
                              quoted_excerpt(*opts.group), baseline, to_string(from))
            : !other_log.empty()
                ? fmt::format("{}/{}: the committed offset {} {}; starting at {} ({}) without the commit's resolution "
                              "state",
                              p.topic, p.partition, c->offset, other_log, baseline, to_string(from))
            : past_end
                ? fmt::format("{}/{}: the committed offset {} is past the log end {} (the topic re-created, or its log "
                              "truncated?); starting at {} ({}) without the commit's resolution state",
                              p.topic, p.partition, c->offset, *past_end, baseline, to_string(from))
                : fmt::format("{}/{}: the committed offset {} is below the log start {}; starting at {} ({})", p.topic,
                              p.partition, c->offset, low, baseline, to_string(from)));
      }
    } else {
      CommittedState saved = committed_state(*c);
      for (auto& e : saved.resolution) state.push_back(e);
      restated = std::move(saved.custody);
    }
    // A fresh state: end-of-partition events and positions of the channel's previous
    // ownership (events still queued after a revocation) must not reach this generation,
    // where they would be taken as a position signal above the baseline and bridge over
    // records not yet read (the replay guard would then drop them: loss).
    auto& st = ch(cid);
    st = Ch{};
    st.assigned = true;
    st.baseline = baseline;
    st.lso = lso;
    st.list_index = positions->cnt;
    rd_kafka_topic_partition_list_add(positions, p.topic, p.partition)->offset = baseline;
    position_channels.push_back(cid);
    p.offset = baseline;
    assignment.push_back(cid);
    host->gate_->add_channel(cid, baseline);
    // What this channel's custody restated when it was committed: joined into custody,
    // so every stamp after the restart still carries it (docs/protocol.md).
    if (!restated.empty()) host->gate_->restore_custody(cid, restated);
    host->plan_.push_back(ChannelPlan{cid, from, baseline, low, lso});
    committed_at.resize(std::max<std::size_t>(committed_at.size(), cid + 1), kNoOffset);
    committed_meta.resize(std::max<std::size_t>(committed_meta.size(), cid + 1));
    committed_at[cid] = c->offset;
    committed_meta[cid] = c->metadata_size > 0 ? std::string(static_cast<const char*>(c->metadata), c->metadata_size)
                                              : std::string();
  }
  // Before any receive (protocol: sequence claims, rule 3).
  host->gate_->restore_resolution_state(state);
  if (host->observer_) {
    std::string text;
    for (ChannelId c : assignment) text += (text.empty() ? "" : " ") + names.channel_text(c);
    host->observer_->note(fmt::format("group {}: generation {} assigned {}", quoted_excerpt(*opts.group), generations,
                                      text.empty() ? "nothing" : text));
  }
  return {};
}

bool ConsumerHost::Impl::frontier_past_commit() const {
  const Gate& gate = *host->gate_;
  return std::any_of(assignment.begin(), assignment.end(),
                     [&](ChannelId c) { return gate.frontier(c) + 1 != committed_at[c]; });
}

std::expected<void, Error> ConsumerHost::Impl::commit(InFlight in_flight) {
  if (assignment.empty() || (closing && !opts.commit_on_close)) {
    next_commit = std::chrono::steady_clock::now() + opts.commit_interval;
    return {};
  }
  Names& names = host->names_;
  Gate& gate = *host->gate_;
  const auto all = gate.resolution_state();
  ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(assignment.size())));
  std::vector<std::pair<ChannelId, Offset>> done;
  std::vector<std::string> metas;   // by element of `done`: kept as committed once the commit succeeds
  std::vector<std::string> pruned;  // said once the commit is sent
  for (ChannelId c : assignment) {
    if (chans[c].log_replaced) continue;  // its frontier is a position in a log that is gone
    Offset next = gate.frontier(c) + 1;
    std::vector<ResolutionEntry> mine;
    for (const auto& e : all) {
      if (e.channel == c) mine.push_back(e);
    }
    // Custody is never pruned: a dropped claim would be causal past a restarted stamp
    // forgets. Only resolution entries are (a dropped one costs a lookup).
    const Clock restated = gate.custody_restatement(c);
    const auto id = topic_ids.at_start().find(names.channel_topic(c));
    const std::string suffix = topic_id_suffix(id == topic_ids.at_start().end() ? "" : id->second);
    const std::size_t max_bytes = opts.metadata_max_bytes > suffix.size() ? opts.metadata_max_bytes - suffix.size() : 0;
    std::string meta = encode_committed_state(mine, restated, names);
    std::string pruned_here;  // said when what was pruned is sent
    if (meta.size() > max_bytes) {
      if (const std::string bare = encode_committed_state({}, restated, names); bare.size() > max_bytes) {
        return std::unexpected(runtime_error(fmt::format(
            "{}: the custody restatement alone is {} bytes ({} claims), over the {} bytes Kafka keeps as commit "
            "metadata (offset.metadata.max.bytes), and none of it may be dropped; nothing committed. Raise "
            "offset.metadata.max.bytes on the brokers",
            names.channel_text(c), bare.size() + suffix.size(), restated.offsets().size() + restated.seqs().size(),
            opts.metadata_max_bytes)));
      }
      if (!opts.lookups) {
        return std::unexpected(runtime_error(fmt::format(
            "{}: the resolution state is {} bytes, over the {} bytes Kafka keeps as commit metadata "
            "(offset.metadata.max.bytes), and without lookups none of it may be dropped; nothing committed",
            names.channel_text(c), meta.size() + suffix.size(), opts.metadata_max_bytes)));
      }
      // Keep the senders first seen most recently (higher ids were interned later).
      std::sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.sender > b.sender; });
      const std::size_t had = mine.size();
      // The longest prefix that fits (the encoding grows with the prefix): a binary search.
      std::size_t fits = 0, over = mine.size();
      while (over - fits > 1) {
        const std::size_t mid = fits + (over - fits) / 2;
        const std::span<const ResolutionEntry> prefix(mine.data(), mid);
        if (encode_committed_state(prefix, restated, names).size() <= max_bytes) {
          fits = mid;
        } else {
          over = mid;
        }
      }
      mine.resize(fits);
      meta = encode_committed_state(mine, restated, names);
      pruned_here = fmt::format("{}: resolution state over {} bytes: committed {} of {} sender entries; claims on "
                                "the others' sends will be resolved by lookups",
                                names.channel_text(c), opts.metadata_max_bytes, mine.size(), had);
    }
    meta += suffix;
    if (next == committed_at[c] && meta == committed_meta[c]) continue;  // unchanged: not sent, nothing said
    if (!pruned_here.empty()) pruned.push_back(std::move(pruned_here));
    auto* e = rd_kafka_topic_partition_list_add(list.get(), names.channel_topic(c).c_str(), names.channel_partition(c));
    e->offset = next;
    if (!meta.empty()) {
      // Freed by rd_kafka_topic_partition_list_destroy.
      e->metadata = std::malloc(meta.size());
      std::memcpy(e->metadata, meta.data(), meta.size());
      e->metadata_size = meta.size();
    }
    done.emplace_back(c, next);
    metas.push_back(std::move(meta));
  }
  if (done.empty() && !commit_hook) {
    next_commit = std::chrono::steady_clock::now() + opts.commit_interval;
    return {};
  }
  if (!log.join.committable()) {
    // This member's JoinGroup or SyncGroup is at the coordinator: a commit sent now would be
    // fenced, and librdkafka < 2.10 would then give up the assignment (join_state.hpp).
    // Skipped: next_commit stays due, so poll() tries again.
    if (in_flight == InFlight::skip) return {};
    const auto deadline = std::chrono::steady_clock::now() + opts.connect_timeout;
    while (!log.join.committable()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        return std::unexpected(runtime_error(fmt::format(
            "group {}: still rebalancing after {} ms (librdkafka join state {}); nothing committed: what was "
            "delivered since the last commit is delivered again by the partitions' next owner unless a later "
            "commit carries it",
            quoted_excerpt(*opts.group), opts.connect_timeout.count(), JoinState::name(log.join.state()))));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  next_commit = std::chrono::steady_clock::now() + opts.commit_interval;
  if (host->observer_) {
    for (const auto& text : pruned) host->observer_->note(text);
  }
  if (commit_hook) {
    // A relay: the offsets go into its transaction (send_offsets_to_transaction).
    if (auto r = commit_hook(list.get()); !r) return r;
  } else if (auto err = rd_kafka_commit(rk.get(), list.get(), 0 /* synchronous */); err) {
    // Nothing is kept as committed: the next commit sends the same or a later position.
    commit_refused(err);
    return std::unexpected(runtime_error(fmt::format("group {} on {}: commit failed: {}", quoted_excerpt(*opts.group), brokers,
                                                     rd_kafka_err2str(err))));
  }
  for (std::size_t i = 0; i < done.size(); ++i) {
    committed_at[done[i].first] = done[i].second;
    committed_meta[done[i].first] = std::move(metas[i]);
  }
  if (host->observer_) host->observer_->committed(done);
  return {};
}

std::expected<void, Error> ConsumerHost::Impl::rewind() {
  if (member_unknown) return join_afresh();  // nothing of the old assignment is this member's
  reset_generation();
  if (owned.empty()) return {};
  ListPtr all = list_of(host->names_, owned);
  if (auto b = begin_generation(all.get()); !b) return b;
  if (auto s = seek_to_baselines(assignment); !s) return s;
  generation_pending = false;
  return {};
}

std::expected<void, Error> ConsumerHost::Impl::seek_to_baselines(const std::vector<ChannelId>& which) {
  if (which.empty()) return {};
  ListPtr seek = list_at(host->names_, which, [&](ChannelId c) { return chans[c].baseline; });
  if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), seek.get(), static_cast<int>(opts.connect_timeout.count()))) {
    Error err = runtime_error(fmt::format("group {}: seek: {}", quoted_excerpt(*opts.group), rd_kafka_error_string(e)));
    rd_kafka_error_destroy(e);
    return std::unexpected(err);
  }
  return {};
}

void ConsumerHost::Impl::rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts) {
  Names& names = host->names_;
  const bool coop = cooperative(rk.get(), cooperative_protocol);
  auto fail = [&](Error e) {
    if (!rebalance_error) rebalance_error = std::move(e);
  };
  if (coop && err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && parts->cnt == 0 && !generation_pending) {
    // A cooperative rebalance's assignment that adds nothing (it follows every revocation):
    // the partitions and the gate stay as they are. librdkafka still waits for the call.
    if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk.get(), parts)) {
      fail(runtime_error(fmt::format("group {}: assign: {}", quoted_excerpt(*opts.group), rd_kafka_error_string(e))));
      rd_kafka_error_destroy(e);
    }
    return;
  }
  ++rebalances;
  // What was delivered is committed before anything is given up or re-read. A member that
  // cannot commit here (brokers away) loses nothing: what it delivered since its last commit
  // is delivered again by the next owner. A relay must abort its transaction: it is told.
  // A lost assignment (session expired) is not committed at all: the partitions may have
  // new owners already, and the coordinator fences the old generation's commit.
  if (err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && rd_kafka_assignment_lost(rk.get())) {
    // librdkafka calls an assignment lost when the session expired, and also when the
    // coordinator fenced this member's generation (a commit refused ILLEGAL_GENERATION):
    // the message names both, not a cause it cannot know.
    ++assignments_lost;
    Error lost = runtime_error(fmt::format("group {}: assignment lost (the group moved on without this member: its "
                                           "session expired or its generation was fenced); what was delivered since "
                                           "the last commit is not committed",
                                           quoted_excerpt(*opts.group)));
    if (commit_hook) {
      fail(std::move(lost));
    } else if (host->observer_) {
      host->observer_->note(lost.message);
    }
  } else if (closing && !opts.commit_on_close) {
    // The owner chose: nothing is committed on leaving.
  } else if (!log.join.committable()) {
    // This member's JoinGroup or SyncGroup is at the coordinator (a close in the middle of a
    // rebalance): a commit now would be fenced (join_state.hpp), so none is sent.
    if (frontier_past_commit()) {
      Error e = runtime_error(fmt::format("group {}: a rebalance is in flight (librdkafka join state {}); what was "
                                         "delivered since the last commit is not committed",
                                         quoted_excerpt(*opts.group), JoinState::name(log.join.state())));
      if (commit_hook) {
        fail(std::move(e));
      } else if (host->observer_) {
        host->observer_->note(e.message);
      }
    }
  } else if (auto c = commit(InFlight::skip); !c) {
    if (commit_hook) {
      fail(c.error());
    } else if (host->observer_) {
      host->observer_->note(c.error().message);
    }
  }
  // The next assignment follows from what librdkafka has assigned (owned), not from the
  // gate's channels: while a generation is pending (its committed offsets could not be read)
  // the gate has none, and a rebalance then (any other member joining or leaving) would
  // otherwise drop every partition still assigned: librdkafka would go on fetching them for
  // this member, the group would count them as its, and nothing of them would be delivered
  // or committed again.
  std::vector<ChannelId> next = owned;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    if (!coop) next.clear();
    for (int i = 0; i < parts->cnt; ++i) {
      ChannelId c = names.channel(parts->elems[i].topic, parts->elems[i].partition);
      if (std::find(next.begin(), next.end(), c) == next.end()) next.push_back(c);
    }
  } else {
    if (!coop) next.clear();
    for (int i = 0; i < parts->cnt; ++i) {
      ChannelId c = names.channel(parts->elems[i].topic, parts->elems[i].partition);
      next.erase(std::remove(next.begin(), next.end(), c), next.end());
    }
  }
  // Kept: assigned before and after, so librdkafka is not told of them again; they are
  // sought to the new generation's baselines.
  const std::vector<ChannelId> kept = [&] {
    std::vector<ChannelId> k;
    for (ChannelId c : owned) {
      if (std::find(next.begin(), next.end(), c) != next.end()) k.push_back(c);
    }
    return k;
  }();
  reset_generation();
  owned = next;

  // Give up what is revoked (or everything, eagerly), then start the next generation.
  if (err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    rd_kafka_error_t* e = coop ? rd_kafka_incremental_unassign(rk.get(), parts) : nullptr;
    if (!coop) rd_kafka_assign(rk.get(), nullptr);
    if (e) {
      fail(runtime_error(fmt::format("group {}: giving up partitions: {}", quoted_excerpt(*opts.group), rd_kafka_error_string(e))));
      rd_kafka_error_destroy(e);
    }
    if (!coop || next.empty()) return;
  }
  ListPtr all = list_of(names, next);
  generation_pending = false;
  if (!next.empty() && closing) {
    // An assignment served while leaving (rd_kafka_consumer_close): taken so that librdkafka
    // can go on to revoke it, and nothing is read for it.
    generation_pending = true;
    for (int i = 0; i < all->cnt; ++i) all->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
  } else if (!next.empty()) {
    if (auto b = begin_generation(all.get()); !b) {
      // The committed offsets could not be read (brokers away, a commit pending in an open
      // transaction). The partitions are taken all the same, so that the group's rebalance
      // completes, and the gate gets none of them until poll() starts the generation again
      // (rewind), which seeks them to their baselines. Meanwhile they are fetched from the
      // log start and what comes is dropped (not assigned in the gate): an explicit position,
      // since librdkafka would otherwise look the commit up itself and, finding none, stop
      // the partition (auto.offset.reset=error) possibly after the rewind's seek.
      if (host->observer_) host->observer_->note(fmt::format("{}; trying again", b.error().message));
      reset_generation();
      generation_pending = true;
      for (int i = 0; i < all->cnt; ++i) all->elems[i].offset = RD_KAFKA_OFFSET_BEGINNING;
    }
  }
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    // The partitions added now start at their baselines; the kept ones are sought back.
    ListPtr added(rd_kafka_topic_partition_list_new(std::max(parts->cnt, 1)));
    for (int i = 0; i < all->cnt; ++i) {
      ChannelId c = names.channel(all->elems[i].topic, all->elems[i].partition);
      if (!coop || std::find(kept.begin(), kept.end(), c) == kept.end()) {
        rd_kafka_topic_partition_list_add(added.get(), all->elems[i].topic, all->elems[i].partition)->offset =
            all->elems[i].offset;
      }
    }
    if (coop) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk.get(), added.get())) {
        fail(runtime_error(fmt::format("group {}: assign: {}", quoted_excerpt(*opts.group), rd_kafka_error_string(e))));
        rd_kafka_error_destroy(e);
      }
    } else if (auto e = rd_kafka_assign(rk.get(), added.get()); e) {
      fail(runtime_error(fmt::format("group {}: assign: {}", quoted_excerpt(*opts.group), rd_kafka_err2str(e))));
    }
  }
  if (coop && !generation_pending) {
    if (auto r = seek_to_baselines(kept); !r) fail(r.error());
  }
}

}  // namespace causal::kafka

// The consumer host: opening (channels, start positions, baselines), polling into the gate,
// and "caught up" (consumer_host.hpp). Its other parts: start_rules.cpp, baselines.cpp,
// log_restarts.cpp, lookups.cpp, hold_budget.cpp, group_membership.cpp.
#include "causal/kafka/consumer_host.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_set>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/reachability.hpp"
#include "consumer_host_impl.hpp"
#include "list_offsets.hpp"

namespace causal::kafka {

std::vector<std::pair<std::string, std::string>> consumer_defaults(const ConsumerOptions& opts,
                                                                    const std::string& group) {
  std::vector<std::pair<std::string, std::string>> defaults = {
      {"client.id", "causal"},
      {"group.id", group},
      {"isolation.level", "read_committed"},
      {"enable.partition.eof", "true"},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      // A position out of range is reported (RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET), not reset
      // by librdkafka: Impl::out_of_range tells retention from a log that restarted.
      {"auto.offset.reset", "error"},
      {"fetch.wait.max.ms", "100"},
      {"topic.metadata.refresh.interval.ms", "60000"},
      // A partition whose prefetch queue is full is fetched again this soon after the queue
      // drains below its thresholds, not after librdkafka's default second: a consumer faster
      // than its fetcher would otherwise idle up to a second per refill, unless its queue
      // held a second's worth of records (docs/library.md, "Memory").
      {"fetch.queue.backoff.ms", "10"},
  };
  for (const auto& kv : opts.extra_defaults) defaults.push_back(kv);
  return defaults;
}

namespace {

// How long poll() waits to fill a batch it has started (see there).
constexpr std::chrono::milliseconds kBatchTopUp{1};

}  // namespace

// --- the host --------------------------------------------------------------------------

ConsumerHost::ConsumerHost(Names& names, HostObserver* observer)
    : names_(names), observer_(observer), impl_(std::make_unique<Impl>()) {
  impl_->host = this;
}

ConsumerHost::~ConsumerHost() {
  if (impl_->member && impl_->rk) {
    // Commit what was delivered (unless told not to), then leave: closing revokes the
    // assignment, and the rebalance callback frees the held records (reset_generation).
    impl_->closing = true;
    (void)impl_->commit(Impl::InFlight::wait);
    if (impl_->queue) {
      rd_kafka_queue_destroy(impl_->queue);
      impl_->queue = nullptr;
    }
    rd_kafka_t* rk = impl_->rk.get();
    const char* protocol = rd_kafka_rebalance_protocol(rk);
    const bool cooperative = protocol && std::string_view(protocol) == "COOPERATIVE";
    // A fault of librdkafka's cooperative protocol, still there in 2.14.2: a member that owns
    // no partition sends no LeaveGroup on close (the leave waits for an unassign that never
    // comes), so the group waits session.timeout.ms for it before it rebalances.
    // Unsubscribing first makes it leave at once (tests/tail/group_close_test.sh fails
    // without it).
    rd_kafka_topic_partition_list_t* owned = nullptr;
    if (cooperative && rd_kafka_assignment(rk, &owned) == RD_KAFKA_RESP_ERR_NO_ERROR && owned && owned->cnt == 0) {
      (void)rd_kafka_unsubscribe(rk);
    }
    if (owned) rd_kafka_topic_partition_list_destroy(owned);
    rd_kafka_consumer_close(rk);
  }
  if (gate_) {
    for (ChannelId c : gate_->scope()) {
      for (const auto& h : gate_->held(c)) {
        if (h.tag) rd_kafka_message_destroy(reinterpret_cast<rd_kafka_message_t*>(h.tag));
      }
    }
  }
  impl_->lookup_reader.reset();  // closes its consumer
  if (impl_->rk && !impl_->member) {
    if (impl_->queue) {
      rd_kafka_queue_destroy(impl_->queue);
      impl_->queue = nullptr;
    }
    rd_kafka_consumer_close(impl_->rk.get());
  }
}

Offset ConsumerHost::position_signal(ChannelId ch) const {
  return ch < impl_->chans.size() ? impl_->chans[ch].reported : kNoOffset;
}

void ConsumerHost::raise_lso(ChannelId ch, Offset lso) {
  if (ch < impl_->chans.size()) impl_->chans[ch].lso = std::max(impl_->chans[ch].lso, lso);
}

std::expected<std::unique_ptr<ConsumerHost>, Error> ConsumerHost::open(const ConsumerOptions& opts, Names& names,
                                                                       HostObserver* observer) {
  std::unique_ptr<ConsumerHost> host(new ConsumerHost(names, observer));
  Impl& im = *host->impl_;
  im.opts = opts;
  im.brokers = brokers_in_effect(opts.connection);
  if (opts.channels.empty()) return std::unexpected(usage_error("no topic or channel given"));

  std::string group = opts.group ? *opts.group : fmt::format("causal-tail-{:016x}", std::random_device{}() * 0x9e3779b97f4a7c15ULL ^ now_us());
  auto rk = make_client(RD_KAFKA_CONSUMER, opts.connection, consumer_defaults(opts, group), im.log);
  if (!rk) return std::unexpected(rk.error());
  im.rk = std::move(*rk);

  // Resolve channels.
  struct Want {
    std::string topic;
    std::int32_t partition;
    ChannelId ch;
    StartPosition from;
  };
  std::vector<Want> wants;
  // One metadata request per topic, not per selector: a caller naming every partition of a
  // topic (explain names thousands) would otherwise fetch the whole topic's metadata for
  // each of them, a cost that grows with the square of the partition count.
  std::map<std::string, int, std::less<>> partitions_of;
  std::unordered_set<ChannelId> wanted;
  for (const auto& sel : opts.channels) {
    auto known = partitions_of.find(sel.topic);
    if (known == partitions_of.end()) {
      auto n = partition_count(im.rk.get(), sel.topic, opts.connect_timeout, im.brokers);
      if (!n) {
        auto e = n.error();
        if (e.message.starts_with("cannot reach")) e.message = im.log.with_cause(std::move(e.message));
        return std::unexpected(e);
      }
      known = partitions_of.emplace(sel.topic, *n).first;
    }
    const int n = known->second;
    if (!sel.partition) im.whole_topics[sel.topic] = n;
    if (sel.partition && *sel.partition >= n) {
      return std::unexpected(runtime_error(fmt::format("topic {} has {} partition{}; partition {} does not exist",
                                                       quoted_excerpt(sel.topic), n, n == 1 ? "" : "s", *sel.partition)));
    }
    for (std::int32_t p = sel.partition.value_or(0); p < (sel.partition ? *sel.partition + 1 : n); ++p) {
      ChannelId c = names.channel(sel.topic, p);
      if (wanted.insert(c).second) wants.push_back({sel.topic, p, c, start_for(opts, sel.topic, p)});
    }
  }
  {
    std::vector<std::string> topics;
    for (const auto& [t, n] : partitions_of) topics.push_back(t);
    const bool committed_start =
        opts.default_start.kind == StartPosition::Kind::committed ||
        std::any_of(opts.start.begin(), opts.start.end(),
                    [](const StartRule& r) { return r.position.kind == StartPosition::Kind::committed; });
    if (auto ok = im.watch_topics(topics, committed_start); !ok) return std::unexpected(ok.error());
  }
  std::set<std::pair<std::string_view, std::int32_t>> read;  // (topic, partition), and (topic, -1)
  for (const Want& w : wants) {
    read.emplace(w.topic, w.partition);
    read.emplace(w.topic, -1);
  }
  if (auto ok = check_start_rules(opts.start, [&](const std::string& topic, std::optional<std::int32_t> partition) {
        return read.contains({topic, partition.value_or(-1)});
      });
      !ok) {
    return std::unexpected(ok.error());
  }

  int tmo = static_cast<int>(opts.connect_timeout.count());
  rd_kafka_topic_partition_list_t* committed = nullptr;
  bool need_committed = std::any_of(wants.begin(), wants.end(),
                                    [](const Want& w) { return w.from.kind == StartPosition::Kind::committed; });
  if (need_committed) {
    if (!opts.group) return std::unexpected(usage_error("`start` committed needs `group` G", "start"));
    committed = rd_kafka_topic_partition_list_new(static_cast<int>(wants.size()));
    for (const auto& w : wants) rd_kafka_topic_partition_list_add(committed, w.topic.c_str(), w.partition);
    // Asked in slices: a refused coordinator lookup shows only as an error on the consumer
    // queue (nothing is assigned yet, so that is all it can hold), while the call itself
    // would wait out its whole timeout.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(tmo);
    rd_kafka_resp_err_t err;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      err = rd_kafka_committed(im.rk.get(), committed, static_cast<int>(std::clamp<std::int64_t>(left.count(), 1, 500)));
      if (err != RD_KAFKA_RESP_ERR__TIMED_OUT || std::chrono::steady_clock::now() >= deadline) break;
      if (MessagePtr m{rd_kafka_consumer_poll(im.rk.get(), 0)}; m && m->err) {
        if (auto no = denied(m->err, "Describe", "group", *opts.group)) {
          rd_kafka_topic_partition_list_destroy(committed);
          return std::unexpected(runtime_error(*no));
        }
      }
    }
    if (err) {
      rd_kafka_topic_partition_list_destroy(committed);
      return std::unexpected(committed_unreadable(*opts.group, im.brokers, err, opts.connect_timeout));
    }
  }
  ListPtr committed_guard(committed);  // null-safe: unique_ptr never destroys null

  host->gate_ = std::make_unique<Gate>(names, &im);
  // Restored after every channel is added and before any receive: the caller's, and what
  // the group committed with each offset a channel starts at (a committed start resumes
  // the node that committed it, so a claim it had resolved is not held again).
  std::vector<ResolutionEntry> state = opts.resolution_state;

  // Every channel's log start and LSO (and high watermark, when a start position needs it)
  // in one round each: one ListOffsets request per leader, not a round trip per partition,
  // which made opening thousands of partitions take most of a minute.
  auto offsets_of = [&](std::int64_t logical, Isolation isolation) -> std::expected<std::vector<Offset>, Error> {
    ListPtr l{rd_kafka_topic_partition_list_new(static_cast<int>(wants.size()))};
    for (const auto& w : wants) rd_kafka_topic_partition_list_add(l.get(), w.topic.c_str(), w.partition)->offset = logical;
    if (auto ok = list_offsets_or_error(im.rk.get(), l.get(), isolation, tmo, im.brokers); !ok) {
      return std::unexpected(ok.error());
    }
    std::vector<Offset> out;
    for (std::size_t i = 0; i < wants.size(); ++i) {
      out.push_back(l->elems[i].offset);
    }
    return out;
  };
  auto lows = offsets_of(RD_KAFKA_OFFSET_BEGINNING, Isolation::read_committed);
  if (!lows) return std::unexpected(lows.error());
  auto lsos = offsets_of(RD_KAFKA_OFFSET_END, Isolation::read_committed);
  if (!lsos) return std::unexpected(lsos.error());
  std::vector<std::optional<Offset>> highs(wants.size());
  if (std::any_of(wants.begin(), wants.end(), [](const Want& w) {
        using K = StartPosition::Kind;
        return w.from.kind == K::end || w.from.kind == K::from_end || w.from.kind == K::offset;
      })) {
    auto h = offsets_of(RD_KAFKA_OFFSET_END, Isolation::read_uncommitted);
    if (!h) return std::unexpected(h.error());
    for (std::size_t i = 0; i < wants.size(); ++i) highs[i] = (*h)[i];
  }

  im.positions = rd_kafka_topic_partition_list_new(static_cast<int>(wants.size()));
  for (std::size_t i = 0; i < wants.size(); ++i) {
    const Want& w = wants[i];
    const Offset low = (*lows)[i], lso = (*lsos)[i];
    const rd_kafka_topic_partition_t* c =
        committed ? rd_kafka_topic_partition_list_find(committed, w.topic.c_str(), w.partition) : nullptr;
    auto b = im.baseline_for(w.topic, w.partition, w.from, c, low, lso, highs[i]);
    if (!b) return std::unexpected(b.error());
    Offset baseline = *b;
    auto& st = im.ch(w.ch);
    st.assigned = true;
    st.baseline = baseline;
    st.lso = lso;
    st.list_index = im.positions->cnt;
    rd_kafka_topic_partition_list_add(im.positions, w.topic.c_str(), w.partition)->offset = baseline;
    im.position_channels.push_back(w.ch);
    host->gate_->add_channel(w.ch, baseline);
    if (c && c->offset >= 0 && baseline == c->offset && w.from.kind == StartPosition::Kind::committed &&
        im.commit_of_other_log(*c).empty()) {
      CommittedState saved = im.committed_state(*c);
      state.insert(state.end(), saved.resolution.begin(), saved.resolution.end());
      if (!saved.custody.empty()) host->gate_->restore_custody(w.ch, saved.custody);
    }
    host->plan_.push_back(ChannelPlan{w.ch, w.from, baseline, low, lso});
  }
  if (!state.empty()) host->gate_->restore_resolution_state(state);

  if (auto err = rd_kafka_assign(im.rk.get(), im.positions); err) {
    return std::unexpected(runtime_error(fmt::format("assign on {}: {}", im.brokers, rd_kafka_err2str(err))));
  }
  im.queue = rd_kafka_queue_get_consumer(im.rk.get());
  im.batch.resize(std::max<std::size_t>(opts.batch_size, 1));
  im.drain_log();
  im.publish_health();
  return host;
}

std::expected<void, Error> ConsumerHost::poll() {
  auto r = poll_round();
  impl_->publish_health();
  return r;
}

std::expected<void, Error> ConsumerHost::poll_round() {
  Impl& im = *impl_;
  if (im.member && im.member_unknown) {
    if (auto r = im.join_afresh(); !r) return r;
  }
  rd_kafka_poll(im.rk.get(), 0);  // serves error and log events of the main queue
  if (char fatal[512]; rd_kafka_fatal_error(im.rk.get(), fatal, sizeof fatal)) {
    return std::unexpected(runtime_error(fmt::format("fatal librdkafka error (brokers {}): {}", im.brokers, fatal)));
  }
  im.drain_log();

  if (im.member && im.generation_pending) {
    // A rebalance could not read the committed offsets; the partitions are assigned but not
    // yet in the gate. Try again (a new generation, sought to its baselines).
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (auto r = im.rewind(); r) {
      im.generation_pending = false;
    } else {
      im.generation_pending = true;
      if (observer_) observer_->note(fmt::format("{}; trying again", r.error().message));
    }
  }
  const int generation = im.generations;
  // What is queued already, without waiting; when nothing is, wait up to poll_timeout for
  // one record (a batch call that waits does so until its batch is full: it would delay a
  // live record by poll_timeout).
  ssize_t n = rd_kafka_consume_batch_queue(im.queue, 0, im.batch.data(), im.batch.size());
  if (n == 0) {
    if (rd_kafka_message_t* first = rd_kafka_consume_queue(im.queue, static_cast<int>(im.opts.poll_timeout.count()))) {
      im.batch[0] = first;
      n = 1;
    }
  }
  if (n > 0) {
    // A short batch: the fetcher is ahead by less than a batch. Let it queue more for
    // kBatchTopUp and take that too, so that a consumer level with its fetcher takes records
    // in batches, not a few per round (each round costs a position query over every
    // partition, and tail a write(2)), at the cost of that much latency for a trickle. A
    // sleep, not a waiting batch call: librdkafka wakes a waiting consumer at every record
    // it queues, which cost more system time than the records' processing.
    if (static_cast<std::size_t>(n) < im.batch.size() / 2) {
      std::this_thread::sleep_for(kBatchTopUp);
      const ssize_t more = rd_kafka_consume_batch_queue(im.queue, 0, im.batch.data() + n,
                                                        im.batch.size() - static_cast<std::size_t>(n));
      n += std::max<ssize_t>(more, 0);
    }
  }
  if (im.member && im.generations != generation) {
    // A rebalance ran inside this call: the records returned before it belong to the old
    // generation and may lie past the new baselines, where the bridge at receive would
    // skip what is between. Drop the batch and read every partition again from its baseline.
    for (ssize_t i = 0; i < n; ++i) rd_kafka_message_destroy(im.batch[i]);
    n = 0;
    if (auto r = im.seek_to_baselines(im.assignment); !r) return r;
  }
  if (auto r = im.check_topic_ids(); !r) {
    for (ssize_t i = 0; i < n; ++i) rd_kafka_message_destroy(im.batch[i]);
    return r;
  }
  if (im.log_lost()) {
    auto r = im.log_restart ? std::expected<void, Error>(std::unexpected(*im.log_restart)) : im.check_partition_gone();
    if (!r) {
      for (ssize_t i = 0; i < n; ++i) rd_kafka_message_destroy(im.batch[i]);
      return r;
    }
  }
  if (im.rebalance_error) {
    Error e = *im.rebalance_error;
    im.rebalance_error.reset();
    for (ssize_t i = 0; i < n; ++i) rd_kafka_message_destroy(im.batch[i]);
    return std::unexpected(e);
  }
  std::int64_t now = now_us();
  Gate& gate = *gate_;
  for (ssize_t i = 0; i < n; ++i) {
    rd_kafka_message_t* m = im.batch[i];
    if (m->err) {
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        auto& st = im.ch(im.channel_of(m));
        // Not assigned (an event of a revoked ownership, still queued): nothing. Paused by
        // the hold budget: records of it may have been dropped below (refetched after
        // resume), so its end of partition says nothing yet.
        if (st.assigned && !st.budget_paused && st.returned >= st.refetch_until) st.eof = std::max(st.eof, m->offset);
        rd_kafka_message_destroy(m);
        continue;
      }
      auto r = im.handle_error(m);
      rd_kafka_message_destroy(m);
      if (!r) {
        for (ssize_t j = i + 1; j < n; ++j) rd_kafka_message_destroy(im.batch[j]);
        return r;
      }
      continue;
    }
    ChannelId c = im.channel_of(m);
    auto& st = im.ch(c);
    // Not (or no longer) assigned, failed closed, or already received (a re-fetch after a
    // seek): nothing for the gate.
    if (!st.assigned || st.failed || m->offset < st.returned) {
      rd_kafka_message_destroy(m);
      continue;
    }
    // Paused by the hold budget, but fetched before the pause: dropped, not held; the resume
    // seeks back to st.returned and fetches it again (hold_budget.cpp).
    if (st.budget_paused || im.pause_mid_batch(c)) {
      st.refetch_until = std::max(st.refetch_until, m->offset + 1);
      rd_kafka_message_destroy(m);
      continue;
    }
    st.returned = m->offset + 1;
    Received r{c, m->offset, {}, reinterpret_cast<std::uint64_t>(m), now};
    ClockHeader h = find_clock_header(m);
    if (h.present) {
      if (h.duplicated) {
        im.fail_closed(c, m, DecodeError{DecodeErrc::duplicate_claim, 0, "two causal.clock headers on one record"});
        rd_kafka_message_destroy(m);
        continue;
      }
      if (h.null_value) {  // fails closed as an empty one does, named for what it is
        im.fail_closed(c, m, DecodeError{DecodeErrc::empty, 0, "the header's value is null"});
        rd_kafka_message_destroy(m);
        continue;
      }
      auto dec = decode(std::span(static_cast<const std::byte*>(h.data), h.size), names_, r.clock);
      if (!dec) {
        im.fail_closed(c, m, dec.error());
        rd_kafka_message_destroy(m);
        continue;
      }
    }
    if (!im.whole_topics.empty() && !r.clock.empty()) im.note_unread_partitions(r.clock);
    im.charge(c, m);  // before receive: the gate may deliver (and discharge) it at once
    if (!gate.receive(std::move(r))) {  // replay: dropped
      im.discharge(c, m);
      rd_kafka_message_destroy(m);
    }
  }

  // Position-advance signal: taken after the whole batch went to the gate.
  rd_kafka_position(im.rk.get(), im.positions);
  for (int i = 0; i < im.positions->cnt; ++i) {
    ChannelId c = im.position_channels[i];
    auto& st = im.chans[c];
    if (st.failed) continue;
    // librdkafka's position counts records dropped while paused by the hold budget: no
    // signal until they have been received again, or the gate would bridge over them.
    if (st.budget_paused || st.returned < st.refetch_until) continue;
    Offset p = std::max({im.positions->elems[i].offset, st.eof, st.returned});
    if (p > st.reported && p >= 0) {
      st.reported = p;
      gate.position_advance(c, p);
    }
  }

  // Lookups to a fixpoint: an answer can release a head whose successor (or a head on
  // another channel the cascade reached) is then blocked on another sequence claim that
  // needs a lookup of its own. caught_up() relies on no lookup being left unasked here.
  while (im.opts.lookups && gate.held_count() > 0) {
    bool asked_one = false;
    for (const auto& req : gate.pending_lookups()) {
      auto key = std::tuple{req.channel, req.sender, req.seq};
      if (im.asked.contains(key)) continue;
      im.asked.insert(key);
      asked_one = true;
      LookupReport rep = im.lookup(req);
      ++lookups_done_;
      Impl::count(im.lookup_count, req.channel);
      if (observer_) observer_->lookup(rep);
      gate.answer_lookup(req, rep.located);
    }
    if (!asked_one) break;
  }
  if (auto b = im.apply_budget(); !b) return b;
  im.drain_log();
  if (im.member && im.opts.commit_interval.count() > 0 && std::chrono::steady_clock::now() >= im.next_commit) {
    return im.commit(Impl::InFlight::skip);
  }
  return {};
}

void ConsumerHost::Impl::note_unread_partitions(const Clock& clock) {
  const Names& names = host->names_;
  auto check = [&](ChannelId c) {
    if ((c < unread_checked.size() && unread_checked[c]) || host->gate_->consumes(c)) return;
    if (c >= unread_checked.size()) unread_checked.resize(c + 1, false);
    unread_checked[c] = true;
    const auto it = whole_topics.find(names.channel_topic(c));
    if (it == whole_topics.end() || names.channel_partition(c) < it->second || !host->observer_) return;
    host->observer_->note(fmt::format(
        "{}: a record claims this partition, which topic {} did not have when this consumer started ({} "
        "partition{}): it is not read, so claims on it are ignored (protocol rule 7) and records that claim it are "
        "delivered without waiting for it; restart the consumer to read it",
        names.channel_text(c), quoted_excerpt(it->first), it->second, it->second == 1 ? "" : "s"));
  };
  for (const auto& o : clock.offsets()) check(o.channel);
  for (const auto& s : clock.seqs()) check(s.channel);
}

ListPtr list_of(const Names& names, const std::vector<ChannelId>& chans) {
  ListPtr l(rd_kafka_topic_partition_list_new(static_cast<int>(std::max<std::size_t>(chans.size(), 1))));
  for (ChannelId c : chans) {
    rd_kafka_topic_partition_list_add(l.get(), names.channel_topic(c).c_str(), names.channel_partition(c));
  }
  return l;
}

bool ConsumerHost::Impl::fetched(ChannelId c) const {
  std::int64_t low = 0, high = 0;
  return rd_kafka_get_watermark_offsets(rk.get(), host->names_.channel_topic(c).c_str(), host->names_.channel_partition(c),
                                        &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR &&
         high >= 0;
}

bool ConsumerHost::caught_up() const {
  if (impl_->member && impl_->generations == 0) return false;  // not yet part of the group
  // A generation that could not start (its committed offsets unreadable: the brokers away, or
  // a commit pending in an open transaction) has partitions the gate has not got: nothing of
  // them was read, so nothing is caught up (otherwise -e would exit 0 having read nothing).
  if (impl_->member && impl_->generation_pending) return false;
  if (impl_->opts.lookups && gate_->held_count() > 0) {
    for (const auto& req : gate_->pending_lookups()) {
      if (!impl_->asked.contains(std::tuple{req.channel, req.sender, req.seq})) return false;
    }
  }
  // A channel paused by the hold budget counts as caught up once every channel still
  // fetched is: then nothing that can release its blocked heads is left to read below the
  // LSO (a frozen claim, say), and waiting on would never end.
  bool paused_behind = false;
  for (const auto& p : plan_) {
    const auto& st = impl_->chans[p.channel];
    if (st.failed) continue;
    if (std::max(st.baseline, st.reported) >= st.lso) {
      // Nothing to read below the LSO, but only once the partition has been fetched: a
      // record, an end-of-partition event or a fetch response's watermark. Before that, an
      // error that refuses the read (authorisation, say) may still be on its way, and
      // exiting 0 would hide it.
      if (st.returned >= 0 || st.eof >= 0 || impl_->fetched(p.channel)) continue;
      return false;
    }
    if (!st.budget_paused) return false;
    paused_behind = true;
  }
  return !paused_behind || gate_->held_count() > 0;
}

std::expected<void, Error> ConsumerHost::poll_until_caught_up(const volatile std::sig_atomic_t* stop,
                                                              std::chrono::milliseconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (!caught_up()) {
    if (stop && *stop) return {};
    if (std::chrono::steady_clock::now() > until) {
      std::string behind;
      for (const auto& p : plan_) {
        const auto& st = impl_->chans[p.channel];
        if (!st.failed && std::max(st.baseline, st.reported) < st.lso) {
          behind += fmt::format("{}{} (position {}, last stable offset {})", behind.empty() ? "" : ", ",
                                names_.channel_text(p.channel), st.reported, st.lso);
        }
      }
      return std::unexpected(
          runtime_error(fmt::format("not caught up within {} ms: {}", deadline.count(), behind)));
    }
    if (auto r = poll(); !r) return r;
  }
  return {};
}

std::expected<std::unique_ptr<ConsumerHost>, Error> replay_to_lso(const ConsumerOptions& opts, Names& names,
                                                                   HostObserver* observer,
                                                                   std::chrono::milliseconds deadline,
                                                                   const volatile std::sig_atomic_t* stop) {
  auto host = ConsumerHost::open(opts, names, observer);
  if (!host) return std::unexpected(host.error());
  if (auto r = (*host)->poll_until_caught_up(stop, deadline); !r) return std::unexpected(r.error());
  return host;
}

}  // namespace causal::kafka

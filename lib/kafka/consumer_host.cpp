#include "causal/excerpt.hpp"
#include "causal/kafka/consumer_host.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/core.h>

#include "causal/kafka/client.hpp"
#include "causal/kafka/reachability.hpp"
#include "causal/kafka/text.hpp"
#include "consumer_host_impl.hpp"
#include "list_offsets.hpp"

namespace causal::kafka {

// --- parsing -------------------------------------------------------------------------

std::expected<StartPosition, Error> parse_start_position(std::string_view text) {
  using K = StartPosition::Kind;
  if (text == "beginning" || text == "earliest" || text == "start") return StartPosition{K::beginning, 0};
  if (text == "end" || text == "latest") return StartPosition{K::end, 0};
  if (text == "lso" || text == "stable") return StartPosition{K::lso, 0};
  if (text == "committed") return StartPosition{K::committed, 0};
  bool neg = !text.empty() && text.front() == '-';
  std::string_view digits = neg ? text.substr(1) : text;
  Offset v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || v < 0) {
    return std::unexpected(usage_error(fmt::format(
        "--from {}: expected beginning, end, lso, committed, an offset, or -N (N records before the end)",
        quoted_excerpt(text))));
  }
  return neg ? StartPosition{K::from_end, v} : StartPosition{K::offset, v};
}

std::string to_string(const StartPosition& p) {
  using K = StartPosition::Kind;
  switch (p.kind) {
    case K::beginning: return "beginning";
    case K::end: return "end";
    case K::lso: return "lso";
    case K::committed: return "committed";
    case K::offset: return std::to_string(p.value);
    case K::from_end: return "-" + std::to_string(p.value);
  }
  return "?";
}

std::expected<Selector, Error> parse_selector(std::string_view text) {
  auto slash = text.rfind('/');
  Selector s;
  if (slash == std::string_view::npos) {
    s.topic = std::string(text);
  } else {
    auto ch = parse_channel(text);
    if (!ch) return std::unexpected(usage_error(ch.error().message));
    s.topic = ch->first;
    s.partition = ch->second;
  }
  if (!valid_topic_name(s.topic)) {
    return std::unexpected(usage_error(
        invalid_topic_text(s.topic)));
  }
  return s;
}

std::expected<StartRule, Error> parse_start_rule(std::string_view text) {
  StartRule rule;
  auto sep = text.find_first_of("=@");
  std::string_view pos = text;
  if (sep != std::string_view::npos) {
    auto sel = parse_selector(text.substr(0, sep));
    if (!sel) return std::unexpected(sel.error());
    rule.scope = *sel;
    pos = text.substr(sep + 1);
  }
  auto p = parse_start_position(pos);
  if (!p) return std::unexpected(p.error());
  rule.position = *p;
  return rule;
}

std::expected<void, Error> check_start_rules(
    const std::vector<StartRule>& rules,
    const std::function<bool(const std::string& topic, std::optional<std::int32_t> partition)>& reads) {
  auto scope_text = [](const std::optional<Selector>& s) {
    if (!s) return std::string("every channel");
    return s->partition ? fmt::format("{}/{}", s->topic, *s->partition) : s->topic;
  };
  // Scope -> the first rule given for it (partition -1: a whole topic; "" topic: unscoped).
  std::map<std::pair<std::string, std::int32_t>, std::size_t> seen;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    std::pair<std::string, std::int32_t> key{r.scope ? r.scope->topic : std::string(),
                                             r.scope ? r.scope->partition.value_or(-1) : -1};
    if (auto [it, fresh] = seen.emplace(std::move(key), i); !fresh) {
      return std::unexpected(usage_error(fmt::format("--from: {} is given two start positions ({} and {}); give one",
                                                     scope_text(r.scope), to_string(rules[it->second].position),
                                                     to_string(r.position))));
    }
    if (r.scope && !reads(r.scope->topic, r.scope->partition)) {
      return std::unexpected(usage_error(fmt::format("--from {}={}: {} is not among the channels read",
                                                     scope_text(r.scope), to_string(r.position),
                                                     scope_text(r.scope))));
    }
  }
  return {};
}

StartPosition start_for(const ConsumerOptions& o, const std::string& topic, std::int32_t partition) {
  StartPosition best = o.default_start;
  int best_rank = 0;
  for (const auto& r : o.start) {
    int rank = 1;
    if (r.scope) {
      if (r.scope->topic != topic) continue;
      if (r.scope->partition && *r.scope->partition != partition) continue;
      rank = r.scope->partition ? 3 : 2;
    }
    if (rank >= best_rank) {
      best = r.position;
      best_rank = rank;
    }
  }
  return best;
}

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

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ClockHeader find_clock_header(rd_kafka_message_t* msg) {
  ClockHeader h;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(msg, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR || !hdrs) return h;
  const void* v = nullptr;
  size_t sz = 0;
  static const std::string name(kClockHeader);
  if (rd_kafka_header_get(hdrs, 0, name.c_str(), &v, &sz) != RD_KAFKA_RESP_ERR_NO_ERROR) return h;
  h.present = true;
  h.data = v;
  h.size = v ? sz : 0;
  h.null_value = v == nullptr;
  const void* v2 = nullptr;
  size_t sz2 = 0;
  h.duplicated = rd_kafka_header_get(hdrs, 1, name.c_str(), &v2, &sz2) == RD_KAFKA_RESP_ERR_NO_ERROR;
  return h;
}

std::expected<int, Error> partition_count(rd_kafka_t* rk, const std::string& topic,
                                          std::chrono::milliseconds timeout, std::string_view brokers) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  if (!rkt) return std::unexpected(runtime_error(fmt::format("topic {}: cannot create a handle", quoted_excerpt(topic))));
  const rd_kafka_metadata_t* md = nullptr;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  rd_kafka_resp_err_t err;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    err = rd_kafka_metadata(rk, 0, rkt, &md, static_cast<int>(std::max<std::int64_t>(left.count(), 1)));
    // A fresh cluster may briefly answer LEADER_NOT_AVAILABLE for a new topic: retry.
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 &&
        md->topics[0].err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_metadata_destroy(md);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    break;
  }
  rd_kafka_topic_destroy(rkt);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return std::unexpected(runtime_error(fmt::format(
        "cannot reach the Kafka brokers at {} (metadata for topic {} within {} ms: {}); {}", brokers,
        quoted_excerpt(topic), timeout.count(), rd_kafka_err2str(err), check_brokers_after(timeout))));
  }
  std::unique_ptr<const rd_kafka_metadata_t, void (*)(const rd_kafka_metadata_t*)> hold(md,
                                                                                          rd_kafka_metadata_destroy);
  if (md->topic_cnt != 1) return std::unexpected(runtime_error(fmt::format("topic {}: no metadata", quoted_excerpt(topic))));
  const auto& t = md->topics[0];
  if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || (t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt == 0)) {
    return std::unexpected(runtime_error(
        fmt::format("unknown topic {} on {}: check the name or create the topic", quoted_excerpt(topic), brokers)));
  }
  if (auto no = denied(t.err, "Describe", "topic", topic)) return std::unexpected(runtime_error(*no));
  if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return std::unexpected(
        runtime_error(fmt::format("topic {} on {}: {}", quoted_excerpt(topic), brokers, rd_kafka_err2str(t.err))));
  }
  return t.partition_cnt;
}

// --- the host --------------------------------------------------------------------------

std::expected<Offset, Error> ConsumerHost::Impl::high_watermark(const std::string& topic, std::int32_t partition) {
  ListPtr l{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), partition)->offset = RD_KAFKA_OFFSET_END;
  if (auto ok = list_offsets_or_error(rk.get(), l.get(), Isolation::read_uncommitted,
                                      static_cast<int>(opts.connect_timeout.count()), brokers);
      !ok) {
    return std::unexpected(ok.error());
  }
  return l->elems[0].offset;
}

std::expected<Offset, Error> ConsumerHost::Impl::baseline_for(const std::string& topic, std::int32_t partition,
                                                              const StartPosition& from,
                                                              const rd_kafka_topic_partition_t* committed,
                                                              Offset low, Offset lso,
                                                              std::optional<Offset> high) {
  using K = StartPosition::Kind;
  auto high_wm = [&]() -> std::expected<Offset, Error> {
    if (high) return *high;
    return high_watermark(topic, partition);
  };
  HostObserver* observer = host->observer_;
  switch (from.kind) {
    case K::beginning: return low;
    case K::lso: return lso;
    case K::end: return high_wm();
    case K::from_end: {
      auto h = high_wm();
      if (!h) return std::unexpected(h.error());
      return std::max<Offset>(low, *h - from.value);
    }
    case K::offset: {
      auto h = high_wm();
      if (!h) return std::unexpected(h.error());
      Offset baseline = std::clamp<Offset>(from.value, low, std::max<Offset>(low, *h));
      if (baseline != from.value && observer) {
        observer->note(fmt::format("{}/{}: offset {} is outside [{}, {}]; starting at {}", topic, partition,
                                   from.value, low, *h, baseline));
      }
      return baseline;
    }
    case K::committed: {
      const std::string group = opts.group.value_or("");
      if (committed && committed->err) {
        return std::unexpected(runtime_error(fmt::format("group {}: committed offset of {}/{}: {}", quoted_excerpt(group), topic,
                                                         partition, rd_kafka_err2str(committed->err))));
      }
      if (committed && committed->offset >= 0) {
        if (const std::string other = commit_of_other_log(*committed); !other.empty()) {
          if (observer) {
            observer->note(fmt::format("{}/{}: group {}'s committed offset {} {}; starting at the log start {}, "
                                       "without the commit's resolution state",
                                       topic, partition, quoted_excerpt(group), committed->offset, other, low));
          }
          return low;
        }
      }
      if (committed && committed->offset >= 0 && committed->offset < low) {
        // Retention or DeleteRecords passed the commit: the records between are gone, and the
        // read skips them; said, as --commit's member says it (group_membership.cpp).
        if (observer) {
          observer->note(fmt::format("{}/{}: the committed offset {} is below the log start {} (records deleted: "
                                     "retention or DeleteRecords); starting at the log start, without the commit's "
                                     "resolution state",
                                     topic, partition, committed->offset, low));
        }
        return low;
      }
      if (committed && committed->offset >= 0 && committed->offset <= lso) return committed->offset;
      if (committed && committed->offset >= 0) {
        // Past the LSO: within the log up to the high watermark (a commit another tool made
        // while a transaction was open); past it, the commit belongs to a log that is gone
        // (see begin_generation) and the read starts at the log start, as without one.
        auto h = high_wm();
        if (!h) return std::unexpected(h.error());
        if (committed->offset <= *h) return committed->offset;
        if (observer) {
          observer->note(fmt::format("{}/{}: group {}'s committed offset {} is past the log end {} (the topic "
                                     "re-created, or its log truncated?); starting at the log start {}",
                                     topic, partition, quoted_excerpt(group), committed->offset, *h, low));
        }
        return low;
      }
      if (observer) {
        observer->note(fmt::format("{}/{}: group {} has no committed offset; starting at the log start {}", topic,
                                   partition, quoted_excerpt(group), low));
      }
      return low;
    }
  }
  return low;
}

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
  if (impl_->lookup_rk) rd_kafka_consumer_close(impl_->lookup_rk.get());
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
    if (!opts.group) return std::unexpected(usage_error("--from committed needs --group G"));
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
  return host;
}

std::expected<void, Error> ConsumerHost::poll() {
  Impl& im = *impl_;
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

std::expected<void, Error> ConsumerHost::Impl::check_partition_gone() {
  std::string gone = log.partition_gone();
  if (gone.empty()) return {};
  // librdkafka's "TOPIC [P]: ..." in the topic/partition form every message uses.
  if (auto open = gone.find(" ["), close = gone.find("]: "); open != std::string::npos && close != std::string::npos &&
                                                               open < close) {
    const std::string topic = gone.substr(0, open);
    for (ChannelId c : position_channels) {  // every channel read (a member's: this generation's)
      if (host->names_.channel_topic(c) == topic) ch(c).log_replaced = true;
    }
    gone = topic + "/" + gone.substr(open + 2, close - open - 2) + gone.substr(close + 1);
  }
  return std::unexpected(runtime_error(
      fmt::format("a partition read no longer exists on the brokers at {} (its topic deleted?): {}{}", brokers, gone,
                  member ? "; nothing more is committed for its topic" : "")));
}

std::expected<void, Error> ConsumerHost::Impl::watch_topics(const std::vector<std::string>& topics, bool wait) {
  TopicIds unknown;
  for (const auto& t : topics) unknown[t] = "";
  topic_ids = TopicIdWatch(rk.get(), std::move(unknown), std::chrono::seconds(1));
  if (!wait) return {};
  // Where a start position depends on the IDs (a commit of an earlier topic of the same name
  // is not resumed from), their first answer is waited for. No answer (a cluster that does
  // not serve DescribeTopics, such as librdkafka's mock cluster, or one slow to answer): the
  // watch goes on asking, and a commit is checked only once its topic's ID is known.
  return topic_ids.await_first(opts.connect_timeout);
}

std::expected<void, Error> ConsumerHost::Impl::check_topic_ids() {
  for (const auto& c : topic_ids.poll()) {
    std::string partitions;
    for (ChannelId ch_id : position_channels) {  // every channel read (a member's: this generation's)
      if (host->names_.channel_topic(ch_id) != c.topic) continue;
      ch(ch_id).log_replaced = true;
      partitions += (partitions.empty() ? "" : ", ") + host->names_.channel_text(ch_id);
    }
    if (log_restart) continue;
    const std::string which = partitions.empty() ? std::string("none of its partitions was assigned")
                                                 : "its partitions read: " + partitions;
    const std::string commits = member ? "; nothing more is committed for its topic" : "";
    if (c.now.empty()) {
      log_restart = runtime_error(fmt::format(
          "a partition read no longer exists on the brokers at {} (its topic deleted?): topic {} (topic ID {}) is no "
          "longer in the cluster ({}){}",
          brokers, quoted_excerpt(c.topic), c.was, which, commits));
    } else {
      log_restart = runtime_error(fmt::format(
          "topic {} was deleted and re-created: its topic ID is {}, not {} as when this consumer started ({}); "
          "stopping, since the new log's records below the positions reached would be taken for records already "
          "delivered and dropped{}",
          quoted_excerpt(c.topic), c.now, c.was, which, commits));
    }
  }
  if (log_restart) return std::unexpected(*log_restart);
  return {};
}

std::expected<void, Error> ConsumerHost::Impl::out_of_range(rd_kafka_message_t* m) {
  const ChannelId c = channel_of(m);
  auto& st = ch(c);
  if (!st.assigned || st.failed || st.log_replaced) return {};
  const std::string topic = rd_kafka_topic_name(m->rkt);
  const Offset at = m->offset;
  // A logical offset (RD_KAFKA_OFFSET_INVALID): no position was reached. A member's partition
  // assigned before its baseline was known (generation_pending: the committed offsets could
  // not be read) had no commit for librdkafka to start from, and librdkafka stopped it. The
  // report can come after the rewind sought the partition to its baseline: it is sought again
  // to where this host reads next, asynchronously.
  if (at < 0) {
    ListPtr l(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(l.get(), rd_kafka_topic_name(m->rkt), m->partition)->offset =
        st.returned >= 0 ? st.returned : st.baseline;
    if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), l.get(), 0)) rd_kafka_error_destroy(e);
    return {};
  }
  int64_t low = 0, high = 0;
  const auto err = query_watermarks(rk.get(), topic, m->partition, Isolation::read_committed, &low, &high,
                                    static_cast<int>(opts.connect_timeout.count()));
  if (!err && at < low) {
    // Retention or DeleteRecords passed the position: those records are gone for everyone;
    // the read goes on at the log start, as a consumer that resets to the earliest does.
    if (host->observer_) {
      host->observer_->note(fmt::format("{}/{}: offset {} is below the log start {} (records deleted: retention or "
                                        "DeleteRecords); reading on from {}",
                                        topic, m->partition, at, low, low));
    }
    ListPtr l(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), m->partition)->offset = low;
    if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), l.get(), static_cast<int>(opts.connect_timeout.count()))) {
      const std::string text = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      return std::unexpected(runtime_error(fmt::format("{}/{}: cannot seek to the log start {}: {}", topic, m->partition,
                                                       low, text)));
    }
    return {};
  }
  // A restart; or, when the log's bounds could not be read, retention and a restart cannot be
  // told apart: stopped as for a restart, the side that loses nothing, saying so.
  st.log_replaced = true;
  if (log_restart) return std::unexpected(*log_restart);
  const std::string why =
      err ? fmt::format("offset {} is out of range, and the log's bounds could not be read ({}): stopping, since if the "
                        "log restarted below {}",
                        at, rd_kafka_err2str(err), at)
          : fmt::format("its log restarted below the position this consumer had reached (offset {} is out of range: the "
                        "log is now [{}, {}); the topic deleted and re-created, or its log truncated?); stopping, since",
                        at, low, high);
  log_restart = runtime_error(fmt::format(
      "{}/{}: {} the records now below {} would be taken for records already delivered and dropped{}", topic,
      m->partition, why, at, member ? "; nothing more is committed for it" : ""));
  return std::unexpected(*log_restart);
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
  // them was read, so nothing is caught up (helper-34: -e exited 0 having read nothing).
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

LookupReport ConsumerHost::Impl::lookup(const LookupRequest& req) {
  Names& names = host->names_;
  Gate& gate = *host->gate_;
  LookupReport rep;
  rep.request = req;
  rep.baseline = gate.baseline(req.channel);
  const std::string& topic = names.channel_topic(req.channel);
  std::int32_t partition = names.channel_partition(req.channel);
  std::string what = fmt::format("lookup {} sender {} seq {}", names.channel_text(req.channel),
                                 names.sender_name(req.sender), req.seq);

  // The claiming record's timestamp: the earliest held head blocked on this claim.
  std::optional<std::int64_t> ts;
  for (ChannelId c : gate.scope()) {
    auto h = gate.head(c);
    if (!h || !h->tag) continue;
    for (const auto& b : gate.unsatisfied(c)) {
      if (b.kind == Blocker::Kind::seq && b.channel == req.channel && b.sender == req.sender && b.seq == req.seq) {
        rd_kafka_timestamp_type_t tt;
        std::int64_t t = rd_kafka_message_timestamp(ConsumerHost::message_of(h->tag), &tt);
        if (t >= 0) ts = ts ? std::min(*ts, t) : t;
      }
    }
  }
  if (!lookup_rk) {
    auto l = make_client(RD_KAFKA_CONSUMER, opts.connection,
                         {{"client.id", "causal-lookup"},
                          {"group.id", fmt::format("causal-lookup-{:x}", now_us())},
                          {"isolation.level", "read_committed"},
                          {"enable.partition.eof", "true"},
                          {"enable.auto.commit", "false"},
                          {"enable.auto.offset.store", "false"},
                          {"fetch.wait.max.ms", "100"}},
                         log);
    if (!l) {
      rep.text = fmt::format("{}: cannot open a lookup consumer: {}", what, l.error().message);
      return rep;
    }
    lookup_rk = std::move(*l);
  }
  int tmo = static_cast<int>(opts.connect_timeout.count());
  Offset start = kNoOffset;
  auto* l = rd_kafka_topic_partition_list_new(1);
  auto* e = rd_kafka_topic_partition_list_add(l, topic.c_str(), partition);
  std::string from_text;
  if (ts) {
    std::int64_t since = *ts - opts.max_transaction_duration.count();
    e->offset = std::max<std::int64_t>(since, 0);
    auto err = rd_kafka_offsets_for_times(lookup_rk.get(), l, tmo);
    if (!err && !e->err) start = e->offset;  // -1: no record at or after that time
    from_text = fmt::format("from timestamp {} (claiming record's {} minus {} ms)", since, *ts,
                            opts.max_transaction_duration.count());
  }
  Offset log_start = kNoOffset;
  if (start < 0) {
    int64_t lo = 0, hi = 0;
    if (!query_watermarks(lookup_rk.get(), topic, partition, Isolation::read_committed, &lo, &hi, tmo)) {
      start = ts ? hi : lo;
      log_start = lo;
    } else {
      start = 0;
    }
    if (from_text.empty()) from_text = "from the log start (claiming record's timestamp unknown)";
  }
  if (start >= rep.baseline) {
    rd_kafka_topic_partition_list_destroy(l);
    if (log_start == kNoOffset) {
      int64_t lo = 0, hi = 0;
      if (!query_watermarks(lookup_rk.get(), topic, partition, Isolation::read_committed, &lo, &hi, tmo)) log_start = lo;
    }
    // A log start above 0 may have taken the send with it (retention, DeleteRecords): then
    // it never arrives, which causal explain tells apart ("send not in log").
    rep.text = fmt::format("{}: nothing below the baseline {} to scan {}; the send is at or above the baseline, "
                           "or not appended yet{}: waiting for it",
                           what, rep.baseline, from_text,
                           log_start > 0 ? fmt::format(", or it lay below the log start {} and was deleted (then it "
                                                       "never arrives: causal explain tells which)",
                                                       log_start)
                                         : std::string());
    return rep;
  }
  e->offset = start;
  rep.scanned_from = start;
  rd_kafka_assign(lookup_rk.get(), l);
  rd_kafka_topic_partition_list_destroy(l);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  Clock scratch;
  bool done = false;
  while (!done && std::chrono::steady_clock::now() < until) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(lookup_rk.get(), 100);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      done = true;
    } else if (!m->err) {
      if (m->offset >= rep.baseline) {
        done = true;
      } else {
        rep.scanned_to = m->offset + 1;
        ClockHeader h = find_clock_header(m);
        if (h.present && !h.duplicated &&
            decode(std::span(static_cast<const std::byte*>(h.data), h.size), names, scratch) && scratch.origin &&
            scratch.origin->sender == req.sender) {
          if (scratch.origin->seq == req.seq) {
            rep.located = m->offset;
            done = true;
          } else if (scratch.origin->seq > req.seq) {
            done = true;  // a sender's sends to one partition are appended in send order
          }
        }
      }
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_assign(lookup_rk.get(), nullptr);
  if (rep.scanned_to == kNoOffset) rep.scanned_from = kNoOffset;  // nothing read
  std::string range = rep.scanned_to == kNoOffset ? std::string("no records")
                                                  : fmt::format("offsets [{}, {})", rep.scanned_from, rep.scanned_to);
  if (rep.located) {
    rep.text = fmt::format("{}: found at offset {} below the baseline {} (scanned {} {}): claim accounted for", what,
                           *rep.located, rep.baseline, range, from_text);
  } else {
    rep.text = fmt::format("{}: not found below the baseline {} (scanned {} {}): waiting for it to arrive", what,
                           rep.baseline, range, from_text);
  }
  return rep;
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

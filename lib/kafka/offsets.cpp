#include "causal/kafka/offsets.hpp"
#include "causal/kafka/reachability.hpp"
#include "causal/excerpt.hpp"
#include "causal/kafka/authorization.hpp"
#include "commit_metadata.hpp"
#include "list_offsets.hpp"
#include "topic_ids.hpp"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <map>
#include <memory>
#include <thread>

#include <fmt/core.h>

namespace causal::kafka {

namespace {

ListPtr make_list(std::span<const ChannelRef> channels, std::int64_t offset) {
  ListPtr l{rd_kafka_topic_partition_list_new(static_cast<int>(channels.size()))};
  for (const auto& c : channels) rd_kafka_topic_partition_list_add(l.get(), c.topic.c_str(), c.partition)->offset = offset;
  return l;
}

const rd_kafka_topic_partition_t* find_in(const rd_kafka_topic_partition_list_t* l, const ChannelRef& c) {
  for (int i = 0; i < l->cnt; ++i) {
    if (l->elems[i].partition == c.partition && c.topic == l->elems[i].topic) return &l->elems[i];
  }
  return nullptr;
}

std::string channel_text(const ChannelRef& c) { return fmt::format("{}/{}", c.topic, c.partition); }

std::expected<HandlePtr, Error> new_consumer(const ConnectionOptions& opts, const char* isolation, ClientLog& log) {
  auto conf = make_conf(opts, {{"isolation.level", isolation}, {"enable.auto.commit", "false"}});
  if (!conf) return std::unexpected(conf.error());
  route_client_log(conf->get(), log);
  char err[512];
  // The isolation level is the point of each handle: it is set last, over any -X.
  if (rd_kafka_conf_set(conf->get(), "isolation.level", isolation, err, sizeof err) != RD_KAFKA_CONF_OK) {
    return std::unexpected(runtime_error(fmt::format("cannot set isolation.level: {}", err)));
  }
  rd_kafka_t* h = rd_kafka_new(RD_KAFKA_CONSUMER, conf->get(), err, sizeof err);
  if (!h) return std::unexpected(client_refused("client", err));
  conf.value().release();  // owned by the handle now
  return HandlePtr{h};
}

// A group's requests go to its coordinator, which answers COORDINATOR_LOAD_IN_PROGRESS while it
// loads its __consumer_offsets partition (a broker just started, or leadership just moved), and
// NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE while coordination moves. Kafka's AdminClient sends
// such requests again; librdkafka 2.0's admin API hands these errors back, so the group requests
// below are sent again (with_busy_retry) rather than failing the command on a broker that is
// about to answer.
bool coordinator_busy(rd_kafka_resp_err_t e) {
  return e == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS || e == RD_KAFKA_RESP_ERR_NOT_COORDINATOR ||
         e == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE;
}

// Records `e` in `busy` when it says the coordinator is busy, for with_busy_retry.
void note_busy(rd_kafka_resp_err_t e, rd_kafka_resp_err_t& busy) {
  if (coordinator_busy(e)) busy = e;
}

// Runs `attempt(busy)` until it succeeds, fails for another reason than a busy coordinator
// (it leaves `busy` at NO_ERROR), or `timeout_ms` has passed since the first attempt; waits
// 100 ms before the first retry, doubling up to 1 s. The last attempt's answer is returned,
// its message saying how long the coordinator stayed busy.
template <class Attempt>
auto with_busy_retry(int timeout_ms, Attempt attempt) -> decltype(attempt(std::declval<rd_kafka_resp_err_t&>())) {
  using namespace std::chrono;
  const auto start = steady_clock::now();
  const auto deadline = start + milliseconds(timeout_ms);
  milliseconds backoff{100};
  for (;;) {
    rd_kafka_resp_err_t busy = RD_KAFKA_RESP_ERR_NO_ERROR;
    auto r = attempt(busy);
    if (r || !busy) return r;
    if (steady_clock::now() + backoff >= deadline) {
      r.error().message += fmt::format(" (the group's coordinator was still busy after {} ms of retries)",
                                       duration_cast<milliseconds>(steady_clock::now() - start).count());
      return r;
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, milliseconds{1000});
  }
}

// Waits for the one result event of an admin request on `q`. An event-level error that says the
// coordinator is busy is recorded in `busy`.
std::expected<EventPtr, Error> await_event(rd_kafka_queue_t* q, int timeout_ms, std::string_view what,
                                           std::string_view brokers, rd_kafka_resp_err_t& busy) {
  EventPtr ev{rd_kafka_queue_poll(q, timeout_ms + 5000)};
  if (!ev) {
    return std::unexpected(runtime_error(fmt::format("{}: no answer from {} within {} ms", what, brokers, timeout_ms)));
  }
  if (rd_kafka_resp_err_t e = rd_kafka_event_error(ev.get())) {
    note_busy(e, busy);
    return std::unexpected(runtime_error(
        fmt::format("{}: {} (brokers {})", what, rd_kafka_event_error_string(ev.get()), brokers)));
  }
  return ev;
}

AdminOptionsPtr admin_options(rd_kafka_t* h, rd_kafka_admin_op_t op, int timeout_ms) {
  AdminOptionsPtr o{rd_kafka_AdminOptions_new(h, op)};
  char err[256];
  rd_kafka_AdminOptions_set_request_timeout(o.get(), timeout_ms, err, sizeof err);
  return o;
}

// The one group result of an admin answer about `group`, or the group's error. `operation`
// is what the request needs on the group (authorization.hpp), for the message when refused.
std::expected<const rd_kafka_group_result_t*, Error> only_group(const rd_kafka_group_result_t** groups, size_t cnt,
                                                                 const std::string& group, std::string_view operation,
                                                                 rd_kafka_resp_err_t& busy) {
  if (cnt != 1) return std::unexpected(runtime_error(fmt::format("group {}: unexpected answer ({} groups)", quoted_excerpt(group), cnt)));
  if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[0])) {
    note_busy(rd_kafka_error_code(e), busy);
    if (auto no = denied(rd_kafka_error_code(e), operation, "group", group)) return std::unexpected(runtime_error(*no));
    return std::unexpected(runtime_error(fmt::format("group {}: {}", quoted_excerpt(group), rd_kafka_error_string(e))));
  }
  return groups[0];
}

// ListConsumerGroupOffsets of `group` for the partitions of `list`, or for every partition the
// group has committed when `list` is null. `parts` lives as long as `ev` (and may be null).
struct GroupOffsets {
  EventPtr ev;
  const rd_kafka_topic_partition_list_t* parts = nullptr;
};
std::expected<GroupOffsets, Error> list_group_offsets(rd_kafka_t* h, const std::string& group,
                                                      const rd_kafka_topic_partition_list_t* list,
                                                      bool require_stable, int timeout_ms, std::string_view what,
                                                      std::string_view brokers, rd_kafka_resp_err_t& busy) {
  rd_kafka_ListConsumerGroupOffsets_t* req = rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), list);
  AdminOptionsPtr o = admin_options(h, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, timeout_ms);
  if (rd_kafka_error_t* e = rd_kafka_AdminOptions_set_require_stable_offsets(o.get(), require_stable ? 1 : 0)) rd_kafka_error_destroy(e);
  QueuePtr q{rd_kafka_queue_new(h)};
  rd_kafka_ListConsumerGroupOffsets(h, &req, 1, o.get(), q.get());
  rd_kafka_ListConsumerGroupOffsets_destroy(req);
  auto ev = await_event(q.get(), timeout_ms, what, brokers, busy);
  if (!ev) return std::unexpected(ev.error());
  size_t cnt = 0;
  const rd_kafka_group_result_t** groups =
      rd_kafka_ListConsumerGroupOffsets_result_groups(rd_kafka_event_ListConsumerGroupOffsets_result(ev->get()), &cnt);
  auto g = only_group(groups, cnt, group, "Describe", busy);
  if (!g) return std::unexpected(g.error());
  const rd_kafka_topic_partition_list_t* parts = rd_kafka_group_result_partitions(*g);
  return GroupOffsets{std::move(*ev), parts};
}

}  // namespace

std::expected<ChannelSpec, Error> parse_channel_spec(std::string_view text, bool allow_offset) {
  ChannelSpec spec;
  std::string_view rest = text;
  if (auto at = rest.find('@'); at != std::string_view::npos) {
    if (!allow_offset) {
      return std::unexpected(usage_error(fmt::format("{}: an offset is not accepted here (expected TOPIC or TOPIC/PARTITION)", quoted_excerpt(text))));
    }
    std::string_view off = rest.substr(at + 1);
    Offset o = 0;
    auto [p, ec] = std::from_chars(off.data(), off.data() + off.size(), o);
    if (off.empty() || ec != std::errc{} || p != off.data() + off.size() || o < 0) {
      return std::unexpected(usage_error(fmt::format("{}: the offset after '@' must be a number >= 0", quoted_excerpt(text))));
    }
    spec.offset = o;
    rest = rest.substr(0, at);
  }
  if (auto slash = rest.rfind('/'); slash != std::string_view::npos) {
    auto parsed = parse_channel(rest);
    if (!parsed) return std::unexpected(usage_error(parsed.error().message));
    spec.topic = parsed->first;
    spec.partition = parsed->second;
  } else {
    spec.topic = std::string(rest);
  }
  if (!valid_topic_name(spec.topic)) {
    // The argument is quoted once when it is the topic name itself.
    const std::string where = spec.topic == text ? std::string() : quoted_excerpt(text) + ": ";
    return std::unexpected(usage_error(
        where + invalid_topic_text(spec.topic)));
  }
  if (spec.offset && !spec.partition) {
    return std::unexpected(usage_error(fmt::format("{}: an offset needs a partition: TOPIC/PARTITION@OFFSET", quoted_excerpt(text))));
  }
  return spec;
}

std::expected<OffsetsClient, Error> OffsetsClient::open(const ConnectionOptions& opts, int timeout_ms) {
  OffsetsClient c;
  c.timeout_ms_ = timeout_ms;
  c.brokers_ = brokers_in_effect(opts);
  c.log_ = std::make_unique<ClientLog>();
  auto rc = new_consumer(opts, "read_committed", *c.log_);
  if (!rc) return std::unexpected(rc.error());
  c.committed_ = std::move(*rc);
  return c;
}

std::expected<std::vector<ChannelRef>, Error> OffsetsClient::partitions(const std::string& topic) {
  TopicPtr rkt{rd_kafka_topic_new(committed_.get(), topic.c_str(), nullptr)};
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(committed_.get(), 0, rkt.get(), &md, timeout_ms_);
  if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__TIMED_OUT ||
      err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
    return std::unexpected(runtime_error(log_->with_cause(fmt::format(
        "Kafka at {} did not answer ({}) when asked about topic {}: {}", brokers_, rd_kafka_err2str(err),
        quoted_excerpt(topic), check_brokers_after(std::chrono::milliseconds(timeout_ms_))))));
  }
  if (err) {
    return std::unexpected(runtime_error(fmt::format("cannot read metadata for topic {} from {}: {}", quoted_excerpt(topic), brokers_,
                                                     rd_kafka_err2str(err))));
  }
  std::unique_ptr<const rd_kafka_metadata_t, void (*)(const rd_kafka_metadata_t*)> guard{md, rd_kafka_metadata_destroy};
  std::vector<ChannelRef> out;
  for (int i = 0; i < md->topic_cnt; ++i) {
    const auto& t = md->topics[i];
    if (topic != t.topic) continue;
    if (t.err) {
      if (auto no = denied(t.err, "Describe", "topic", topic)) return std::unexpected(runtime_error(*no));
      if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        return std::unexpected(
            runtime_error(fmt::format("unknown topic {}: it does not exist on {}", quoted_excerpt(topic), brokers_)));
      }
      return std::unexpected(runtime_error(fmt::format("topic {}: {}", quoted_excerpt(topic), rd_kafka_err2str(t.err))));
    }
    for (int p = 0; p < t.partition_cnt; ++p) out.push_back({topic, t.partitions[p].id});
  }
  if (out.empty()) {
    return std::unexpected(runtime_error(fmt::format("unknown topic {}: it does not exist on {}", quoted_excerpt(topic), brokers_)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::expected<std::vector<ChannelRef>, Error> OffsetsClient::resolve(std::span<const ChannelSpec> specs) {
  std::vector<ChannelRef> out;
  std::map<std::string, std::vector<ChannelRef>> known;
  for (const auto& s : specs) {
    auto it = known.find(s.topic);
    if (it == known.end()) {
      auto parts = partitions(s.topic);
      if (!parts) return std::unexpected(parts.error());
      it = known.emplace(s.topic, std::move(*parts)).first;
    }
    if (s.partition) {
      ChannelRef c{s.topic, *s.partition};
      if (std::find(it->second.begin(), it->second.end(), c) == it->second.end()) {
        return std::unexpected(runtime_error(fmt::format("unknown partition {}: topic '{}' has {} partition(s)",
                                                         channel_text(c), s.topic, it->second.size())));
      }
      out.push_back(c);
    } else {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::expected<std::vector<Offset>, Error> OffsetsClient::offsets_round(std::span<const ChannelRef> channels,
                                                                       std::int64_t logical, bool read_committed,
                                                                       const char* what) {
  // One call: librdkafka looks up each partition's leader and sends ONE ListOffsets
  // request per leader broker carrying all of that broker's partitions; partitions whose
  // leadership is still settling (a topic created a moment ago) are asked again until the
  // timeout (list_offsets.hpp), rather than failing the command.
  ListPtr list = make_list(channels, logical);
  rd_kafka_resp_err_t err = kafka::list_offsets(committed_.get(), list.get(),
                                         read_committed ? Isolation::read_committed : Isolation::read_uncommitted,
                                         timeout_ms_);
  if (err) {
    return std::unexpected(runtime_error(
        log_->with_cause(fmt::format("cannot list {} offsets from {}: {}", what, brokers_, rd_kafka_err2str(err)))));
  }
  std::vector<Offset> out;
  out.reserve(channels.size());
  for (const auto& c : channels) {
    const auto* e = find_in(list.get(), c);
    if (!e) return std::unexpected(runtime_error(fmt::format("{}: no {} offset in the answer", channel_text(c), what)));
    if (e->err) {
      if (auto no = denied(e->err, "Describe", "topic", c.topic)) return std::unexpected(runtime_error(*no));
      return std::unexpected(
          runtime_error(fmt::format("{}: cannot list the {} offset: {}", channel_text(c), what, rd_kafka_err2str(e->err))));
    }
    out.push_back(e->offset);
  }
  return out;
}

std::expected<std::vector<ChannelOffsets>, Error> OffsetsClient::list_offsets(std::span<const ChannelRef> channels) {
  std::vector<ChannelOffsets> out;
  if (channels.empty()) return out;
  auto start = offsets_round(channels, RD_KAFKA_OFFSET_BEGINNING, true, "log start");
  if (!start) return std::unexpected(start.error());
  auto lso = offsets_round(channels, RD_KAFKA_OFFSET_END, true, "last stable");
  if (!lso) return std::unexpected(lso.error());
  auto hwm = offsets_round(channels, RD_KAFKA_OFFSET_END, false, "high watermark");
  if (!hwm) return std::unexpected(hwm.error());
  for (std::size_t i = 0; i < channels.size(); ++i) out.push_back({channels[i], (*start)[i], (*lso)[i], (*hwm)[i]});
  return out;
}

std::expected<std::vector<CommittedOffset>, Error> OffsetsClient::committed(const std::string& group,
                                                                            std::span<const ChannelRef> channels,
                                                                            bool require_stable) {
  ListPtr list = make_list(channels, RD_KAFKA_OFFSET_INVALID);
  const std::string what = fmt::format("reading the committed offsets of group {}", quoted_excerpt(group));
  return with_busy_retry(timeout_ms_, [&](rd_kafka_resp_err_t& busy) -> std::expected<std::vector<CommittedOffset>, Error> {
    auto answer = list_group_offsets(committed_.get(), group, list.get(), require_stable, timeout_ms_, what, brokers_, busy);
    if (!answer) return std::unexpected(answer.error());
    const rd_kafka_topic_partition_list_t* parts = answer->parts;
    std::vector<CommittedOffset> out;
    for (const auto& c : channels) {
      CommittedOffset co;
      co.channel = c;
      const auto* e = parts ? find_in(parts, c) : nullptr;
      if (!e) {
        co.error = "not in the answer";
      } else if (e->err == RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT) {
        co.pending = true;
      } else if (coordinator_busy(e->err)) {
        note_busy(e->err, busy);
        return std::unexpected(runtime_error(fmt::format("{}: {}/{}: {}", what, c.topic, c.partition, rd_kafka_err2str(e->err))));
      } else if (e->err) {
        co.error = denied(e->err, "Describe", "topic", c.topic).value_or(rd_kafka_err2str(e->err));
      } else {
        if (e->offset >= 0) co.offset = e->offset;
        if (e->metadata && e->metadata_size > 0) co.metadata.assign(static_cast<const char*>(e->metadata), e->metadata_size);
        const CommitMetadata parsed = parse_commit_metadata(co.metadata);
        co.state = parsed.state;
        co.topic_id = parsed.topic_id;
      }
      out.push_back(std::move(co));
    }
    return out;
  });
}

std::expected<std::vector<CommittedOffset>, Error> OffsetsClient::committed_or_stable(
    const std::string& group, std::span<const ChannelRef> channels) {
  auto answer = committed(group, channels, /*require_stable=*/true);
  if (!answer || std::none_of(answer->begin(), answer->end(), [](const auto& c) { return c.pending; })) return answer;
  auto stable = committed(group, channels, /*require_stable=*/false);
  if (!stable) return std::unexpected(stable.error());
  for (std::size_t i = 0; i < answer->size(); ++i) {
    if ((*answer)[i].pending) {
      (*answer)[i].offset = (*stable)[i].offset;
      (*answer)[i].metadata = (*stable)[i].metadata;
      (*answer)[i].state = (*stable)[i].state;
      (*answer)[i].topic_id = (*stable)[i].topic_id;
    }
  }
  return answer;
}

std::expected<std::vector<ChannelRef>, Error> OffsetsClient::committed_channels(const std::string& group) {
  // No partition list: the broker answers with every partition the group has committed.
  auto answer = with_busy_retry(timeout_ms_, [&](rd_kafka_resp_err_t& busy) {
    return list_group_offsets(committed_.get(), group, nullptr, false, timeout_ms_,
                              fmt::format("listing the committed topics of group {}", quoted_excerpt(group)), brokers_, busy);
  });
  if (!answer) return std::unexpected(answer.error());
  std::vector<ChannelRef> channels;
  if (const rd_kafka_topic_partition_list_t* parts = answer->parts) {
    for (int i = 0; i < parts->cnt; ++i) {
      if (parts->elems[i].offset >= 0 || parts->elems[i].err == RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT) {
        channels.push_back({parts->elems[i].topic, parts->elems[i].partition});
      }
    }
  }
  std::sort(channels.begin(), channels.end());
  return channels;
}

std::expected<std::vector<std::string>, Error> OffsetsClient::committed_topics(const std::string& group) {
  auto channels = committed_channels(group);
  if (!channels) return std::unexpected(channels.error());
  std::vector<std::string> topics;
  for (const auto& c : *channels) {
    if (topics.empty() || topics.back() != c.topic) topics.push_back(c.topic);
  }
  return topics;
}

std::expected<GroupDescription, Error> OffsetsClient::describe_group(const std::string& group) {
  return with_busy_retry(timeout_ms_, [&](rd_kafka_resp_err_t& busy) { return describe_group_once(group, busy); });
}

std::expected<GroupDescription, Error> OffsetsClient::describe_group_once(const std::string& group,
                                                                          rd_kafka_resp_err_t& busy) {
  rd_kafka_t* h = committed_.get();
  AdminOptionsPtr o = admin_options(h, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, timeout_ms_);
  QueuePtr q{rd_kafka_queue_new(h)};
  const char* groups[] = {group.c_str()};
  rd_kafka_DescribeConsumerGroups(h, groups, 1, o.get(), q.get());
  auto ev = await_event(q.get(), timeout_ms_, fmt::format("describing group {}", quoted_excerpt(group)), brokers_, busy);
  if (!ev) return std::unexpected(ev.error());
  const auto* res = rd_kafka_event_DescribeConsumerGroups_result(ev->get());
  size_t cnt = 0;
  const rd_kafka_ConsumerGroupDescription_t** descs = rd_kafka_DescribeConsumerGroups_result_groups(res, &cnt);
  if (cnt != 1) return std::unexpected(runtime_error(fmt::format("group {}: unexpected answer ({} groups)", quoted_excerpt(group), cnt)));
  GroupDescription d;
  d.group = group;
  if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(descs[0])) {
    if (rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND) {
      d.exists = false;
      d.state = "Dead";
      return d;
    }
    note_busy(rd_kafka_error_code(e), busy);
    if (auto no = denied(rd_kafka_error_code(e), "Describe", "group", group)) return std::unexpected(runtime_error(*no));
    return std::unexpected(runtime_error(fmt::format("group {}: {}", quoted_excerpt(group), rd_kafka_error_string(e))));
  }
  auto state = rd_kafka_ConsumerGroupDescription_state(descs[0]);
  d.state = rd_kafka_consumer_group_state_name(state);
  d.exists = state != RD_KAFKA_CONSUMER_GROUP_STATE_DEAD;
  switch (rd_kafka_ConsumerGroupDescription_type(descs[0])) {
    case RD_KAFKA_CONSUMER_GROUP_TYPE_CONSUMER: d.protocol = "consumer"; break;
    case RD_KAFKA_CONSUMER_GROUP_TYPE_CLASSIC: d.protocol = "classic"; break;
    default: d.protocol = "unknown"; break;
  }
  auto partitions_of = [](const rd_kafka_MemberAssignment_t* a) {
    std::vector<ChannelRef> out;
    if (const auto* l = a ? rd_kafka_MemberAssignment_partitions(a) : nullptr) {
      for (int k = 0; k < l->cnt; ++k) out.push_back({l->elems[k].topic, l->elems[k].partition});
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  size_t n = rd_kafka_ConsumerGroupDescription_member_count(descs[0]);
  for (size_t i = 0; i < n; ++i) {
    const auto* m = rd_kafka_ConsumerGroupDescription_member(descs[0], i);
    GroupMember gm;
    if (const char* s = rd_kafka_MemberDescription_consumer_id(m)) gm.member_id = s;
    if (const char* s = rd_kafka_MemberDescription_client_id(m)) gm.client_id = s;
    if (const char* s = rd_kafka_MemberDescription_host(m)) gm.host = s;
    gm.assignment = partitions_of(rd_kafka_MemberDescription_assignment(m));
    if (d.protocol == "consumer") gm.target_assignment = partitions_of(rd_kafka_MemberDescription_target_assignment(m));
    d.members.push_back(std::move(gm));
  }
  return d;
}

std::expected<std::map<std::string, std::string>, Error> OffsetsClient::topic_ids(const std::vector<std::string>& topics) {
  return describe_topic_ids(committed_.get(), topics, std::chrono::milliseconds(timeout_ms_), brokers_);
}

std::map<std::string, std::string> OffsetsClient::cleanup_policies(std::span<const std::string> topics) {
  std::map<std::string, std::string> out;
  if (topics.empty()) return out;
  rd_kafka_t* h = committed_.get();
  AdminOptionsPtr o = admin_options(h, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout_ms_);
  QueuePtr q{rd_kafka_queue_new(h)};
  std::vector<rd_kafka_ConfigResource_t*> resources;
  for (const auto& t : topics) resources.push_back(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, t.c_str()));
  rd_kafka_DescribeConfigs(h, resources.data(), resources.size(), o.get(), q.get());
  for (auto* r : resources) rd_kafka_ConfigResource_destroy(r);
  rd_kafka_resp_err_t busy = RD_KAFKA_RESP_ERR_NO_ERROR;
  auto ev = await_event(q.get(), timeout_ms_, "describing topic configurations", brokers_, busy);
  if (!ev) return out;
  const auto* res = rd_kafka_event_DescribeConfigs_result(ev->get());
  if (!res) return out;
  size_t cnt = 0;
  const rd_kafka_ConfigResource_t** answers = rd_kafka_DescribeConfigs_result_resources(res, &cnt);
  for (size_t i = 0; i < cnt; ++i) {
    if (rd_kafka_ConfigResource_error(answers[i])) continue;
    size_t n = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(answers[i], &n);
    for (size_t k = 0; k < n; ++k) {
      if (std::string_view(rd_kafka_ConfigEntry_name(entries[k])) != "cleanup.policy") continue;
      const char* v = rd_kafka_ConfigEntry_value(entries[k]);
      out[rd_kafka_ConfigResource_name(answers[i])] = v ? v : "";
    }
  }
  return out;
}

std::expected<void, Error> OffsetsClient::alter_committed(const std::string& group, std::span<const NewOffset> offsets) {
  // Writing the same offsets again is harmless, so a busy coordinator's refusal is retried.
  return with_busy_retry(timeout_ms_, [&](rd_kafka_resp_err_t& busy) { return alter_committed_once(group, offsets, busy); });
}

std::expected<void, Error> OffsetsClient::alter_committed_once(const std::string& group,
                                                               std::span<const NewOffset> offsets,
                                                               rd_kafka_resp_err_t& busy) {
  rd_kafka_t* h = committed_.get();
  ListPtr list{rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()))};
  for (const auto& n : offsets) {
    auto* e = rd_kafka_topic_partition_list_add(list.get(), n.channel.topic.c_str(), n.channel.partition);
    e->offset = n.offset;
    if (!n.metadata.empty()) {
      e->metadata = rd_kafka_mem_malloc(h, n.metadata.size());
      std::copy(n.metadata.begin(), n.metadata.end(), static_cast<char*>(e->metadata));
      e->metadata_size = n.metadata.size();
    }
  }
  rd_kafka_AlterConsumerGroupOffsets_t* req = rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), list.get());
  AdminOptionsPtr o = admin_options(h, RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, timeout_ms_);
  QueuePtr q{rd_kafka_queue_new(h)};
  rd_kafka_AlterConsumerGroupOffsets(h, &req, 1, o.get(), q.get());
  rd_kafka_AlterConsumerGroupOffsets_destroy(req);
  auto ev = await_event(q.get(), timeout_ms_, fmt::format("writing the committed offsets of group {}", quoted_excerpt(group)), brokers_,
                        busy);
  if (!ev) return std::unexpected(ev.error());
  const auto* res = rd_kafka_event_AlterConsumerGroupOffsets_result(ev->get());
  size_t cnt = 0;
  const rd_kafka_group_result_t** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(res, &cnt);
  // OffsetCommit needs Read on the group, and Read on each topic.
  auto g = only_group(groups, cnt, group, "Read", busy);
  if (!g) return std::unexpected(g.error());
  if (const auto* parts = rd_kafka_group_result_partitions(*g)) {
    for (int i = 0; i < parts->cnt; ++i) {
      const auto err = parts->elems[i].err;
      if (auto no = denied(err, "Read", "group", group)) return std::unexpected(runtime_error(*no));
      if (auto no = denied(err, "Read", "topic", parts->elems[i].topic)) return std::unexpected(runtime_error(*no));
      if (parts->elems[i].err) {
        note_busy(err, busy);
        return std::unexpected(runtime_error(fmt::format("group {}: cannot write the committed offset of {}/{}: {}",
                                                         quoted_excerpt(group), parts->elems[i].topic, parts->elems[i].partition,
                                                         rd_kafka_err2str(parts->elems[i].err))));
      }
    }
  }
  return {};
}

}  // namespace causal::kafka

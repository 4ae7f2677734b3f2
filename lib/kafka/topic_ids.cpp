// Topic IDs through DescribeTopics: see topic_ids.hpp.
#include "topic_ids.hpp"

#include <utility>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/authorization.hpp"

namespace causal::kafka {

namespace {

// Kafka's text form of a Uuid (Uuid.toString, what kafka-topics --describe prints): base64url
// without padding. librdkafka's rd_kafka_Uuid_base64str gives the standard alphabet.
std::string kafka_uuid_text(const rd_kafka_Uuid_t* id) {
  std::string s = rd_kafka_Uuid_base64str(id);
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

using TopicCollectionPtr = detail::Owned<rd_kafka_TopicCollection_t, rd_kafka_TopicCollection_destroy>;

void request(rd_kafka_t* rk, const std::vector<std::string>& topics, std::chrono::milliseconds timeout,
             rd_kafka_queue_t* q) {
  std::vector<const char*> names;
  for (const auto& t : topics) names.push_back(t.c_str());
  TopicCollectionPtr collection{rd_kafka_TopicCollection_of_topic_names(names.data(), names.size())};
  AdminOptionsPtr o{rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBETOPICS)};
  char err[256];
  (void)rd_kafka_AdminOptions_set_request_timeout(o.get(), static_cast<int>(timeout.count()), err, sizeof err);
  rd_kafka_DescribeTopics(rk, collection.get(), o.get(), q);
}

// The answer's IDs; an error when the request failed or a topic was refused.
std::expected<TopicIds, Error> answer_of(rd_kafka_event_t* ev, const std::string& brokers) {
  if (rd_kafka_event_error(ev)) {
    return std::unexpected(runtime_error(
        fmt::format("cannot describe topics on the brokers at {}: {}", brokers, rd_kafka_event_error_string(ev))));
  }
  const auto* res = rd_kafka_event_DescribeTopics_result(ev);
  if (!res) return std::unexpected(runtime_error("DescribeTopics: no result"));
  std::size_t n = 0;
  const rd_kafka_TopicDescription_t** descs = rd_kafka_DescribeTopics_result_topics(res, &n);
  TopicIds ids;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = rd_kafka_TopicDescription_name(descs[i]);
    if (const rd_kafka_error_t* e = rd_kafka_TopicDescription_error(descs[i])) {
      const auto code = rd_kafka_error_code(e);
      if (code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_ID) {
        ids[name] = "";
        continue;
      }
      if (auto no = denied(code, "Describe", "topic", name)) return std::unexpected(runtime_error(*no));
      return std::unexpected(
          runtime_error(fmt::format("cannot describe topic {}: {}", quoted_excerpt(name), rd_kafka_error_string(e))));
    }
    const rd_kafka_Uuid_t* id = rd_kafka_TopicDescription_topic_id(descs[i]);
    ids[name] = id ? kafka_uuid_text(id) : "";
  }
  return ids;
}

}  // namespace

std::expected<TopicIds, Error> describe_topic_ids(rd_kafka_t* rk, const std::vector<std::string>& topics,
                                                  std::chrono::milliseconds timeout, const std::string& brokers) {
  if (topics.empty()) return TopicIds{};
  QueuePtr q{rd_kafka_queue_new(rk)};
  request(rk, topics, timeout, q.get());
  EventPtr ev{rd_kafka_queue_poll(q.get(), static_cast<int>(timeout.count()) + 1000)};
  if (!ev) {
    return std::unexpected(runtime_error(
        fmt::format("cannot describe topics on the brokers at {}: no answer within {} ms", brokers, timeout.count())));
  }
  return answer_of(ev.get(), brokers);
}

TopicIdWatch::TopicIdWatch(rd_kafka_t* rk, TopicIds at_start, std::chrono::milliseconds interval)
    : rk_(rk), at_start_(std::move(at_start)), interval_(interval), queue_(rd_kafka_queue_new(rk)),
      next_(std::chrono::steady_clock::now() + interval) {
  send();
}

std::expected<void, Error> TopicIdWatch::await_first(std::chrono::milliseconds timeout) {
  if (!outstanding_) return {};
  EventPtr ev{rd_kafka_queue_poll(queue_.get(), static_cast<int>(timeout.count()))};
  if (!ev) return {};
  outstanding_ = false;
  next_ = std::chrono::steady_clock::now() + interval_;
  return take(ev.get());
}

void TopicIdWatch::send() {
  std::vector<std::string> topics;
  for (const auto& [t, id] : at_start_) {
    if (!reported_[t]) topics.push_back(t);
  }
  if (topics.empty()) return;
  request(rk_, topics, interval_ * 5, queue_.get());
  outstanding_ = true;
}

std::expected<void, Error> TopicIdWatch::take(rd_kafka_event_t* ev) {
  auto ids = answer_of(ev, "");
  if (!ids) {  // asked again at the next interval, unless a topic was refused
    if (ids.error().message.starts_with("not authorised")) return std::unexpected(ids.error());
    return {};
  }
  for (const auto& [topic, now] : *ids) {
    auto was = at_start_.find(topic);
    if (was == at_start_.end() || reported_[topic]) continue;
    if (was->second.empty()) {  // not known at start: learnt from the first answer that has it
      was->second = now;
      continue;
    }
    if (now.empty()) {
      if (++unknown_in_a_row_[topic] < 2) continue;
    } else {
      unknown_in_a_row_[topic] = 0;
      if (now == was->second) continue;
    }
    reported_[topic] = true;
    changes_.push_back({topic, was->second, now});
  }
  return {};
}

std::vector<TopicIdWatch::Change> TopicIdWatch::poll() {
  if (!rk_) return {};
  if (outstanding_) {
    if (EventPtr ev{rd_kafka_queue_poll(queue_.get(), 0)}) {
      outstanding_ = false;
      (void)take(ev.get());  // a refusal after start: asked again (reading would be refused too)
      next_ = std::chrono::steady_clock::now() + interval_;
    }
  } else if (std::chrono::steady_clock::now() >= next_) {
    send();
  }
  return std::exchange(changes_, {});
}

}  // namespace causal::kafka

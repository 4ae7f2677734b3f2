// Helpers for tests against the real test broker; the contract is in broker_env.hpp.
#include "broker_env.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#ifndef CAUSAL_TEST_BOOTSTRAP_FILE
#error "CAUSAL_TEST_BOOTSTRAP_FILE must name the file the broker_start fixture writes"
#endif

namespace causal::test {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("test broker: " + what); }

std::string err_text(rd_kafka_resp_err_t err) {
  return std::string(rd_kafka_err2name(err)) + " (" + rd_kafka_err2str(err) + ")";
}

// Takes ownership of a rd_kafka_error_t and throws if it is an error.
void check(rd_kafka_error_t* error, const std::string& what) {
  if (error == nullptr) return;
  std::string msg = what + ": " + rd_kafka_error_name(error) + " (" + rd_kafka_error_string(error) + ")";
  rd_kafka_error_destroy(error);
  fail(msg);
}

void check(rd_kafka_resp_err_t err, const std::string& what) {
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) fail(what + ": " + err_text(err));
}

struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
using QueuePtr = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;

struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
using EventPtr = std::unique_ptr<rd_kafka_event_t, EventDeleter>;

struct AdminOptionsDeleter {
  void operator()(rd_kafka_AdminOptions_t* o) const { rd_kafka_AdminOptions_destroy(o); }
};
using AdminOptionsPtr = std::unique_ptr<rd_kafka_AdminOptions_t, AdminOptionsDeleter>;

struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using PartitionListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

// Waits for the admin result event of `type` on `queue`; throws on timeout or event error.
EventPtr wait_admin_result(rd_kafka_queue_t* queue, rd_kafka_event_type_t type, const std::string& what) {
  EventPtr ev(rd_kafka_queue_poll(queue, 30'000));
  if (!ev) fail(what + ": no answer within 30 s");
  if (rd_kafka_event_type(ev.get()) != type)
    fail(what + ": unexpected event " + rd_kafka_event_name(ev.get()));
  if (rd_kafka_event_error(ev.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    fail(what + ": " + rd_kafka_event_error_string(ev.get()));
  }
  return ev;
}

AdminOptionsPtr admin_options(rd_kafka_t* rk, rd_kafka_admin_op_t op) {
  AdminOptionsPtr options(rd_kafka_AdminOptions_new(rk, op));
  char errstr[512];
  check(rd_kafka_AdminOptions_set_request_timeout(options.get(), 30'000, errstr, sizeof errstr),
        std::string("admin request timeout: ") + errstr);
  return options;
}

std::string read_bootstrap() {
  if (const char* env = std::getenv("CAUSAL_TEST_BROKERS"); env != nullptr && *env != '\0') return env;
  std::ifstream in(CAUSAL_TEST_BOOTSTRAP_FILE);
  std::string address;
  if (!(in >> address) || address.empty()) {
    fail(std::string("no bootstrap address: $CAUSAL_TEST_BROKERS is unset and ") +
         CAUSAL_TEST_BOOTSTRAP_FILE +
         " is missing or empty. Run the broker tests through ctest (the kafka_broker fixture starts "
         "the broker), or run scripts/test-broker start and set CAUSAL_TEST_BROKERS.");
  }
  return address;
}

// Throws unless a metadata request to `address` succeeds within 10 s.
void require_answers(const std::string& address) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", address.c_str(), errstr, sizeof errstr);
  HandlePtr rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr));
  if (!rk) fail(std::string("cannot create a handle: ") + errstr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk.get(), 0, nullptr, &md, 10'000);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    fail("the broker at " + address + " does not answer a metadata request: " + err_text(err) +
         ". Is the kafka_broker fixture (broker_start) up? See <build>/test-broker/logs/server.log.");
  }
  rd_kafka_metadata_destroy(md);
}

void copy_headers(const rd_kafka_headers_t* hdrs, std::vector<Header>* out) {
  if (hdrs == nullptr) return;
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
       ++i) {
    Header h{.key = name, .value = std::nullopt};
    if (value != nullptr) h.value = std::string(static_cast<const char*>(value), size);
    out->push_back(std::move(h));
  }
}

// One outstanding produce: filled in by the delivery report callback.
struct Delivery {
  bool done = false;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  int64_t offset = -1;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  auto* d = static_cast<Delivery*>(msg->_private);
  d->done = true;
  d->err = msg->err;
  d->offset = msg->offset;
}

}  // namespace

std::string bootstrap() {
  static std::once_flag checked;
  static std::string address;
  std::call_once(checked, [] {
    std::string a = read_bootstrap();
    require_answers(a);
    address = a;
  });
  return address;
}

std::string unique_name(std::string_view prefix) {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  uint64_t r;
  {
    std::lock_guard lock(mu);
    r = rng();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name(prefix);
  name += '-';
  for (int i = 0; i < 12; ++i) name += kHex[(r >> (4 * i)) & 0xF];
  return name;
}

HandlePtr make_handle(rd_kafka_type_t type, const Properties& props) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  auto set = [&](const std::string& k, const std::string& v) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      fail("property " + k + ": " + errstr);
    }
  };
  set("bootstrap.servers", bootstrap());
  for (const auto& [k, v] : props) set(k, v);
  if (type == RD_KAFKA_PRODUCER) rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_t* rk = rd_kafka_new(type, conf, errstr, sizeof errstr);  // owns conf on success
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    fail(std::string("rd_kafka_new: ") + errstr);
  }
  return HandlePtr(rk);
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// ---- Admin ----------------------------------------------------------------------------------

std::string create_topic(std::string_view prefix, int partitions, const Properties& config) {
  return create_topic_named(unique_name(prefix), partitions, config);
}

std::string create_topic_named(const std::string& name, int partitions, const Properties& config) {
  HandlePtr rk = make_handle(RD_KAFKA_PRODUCER);
  QueuePtr queue(rd_kafka_queue_new(rk.get()));
  char errstr[512];
  rd_kafka_NewTopic_t* topic = rd_kafka_NewTopic_new(name.c_str(), partitions, 1, errstr, sizeof errstr);
  if (topic == nullptr) fail("NewTopic " + name + ": " + errstr);
  for (const auto& [k, v] : config) {
    check(rd_kafka_NewTopic_set_config(topic, k.c_str(), v.c_str()), "topic config " + k);
  }
  AdminOptionsPtr options = admin_options(rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_CreateTopics(rk.get(), &topic, 1, options.get(), queue.get());
  rd_kafka_NewTopic_destroy(topic);
  EventPtr ev = wait_admin_result(queue.get(), RD_KAFKA_EVENT_CREATETOPICS_RESULT, "CreateTopics " + name);
  size_t n = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
  if (n != 1) fail("CreateTopics " + name + ": " + std::to_string(n) + " results");
  if (rd_kafka_topic_result_error(results[0]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    fail("CreateTopics " + name + ": " + err_text(rd_kafka_topic_result_error(results[0])) + " " +
         (rd_kafka_topic_result_error_string(results[0]) ? rd_kafka_topic_result_error_string(results[0])
                                                         : ""));
  }

  // The topic exists in the controller; wait until the broker's metadata shows every partition
  // with a leader, so that the first produce or fetch does not race the metadata propagation.
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk.get(), name.c_str(), nullptr);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk.get(), 0, rkt, &md, 5'000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      bool ready = md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
                   md->topics[0].partition_cnt == partitions &&
                   std::all_of(md->topics[0].partitions, md->topics[0].partitions + partitions,
                               [](const rd_kafka_metadata_partition_t& p) { return p.leader >= 0; });
      rd_kafka_metadata_destroy(md);
      if (ready) break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      rd_kafka_topic_destroy(rkt);
      fail("topic " + name + " has no leaders 30 s after creation");
    }
    std::this_thread::sleep_for(50ms);
  }
  rd_kafka_topic_destroy(rkt);
  return name;
}

void delete_topic(const std::string& name) {
  HandlePtr rk = make_handle(RD_KAFKA_PRODUCER);
  QueuePtr queue(rd_kafka_queue_new(rk.get()));
  rd_kafka_DeleteTopic_t* topic = rd_kafka_DeleteTopic_new(name.c_str());
  AdminOptionsPtr options = admin_options(rk.get(), RD_KAFKA_ADMIN_OP_DELETETOPICS);
  rd_kafka_DeleteTopics(rk.get(), &topic, 1, options.get(), queue.get());
  rd_kafka_DeleteTopic_destroy(topic);
  EventPtr ev = wait_admin_result(queue.get(), RD_KAFKA_EVENT_DELETETOPICS_RESULT, "DeleteTopics " + name);
  size_t n = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev.get()), &n);
  if (n != 1) fail("DeleteTopics " + name + ": " + std::to_string(n) + " results");
  check(rd_kafka_topic_result_error(results[0]), "DeleteTopics " + name);
}

void delete_records(const std::string& topic, int32_t partition, int64_t before) {
  HandlePtr rk = make_handle(RD_KAFKA_PRODUCER);
  QueuePtr queue(rd_kafka_queue_new(rk.get()));
  PartitionListPtr list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = before;
  rd_kafka_DeleteRecords_t* request = rd_kafka_DeleteRecords_new(list.get());
  AdminOptionsPtr options = admin_options(rk.get(), RD_KAFKA_ADMIN_OP_DELETERECORDS);
  rd_kafka_DeleteRecords(rk.get(), &request, 1, options.get(), queue.get());
  rd_kafka_DeleteRecords_destroy(request);
  const std::string what = "DeleteRecords " + topic + "/" + std::to_string(partition);
  EventPtr ev = wait_admin_result(queue.get(), RD_KAFKA_EVENT_DELETERECORDS_RESULT, what);
  const rd_kafka_topic_partition_list_t* got =
      rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev.get()));
  if (got == nullptr || got->cnt != 1) fail(what + ": no result for the partition");
  check(got->elems[0].err, what);
}

Watermarks query_watermarks(rd_kafka_t* handle, const std::string& topic, int32_t partition) {
  Watermarks w;
  check(rd_kafka_query_watermark_offsets(handle, topic.c_str(), partition, &w.low, &w.high, 10'000),
        "query_watermark_offsets " + topic + "/" + std::to_string(partition));
  return w;
}

int64_t last_stable_offset(const std::string& topic, int32_t partition) {
  HandlePtr rk = make_handle(RD_KAFKA_CONSUMER, {{"isolation.level", "read_committed"}});
  return query_watermarks(rk.get(), topic, partition).high;
}

int64_t high_watermark(const std::string& topic, int32_t partition) {
  HandlePtr rk = make_handle(RD_KAFKA_CONSUMER, {{"isolation.level", "read_uncommitted"}});
  return query_watermarks(rk.get(), topic, partition).high;
}

std::map<int32_t, int64_t> committed_offsets(const std::string& group, const std::string& topic,
                                             const std::vector<int32_t>& partitions) {
  HandlePtr rk = make_handle(RD_KAFKA_PRODUCER);
  QueuePtr queue(rd_kafka_queue_new(rk.get()));
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (int32_t p : partitions) rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  rd_kafka_ListConsumerGroupOffsets_t* request =
      rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), list.get());
  AdminOptionsPtr options = admin_options(rk.get(), RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS);
  check(rd_kafka_AdminOptions_set_require_stable_offsets(options.get(), 1), "require_stable_offsets");
  rd_kafka_ListConsumerGroupOffsets(rk.get(), &request, 1, options.get(), queue.get());
  rd_kafka_ListConsumerGroupOffsets_destroy(request);
  EventPtr ev = wait_admin_result(queue.get(), RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT,
                                  "ListConsumerGroupOffsets " + group);
  size_t n = 0;
  const rd_kafka_group_result_t** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
      rd_kafka_event_ListConsumerGroupOffsets_result(ev.get()), &n);
  if (n != 1) fail("ListConsumerGroupOffsets " + group + ": " + std::to_string(n) + " results");
  if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[0]); e != nullptr) {
    fail("ListConsumerGroupOffsets " + group + ": " + rd_kafka_error_string(e));
  }
  std::map<int32_t, int64_t> result;
  const rd_kafka_topic_partition_list_t* got = rd_kafka_group_result_partitions(groups[0]);
  for (int i = 0; got != nullptr && i < got->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = got->elems[i];
    check(tp.err, "committed offset of " + topic + "/" + std::to_string(tp.partition));
    if (topic == tp.topic) result[tp.partition] = tp.offset;
  }
  return result;
}

void commit_offsets(const std::string& group, const std::string& topic,
                    const std::map<int32_t, int64_t>& offsets, const std::string& metadata) {
  HandlePtr rk = make_handle(RD_KAFKA_CONSUMER, {{"group.id", group}, {"enable.auto.commit", "false"}});
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [p, offset] : offsets) {
    auto* e = rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
    e->offset = offset;
    if (!metadata.empty()) {  // freed by rd_kafka_topic_partition_list_destroy
      e->metadata = std::malloc(metadata.size());
      std::memcpy(e->metadata, metadata.data(), metadata.size());
      e->metadata_size = metadata.size();
    }
  }
  check(rd_kafka_assign(rk.get(), list.get()), "assign");
  check(rd_kafka_commit(rk.get(), list.get(), 0), "commit offsets of group " + group);
  for (int i = 0; i < list->cnt; ++i)
    check(list->elems[i].err, "commit offset of partition " + std::to_string(i));
  check(rd_kafka_consumer_close(rk.get()), "consumer close");
}

// ---- Producing ------------------------------------------------------------------------------

Producer::Producer(const Properties& extra)
    : Producer(Properties{{"enable.idempotence", "true"}, {"acks", "all"}, {"linger.ms", "0"}}, extra) {}

Producer::Producer(const Properties& base, const Properties& extra) {
  Properties props = base;
  props.insert(props.end(), extra.begin(), extra.end());
  handle_ = make_handle(RD_KAFKA_PRODUCER, props);
}

Producer::~Producer() { rd_kafka_flush(handle_.get(), 10'000); }

std::vector<int64_t> Producer::send(const std::string& topic, const std::vector<Record>& records) {
  std::vector<Delivery> deliveries(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    rd_kafka_headers_t* hdrs = rd_kafka_headers_new(r.headers.size());
    for (const Header& h : r.headers) {
      rd_kafka_header_add(hdrs, h.key.data(), static_cast<ssize_t>(h.key.size()),
                          h.value ? h.value->data() : nullptr,
                          h.value ? static_cast<ssize_t>(h.value->size()) : 0);
    }
    // The RD_KAFKA_V_* macros cast their arguments unparenthesised: pass plain variables.
    const void* key = r.key ? r.key->data() : nullptr;
    const size_t key_size = r.key ? r.key->size() : 0;
    void* value = const_cast<char*>(r.value.data());
    rd_kafka_resp_err_t err =
        rd_kafka_producev(handle_.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(r.partition),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_size),
                          RD_KAFKA_V_VALUE(value, r.value.size()), RD_KAFKA_V_HEADERS(hdrs),
                          RD_KAFKA_V_OPAQUE(&deliveries[i]), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_headers_destroy(hdrs);         // owned by the message only on success
      rd_kafka_flush(handle_.get(), 30'000);  // the Delivery objects must outlive their reports
      fail("produce to " + topic + "/" + std::to_string(r.partition) + ": " + err_text(err));
    }
  }
  rd_kafka_flush(handle_.get(), 30'000);
  std::vector<int64_t> offsets;
  for (size_t i = 0; i < deliveries.size(); ++i) {
    const Delivery& d = deliveries[i];
    if (!d.done) fail("record " + std::to_string(i) + " to " + topic + " not delivered within 30 s");
    check(d.err, "delivery of record " + std::to_string(i) + " to " + topic);
    offsets.push_back(d.offset);
  }
  return offsets;
}

int64_t Producer::send(const std::string& topic, const Record& record) {
  return send(topic, std::vector{record}).at(0);
}

TransactionalProducer::TransactionalProducer(std::string transactional_id, const Properties& extra)
    : Producer(Properties{{"transactional.id", transactional_id}, {"acks", "all"}, {"linger.ms", "0"}},
               extra),
      transactional_id_(std::move(transactional_id)) {
  check(rd_kafka_init_transactions(handle(), 30'000), "init_transactions " + transactional_id_);
}

void TransactionalProducer::begin() { check(rd_kafka_begin_transaction(handle()), "begin_transaction"); }

void TransactionalProducer::commit() {
  check(rd_kafka_commit_transaction(handle(), 30'000), "commit_transaction " + transactional_id_);
}

void TransactionalProducer::abort() {
  check(rd_kafka_abort_transaction(handle(), 30'000), "abort_transaction " + transactional_id_);
}

// ---- Consuming ------------------------------------------------------------------------------

Consumer::Consumer(const Properties& extra) {
  Properties props{{"group.id", unique_name("causal-test-reader")},
                   {"isolation.level", "read_committed"},
                   {"enable.partition.eof", "true"},
                   {"enable.auto.commit", "false"},
                   {"enable.auto.offset.store", "false"},
                   {"auto.offset.reset", "earliest"},
                   {"fetch.wait.max.ms", "20"}};
  props.insert(props.end(), extra.begin(), extra.end());
  handle_ = make_handle(RD_KAFKA_CONSUMER, props);
}

Consumer::~Consumer() { rd_kafka_consumer_close(handle_.get()); }

void Consumer::assign(const std::string& topic, const std::vector<int32_t>& partitions,
                      int64_t start_offset) {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  assigned_.clear();
  for (int32_t p : partitions) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = start_offset;
    assigned_.emplace_back(topic, p);
  }
  check(rd_kafka_assign(handle_.get(), list.get()), "assign " + topic);
}

std::optional<Received> Consumer::poll(std::chrono::milliseconds timeout) {
  rd_kafka_message_t* msg = rd_kafka_consumer_poll(handle_.get(), static_cast<int>(timeout.count()));
  if (msg == nullptr) return std::nullopt;
  std::unique_ptr<rd_kafka_message_t, void (*)(rd_kafka_message_t*)> guard(msg, rd_kafka_message_destroy);
  const std::string topic = msg->rkt != nullptr ? rd_kafka_topic_name(msg->rkt) : "";
  if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    last_eof_[{topic, msg->partition}] = msg->offset;
    return std::nullopt;
  }
  if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    fail("consume " + topic + "/" + std::to_string(msg->partition) + ": " + rd_kafka_message_errstr(msg));
  }
  Received r;
  r.topic = topic;
  r.partition = msg->partition;
  r.offset = msg->offset;
  if (msg->key != nullptr) r.key = std::string(static_cast<const char*>(msg->key), msg->key_len);
  if (msg->payload != nullptr) r.value = std::string(static_cast<const char*>(msg->payload), msg->len);
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(msg, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) copy_headers(hdrs, &r.headers);
  return r;
}

std::vector<Received> Consumer::consume(size_t n, std::chrono::milliseconds timeout) {
  std::vector<Received> out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < n) {
    if (std::chrono::steady_clock::now() > deadline) {
      fail("received " + std::to_string(out.size()) + " of " + std::to_string(n) + " records within " +
           std::to_string(timeout.count()) + " ms");
    }
    if (auto r = poll(100ms)) out.push_back(std::move(*r));
  }
  return out;
}

std::vector<Received> Consumer::drain(std::chrono::milliseconds timeout) {
  // The end to reach is the high watermark once the LSO has caught up with it: a
  // transaction's commit returns to its producer before the coordinator has written the
  // markers, so an LSO read at once may still stop short of the last committed batch.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<std::pair<std::pair<std::string, int32_t>, int64_t>> ends;
  for (const auto& tp : assigned_) {
    const int64_t high = high_watermark(tp.first, tp.second);
    int64_t end = query_watermarks(handle(), tp.first, tp.second).high;
    while (end < high) {
      if (std::chrono::steady_clock::now() > deadline) {
        fail("drain: " + tp.first + "/" + std::to_string(tp.second) + " has a transaction still open: LSO " +
             std::to_string(end) + " of high watermark " + std::to_string(high));
      }
      std::this_thread::sleep_for(50ms);
      end = query_watermarks(handle(), tp.first, tp.second).high;
    }
    ends.emplace_back(tp, end);
  }
  std::vector<Received> out;
  for (;;) {
    bool caught_up = std::all_of(ends.begin(), ends.end(), [&](const auto& e) {
      return position_advance(e.first.first, e.first.second) >= e.second;
    });
    if (caught_up) return out;
    if (std::chrono::steady_clock::now() > deadline) {
      std::string detail;
      for (const auto& [tp, end] : ends) {
        detail += " " + tp.first + "/" + std::to_string(tp.second) + " at " +
                  std::to_string(position_advance(tp.first, tp.second)) + " of " + std::to_string(end);
      }
      fail("drain did not catch up within " + std::to_string(timeout.count()) + " ms:" + detail);
    }
    if (auto r = poll(100ms)) out.push_back(std::move(*r));
  }
}

int64_t Consumer::position(const std::string& topic, int32_t partition) const {
  PartitionListPtr list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition);
  check(rd_kafka_position(handle_.get(), list.get()), "position " + topic);
  return list->elems[0].offset;
}

int64_t Consumer::last_eof(const std::string& topic, int32_t partition) const {
  auto it = last_eof_.find({topic, partition});
  return it == last_eof_.end() ? -1 : it->second;
}

int64_t Consumer::position_advance(const std::string& topic, int32_t partition) const {
  return std::max(position(topic, partition), last_eof(topic, partition));
}

}  // namespace causal::test

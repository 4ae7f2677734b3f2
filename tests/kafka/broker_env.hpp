// Helpers for tests that run against the real test broker (scripts/test-broker), started once
// per CTest run by the `kafka_broker` fixture (tests/kafka/CMakeLists.txt).
//
// How to use from another test directory (tests/tail, tests/explain):
//
//   add_executable(tail_tests ...)
//   target_link_libraries(tail_tests PRIVATE causal_broker_test_support causal_catch_main)
//   catch_discover_tests(tail_tests TEST_PREFIX "tail: "
//                        PROPERTIES FIXTURES_REQUIRED kafka_broker LABELS broker)
//
//   #include "broker_env.hpp"
//   const std::string topic = causal::test::create_topic("tail-basic", 2);
//   causal::test::TransactionalProducer p;
//   p.begin(); p.send(topic, {{"a", 0}, {"b", 1}}); p.commit();   // value, partition
//   causal::test::Consumer c;                      // read_committed, partition EOF on
//   c.assign(topic, {0, 1});
//   auto records = c.drain();                      // everything up to the LSO
//
// A test that runs the `causal` binary passes `-b` + causal::test::bootstrap() (or sets
// CAUSAL_BROKERS to it) so that the binary talks to the same broker.
//
// Contract: every helper either does what it says or throws std::runtime_error with a message
// that names the broker and the cause. Nothing here skips a test: when the broker cannot be
// reached the test fails loudly. Topic, group and transactional ids are unique per call (prefix
// plus a random suffix), so tests may run in parallel against one broker and never need to
// clean up. The broker has auto.create.topics.enable=false: create every topic you use.
//
// Thread-safety: each object is for one thread; the free functions may be called from any.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <librdkafka/rdkafka.h>

namespace causal::test {

using namespace std::chrono_literals;

// librdkafka properties, applied in order (later ones win).
using Properties = std::vector<std::pair<std::string, std::string>>;

struct HandleDeleter {
  void operator()(rd_kafka_t* h) const { rd_kafka_destroy(h); }
};
using HandlePtr = std::unique_ptr<rd_kafka_t, HandleDeleter>;

// ---- The broker -----------------------------------------------------------------------------

// The test broker's bootstrap address, e.g. "127.0.0.1:40123": $CAUSAL_TEST_BROKERS if set,
// else the file the fixture's broker_start test writes (<build>/test-broker/bootstrap).
// The first call in a process also checks that the broker answers a metadata request.
// Throws when there is no address or the broker does not answer.
std::string bootstrap();

// `prefix` + "-" + 12 random hex digits; for topics, group ids, transactional ids.
std::string unique_name(std::string_view prefix);

// A handle of `type` with bootstrap.servers set, then `props`. Throws on an unknown property.
HandlePtr make_handle(rd_kafka_type_t type, const Properties& props = {});

// Polls `condition` every 20 ms until it holds or `timeout` passes; returns its last value.
// For effects that follow an acknowledged call asynchronously (e.g. transaction markers are
// written by the coordinator after commit_transaction returns). Assert the value afterwards.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s);

// ---- Admin ----------------------------------------------------------------------------------

// Creates a topic named unique_name(prefix) with `partitions` partitions (replication factor
// 1) and `config` as topic configuration; returns once every partition has a leader in the
// metadata. Returns the name.
std::string create_topic(std::string_view prefix, int partitions = 1, const Properties& config = {});
// The same with exactly this name (the examples test: its topics are the ones the docs name).
// Fails if the topic exists.
std::string create_topic_named(const std::string& name, int partitions = 1, const Properties& config = {});

// Deletes a topic (DeleteTopics); returns once the controller accepted it. The deletion may
// still be under way in the broker's metadata: a create of the same name can fail for a while.
void delete_topic(const std::string& name);

// Deletes the records of topic/partition below `before` (DeleteRecords): its log start becomes
// `before`.
void delete_records(const std::string& topic, int32_t partition, int64_t before);

struct Watermarks {
  int64_t low = -1;
  int64_t high = -1;
};

// rd_kafka_query_watermark_offsets on `handle`: the broker's answer, not the cache. On a
// read_committed handle "high" is the last stable offset (LSO); on read_uncommitted it is the
// high watermark (see docs/kafka-facts.md).
Watermarks query_watermarks(rd_kafka_t* handle, const std::string& topic, int32_t partition);

// The LSO, and the high watermark, of a partition, each through a fresh handle of that isolation.
int64_t last_stable_offset(const std::string& topic, int32_t partition);
int64_t high_watermark(const std::string& topic, int32_t partition);

// A group's committed offsets for the given partitions, read with the admin API
// (ListConsumerGroupOffsets, require_stable_offsets) without joining the group. A partition
// with no committed offset maps to RD_KAFKA_OFFSET_INVALID (-1001).
std::map<int32_t, int64_t> committed_offsets(const std::string& group, const std::string& topic,
                                             const std::vector<int32_t>& partitions);

// Commits `offsets` (partition → next offset to read) for `group` the way a consumer that never
// subscribes does: assign() plus a synchronous rd_kafka_commit of an explicit list. The group
// has no members afterwards. Each commit carries `metadata` when it is not empty.
void commit_offsets(const std::string& group, const std::string& topic,
                    const std::map<int32_t, int64_t>& offsets, const std::string& metadata = "");

// ---- Producing ------------------------------------------------------------------------------

struct Header {
  std::string key;
  std::optional<std::string> value;  // nullopt: a header with a null value
};

// A record to produce: Record("value"), Record("value", 1) for partition 1, or in a list
// {{"a", 0}, {"b", 1}}; key and headers with the chained setters:
//   Record("v", 0).with_key("k").with_header("causal.stamp", bytes)
struct Record {
  Record(std::string v, int32_t p = 0) : partition(p), value(std::move(v)) {}  // NOLINT: implicit on purpose

  Record& with_key(std::string k) {
    key = std::move(k);
    return *this;
  }
  Record& with_header(std::string k, std::optional<std::string> v) {
    headers.push_back(Header{std::move(k), std::move(v)});
    return *this;
  }

  int32_t partition = 0;
  std::optional<std::string> key;  // nullopt: null key
  std::string value;
  std::vector<Header> headers;
};

// An idempotent producer (acks=all). send() is synchronous: it waits for every delivery report.
class Producer {
 public:
  explicit Producer(const Properties& extra = {});
  virtual ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Produces `records` to `topic` in order and returns their offsets, in the same order.
  // Throws if any record is not delivered within 30 s.
  std::vector<int64_t> send(const std::string& topic, const std::vector<Record>& records);
  int64_t send(const std::string& topic, const Record& record);

  rd_kafka_t* handle() const { return handle_.get(); }

 protected:
  Producer(const Properties& base, const Properties& extra);

 private:
  HandlePtr handle_;
};

// A transactional producer; the constructor runs init_transactions. Between begin() and
// commit()/abort() send() still waits for delivery, so the records are in the log (and their
// offsets known) before the transaction ends: an aborted batch occupies real offsets.
class TransactionalProducer : public Producer {
 public:
  explicit TransactionalProducer(std::string transactional_id = unique_name("causal-test-txn"),
                                 const Properties& extra = {});

  void begin();
  void commit();  // REQUIRES: begin() was called; throws if the commit fails.
  void abort();   // REQUIRES: begin() was called; throws if the abort fails.

  const std::string& transactional_id() const { return transactional_id_; }

 private:
  std::string transactional_id_;
};

// ---- Consuming ------------------------------------------------------------------------------

struct Received {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = -1;
  std::optional<std::string> key;
  std::string value;
  std::vector<Header> headers;
};

// A consumer that assign()s partitions and never subscribes. Defaults: isolation.level=
// read_committed, enable.partition.eof=true, enable.auto.commit=false, fetch.wait.max.ms=20,
// group.id=unique_name("causal-test-reader") (librdkafka needs one to poll; it is never joined).
// `extra` overrides any of them, e.g. Consumer(Properties{{"isolation.level", "read_uncommitted"}})
// (spell out Properties: a bare braced list is ambiguous here).
class Consumer {
 public:
  explicit Consumer(const Properties& extra = {});
  ~Consumer();  // rd_kafka_consumer_close, then destroy
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Replaces the assignment with `partitions` of `topic`, each starting at `start_offset`
  // (an offset or RD_KAFKA_OFFSET_BEGINNING / _END / _STORED).
  void assign(const std::string& topic, const std::vector<int32_t>& partitions,
              int64_t start_offset = RD_KAFKA_OFFSET_BEGINNING);

  // One poll. Returns a record, or nullopt on timeout or a PARTITION_EOF event (which it
  // records for last_eof()). Throws on any other consumer error.
  std::optional<Received> poll(std::chrono::milliseconds timeout = 100ms);

  // Polls until `n` records arrived; throws when they do not within `timeout`.
  std::vector<Received> consume(size_t n, std::chrono::milliseconds timeout = 10s);

  // Polls until every assigned partition's position_advance() has reached its high watermark
  // as it is at the start of the call; under read_committed it first waits for the LSO to
  // reach that high watermark (a commit's markers are written after the producer's commit
  // returns). Returns the records received meanwhile. Throws when that does not happen within
  // `timeout`, so a partition with a transaction left open fails it.
  std::vector<Received> drain(std::chrono::milliseconds timeout = 10s);

  // rd_kafka_position: last returned offset + 1; RD_KAFKA_OFFSET_INVALID (-1001) until known.
  int64_t position(const std::string& topic, int32_t partition) const;
  // The offset carried by the last PARTITION_EOF event of that partition; -1 if none yet.
  int64_t last_eof(const std::string& topic, int32_t partition) const;
  // max(position, last_eof): how far the consumer has provably read, markers included.
  int64_t position_advance(const std::string& topic, int32_t partition) const;

  rd_kafka_t* handle() const { return handle_.get(); }

 private:
  HandlePtr handle_;
  std::vector<std::pair<std::string, int32_t>> assigned_;
  std::map<std::pair<std::string, int32_t>, int64_t> last_eof_;
};

}  // namespace causal::test

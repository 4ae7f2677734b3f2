// One exactly-once consume-transform-produce run over an input topic, in one of two ways:
//   plain   librdkafka alone: a group consumer read in batches of 4096, a transactional
//           producer, upper-casing, and after each batch, once 1000 records were sent (or
//           200 ms passed), send_offsets_to_transaction + commit_transaction
//   relay   causal::kafka::Relay with the same transform and the same transaction bounds
//           (gate, stamps, resolution state in the committed metadata)
// It reads RECORDS records, commits, and prints "MODE RECORDS SECONDS" (time from the first
// record received to the last commit), and on standard error the number of transactions
// committed. bench/relay_vs_eos.sh runs both side by side;
// bench/relay_vs_streams.sh runs both beside Kafka Streams on the three-node cluster.
//
//   relay_vs_eos plain|relay BROKERS INPUT OUTPUT GROUP TRANSACTIONAL_ID RECORDS
//                [COMMIT_RECORDS COMMIT_MS [c:KEY=VALUE | p:KEY=VALUE | h:BYTES]...]
//
// COMMIT_RECORDS and COMMIT_MS bound a transaction (default 1000 and 200; COMMIT_RECORDS 0:
// no bound on records, a transaction ends on time alone). c:KEY=VALUE sets a librdkafka
// property on the consumer, p:KEY=VALUE on the producer, in either mode (the relay's go after
// its own defaults). h:BYTES (plain mode) gives every output record a causal.clock header of
// BYTES bytes that is not a clock: the size of the relay's stamps, without the relay's work,
// to tell what the stamp's bytes cost from what the gate and the stamper cost. Its bytes are
// a fixed pattern ending in the record's number, so that like real stamps, which carry a
// send number, consecutive headers differ (as compression sees them).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/kafka/relay.hpp"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "relay_vs_eos: %s\n", what.c_str());
  std::exit(1);
}

void set(rd_kafka_conf_t* conf, const char* k, const std::string& v) {
  char err[512];
  if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) die(err);
}

void check(rd_kafka_error_t* e, const char* what) {
  if (!e) return;
  std::string text = std::string(what) + ": " + rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  die(text);
}

struct Bounds {
  long records = 1000;                          // 0: none
  std::chrono::milliseconds duration{200};
  std::vector<std::string> consumer, producer;  // KEY=VALUE
  std::size_t header_bytes = 0;                 // plain mode: a causal.clock header this long
};

void set_all(rd_kafka_conf_t* conf, const std::vector<std::string>& properties) {
  for (const auto& kv : properties) {
    const auto eq = kv.find('=');
    set(conf, kv.substr(0, eq).c_str(), kv.substr(eq + 1));
  }
}

double plain(const std::string& brokers, const std::string& in, const std::string& out, const std::string& group,
             const std::string& txid, long records, const Bounds& bounds) {
  char err[512];
  rd_kafka_conf_t* cc = rd_kafka_conf_new();
  set(cc, "bootstrap.servers", brokers);
  set(cc, "group.id", group);
  set(cc, "isolation.level", "read_committed");
  set(cc, "enable.auto.commit", "false");
  set(cc, "auto.offset.reset", "earliest");
  set_all(cc, bounds.consumer);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cc, err, sizeof err);
  if (!consumer) die(err);
  rd_kafka_conf_t* pc = rd_kafka_conf_new();
  set(pc, "bootstrap.servers", brokers);
  set(pc, "transactional.id", txid);
  set(pc, "linger.ms", "5");
  set_all(pc, bounds.producer);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, pc, err, sizeof err);
  if (!producer) die(err);
  check(rd_kafka_init_transactions(producer, 30000), "init_transactions");
  rd_kafka_topic_partition_list_t* sub = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(sub, in.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(consumer, sub);
  rd_kafka_topic_partition_list_destroy(sub);

  long seen = 0, in_txn = 0, transactions = 0;
  bool open = false;
  Clock::time_point first{}, txn_start{};
  std::string value;
  std::string header(bounds.header_bytes, '\0');
  for (std::size_t i = 0; i < header.size(); ++i) header[i] = static_cast<char>('a' + (i * 7) % 26);
  auto commit = [&] {
    rd_kafka_topic_partition_list_t* assignment = nullptr;
    rd_kafka_assignment(consumer, &assignment);
    rd_kafka_position(consumer, assignment);
    rd_kafka_consumer_group_metadata_t* meta = rd_kafka_consumer_group_metadata(consumer);
    check(rd_kafka_send_offsets_to_transaction(producer, assignment, meta, 30000), "send_offsets_to_transaction");
    rd_kafka_consumer_group_metadata_destroy(meta);
    rd_kafka_topic_partition_list_destroy(assignment);
    check(rd_kafka_commit_transaction(producer, 30000), "commit_transaction");
    ++transactions;
    open = false;
    in_txn = 0;
  };
  // Batches as the relay's consumer host takes them (4096 records, 100 ms), and the same
  // rule for ending a transaction, checked after each batch.
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(consumer);
  std::vector<rd_kafka_message_t*> batch(4096);
  while (seen < records) {
    ssize_t n = rd_kafka_consume_batch_queue(queue, 100, batch.data(), batch.size());
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = batch[i];
      if (!m->err) {
        if (seen == 0) first = Clock::now();
        if (!open) {
          check(rd_kafka_begin_transaction(producer), "begin_transaction");
          open = true;
          txn_start = Clock::now();
        }
        value.assign(static_cast<const char*>(m->payload), m->len);
        std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::toupper(c); });
        rd_kafka_headers_t* headers = nullptr;
        if (!header.empty()) {
          char number[16];
          const int len = std::snprintf(number, sizeof number, "%09ld", seen % 1000000000);
          const std::size_t tail = std::min(header.size(), static_cast<std::size_t>(len));
          std::memcpy(header.data() + header.size() - tail, number + len - tail, tail);
          headers = rd_kafka_headers_new(1);
          rd_kafka_header_add(headers, "causal.clock", -1, header.data(),
                              static_cast<ssize_t>(header.size()));
        }
        for (;;) {
          auto e = headers ? rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(out.c_str()),
                                               RD_KAFKA_V_KEY(m->key, m->key_len),
                                               RD_KAFKA_V_VALUE(value.data(), value.size()),
                                               RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                               RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_END)
                           : rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(out.c_str()),
                                               RD_KAFKA_V_KEY(m->key, m->key_len),
                                               RD_KAFKA_V_VALUE(value.data(), value.size()),
                                               RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
          if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;  // the headers are librdkafka's now
          if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) die(rd_kafka_err2str(e));
          rd_kafka_poll(producer, 10);
        }
        ++seen;
        ++in_txn;
      }
      rd_kafka_message_destroy(m);
    }
    rd_kafka_poll(producer, 0);
    if (open && ((bounds.records > 0 && in_txn >= bounds.records) || Clock::now() - txn_start >= bounds.duration ||
                 seen >= records)) {
      commit();
    }
  }
  rd_kafka_queue_destroy(queue);
  const double secs = std::chrono::duration<double>(Clock::now() - first).count();
  std::fprintf(stderr, "relay_vs_eos: plain: %ld transactions committed\n", transactions);
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  rd_kafka_destroy(producer);
  return secs;
}

double relay(const std::string& brokers, const std::string& in, const std::string& out, const std::string& group,
             const std::string& txid, long records, const Bounds& bounds) {
  causal::kafka::RelayOptions opts;
  opts.input.connection.brokers = opts.output.connection.brokers = brokers;
  opts.input.group = group;
  opts.input.channels.push_back({in, std::nullopt});
  opts.output.transactional_id = txid;
  opts.output.sink_topics = {out};
  opts.input.connection.properties = bounds.consumer;
  opts.output.connection.properties = bounds.producer;
  opts.max_records = bounds.records > 0 ? static_cast<std::size_t>(bounds.records) : SIZE_MAX;
  opts.max_transaction = bounds.duration;
  // Takes the input's key and value (the relay's transform may), as the plain loop upper-cases
  // a buffer of its own.
  auto upper = [&](causal::kafka::RelayInput& r, std::vector<causal::kafka::RelayRecord>& emit) {
    causal::kafka::RelayRecord o{out, -1, std::move(r.key), r.value ? std::move(r.value) : std::string()};
    std::transform(o.value->begin(), o.value->end(), o.value->begin(), [](unsigned char c) { return std::toupper(c); });
    emit.push_back(std::move(o));
  };
  causal::Names names;
  auto rel = causal::kafka::Relay::open(opts, upper, names);
  if (!rel) die(rel.error().message);
  Clock::time_point first{};
  while ((*rel)->counters().delivered < static_cast<std::uint64_t>(records)) {
    if (auto r = (*rel)->poll(); !r) die(r.error().message);
    if (first == Clock::time_point{} && (*rel)->counters().delivered > 0) first = Clock::now();
  }
  if (auto c = (*rel)->commit(); !c) die(c.error().message);
  if ((*rel)->counters().aborted != 0) die("a transaction was aborted");
  const double secs = std::chrono::duration<double>(Clock::now() - first).count();
  std::fprintf(stderr, "relay_vs_eos: relay: %llu transactions committed\n",
               static_cast<unsigned long long>((*rel)->counters().committed));
  return secs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8 && argc < 10) {
    die("usage: relay_vs_eos plain|relay BROKERS INPUT OUTPUT GROUP TRANSACTIONAL_ID RECORDS [COMMIT_RECORDS COMMIT_MS "
        "[c:KEY=VALUE | p:KEY=VALUE]...]");
  }
  const std::string mode = argv[1];
  const long records = std::atol(argv[7]);
  Bounds bounds;
  if (argc >= 10) {
    bounds.records = std::atol(argv[8]);
    bounds.duration = std::chrono::milliseconds(std::atol(argv[9]));
    if (bounds.records < 0 || bounds.duration.count() <= 0) die("COMMIT_RECORDS must be 0 or more, COMMIT_MS more than 0");
  }
  for (int i = 10; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("h:")) {
      const long n = std::atol(arg.c_str() + 2);
      if (n < 1 || n > 65536 || mode != "plain") die("h:BYTES takes 1 to 65536 bytes, in plain mode: " + arg);
      bounds.header_bytes = static_cast<std::size_t>(n);
      continue;
    }
    if (arg.size() < 4 || arg[1] != ':' || (arg[0] != 'c' && arg[0] != 'p') || arg.find('=') == std::string::npos) {
      die("a property is c:KEY=VALUE (consumer) or p:KEY=VALUE (producer): " + arg);
    }
    (arg[0] == 'c' ? bounds.consumer : bounds.producer).push_back(arg.substr(2));
  }
  double secs = mode == "plain"   ? plain(argv[2], argv[3], argv[4], argv[5], argv[6], records, bounds)
                : mode == "relay" ? relay(argv[2], argv[3], argv[4], argv[5], argv[6], records, bounds)
                                  : (die("mode must be plain or relay"), 0.0);
  std::printf("%s %ld %.3f\n", mode.c_str(), records, secs);
  return 0;
}

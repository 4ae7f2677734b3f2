// An exactly-once relay: a consumer-group member (ConsumerHost::join) whose deliveries go
// through a user transform into a transactional, stamped producer (ProducerHost), and whose
// input offsets are committed in the same transaction (send_offsets_to_transaction).
//
// One round (poll): the member polls; every record the gate delivers is copied aside (into
// buffers the relay keeps from round to round, and the transform may move from); after
// the poll, in delivery order, each goes to the transform, and each record it returns is
// sent (a transaction is begun when none is open) stamped by the real Stamper reading the
// member's gate (frontier, custody), with the end-offset seeds and own sends of the relay's
// sender. The transform runs after the poll, not inside the gate's delivery, because the
// gate hands a record over before its frontier covers it: a stamp taken then would not
// claim the record it answers. After the poll the stamp claims everything delivered in it
// (an over-claim, which delays and never reorders), as the simulator's nodes emit. When
// `max_records` were sent or `max_transaction` passed since the transaction's first
// delivery, or would pass during another round's sends as long as this round's took, the
// transaction is committed with, per input partition, frontier + 1 and the
// resolution state as metadata, and the consumer's group metadata (KIP-447: a zombie from
// an older generation is fenced by the coordinator). When nothing was delivered but the
// frontier moved past its commit (transaction markers, aborted records), a transaction of
// offsets only commits it once `max_transaction` passed since the last commit.
//
// Rebalances commit the open transaction first (in the revocation, before partitions are
// given up), then start a new generation (docs/library.md); the stamper then reads the new
// gate and carries what the old one knew, so later records still claim what this relay
// delivered before. A *lost* assignment (the session expired: others may own the
// partitions already) commits nothing: the open transaction is aborted and the relay
// rewinds, as after any failure.
//
// Errors: a failed send, commit or rebalance commit aborts the transaction (its records are
// never visible to read_committed consumers), rewinds the member to the committed offsets
// (a new generation: everything after them is delivered and transformed again), counts an
// abort and goes on. A producer with a fatal error — fenced (Kafka aborted a transaction open
// past transaction.timeout.ms, or another process took the transactional id), or another
// error librdkafka calls fatal, such as an abort refused after a delivery timed out while a
// leader failed over — is made again (reopen_output, counters().reopened): taking the id back
// makes Kafka abort what the old one left open; making it is tried up to three times while it
// fails on a runtime error (a sink's leader failing over), and failing that ends the relay,
// with the old producer in place. A fatal error that would make it a third time within a
// minute ends the relay (fenced that often: another process uses the id, and each takes it
// back in turn): poll() returns it. So do, after aborting the transaction, a
// record the transform got wrong (a partition its topic does not have: send's usage error)
// and an input topic deleted or a partition whose log restarted (ConsumerHost::poll): they
// would fail the same way after every rewind.
//
// Thread-safety: none, but for health(); one thread drives a Relay, and health() may be
// called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/error.hpp"
#include "causal/gate.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/health.hpp"
#include "causal/kafka/producer_host.hpp"
#include "causal/names.hpp"

namespace causal::kafka {

struct RelayOptions {
  ConsumerOptions input;    // group required; whole topics; commit_interval and commit_on_close are the relay's
  ProducerOptions output;   // transactional_id required; sink_topics: every topic the transform writes;
                            // compression.type lz4 unless its properties or extra_defaults set it
  std::size_t max_records = 1000;                      // records sent per transaction, at most
  std::chrono::milliseconds max_transaction{200};      // a transaction's length, at most
};

// A record the transform emits. partition -1: librdkafka's default partitioner on the key.
struct RelayRecord {
  std::string topic;
  std::int32_t partition = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
};

// A delivered input record, as the transform sees it.
struct RelayInput {
  ChannelId channel;
  Offset offset;
  std::int64_t timestamp;  // the record's timestamp (ms), -1 when none
  std::optional<std::string> key;
  std::optional<std::string> value;
};

// Called for each delivered input record, in gate order; appends what to emit to `out`.
// The input is the transform's to take from: it may move its key and value into what it
// emits (the relay reads neither after the call). A transform taking `const RelayInput&`
// fits too.
using RelayTransform = std::function<void(RelayInput& input, std::vector<RelayRecord>& out)>;

struct RelayCounters {
  std::uint64_t delivered = 0;   // input records delivered by the gate, over every attempt
  std::uint64_t emitted = 0;     // records sent, over every attempt
  std::uint64_t committed = 0;   // transactions committed
  std::uint64_t aborted = 0;     // transactions aborted (each followed by a rewind)
  std::uint64_t reopened = 0;    // output producers made again after Kafka fenced one
};

class Relay {
 public:
  // `notes`, when set, gets the member's notes (rebalances, fallbacks) and the relay's
  // (aborts and why).
  static std::expected<std::unique_ptr<Relay>, Error> open(const RelayOptions& opts, RelayTransform transform,
                                                           Names& names, HostObserver* notes = nullptr);
  ~Relay();  // aborts an open transaction, leaves the group (nothing committed after the last commit)
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // One round (see the file comment). Errors: fatal ones only.
  std::expected<void, Error> poll();
  // Commits the open transaction now (with the offsets). Errors: fatal ones only; an
  // abortable failure aborts, rewinds and returns {} (counted in counters().aborted).
  std::expected<void, Error> commit();

  const RelayCounters& counters() const { return counters_; }
  // The input member's health and the relay's counters, as published at the end of the
  // last poll() or commit(). Cheap, and safe to call from any thread while the owner polls
  // (causal/kafka/health.hpp).
  RelayHealth health() const;
  ConsumerHost& input() { return *input_; }
  // The current output producer: a new one after a re-open (see recover), so a reference
  // is good until the next poll() or commit().
  ProducerHost& output() { return *output_; }

 private:
  struct Bridge;
  Relay() = default;
  std::expected<void, Error> recover(const Error& why);
  // A failure a rewind cannot get past: the transaction aborted, `why` returned (with the
  // abort said), the relay stopped.
  std::expected<void, Error> stop(Error why);
  // After Kafka fenced the output producer: a new one with the same transactional id.
  std::expected<void, Error> reopen_output(const Error& fenced, const Error& why);
  static constexpr int kReopenAttempts = 3;  // making the new producer, on runtime errors
  // At most this many producers made again within kReopenWindow: another fatal error in it
  // ends the relay. Two, since independent faults can fence a producer twice in a minute
  // (a coordinator's failover, then an outage past the transaction timeout), while two
  // processes with one transactional id fence each other every few transactions.
  static constexpr std::size_t kReopensPerWindow = 2;
  static constexpr std::chrono::minutes kReopenWindow{1};
  std::expected<void, Error> emit();  // transforms and sends delivered_
  std::expected<void, Error> poll_round();    // poll() but the health it publishes after
  std::expected<void, Error> commit_round();  // commit() but the health it publishes after
  void publish_health();

  RelayOptions opts_;
  RelayTransform transform_;
  HostObserver* notes_ = nullptr;
  std::unique_ptr<Bridge> bridge_;
  std::unique_ptr<ProducerHost> output_;
  std::unique_ptr<ConsumerHost> input_;
  RelayCounters counters_;
  std::size_t in_transaction_ = 0;  // records sent in the open transaction
  std::size_t uncommitted_ = 0;     // records delivered since the last commit
  std::chrono::steady_clock::time_point transaction_started_{};
  std::chrono::steady_clock::time_point last_commit_{};  // of the last committed transaction
  // This poll's deliveries, for the transform: the first delivered_count_ of delivered_. The
  // slots stay between rounds, so that a key or value is copied into a string's existing
  // buffer rather than a new allocation per record; emitted_ likewise keeps its capacity.
  std::vector<RelayInput> delivered_;
  std::size_t delivered_count_ = 0;
  std::vector<RelayRecord> emitted_;
  Names* names_ = nullptr;              // Relay::open's, for a re-opened output
  std::deque<std::chrono::steady_clock::time_point> reopens_;  // the last kReopensPerWindow, oldest first
  mutable std::mutex health_mu_;
  RelayCounters published_;  // counters_ at the last publish_health(), guarded by health_mu_
};

}  // namespace causal::kafka

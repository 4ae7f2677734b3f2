// The producer host: produces records stamped as a real causal sender would
// (protocol.md, "The stamp"), using causal::Stamper.
//
//   - sender identity: fresh per run, "<prefix>-<16 hex digits>" (a restart is a new sender);
//     origin (sender, send number) on every record, send numbers from 1 over all sinks
//   - end-offset seeds: every sink partition (every partition of a sink topic, or the one
//     sink channel named) is seeded at open() with its end
//     offset (high watermark, read_uncommitted ListOffsets), so every stamp claims
//     (sink, end - 1): everything appended to the sinks before this run precedes its records
//   - own sends: offset claims from delivery reports; in transactional mode a sequence claim
//     for the latest unacknowledged send per sink (the Stamper does both)
//   - idempotent by default (enable.idempotence=true, acks=all). An idempotent sender claims
//     acknowledged sends only: records sent without waiting are concurrent with the sends
//     still in flight. ProducerOptions::wait_acks makes every send wait for its delivery
//     report, so each record claims every earlier one by offset.
//   - transactional with a transactional id: init at open(); begin(), commit() and abort()
//     flush every send first (so every send is acknowledged and claimed by offset before the
//     transaction ends, as Stamper::transaction_ended requires). Aborted records occupy real
//     offsets; claims on them are satisfied at consumers by bridging. After every abort a new
//     librdkafka client takes the transactional id back (renew: a new producer epoch, so
//     that nothing of the aborted transaction that reaches Kafka late can join the next one);
//     the sender stays the same.
//   - extra claims per record (OutRecord::extra) are joined into the stamp: the way to script
//     relayed claims, e.g. a sequence claim a relay would carry in its custody.
//
// The partition of a record without one is chosen before stamping (the stamp must name its
// sink), as librdkafka's default partitioner does: by the CRC32 of the key
// (consistent_random); with a null key, sticky: one partition, chosen at random among the
// available ones, for sticky.partitioning.linger.ms (librdkafka's default 10 ms), then
// another, so that unkeyed records go out in per-partition batches (0: a random partition
// per record).
//
// Delivery reports are served every kServeEvery sends, or at a send kServeAfter or more
// after the last serving, and at every flush, commit and abort.
//
// Thread-safety: none. Delivery reports are served from send()/flush()/commit() on the
// caller's thread, which is the thread that owns the Stamper.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/clock.hpp"
#include "causal/codec.hpp"
#include "causal/error.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/config.hpp"
#include "causal/names.hpp"
#include "causal/stamper.hpp"

namespace causal::kafka {

struct ProducerOptions {
  ConnectionOptions connection;
  std::string sender_prefix = "causal-produce";
  std::optional<std::string> sender;            // exact sender identity (tests); else prefix-hex
  std::optional<std::string> transactional_id;  // transactional mode when set
  std::vector<std::string> sink_topics;         // every partition is seeded at open()
  // Single-partition sinks (topic, partition): only that partition is seeded. A sink is a
  // channel the sender produces to; naming one partition keeps the seed from claiming the
  // topic's other partitions.
  std::vector<std::pair<std::string, std::int32_t>> sink_channels;
  bool wait_acks = false;                       // see the file comment
  bool stamp = true;                            // false: no causal.clock header (plain records)
  std::chrono::milliseconds timeout{30000};     // connect, seed, flush, commit
  std::vector<std::pair<std::string, std::string>> extra_defaults;
};

struct OutHeader {
  std::string_view name;
  std::optional<std::string_view> value;  // nullopt: a null-valued header
};

struct OutRecord {
  std::string_view topic;
  std::int32_t partition = -1;  // -1: the default partitioner
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::vector<OutHeader> headers;  // kept in order; causal.clock is appended last
  const Clock* extra = nullptr;    // joined into the stamp (its origin is ignored)
};

struct Produced {
  ChannelId channel;
  Offset offset;
  SeqNo seq;           // the record's send number (0 when not stamped)
  std::uint64_t user;  // the caller's tag given to send()
};

class ProducerHost {
 public:
  // Connects, checks that every sink topic exists, takes the end-offset seeds, and in
  // transactional mode runs init_transactions. Errors: Errc::runtime naming the broker/topic.
  static std::expected<std::unique_ptr<ProducerHost>, Error> open(const ProducerOptions& opts, Names& names);
  ~ProducerHost();  // flushes (bounded by the timeout), then destroys
  ProducerHost(const ProducerHost&) = delete;
  ProducerHost& operator=(const ProducerHost&) = delete;

  // REQUIRES: transactional; no transaction open.
  std::expected<void, Error> begin();
  // Flush, then commit or abort; Stamper::transaction_ended. REQUIRES: a transaction open.
  // A commit or abort that times out is resumed (librdkafka allows nothing else until it
  // completes), for up to kEndAttempts timeouts in all.
  std::expected<void, Error> commit();
  std::expected<void, Error> abort();
  // A consume-transform-produce commit (exactly-once): send `offsets` (with their metadata)
  // to the transaction for the consumer group `group` (KIP-447: the group's generation
  // fences a zombie) while the sends are still in flight, then flush and commit. An error the transaction must be aborted
  // for aborts it (the transaction is then closed). Empty `offsets`: a plain commit.
  std::expected<void, Error> commit(const rd_kafka_topic_partition_list_t* offsets,
                                    const rd_kafka_consumer_group_metadata_t* group);
  // Aborts the open transaction whatever its sends' state (a failed delivery included):
  // librdkafka purges what is queued; the stamper forgets the sends never acknowledged and
  // the failed delivery is cleared. Errors: a fatal producer error (fenced, ...); a new
  // client that could not take the transactional id back (after kRenewAttempts tries).
  // abort(), and a commit that had to abort, take it back likewise.
  std::expected<void, Error> abort_and_forget();
  bool in_transaction() const { return in_txn_; }
  // The last commit or abort timed out on every attempt: librdkafka still has it in progress,
  // so its outcome is unknown (the coordinator may have it and complete it).
  bool end_unknown() const { return end_unknown_; }
  // Why the last commit(offsets, group) failed on its offsets (UNKNOWN_MEMBER_ID: the group
  // coordinator does not know the member whose generation they carry);
  // RD_KAFKA_RESP_ERR_NO_ERROR when it did not fail on them.
  rd_kafka_resp_err_t offsets_refusal() const { return offsets_refusal_; }
  // The producer's fatal error is a fencing (another producer took the transactional id, or
  // Kafka aborted a transaction open past transaction.timeout.ms): only a new producer goes on.
  bool fenced() const;
  // The producer has a fatal error, a fencing or another (librdkafka's rd_kafka_fatal_error):
  // it can send, commit or abort nothing more.
  bool fatal() const;

  // Stamps and produces one record. REQUIRES (transactional): a transaction is open.
  // Errors: an earlier failed delivery, an unknown topic, a full queue that does not drain
  // within the timeout; a partition the topic does not have is a usage error (the record's).
  std::expected<SeqNo, Error> send(const OutRecord& r, std::uint64_t user = 0);
  // Waits for every delivery report.
  std::expected<void, Error> flush();
  // Waits (up to the timeout) for every outstanding delivery report, whatever they say; for a
  // caller that stopped on an error, so that every record that reached Kafka is counted
  // (delivered(), on_delivery) before it reports. Outside a transaction only.
  void drain();

  // Called from send/flush/commit/abort for each delivery report, in report order.
  std::function<void(const Produced&)> on_delivery;

  const std::string& sender_name() const { return sender_name_; }
  Stamper& stamper() { return *stamper_; }
  std::uint64_t sent() const { return sent_; }
  std::uint64_t delivered() const { return delivered_; }
  std::uint64_t commits() const { return commits_; }
  std::uint64_t aborts() const { return aborts_; }
  // Clients made again after an abort to take the transactional id back (renew).
  std::uint64_t renewals() const { return renewals_; }
  // The end offset each sink partition was seeded with.
  const std::vector<std::pair<ChannelId, Offset>>& seeds() const { return seeds_; }

 private:
  ProducerHost(const ProducerOptions& opts, Names& names) : opts_(opts), names_(names) {}
  static void dr_cb(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque);
  std::expected<void, Error> check_failed();
  std::expected<void, Error> end_transaction(bool commit);
  std::expected<HandlePtr, Error> make_client();  // the librdkafka producer, opaque this
  std::expected<void, Error> init_transactions(rd_kafka_t* rk);
  // After an abort: a new client takes the transactional id back; see producer_host.cpp.
  std::expected<void, Error> renew();
  static constexpr int kRenewAttempts = 3;  // on runtime errors, each bounded by the timeout
  static constexpr int kEndAttempts = 4;    // calls of a commit or abort that time out
  struct Topic {
    rd_kafka_topic_t* rkt = nullptr;
    int partitions = 0;
    TopicId id = 0;
    std::int32_t sticky = -1;  // the partition of null-keyed records, since sticky_since
    std::chrono::steady_clock::time_point sticky_since{};
  };
  std::int32_t sticky_partition(Topic& topic, std::chrono::steady_clock::time_point now);
  // Reports are served in batches: rd_kafka_poll takes the queue's lock and reads the clock.
  static constexpr unsigned kServeEvery = 64;
  static constexpr std::chrono::milliseconds kServeAfter{1};
  // flush() waits unflushed while more records than this are outstanding (see there).
  static constexpr int kFlushTail = 100;
  std::expected<Topic*, Error> topic(std::string_view name);

  ProducerOptions opts_;
  Names& names_;
  ClientLog log_;
  HandlePtr rk_;
  std::string brokers_;
  std::string sender_name_;
  std::unique_ptr<Stamper> stamper_;
  // By name; looked up without making a string of the name (most sends name a topic of
  // more than std::string's 15 inline bytes, which a lookup would otherwise allocate for).
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Topic, NameHash, std::equal_to<>> topics_;
  struct Pending {
    ChannelId sink;
    SeqNo seq;  // 0 when not stamped
    std::uint64_t user;
  };
  std::vector<Pending> pending_;  // by send index - 1 (the delivery report's opaque)
  std::uint64_t sent_ = 0, delivered_ = 0, commits_ = 0, aborts_ = 0, renewals_ = 0;
  bool in_txn_ = false;
  bool end_unknown_ = false;
  rd_kafka_resp_err_t offsets_refusal_ = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::optional<Error> failed_;
  std::vector<std::byte> header_buf_;
  ClockEncoder encoder_;  // the stamps' encoding, its offset claims' part kept between sends
  std::chrono::milliseconds sticky_linger_{0};
  unsigned unserved_ = 0;  // sends since delivery reports were last served
  std::chrono::steady_clock::time_point last_served_{};
  std::vector<std::pair<ChannelId, Offset>> seeds_;
};

// Random lowercase hex digits from std::random_device.
std::string random_hex(std::size_t digits);

}  // namespace causal::kafka

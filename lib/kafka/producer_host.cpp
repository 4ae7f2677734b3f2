#include "causal/kafka/producer_host.hpp"
#include "list_offsets.hpp"

#include "causal/excerpt.hpp"
#include "causal/kafka/authorization.hpp"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <thread>

#include <fmt/core.h>

#include "causal/codec.hpp"
#include "causal/kafka/consumer_host.hpp"

namespace causal::kafka {

std::string random_hex(std::size_t digits) {
  std::random_device rd;
  std::string out;
  static constexpr char kHex[] = "0123456789abcdef";
  while (out.size() < digits) {
    auto v = rd();
    for (int i = 0; i < 8 && out.size() < digits; ++i, v >>= 4) out.push_back(kHex[v & 15]);
  }
  return out;
}

namespace {

std::string txn_error_text(rd_kafka_error_t* e) {
  std::string s = rd_kafka_error_string(e);
  // librdkafka says "fenced by a newer instance" also when no other producer took the id:
  // Kafka aborts a transaction open past transaction.timeout.ms and fences its producer.
  if (rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR__FENCED) {
    s += " (fatal: another producer took the transactional id, or the transaction stayed open longer than "
         "transaction.timeout.ms and Kafka aborted it)";
    return s;
  }
  if (rd_kafka_error_is_fatal(e)) s += " (fatal)";
  else if (rd_kafka_error_txn_requires_abort(e)) s += " (the transaction must be aborted)";
  else if (rd_kafka_error_is_retriable(e)) s += " (retriable)";
  return s;
}

// Commits (or aborts) the open transaction, and resumes the call while it times out: a call
// that timed out is still in progress in librdkafka, which refuses any other transactional
// call until it completes ("Conflicting commit_transaction API call is already in progress"),
// so an abort cannot take a commit's place, and the commit may well have reached the
// coordinator. At most `attempts` calls, each of `timeout_ms`. Returns the last call's error
// (the caller destroys it), or null; `timed_out`: it still timed out on the last one, its
// outcome unknown.
rd_kafka_error_t* end_resumed(rd_kafka_t* rk, bool commit, int timeout_ms, int attempts, bool& timed_out) {
  for (int attempt = 1;; ++attempt) {
    rd_kafka_error_t* e =
        commit ? rd_kafka_commit_transaction(rk, timeout_ms) : rd_kafka_abort_transaction(rk, timeout_ms);
    timed_out = e && rd_kafka_error_is_retriable(e) && !rd_kafka_error_is_fatal(e) &&
                !rd_kafka_error_txn_requires_abort(e);
    if (!timed_out || attempt == attempts) return e;
    rd_kafka_error_destroy(e);
  }
}

}  // namespace

void ProducerHost::dr_cb(rd_kafka_t* /*rk*/, const rd_kafka_message_t* m, void* opaque) {
  auto* self = static_cast<ProducerHost*>(opaque);
  auto index = reinterpret_cast<std::uintptr_t>(m->_private);  // send index, 1-based
  const Pending& p = self->pending_[index - 1];
  SeqNo seq = p.seq;
  if (m->err) {
    if (!self->failed_) {
      auto no = denied(m->err, "Write", "topic", rd_kafka_topic_name(m->rkt));
      // An old epoch in a transaction: Kafka aborted it (open past transaction.timeout.ms) or
      // another producer took the transactional id; said, as the commit's fencing is.
      const bool epoch = m->err == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH ||
                         m->err == RD_KAFKA_RESP_ERR_PRODUCER_FENCED || m->err == RD_KAFKA_RESP_ERR__FENCED;
      const std::string why =
          epoch && self->opts_.transactional_id
              ? fmt::format(" (the transaction of transactional id {} was ended by Kafka: it stayed open longer than "
                            "transaction.timeout.ms, or another producer took the id)",
                            quoted_excerpt(*self->opts_.transactional_id))
              : std::string();
      self->failed_ = runtime_error(no ? *no
                                       : fmt::format("{}: delivery failed (brokers {}): {}{}",
                                                     self->names_.channel_text(p.sink), self->brokers_,
                                                     rd_kafka_err2str(m->err), why));
    }
    return;
  }
  ++self->delivered_;
  if (self->opts_.stamp) self->stamper_->acknowledged(p.sink, seq, m->offset);
  if (self->on_delivery) self->on_delivery(Produced{p.sink, m->offset, seq, p.user});
}

std::expected<HandlePtr, Error> ProducerHost::make_client() {
  const ProducerOptions& opts = opts_;
  std::vector<std::pair<std::string, std::string>> defaults = {
      {"client.id", "causal-produce"},
      {"enable.idempotence", "true"},
      {"acks", "all"},
      {"linger.ms", "5"},
      {"message.timeout.ms", std::to_string(opts.timeout.count())},
  };
  if (opts.transactional_id) {
    defaults.emplace_back("transactional.id", *opts.transactional_id);
    // librdkafka refuses message.timeout.ms above transaction.timeout.ms.
    defaults.emplace_back("transaction.timeout.ms", std::to_string(std::max<std::int64_t>(60000, opts.timeout.count())));
    // rd_kafka_send_offsets_to_transaction can wait past its timeout for a group coordinator
    // that librdkafka still has cached after the coordinator's node left the cluster and came
    // back: its request is only looked at again when some broker connection goes up or down
    // (librdkafka issues #5456 and #5511, open in 2.14.2). With nothing else happening, the
    // first such change is the broker closing an idle connection, after Kafka's
    // connections.max.idle.ms (10 minutes), a relay's partitions unread all that time.
    // Closing idle connections ourselves after 10 s bounds that wait; an idle connection is
    // cheap to open again.
    defaults.emplace_back("connections.max.idle.ms", "10000");
  }
  for (const auto& kv : opts.extra_defaults) defaults.push_back(kv);
  auto conf = make_conf(opts.connection, defaults);
  if (!conf) return std::unexpected(conf.error());
  rd_kafka_conf_set_opaque(conf->get(), this);
  rd_kafka_conf_set_dr_msg_cb(conf->get(), &ProducerHost::dr_cb);
  // librdkafka's log and error callbacks go to log_ (quoted in errors), not raw to stderr.
  rd_kafka_conf_set_log_cb(conf->get(), [](const rd_kafka_t* k, int level, const char* fac, const char* buf) {
    if (auto* self = static_cast<ProducerHost*>(rd_kafka_opaque(k))) handle_client_log(k, level, fac, buf, self->log_);
  });
  rd_kafka_conf_set_error_cb(conf->get(), [](rd_kafka_t*, int e, const char* reason, void* opaque) {
    handle_client_error(e, reason, static_cast<ProducerHost*>(opaque)->log_);
  });
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf->get(), err, sizeof err);
  if (!rk) return std::unexpected(client_refused("producer", err));
  (void)conf->release();
  HandlePtr client(rk);
  // The partitioner's stickiness for null keys, as configured (librdkafka's default 10 ms, or a -X).
  char linger[32];
  std::size_t linger_size = sizeof linger;
  if (rd_kafka_conf_get(rd_kafka_conf(rk), "sticky.partitioning.linger.ms", linger, &linger_size) == RD_KAFKA_CONF_OK) {
    sticky_linger_ = std::chrono::milliseconds(std::atoll(linger));
  }
  return client;
}

std::expected<void, Error> ProducerHost::init_transactions(rd_kafka_t* rk) {
  if (rd_kafka_error_t* e = rd_kafka_init_transactions(rk, static_cast<int>(opts_.timeout.count()))) {
    std::string text = txn_error_text(e);
    auto no = denied(rd_kafka_error_code(e), "Write", "transactional id", *opts_.transactional_id);
    rd_kafka_error_destroy(e);
    if (no) return std::unexpected(runtime_error(*no));
    return std::unexpected(runtime_error(
        fmt::format("init_transactions for transactional id '{}' on {}: {}", *opts_.transactional_id, brokers_, text)));
  }
  return {};
}

// librdkafka keeps one producer epoch for every transaction (it has no transactions v2,
// KIP-890): a request of an aborted transaction that reaches Kafka late (a produce delayed
// past the abort; an abort that never reached the coordinator) can then join the next
// transaction and be committed with it. Kafka fences what an older epoch sends, so
// after every abort a new client takes the transactional id back (InitProducerId: Kafka
// aborts whatever of the id is still open and bumps the epoch) before the next transaction.
// The stamper stays: the sender, its sequence and its claims go on, the aborted sends
// already forgotten.
std::expected<void, Error> ProducerHost::renew() {
  if (!opts_.transactional_id) return {};
  Error last;
  for (int attempt = 1; attempt <= kRenewAttempts; ++attempt) {
    auto client = make_client();
    if (client) {
      auto init = init_transactions(client->get());
      if (init) {
        // The old client goes first, its topic handles with it; it has nothing in flight
        // (the abort waited for it), and a report it still served would find pending_ whole.
        for (auto& [name, t] : topics_) {
          if (t.rkt) rd_kafka_topic_destroy(t.rkt);
        }
        topics_.clear();
        rk_ = std::move(*client);
        pending_.clear();
        unserved_ = 0;
        failed_.reset();
        ++renewals_;
        return {};
      }
      last = init.error();
    } else {
      last = client.error();
    }
    if (last.code != Errc::runtime) break;
  }
  return std::unexpected(Error{last.code, fmt::format("the transaction was aborted, but a new producer could not take "
                                                      "transactional id {} back: {}",
                                                      quoted_excerpt(*opts_.transactional_id), last.message)});
}

std::expected<std::unique_ptr<ProducerHost>, Error> ProducerHost::open(const ProducerOptions& opts, Names& names) {
  std::unique_ptr<ProducerHost> h(new ProducerHost(opts, names));
  h->brokers_ = brokers_in_effect(opts.connection);
  auto client = h->make_client();
  if (!client) return std::unexpected(client.error());
  h->rk_ = std::move(*client);
  rd_kafka_t* rk = h->rk_.get();

  h->sender_name_ = opts.sender ? *opts.sender : fmt::format("{}-{}", opts.sender_prefix, random_hex(16));
  if (!valid_sender_name(h->sender_name_)) {
    return std::unexpected(usage_error(
        fmt::format("sender identity {} is not 1..255 bytes of UTF-8", quoted_excerpt(h->sender_name_))));
  }
  SenderId self = names.sender(h->sender_name_);
  h->stamper_ = std::make_unique<Stamper>(
      self, opts.transactional_id ? Stamper::Mode::transactional : Stamper::Mode::idempotent, nullptr);

  // Seeds: the high watermark of every sink partition, in one read_uncommitted ListOffsets
  // round (one request per leader).
  int tmo = static_cast<int>(opts.timeout.count());
  std::vector<std::pair<std::string, std::int32_t>> to_seed;
  for (const auto& t : opts.sink_topics) {
    auto topic = h->topic(t);
    if (!topic) return std::unexpected(topic.error());
    for (int p = 0; p < (*topic)->partitions; ++p) to_seed.emplace_back(t, p);
  }
  for (const auto& [t, p] : opts.sink_channels) {
    auto topic = h->topic(t);
    if (!topic) return std::unexpected(topic.error());
    if (p < 0 || p >= (*topic)->partitions) {
      return std::unexpected(runtime_error(fmt::format("topic '{}' has {} partition(s); partition {} does not exist", t,
                                                       (*topic)->partitions, p)));
    }
    to_seed.emplace_back(t, p);
  }
  if (opts.stamp && !to_seed.empty()) {
    // Each partition once, in the order named: ListOffsets refuses a list that names one twice.
    ListPtr ends(rd_kafka_topic_partition_list_new(static_cast<int>(to_seed.size())));
    for (const auto& [t, p] : to_seed) {
      if (!rd_kafka_topic_partition_list_find(ends.get(), t.c_str(), p)) {
        rd_kafka_topic_partition_list_add(ends.get(), t.c_str(), p)->offset = RD_KAFKA_OFFSET_END;
      }
    }
    const auto listed = list_offsets(rk, ends.get(), Isolation::read_uncommitted, tmo);
    for (int i = 0; i < ends->cnt; ++i) {
      const auto& e = ends->elems[i];
      if (auto bad = listed ? listed : e.err) {
        return std::unexpected(runtime_error(fmt::format("{}/{} on {}: cannot read the end offset for the seed: {}",
                                                         e.topic, e.partition, h->brokers_, rd_kafka_err2str(bad))));
      }
      ChannelId c = names.channel(e.topic, e.partition);
      h->stamper_->seed(c, e.offset);
      h->seeds_.emplace_back(c, e.offset);
    }
  }
  if (opts.transactional_id) {
    if (auto init = h->init_transactions(rk); !init) return std::unexpected(init.error());
  }
  return h;
}

bool ProducerHost::fenced() const {
  const rd_kafka_resp_err_t e = rd_kafka_fatal_error(rk_.get(), nullptr, 0);
  return e == RD_KAFKA_RESP_ERR__FENCED || e == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
         e == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

bool ProducerHost::fatal() const { return rd_kafka_fatal_error(rk_.get(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR; }

ProducerHost::~ProducerHost() {
  if (rk_) {
    if (in_txn_) {
      if (rd_kafka_error_t* e = rd_kafka_abort_transaction(rk_.get(), static_cast<int>(opts_.timeout.count()))) {
        rd_kafka_error_destroy(e);
      }
    }
    rd_kafka_flush(rk_.get(), static_cast<int>(opts_.timeout.count()));
  }
  for (auto& [name, t] : topics_) {
    if (t.rkt) rd_kafka_topic_destroy(t.rkt);
  }
}

std::expected<ProducerHost::Topic*, Error> ProducerHost::topic(std::string_view name) {
  auto it = topics_.find(name);
  if (it != topics_.end()) return &it->second;
  std::string n(name);
  if (!valid_topic_name(n)) {
    return std::unexpected(usage_error(invalid_topic_text(n)));
  }
  auto count = partition_count(rk_.get(), n, opts_.timeout, brokers_);
  if (!count) {
    auto e = count.error();
    e.message = log_.with_cause(std::move(e.message));
    return std::unexpected(e);
  }
  Topic t;
  t.rkt = rd_kafka_topic_new(rk_.get(), n.c_str(), nullptr);
  t.partitions = *count;
  t.id = names_.topic(n);
  return &topics_.emplace(n, t).first->second;
}

std::expected<void, Error> ProducerHost::check_failed() {
  // A fatal error first: librdkafka then purges what is queued, and the purge's delivery
  // reports ("Purged in queue") are its consequence, not its cause.
  if (char fatal[512]; const auto err = rd_kafka_fatal_error(rk_.get(), fatal, sizeof fatal)) {
    // The idempotent producer's first request (InitProducerId) needs IdempotentWrite on the
    // cluster, which Kafka 2.8 and later also grant to Write on any topic.
    if (auto no = denied(err, "IdempotentWrite", "cluster", "kafka-cluster")) {
      return std::unexpected(runtime_error(*no + " (or Write on some topic, Kafka 2.8 and later)"));
    }
    return std::unexpected(runtime_error(fmt::format("fatal producer error (brokers {}): {}", brokers_, fatal)));
  }
  if (failed_) return std::unexpected(*failed_);
  return {};
}

std::expected<void, Error> ProducerHost::begin() {
  if (rd_kafka_error_t* e = rd_kafka_begin_transaction(rk_.get())) {
    std::string text = txn_error_text(e);
    rd_kafka_error_destroy(e);
    return std::unexpected(runtime_error(fmt::format("begin_transaction: {}", text)));
  }
  in_txn_ = true;
  return {};
}

std::expected<void, Error> ProducerHost::flush() {
  auto deadline = std::chrono::steady_clock::now() + opts_.timeout;
  while (const int outstanding = rd_kafka_outq_len(rk_.get())) {
    // While many records are outstanding, the reports are waited for without flushing:
    // rd_kafka_flush makes every queued record ready at once (linger.ms dropped), and a
    // partition with its five produce requests in flight (the idempotent producer's most)
    // then has its broker thread poll the socket without waiting, a busy loop that lasts as
    // long as the backlog does and sends the backlog in requests as small as a freed slot
    // finds ready. Unflushed, records wait out linger.ms and go in full batches. The last
    // few are flushed, not kept waiting for linger.ms.
    if (outstanding > kFlushTail) {
      rd_kafka_poll(rk_.get(), 100);
    } else {
      rd_kafka_flush(rk_.get(), 100);
    }
    if (auto r = check_failed(); !r) return r;
    if (std::chrono::steady_clock::now() > deadline) {
      return std::unexpected(runtime_error(fmt::format("{} record(s) not delivered within {} ms (brokers {})",
                                                       rd_kafka_outq_len(rk_.get()), opts_.timeout.count(),
                                                       brokers_)));
    }
  }
  rd_kafka_poll(rk_.get(), 0);
  // Every report is in: the send indexes start again, so that a long-running sender's
  // bookkeeping stays bounded.
  if (rd_kafka_outq_len(rk_.get()) == 0) pending_.clear();
  return check_failed();
}

void ProducerHost::drain() {
  rd_kafka_flush(rk_.get(), static_cast<int>(opts_.timeout.count()));  // serves the reports
  rd_kafka_poll(rk_.get(), 0);
}

std::expected<void, Error> ProducerHost::end_transaction(bool commit) {
  // Flush first: every send acknowledged (and claimed by offset) before the end, which is
  // what Stamper::transaction_ended requires; aborted sends keep their real offsets.
  if (auto r = flush(); !r) return r;
  int tmo = static_cast<int>(opts_.timeout.count());
  // A commit or abort that times out (its coordinator away: a node restarting, a network cut)
  // is resumed, for up to kEndAttempts timeouts in all (end_resumed).
  rd_kafka_error_t* e = end_resumed(rk_.get(), commit, tmo, kEndAttempts, end_unknown_);
  if (e) {
    std::string text = txn_error_text(e);
    bool abortable = rd_kafka_error_txn_requires_abort(e);
    rd_kafka_error_destroy(e);
    if (commit && abortable) {
      if (rd_kafka_error_t* e2 = rd_kafka_abort_transaction(rk_.get(), tmo)) {
        rd_kafka_error_destroy(e2);
      } else {
        ++aborts_;
        text += "; the transaction was aborted";
        if (auto r = renew(); !r) text += "; " + r.error().message;
      }
      in_txn_ = false;
    }
    return std::unexpected(runtime_error(fmt::format("{}_transaction for transactional id {}: {}",
                                                     commit ? "commit" : "abort",
                                                     quoted_excerpt(opts_.transactional_id.value_or("")), text)));
  }
  in_txn_ = false;
  if (opts_.stamp) stamper_->transaction_ended();
  ++(commit ? commits_ : aborts_);
  if (!commit) return renew();
  return {};
}

std::expected<void, Error> ProducerHost::commit() { return end_transaction(true); }

std::expected<void, Error> ProducerHost::commit(const rd_kafka_topic_partition_list_t* offsets,
                                                const rd_kafka_consumer_group_metadata_t* group) {
  offsets_refusal_ = RD_KAFKA_RESP_ERR_NO_ERROR;
  if (offsets && offsets->cnt > 0) {
    // Not flushed first: the offsets' round trips to the group coordinator overlap the
    // sends' acknowledgements, which end_transaction waits for before the commit. A send
    // that fails meanwhile fails the commit, and the offsets are aborted with it.
    if (auto r = check_failed(); !r) return r;
    rd_kafka_error_t* e = rd_kafka_send_offsets_to_transaction(rk_.get(), offsets, group,
                                                               static_cast<int>(opts_.timeout.count()));
    if (e) {
      std::string text = txn_error_text(e);
      const bool abortable = rd_kafka_error_txn_requires_abort(e);
      offsets_refusal_ = rd_kafka_error_code(e);
      rd_kafka_error_destroy(e);
      if (abortable) (void)abort_and_forget();
      return std::unexpected(runtime_error(fmt::format("send_offsets_to_transaction: {}", text)));
    }
  }
  return end_transaction(true);
}

std::expected<void, Error> ProducerHost::abort_and_forget() {
  if (!in_txn_) {
    failed_.reset();
    return check_failed();  // fatal errors only
  }
  // A broker that is away (restarting, a coordinator moving) makes the abort time out with a
  // retriable error: it is resumed, for up to kEndAttempts timeouts, before giving up.
  bool timed_out = false;
  if (rd_kafka_error_t* e =
          end_resumed(rk_.get(), false, static_cast<int>(opts_.timeout.count()), kEndAttempts, timed_out)) {
    std::string text = txn_error_text(e);
    rd_kafka_error_destroy(e);
    return std::unexpected(runtime_error(fmt::format("abort_transaction: {}", text)));
  }
  in_txn_ = false;
  // The purged sends' delivery reports (errors) are served now, then forgotten.
  rd_kafka_flush(rk_.get(), static_cast<int>(opts_.timeout.count()));
  rd_kafka_poll(rk_.get(), 0);
  failed_.reset();
  if (rd_kafka_outq_len(rk_.get()) == 0) pending_.clear();
  if (opts_.stamp) stamper_->transaction_abandoned();
  ++aborts_;
  if (auto c = check_failed(); !c) return c;
  return renew();
}
std::expected<void, Error> ProducerHost::abort() { return end_transaction(false); }

std::expected<SeqNo, Error> ProducerHost::send(const OutRecord& r, std::uint64_t user) {
  if (auto c = check_failed(); !c) return std::unexpected(c.error());
  auto t = topic(r.topic);
  if (!t) return std::unexpected(t.error());
  Topic& topic = **t;
  std::int32_t partition = r.partition;
  const auto now = std::chrono::steady_clock::now();
  if (partition < 0) {
    partition = r.key || sticky_linger_.count() <= 0 ? rd_kafka_msg_partitioner_consistent_random(
                                                           topic.rkt, r.key ? r.key->data() : nullptr,
                                                           r.key ? r.key->size() : 0, topic.partitions, nullptr, nullptr)
                                                     : sticky_partition(topic, now);
  } else if (partition >= topic.partitions) {
    // The record's own mistake, not the cluster's: a usage error, for the caller to place.
    return std::unexpected(usage_error(fmt::format("topic '{}' has {} partition(s); partition {} does not exist",
                                                   r.topic, topic.partitions, partition)));
  }
  ChannelId sink = names_.channel(topic.id, partition);

  rd_kafka_headers_t* hdrs = rd_kafka_headers_new(r.headers.size() + 1);
  for (const auto& hd : r.headers) {
    rd_kafka_header_add(hdrs, hd.name.data(), static_cast<ssize_t>(hd.name.size()),
                        hd.value ? hd.value->data() : nullptr, hd.value ? static_cast<ssize_t>(hd.value->size()) : 0);
  }
  SeqNo seq = 0;
  if (opts_.stamp) {
    Clock stamp = stamper_->stamp_send(sink);
    seq = stamp.origin ? stamp.origin->seq : 0;
    if (r.extra) stamp.join(*r.extra);
    header_buf_.clear();
    encoder_.encode(stamp, names_, header_buf_);
    rd_kafka_header_add(hdrs, kClockHeader.data(), static_cast<ssize_t>(kClockHeader.size()), header_buf_.data(),
                        static_cast<ssize_t>(header_buf_.size()));
  }
  pending_.push_back(Pending{sink, seq, user});
  auto index = static_cast<std::uintptr_t>(pending_.size());
  ++sent_;
  const auto deadline = now + opts_.timeout;
  void* key = r.key ? const_cast<char*>(r.key->data()) : nullptr;
  std::size_t key_len = r.key ? r.key->size() : 0;
  void* value = r.value ? const_cast<char*>(r.value->data()) : nullptr;
  std::size_t value_len = r.value ? r.value->size() : 0;
  for (;;) {
    rd_kafka_resp_err_t e = rd_kafka_producev(
        rk_.get(), RD_KAFKA_V_RKT(topic.rkt), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE(value, value_len),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(hdrs),
        RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(index)), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
    if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_poll(rk_.get(), 50);
      if (auto c = check_failed(); !c) {
        rd_kafka_headers_destroy(hdrs);
        return std::unexpected(c.error());
      }
      continue;
    }
    rd_kafka_headers_destroy(hdrs);
    return std::unexpected(runtime_error(
        fmt::format("{}/{}: produce failed (brokers {}): {}", r.topic, partition, brokers_, rd_kafka_err2str(e))));
  }
  if (opts_.wait_acks) {
    if (auto f = flush(); !f) return std::unexpected(f.error());
  } else if (++unserved_ >= kServeEvery || now - last_served_ >= kServeAfter) {
    rd_kafka_poll(rk_.get(), 0);
    unserved_ = 0;
    last_served_ = now;
  }
  return seq;
}

std::int32_t ProducerHost::sticky_partition(Topic& topic, std::chrono::steady_clock::time_point now) {
  if (topic.sticky < 0 || now - topic.sticky_since >= sticky_linger_) {
    // As librdkafka's own sticky partitioner: a random available partition.
    topic.sticky = rd_kafka_msg_partitioner_random(topic.rkt, nullptr, 0, topic.partitions, nullptr, nullptr);
    topic.sticky_since = now;
  }
  return topic.sticky;
}

}  // namespace causal::kafka

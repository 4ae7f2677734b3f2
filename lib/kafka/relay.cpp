#include "causal/kafka/relay.hpp"

#include <fmt/core.h>

#include "causal/transitions.hpp"
#include "consumer_host_impl.hpp"

namespace causal::kafka {

// The member's observer: hands deliveries to the transform and the producer, keeps the
// stamper on the current gate, passes notes on.
struct Relay::Bridge : HostObserver {
  Relay* relay = nullptr;

  void delivered(const Delivery& d, const rd_kafka_message_t& msg) override {
    Relay& r = *relay;
    ++r.counters_.delivered;
    if (r.uncommitted_++ == 0 && r.in_transaction_ == 0) r.transaction_started_ = std::chrono::steady_clock::now();
    if (r.delivered_count_ == r.delivered_.size()) r.delivered_.emplace_back();
    RelayInput& in = r.delivered_[r.delivered_count_++];
    in.channel = d.channel;
    in.offset = d.offset;
    in.timestamp = rd_kafka_message_timestamp(&msg, nullptr);
    copy_into(in.key, msg.key, msg.key_len);
    copy_into(in.value, msg.payload, msg.len);
  }
  // Into the slot's buffer when it has one (no allocation once it is large enough).
  static void copy_into(std::optional<std::string>& slot, const void* data, std::size_t size) {
    if (!data) {
      slot.reset();
    } else if (slot) {
      slot->assign(static_cast<const char*>(data), size);
    } else {
      slot.emplace(static_cast<const char*>(data), size);
    }
  }
  void gate_replaced(const Gate&, const Gate& new_gate) override {
    // What the old gate knew stays claimed by later records (causal/transitions.hpp).
    carry_into_generation(relay->output_->stamper(), &new_gate);
  }
  void note(std::string_view text) override {
    if (relay->notes_) relay->notes_->note(text);
  }
  void lookup(const LookupReport& rep) override { note(rep.text); }
  void failed_closed(const HeaderFailure& f) override { note(f.message); }
};

std::expected<std::unique_ptr<Relay>, Error> Relay::open(const RelayOptions& opts, RelayTransform transform,
                                                         Names& names, HostObserver* notes) {
  if (!opts.output.transactional_id || opts.output.transactional_id->empty()) {
    return std::unexpected(usage_error("a relay needs a transactional id"));
  }
  std::unique_ptr<Relay> r(new Relay());
  r->opts_ = opts;
  r->transform_ = std::move(transform);
  r->notes_ = notes;
  r->names_ = &names;
  r->bridge_ = std::make_unique<Bridge>();
  r->bridge_->relay = r.get();
  // Every output record carries a stamp, often longer than the record (topic names and
  // sender identities, much the same from one record to the next): lz4 takes most of those
  // bytes off what the brokers store and replicate, for little CPU. First among the output's
  // defaults, so that the caller's own extra_defaults and properties, set after it, win
  // (compression.type=none turns it off).
  auto& defaults = r->opts_.output.extra_defaults;
  defaults.insert(defaults.begin(), {"compression.type", "lz4"});
  auto out = ProducerHost::open(r->opts_.output, names);
  if (!out) return std::unexpected(out.error());
  r->output_ = std::move(*out);
  ConsumerOptions in = opts.input;
  in.commit_interval = std::chrono::milliseconds(0);  // commits go through the transactions
  in.commit_on_close = false;                         // an open transaction is aborted, not committed
  auto member = ConsumerHost::join(in, names, r->bridge_.get());
  if (!member) return std::unexpected(member.error());
  r->input_ = std::move(*member);
  r->output_->stamper().set_gate(&r->input_->gate());
  Relay* self = r.get();
  r->input_->impl_->commit_hook = [self](const rd_kafka_topic_partition_list_t* offsets) -> std::expected<void, Error> {
    const bool has_offsets = offsets && offsets->cnt > 0;
    if (!self->output_->in_transaction()) {
      if (!has_offsets) return {};
      if (auto b = self->output_->begin(); !b) return b;
    }
    rd_kafka_consumer_group_metadata_t* group = rd_kafka_consumer_group_metadata(self->input_->impl_->rk.get());
    auto c = self->output_->commit(offsets, group);
    rd_kafka_consumer_group_metadata_destroy(group);
    if (!c) {
      self->input_->impl_->commit_refused(self->output_->offsets_refusal());
      return c;
    }
    ++self->counters_.committed;
    self->last_commit_ = std::chrono::steady_clock::now();
    self->in_transaction_ = 0;
    self->uncommitted_ = 0;
    return {};
  };
  return r;
}

Relay::~Relay() {
  if (output_) (void)output_->abort_and_forget();
  input_.reset();  // leaves the group; commits nothing (commit_on_close is off)
}

namespace {
// A buffer the transform moved out of its input comes back to the input's slot once its
// record is sent, for the next round's copy (copy_into) to reuse.
void reclaim(std::optional<std::string>& slot, std::optional<std::string>& sent) {
  if (sent && (!slot || slot->capacity() < sent->capacity())) slot.swap(sent);
}
}  // namespace

std::expected<void, Error> Relay::emit() {
  for (std::size_t i = 0; i < delivered_count_; ++i) {
    RelayInput& in = delivered_[i];
    emitted_.clear();
    transform_(in, emitted_);
    for (auto& rec : emitted_) {
      if (!output_->in_transaction()) {
        if (auto b = output_->begin(); !b) return b;
      }
      OutRecord o;
      o.topic = rec.topic;
      o.partition = rec.partition;
      if (rec.key) o.key = *rec.key;
      if (rec.value) o.value = *rec.value;
      if (auto sent = output_->send(o); !sent) return std::unexpected(sent.error());
      ++in_transaction_;
      ++counters_.emitted;
      reclaim(in.key, rec.key);
      reclaim(in.value, rec.value);
    }
  }
  delivered_count_ = 0;
  return {};
}

std::expected<void, Error> Relay::recover(const Error& why) {
  delivered_count_ = 0;
  // The abort failed. With a fatal producer error (fenced, or another error librdkafka calls
  // fatal, such as an abort refused as INVALID_TXN_STATE after a delivery timed out during a
  // leader's failover), the producer can do nothing more: a new one takes the transactional
  // id back (reopen_output), which makes Kafka abort what the old one left open. Otherwise
  // (the abort timed out, the brokers away) the relay stops, and the cause that led here is
  // said with it (a note saying "rewinding" would not be true).
  if (auto a = output_->abort_and_forget(); !a) {
    if (!output_->fatal()) {
      return std::unexpected(Error{a.error().code, fmt::format("{}; it was aborting the transaction after: {}",
                                                               a.error().message, why.message)});
    }
    if (auto r = reopen_output(a.error(), why); !r) return r;
  } else if (notes_) {
    notes_->note(fmt::format("transaction aborted ({}); rewinding to the committed offsets", why.message));
  }
  ++counters_.aborted;
  in_transaction_ = 0;
  uncommitted_ = 0;
  // Reading the committed offsets needs the group coordinator: while the brokers are away
  // this fails, and the member's next poll starts the generation again (generation_pending;
  // meanwhile the gate has no partition, so nothing is delivered).
  if (auto r = input_->impl_->rewind(); !r) {
    if (notes_) notes_->note(fmt::format("rewind failed ({}); trying again", r.error().message));
    input_->impl_->generation_pending = true;
  }
  return {};
}

// Kafka fences a producer whose transaction stayed open past transaction.timeout.ms (a
// broker outage that long, say) as it does one whose id another producer took. Kafka Streams
// answers both by making the producer again; so does the relay, kReopensPerWindow times in
// kReopenWindow: fenced more often than that means another live process uses the id (each
// takes it back in turn, every few transactions), and the relay stops rather than fence it
// back again. The new producer is a new sender; its stamps carry what the old one's claimed.
// Its transaction was aborted by Kafka, so the rewind that follows (recover) loses nothing.
std::expected<void, Error> Relay::reopen_output(const Error& fenced, const Error& why) {
  const auto now = std::chrono::steady_clock::now();
  while (!reopens_.empty() && now - reopens_.front() >= kReopenWindow) reopens_.pop_front();
  if (reopens_.size() >= kReopensPerWindow) {
    if (output_->fenced()) {
      return std::unexpected(Error{fenced.code, fmt::format("{}; fenced a third time within a minute of taking "
                                                            "transactional id {} back: another process uses it",
                                                            fenced.message, *opts_.output.transactional_id)});
    }
    return std::unexpected(Error{fenced.code, fmt::format("{}; the output producer failed fatally a third time "
                                                          "within a minute of taking transactional id {} back",
                                                          fenced.message, *opts_.output.transactional_id)});
  }
  // The old sender's sends of the fenced transaction that were never acknowledged were never
  // committed (Kafka aborted the transaction): a claim on them, harmless on the old sender's
  // own records (rule 6), would hold every record of the new sender at its readers for good.
  // Dropped first, as after any abandoned transaction; acknowledged ones are claimed by offset
  // only, which a reader's position passes over the aborted batch.
  Clock claimed = claims_of_fenced(output_->stamper());
  // The new producer takes the id back, so Kafka aborts what the old one left open; nothing
  // of it is committed. It is made before the old one goes, so that the relay always has a
  // producer: when it cannot be made, the relay stops with the old, failed one in place, and
  // leaving the group (which commits through it) fails cleanly rather than on no producer.
  // Making it reads the sinks' end offsets, which a leader's failover can keep from answering
  // for a while (list_offsets retries for the producer's timeout): a runtime error is tried
  // again, kReopenAttempts times in all.
  auto out = ProducerHost::open(opts_.output, *names_);
  for (int attempt = 1; !out && out.error().code == Errc::runtime && attempt < kReopenAttempts; ++attempt) {
    if (notes_) notes_->note(fmt::format("could not make the output producer again ({}); trying again", out.error().message));
    out = ProducerHost::open(opts_.output, *names_);
  }
  if (!out) return std::unexpected(out.error());
  output_ = std::move(*out);
  take_over(output_->stamper(), claimed, &input_->gate());
  reopens_.push_back(now);
  if (reopens_.size() > kReopensPerWindow) reopens_.pop_front();
  ++counters_.reopened;
  if (notes_) {
    notes_->note(fmt::format("transaction aborted ({}), and the output producer was fenced ({}): a new producer took "
                             "transactional id {} back; rewinding to the committed offsets",
                             why.message, fenced.message, *opts_.output.transactional_id));
  }
  return {};
}

std::expected<void, Error> Relay::stop(Error why) {
  delivered_count_ = 0;
  (void)output_->abort_and_forget();
  ++counters_.aborted;
  in_transaction_ = 0;
  uncommitted_ = 0;
  return std::unexpected(Error{why.code, fmt::format("{}; the transaction is aborted and nothing of it committed",
                                                     why.message)});
}

std::expected<void, Error> Relay::poll() {
  auto r = poll_round();
  publish_health();
  return r;
}

std::expected<void, Error> Relay::commit() {
  auto r = commit_round();
  publish_health();
  return r;
}

void Relay::publish_health() {
  std::lock_guard lock(health_mu_);
  published_ = counters_;
}

RelayHealth Relay::health() const {
  RelayHealth h;
  h.input = input_->health();
  std::lock_guard lock(health_mu_);
  h.transactions_committed = published_.committed;
  h.transactions_aborted = published_.aborted;
  h.fencings = published_.reopened;
  return h;
}

std::expected<void, Error> Relay::poll_round() {
  if (auto r = input_->poll(); !r) {
    // An input topic deleted, or a partition whose log restarted (ConsumerHost::poll), stays
    // failed: a rewind would read the old log's commit on a new log. The relay stops.
    if (input_->impl_->log_lost()) return stop(r.error());
    return recover(r.error());
  }
  const auto emit_started = std::chrono::steady_clock::now();
  if (auto e = emit(); !e) {
    // A record the transform got wrong (a partition its topic does not have: a usage error)
    // fails the same way after every rewind: the relay stops, its transaction aborted,
    // rather than abort and rewind into the same error for ever (several aborts a second).
    // A runtime error (an unknown topic, a failed delivery) may pass: rewound.
    if (e.error().code == Errc::usage) {
      return stop(Error{Errc::usage, fmt::format("the transform's output: {}", e.error().message)});
    }
    return recover(e.error());
  }
  const auto now = std::chrono::steady_clock::now();
  // A round's sends as long as this one's would take the transaction past max_transaction:
  // it ends now rather than after them (a round can release thousands of records at once).
  const auto next_round = now - emit_started;
  if (in_transaction_ > 0 || uncommitted_ > 0) {
    if (in_transaction_ >= opts_.max_records || now - transaction_started_ + next_round >= opts_.max_transaction) {
      return commit_round();
    }
  } else if (now - last_commit_ >= opts_.max_transaction && input_->impl_->frontier_past_commit()) {
    // Nothing delivered, but the frontier moved past transaction markers or aborted records
    // (their fetch came after the last commit): committed too, in a transaction of offsets
    // only, so that the group's commits reach the log end and it reads as drained.
    return commit_round();
  }
  return {};
}

std::expected<void, Error> Relay::commit_round() {
  if (auto c = input_->impl_->commit(ConsumerHost::Impl::InFlight::wait); !c) return recover(c.error());
  // The member commits nothing without an assignment; a transaction still open then is
  // committed without offsets.
  if (output_->in_transaction()) {
    if (auto c = input_->impl_->commit_hook(nullptr); !c) return recover(c.error());
  }
  return {};
}

}  // namespace causal::kafka

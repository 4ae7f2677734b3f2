// The health snapshot of a consumer host: built and published by the owner thread once per
// poll, copied by health() on any thread; and its Prometheus rendering
// (causal/kafka/health.hpp).
#include "causal/kafka/health.hpp"

#include <string>


#include "consumer_host_impl.hpp"

namespace causal::kafka {

namespace {

std::uint64_t at(const std::vector<std::uint64_t>& v, ChannelId c) { return c < v.size() ? v[c] : 0; }

}  // namespace

void ConsumerHost::Impl::publish_health() {
  ConsumerHealth h;
  h.group = opts.group.value_or("");
  if (member) h.member = MemberHealth{h.group, generations, rebalances, assignments_lost};
  if (host->gate_) {
    const Gate& gate = *host->gate_;
    const Names& names = host->names_;
    std::vector<std::uint64_t> pending;
    for (const auto& req : gate.pending_lookups()) {
      if (req.channel >= pending.size()) pending.resize(req.channel + 1, 0);
      ++pending[req.channel];
    }
    h.partitions.reserve(host->plan_.size());
    for (const ChannelPlan& plan : host->plan_) {
      const ChannelId c = plan.channel;
      PartitionHealth p;
      p.topic = names.channel_topic(c);
      p.partition = names.channel_partition(c);
      p.frontier = gate.frontier(c) + 1;
      p.held_records = gate.held_count(c);
      if (c < chans.size()) {
        p.held_bytes = chans[c].held_bytes;
        p.hold_budget_paused = chans[c].budget_paused;
      }
      p.failed_closed = gate.failed(c);
      if (auto head = gate.head(c)) {
        p.head_received = std::chrono::steady_clock::time_point(std::chrono::microseconds(head->received_at));
        if (auto waits = gate.unsatisfied(c); !waits.empty()) {
          const Blocker& b = waits.front();
          HeadWait w;
          w.channel = names.channel_text(b.channel);
          if (b.kind == Blocker::Kind::offset) {
            w.on = HeadWait::On::channel;
            w.offset = b.offset;
          } else {
            w.on = HeadWait::On::sequence;
            w.sender = names.sender_name(b.sender);
            w.seq = b.seq;
          }
          p.head_waits = std::move(w);
        }
      }
      p.lookups = at(lookup_count, c);
      p.lookups_pending = at(pending, c);
      p.delivered = at(delivered_count, c);
      h.partitions.push_back(std::move(p));
    }
  }
  std::lock_guard lock(health_mu);
  published = std::move(h);
}

ConsumerHealth ConsumerHost::health() const {
  ConsumerHealth h;
  {
    std::lock_guard lock(impl_->health_mu);
    h = impl_->published;
  }
  const auto now = std::chrono::steady_clock::now();
  for (auto& p : h.partitions) {
    if (p.head_received)
      p.head_age = std::max(now - *p.head_received, std::chrono::steady_clock::duration::zero());
  }
  return h;
}

void write_metrics(MetricsText& out, const ConsumerHealth& health) {
  const std::string_view group = health.group;
  std::vector<std::string> partition_text;
  partition_text.reserve(health.partitions.size());
  for (const auto& p : health.partitions) partition_text.push_back(std::to_string(p.partition));
  // One family at a time, every partition's sample after its HELP and TYPE.
  auto each = [&](std::string_view name, MetricType type, std::string_view help, auto value) {
    out.family(name, type, help);
    for (std::size_t i = 0; i < health.partitions.size(); ++i) {
      const auto& p = health.partitions[i];
      out.sample({{"group", group}, {"topic", p.topic}, {"partition", partition_text[i]}}, value(p));
    }
  };
  each("causal_delivered_records_total", MetricType::counter,
       "Records the gate delivered from the partition.",
       [](const PartitionHealth& p) { return p.delivered; });
  each("causal_frontier_offset", MetricType::gauge,
       "The next offset of the partition to deliver (the gate's frontier + 1, what a member commits).",
       [](const PartitionHealth& p) { return p.frontier; });
  each("causal_held_records", MetricType::gauge, "Records of the partition the gate holds.",
       [](const PartitionHealth& p) { return p.held_records; });
  each("causal_held_bytes", MetricType::gauge,
       "Bytes the partition's held records are charged against the hold budget.",
       [](const PartitionHealth& p) { return p.held_bytes; });
  each("causal_held_head_age_seconds", MetricType::gauge,
       "Seconds since the partition's held head was received; 0 when nothing is held.",
       [](const PartitionHealth& p) { return p.head_age.count(); });
  out.family("causal_held_head_waiting", MetricType::gauge,
             "1 for the claim a held head waits on: a channel's offset (on=channel) or a sender's send "
             "(on=sequence).");
  for (std::size_t i = 0; i < health.partitions.size(); ++i) {
    const auto& p = health.partitions[i];
    if (!p.head_waits) continue;
    const HeadWait& w = *p.head_waits;
    const bool seq = w.on == HeadWait::On::sequence;
    const std::string offset = seq ? "" : std::to_string(w.offset);
    const std::string seqno = seq ? std::to_string(w.seq) : "";
    out.sample({{"group", group},
                {"topic", p.topic},
                {"partition", partition_text[i]},
                {"on", seq ? "sequence" : "channel"},
                {"channel", w.channel},
                {"offset", offset},
                {"sender", seq ? std::string_view(w.sender) : std::string_view()},
                {"seq", seqno}},
               std::int64_t{1});
  }
  each("causal_lookups_total", MetricType::counter, "Lookups asked of the partition (the claimed one).",
       [](const PartitionHealth& p) { return p.lookups; });
  each("causal_lookups_pending", MetricType::gauge,
       "Lookups of the partition the gate wants and has no answer to.",
       [](const PartitionHealth& p) { return p.lookups_pending; });
  each("causal_failed_closed", MetricType::gauge,
       "1 when an undecodable causal.clock header stopped the partition.",
       [](const PartitionHealth& p) { return std::int64_t{p.failed_closed}; });
  each("causal_hold_budget_paused", MetricType::gauge, "1 while the hold budget pauses the partition.",
       [](const PartitionHealth& p) { return std::int64_t{p.hold_budget_paused}; });
  if (health.member) {
    const MemberHealth& m = *health.member;
    out.family("causal_member_generation", MetricType::gauge,
               "Assignments the member received (its generation).");
    out.sample({{"group", m.group}}, std::int64_t{m.generation});
    out.family("causal_rebalances_total", MetricType::counter,
               "Rebalances (assignments and revocations) handled.");
    out.sample({{"group", m.group}}, m.rebalances);
    out.family("causal_assignments_lost_total", MetricType::counter,
               "Assignments lost: the session expired or the generation was fenced.");
    out.sample({{"group", m.group}}, m.assignments_lost);
  }
}

void write_metrics(MetricsText& out, const RelayHealth& health) {
  write_metrics(out, health.input);
  const std::string_view group = health.input.group;
  out.family("causal_relay_transactions_committed_total", MetricType::counter,
             "Transactions the relay committed.");
  out.sample({{"group", group}}, health.transactions_committed);
  out.family("causal_relay_transactions_aborted_total", MetricType::counter,
             "Transactions the relay aborted (each followed by a rewind).");
  out.sample({{"group", group}}, health.transactions_aborted);
  out.family("causal_relay_fencings_total", MetricType::counter,
             "Output producers the relay made again after Kafka fenced one.");
  out.sample({{"group", group}}, health.fencings);
}

}  // namespace causal::kafka

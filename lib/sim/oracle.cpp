// The oracle's checks (see causal/sim/oracle.hpp for the contract).
#include "causal/sim/oracle.hpp"

#include <fmt/core.h>

namespace causal::sim {

namespace {
constexpr std::size_t kMaxKeptViolations = 20;  // details kept per world; all are counted
}

const char* to_string(ViolationKind k) {
  switch (k) {
    case ViolationKind::causal_order: return "causal_order";
    case ViolationKind::structural_inversion: return "structural_inversion";
    case ViolationKind::fifo: return "fifo";
    case ViolationKind::duplicate_delivery: return "duplicate_delivery";
    case ViolationKind::bad_delivery: return "bad_delivery";
    case ViolationKind::duplicate_effect: return "duplicate_effect";
    case ViolationKind::incomplete: return "incomplete";
    case ViolationKind::stall: return "stall";
    case ViolationKind::no_drain: return "no_drain";
    case ViolationKind::crash: return "crash";
    case ViolationKind::budget_overrun: return "budget_overrun";
  }
  return "?";
}

Oracle::Oracle(std::size_t channels) : by_channel_(channels), consumers_of_(channels) {
  describe = [](RecordId r) { return fmt::format("#{}", r); };
}

RecordId Oracle::sent(ChannelIndex ch, const Bits& ancestors, RecordId txn_previous) {
  recs_.push_back(Rec{ch, kNoOffset, RecordState::in_flight, ancestors, txn_previous});
  return static_cast<RecordId>(recs_.size() - 1);
}

std::size_t Oracle::learn_from_delivery(Bits& knowledge, RecordId r) const {
  const Rec& rec = recs_[r];
  knowledge.or_with(rec.ancestors);
  knowledge.set(r);
  // The earlier sends of r's transaction. Their own ancestors are already in r's: a
  // sender's knowledge only grows within an incarnation, and a transaction never spans two.
  std::size_t taught = 0;
  for (RecordId p = rec.txn_previous; p != kNoRecord; p = recs_[p].txn_previous) {
    if (!rec.ancestors.test(p)) ++taught;
    knowledge.set(p);
  }
  return taught;
}

void Oracle::appended(RecordId r, Offset offset, bool transactional) {
  Rec& rec = recs_[r];
  rec.offset = offset;
  rec.state = transactional ? RecordState::pending : RecordState::committed;
  by_channel_[rec.channel].push_back(r);
  // A pending record cannot be an ancestor of anything delivered before its transaction
  // ends, so adding it to `need` now is safe; an abort removes it again.
  for (ConsumerId c : consumers_of_[rec.channel]) {
    if (offset >= cons_[c].baseline[rec.channel]) cons_[c].need.set(r);
  }
}

void Oracle::resolved(RecordId r, bool committed) {
  Rec& rec = recs_[r];
  rec.state = committed ? RecordState::committed : RecordState::aborted;
  if (!committed) {
    for (Consumer& c : cons_) c.need.reset(r);
  }
}

void Oracle::lost(RecordId r) { recs_[r].state = RecordState::lost; }

ConsumerId Oracle::new_consumer(LogicalId logical, std::string name) {
  Consumer c;
  c.logical = logical;
  c.name = std::move(name);
  c.baseline.assign(by_channel_.size(), kNoOffset);
  c.last.assign(by_channel_.size(), kNoOffset);
  cons_.push_back(std::move(c));
  if (effects_.size() <= logical) effects_.resize(logical + 1);
  return static_cast<ConsumerId>(cons_.size() - 1);
}

void Oracle::consume(ConsumerId id, ChannelIndex ch, Offset baseline) {
  Consumer& c = cons_[id];
  if (c.baseline[ch] == kNoOffset) consumers_of_[ch].push_back(id);
  c.baseline[ch] = baseline;
  for (RecordId r : by_channel_[ch]) {
    const Rec& rec = recs_[r];
    if (rec.offset >= baseline && (rec.state == RecordState::committed || rec.state == RecordState::pending))
      c.need.set(r);
  }
}

void Oracle::retire(ConsumerId id) {
  Consumer& c = cons_[id];
  c.live = false;
  for (auto& list : consumers_of_) std::erase(list, id);
}

void Oracle::delivered(ConsumerId id, RecordId b) {
  Consumer& c = cons_[id];
  const Rec& rb = recs_[b];
  ++deliveries_;
  // Formatted only when a check fails: deliveries are the sweep's hottest path.
  const auto where = [&c] { return fmt::format("at {}", c.name); };
  if (rb.state != RecordState::committed) {
    violate(ViolationKind::bad_delivery, fmt::format("{}: delivered {} which is not a business record", where(), describe(b)));
  }
  if (c.baseline[rb.channel] == kNoOffset || rb.offset < c.baseline[rb.channel]) {
    violate(ViolationKind::bad_delivery,
            fmt::format("{}: delivered {} outside its scope or below its baseline", where(), describe(b)));
  }
  if (c.delivered.test(b)) {
    violate(ViolationKind::duplicate_delivery, fmt::format("{}: delivered {} twice", where(), describe(b)));
    return;
  }
  if (c.last[rb.channel] != kNoOffset && rb.offset <= c.last[rb.channel]) {
    violate(ViolationKind::fifo, fmt::format("{}: delivered {} after offset {} of the same channel", where(),
                                             describe(b), c.last[rb.channel]));
  }
  c.last[rb.channel] = rb.offset;

  // Pairs a -> b this delivery checks: ancestors the consumer must deliver (counted), and
  // among them those not delivered yet (each a violation).
  pairs_checked_ += Bits::count_and_for_each_and_not(rb.ancestors, c.need, c.delivered, [&](std::size_t ai) {
    const auto a = static_cast<RecordId>(ai);
    const Rec& ra = recs_[a];
    if (ra.state != RecordState::committed) return;  // pending: cannot be an ancestor yet
    if (ra.channel == rb.channel && ra.offset > rb.offset) {
      ++inversions_;
      violate(ViolationKind::structural_inversion,
              fmt::format("{}: {} happens before {} but was appended after it on the same channel", where(),
                          describe(a), describe(b)));
    } else {
      violate(ViolationKind::causal_order,
              fmt::format("{}: delivered {} before its cause {}", where(), describe(b), describe(a)));
    }
  });
  c.delivered.set(b);
}

void Oracle::effect_committed(LogicalId node, RecordId r) {
  if (effects_.size() <= node) effects_.resize(node + 1);
  if (effects_[node].test(r)) {
    violate(ViolationKind::duplicate_effect,
            fmt::format("node #{}: the effect of {} was committed twice", node, describe(r)));
  }
  effects_[node].set(r);
}

bool Oracle::effect_was_committed(LogicalId node, RecordId r) const {
  return node < effects_.size() && effects_[node].test(r);
}

std::vector<RecordId> Oracle::missing(ConsumerId id) const {
  const Consumer& c = cons_[id];
  std::vector<RecordId> out;
  Bits::for_each_and_not(c.need, c.delivered, [&](std::size_t r) {
    if (recs_[r].state == RecordState::committed) out.push_back(static_cast<RecordId>(r));
  });
  return out;
}

void Oracle::violate(ViolationKind k, std::string detail) {
  ++violation_count_;
  if (violations_.size() < kMaxKeptViolations) violations_.push_back({k, std::move(detail)});
}

}  // namespace causal::sim

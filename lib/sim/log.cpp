// Kafka-like logs (see causal/sim/log.hpp).
#include "causal/sim/log.hpp"

#include <algorithm>

namespace causal::sim {

Offset Log::append(LogEntry e) {
  entries_.push_back(e);
  recompute_lso();
  return hwm() - 1;
}

void Log::recompute_lso() {
  lso_ = hwm();
  for (const auto& [txn, first] : open_) lso_ = std::min(lso_, first);
}

void Log::txn_opened(TxnId txn, Offset first) {
  if (!has_open(txn)) open_.emplace_back(txn, first);
  recompute_lso();
}

void Log::txn_closed(TxnId txn) {
  std::erase_if(open_, [txn](const auto& p) { return p.first == txn; });
  recompute_lso();
}

bool Log::has_open(TxnId txn) const {
  return std::any_of(open_.begin(), open_.end(), [txn](const auto& p) { return p.first == txn; });
}

Offset Log::fetch(Offset from, std::size_t max_records, std::span<const TxnState> txns,
                  std::vector<Offset>& records) const {
  records.clear();
  const Offset end = lso();
  Offset o = from;
  for (; o < end && records.size() < max_records; ++o) {
    const LogEntry& e = at(o);
    if (e.kind != EntryKind::business) continue;                          // marker: consumer-skipped
    if (e.txn != kNoTxn && txns[e.txn] == TxnState::aborted) continue;    // aborted: skipped
    records.push_back(o);
  }
  // Past the last record returned, read_committed also moves past trailing skips up to the
  // next business record or the LSO; a real consumer does this on its next (empty) poll.
  if (records.size() == max_records) return records.back() + 1;
  return std::max(o, from);
}

}  // namespace causal::sim

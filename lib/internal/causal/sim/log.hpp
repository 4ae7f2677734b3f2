// A Kafka-like log for one channel (topic-partition): offsets, high watermark, last stable
// offset, business records, transaction markers, and read_committed fetch.
//
// Contract of fetch (Kafka read_committed semantics):
//   - it never returns anything at or above the LSO (the first offset of the earliest
//     transaction still open on this channel, or the HWM when none is open);
//   - it skips commit/abort markers and records of aborted transactions;
//   - the returned position moves past every entry it examined, so a fetch that returns no
//     record can still advance the position (over trailing markers and aborted records):
//     this is what the host reports through gate.position_advance.
// Thread-safety: none.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "causal/names.hpp"

namespace causal::sim {

using TxnId = std::uint32_t;
inline constexpr TxnId kNoTxn = UINT32_MAX;

enum class TxnState : std::uint8_t { open, committed, aborted };

enum class EntryKind : std::uint8_t { business, commit_marker, abort_marker };

struct LogEntry {
  EntryKind kind;
  std::uint32_t record;  // business: the RecordId; markers: unused
  TxnId txn;             // kNoTxn for non-transactional records
};

class Log {
 public:
  Offset append(LogEntry e);
  Offset hwm() const { return static_cast<Offset>(entries_.size()); }
  // The first offset of the earliest open transaction, else the HWM. Cached: the scheduler
  // asks for it for every consumed channel at every step.
  Offset lso() const { return lso_; }
  const LogEntry& at(Offset o) const { return entries_[static_cast<std::size_t>(o)]; }

  // The transaction `txn` wrote its first record here at `first` / ended here.
  void txn_opened(TxnId txn, Offset first);
  void txn_closed(TxnId txn);
  bool has_open(TxnId txn) const;

  // Replaces `records` with the business records of committed or non-transactional sends
  // from `from` on, and returns the consumer's next position. `records` is the caller's, so
  // that a buffer kept across fetches makes them allocate nothing.
  // REQUIRES: 0 <= from <= hwm(), max_records >= 1.
  Offset fetch(Offset from, std::size_t max_records, std::span<const TxnState> txns,
               std::vector<Offset>& records) const;

 private:
  std::vector<LogEntry> entries_;
  std::vector<std::pair<TxnId, Offset>> open_;  // open transactions and their first offset here
  Offset lso_ = 0;  // recomputed by every mutator (recompute_lso)
  void recompute_lso();
};

}  // namespace causal::sim

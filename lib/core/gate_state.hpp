// The gate's state per channel (Gate::ChannelState and the types it holds), private to the
// core: gate.cpp and digest.cpp read it; causal/gate.hpp only names it. Its layout is tuned
// for the delivery path (see each comment).
#pragma once

#include <cstdint>
#include <vector>

#include "causal/gate.hpp"

namespace causal {

struct Gate::Held {
  Offset offset;
  Clock clock;
  std::uint64_t tag;
  std::int64_t received_at;
};
// A FIFO with O(1) amortised pop_front that allocates nothing while empty (a std::deque
// allocates on construction, which costs too much at 100,000 channels).
class Gate::HoldQueue {
 public:
  bool empty() const { return begin_ == items_.size(); }
  std::size_t size() const { return items_.size() - begin_; }
  Held& front() { return items_[begin_]; }
  const Held& front() const { return items_[begin_]; }
  const Held& back() const { return items_.back(); }
  const Held& at(std::size_t i) const { return items_[begin_ + i]; }
  void push_back(Held h) { items_.push_back(std::move(h)); }
  void pop_front();
  void clear() { items_.clear(), begin_ = 0; }

 private:
  std::vector<Held> items_;
  std::size_t begin_ = 0;
};
// A held head registered on one claim that blocks it (a head is registered on each of its
// blocking claims). `epoch` makes a registration stale when the head's evaluation
// restarts (scope growth, reassignment).
struct Gate::OffsetWaiter {
  Offset needed;
  ChannelId head_channel;
  std::uint32_t epoch;
};
struct Gate::NextWaiter {  // an OffsetWaiter whose `needed` is the frontier + 1
  ChannelId head_channel;
  std::uint32_t epoch;
};
struct Gate::SeqWaiter {
  SenderId sender;
  SeqNo needed;
  ChannelId head_channel;
  std::uint32_t epoch;
};
struct Gate::SeqEntry {
  SenderId sender;
  SeqNo seq;
  bool delivered_here;  // a record of this sender was delivered here since the baseline: presence
};
// The fields every claim check reads, kept dense and apart from ChannelState so that
// checking a claim touches 16 bytes rather than a state of several hundred (at 100,000
// channels: 1.6 MB that stays in cache, against tens of MB that do not).
struct Gate::Reach {
  Offset frontier = kNoOffset;
  bool consumed = false;
  bool failed = false;  // failed closed (rule 11)
};
// Laid out for the delivery path: the fields every delivery touches come first and fill
// one cache line; custody, touched only when a clock is folded, comes last.
struct alignas(64) Gate::ChannelState {
  HoldQueue queue;
  // Heads registered on this channel's frontier. A claim on the offset right above it is
  // satisfied by any rise, so it waits in `next_waiters`, which a rise empties whole
  // without comparing; a claim further ahead waits in `offset_waiters`.
  std::vector<NextWaiter> next_waiters;
  Offset position = kNoOffset;               // highest reported position, kNoOffset if none
  std::vector<OffsetWaiter> offset_waiters;  // min-heap on `needed`
  // Evaluation state of the head, reset whenever a record becomes head. A blocked head is
  // registered on each claim that blocks it; `pending` counts the registrations not yet
  // satisfied, and at 0 the head is ready: every claim is satisfied (frontiers and
  // delivered_seq only rise), so it is delivered without checking its clock again.
  std::uint32_t pending = 0;
  std::uint32_t epoch = 0;
  bool waiting = false;                  // registered: blocked (pending > 0) or ready (0)
  Release release = Release::immediate;  // what will have released the head
  ChannelId released_by_channel = 0;
  Offset released_by_offset = kNoOffset;
  std::vector<SeqEntry> delivered_seq;  // few senders per channel: a flat vector
  std::vector<SeqWaiter> seq_waiters;   // heads waiting on a send of this channel
  Offset failed_offset = kNoOffset;     // where it failed closed, when Reach::failed
  Offset baseline = 0;
  Clock custody;
};

inline bool Gate::in_scope(ChannelId ch) const { return ch < reach_.size() && reach_[ch].consumed; }

}  // namespace causal

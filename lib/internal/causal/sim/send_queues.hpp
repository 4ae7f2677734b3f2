// A sender's sends waiting on each channel (not yet appended, or appended and not yet
// acknowledged): one FIFO of RecordIds per channel, the channels in ascending order.
//
// Why not std::map<ChannelIndex, std::deque<RecordId>>, which this replaces: the scheduler
// walks every busy sender's queues at every step, and walking a tree (a call per node) was
// a sixth of the scheduler's cost; a std::deque allocates a 512-byte block when it is made,
// once per channel per sender incarnation. A sender sends to a few channels, so a sorted
// vector is both the cheapest walk and the cheapest lookup.
//
// Contract: the subset of std::map's interface the world uses, with the same meaning —
// iteration in ascending channel order yielding (channel, queue) pairs, operator[] inserts
// an empty queue, find() returns end() for a channel never inserted, size() counts every
// channel inserted (empty queues included: state_hash.cpp hashes it), clear() drops all.
// Insertion invalidates iterators and references, as a vector's does.
// Thread-safety: value type.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "causal/sim/config.hpp"  // ChannelIndex

namespace causal::sim {

// A FIFO of record ids: a vector read from `head_`, emptied (capacity kept) when drained.
class RecordFifo {
 public:
  bool empty() const { return head_ == ids_.size(); }
  std::size_t size() const { return ids_.size() - head_; }
  std::uint32_t front() const { return ids_[head_]; }
  void push_back(std::uint32_t r) { ids_.push_back(r); }
  void pop_front() {
    if (++head_ == ids_.size()) clear();
  }
  void clear() { ids_.clear(), head_ = 0; }
  // The queued ids, front first.
  const std::uint32_t* begin() const { return ids_.data() + head_; }
  const std::uint32_t* end() const { return ids_.data() + ids_.size(); }

 private:
  std::vector<std::uint32_t> ids_;
  std::size_t head_ = 0;  // ids_[0, head_) were popped
};

class SendQueues {
 public:
  using value_type = std::pair<ChannelIndex, RecordFifo>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  iterator begin() { return q_.begin(); }
  iterator end() { return q_.end(); }
  const_iterator begin() const { return q_.begin(); }
  const_iterator end() const { return q_.end(); }
  std::size_t size() const { return q_.size(); }
  void clear() { q_.clear(); }

  iterator find(ChannelIndex ch) {
    auto it = lower(ch);
    return it != q_.end() && it->first == ch ? it : q_.end();
  }
  RecordFifo& operator[](ChannelIndex ch) {
    auto it = lower(ch);
    if (it == q_.end() || it->first != ch) it = q_.insert(it, value_type{ch, RecordFifo{}});
    return it->second;
  }

 private:
  iterator lower(ChannelIndex ch) {
    return std::lower_bound(q_.begin(), q_.end(), ch, [](const value_type& e, ChannelIndex c) { return e.first < c; });
  }
  std::vector<value_type> q_;  // ascending by channel, one entry per channel
};

}  // namespace causal::sim

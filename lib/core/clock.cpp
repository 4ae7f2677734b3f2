#include "causal/clock.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace causal {

namespace {
// A lambda rather than a function, so that every algorithm it is passed to inlines it.
constexpr auto channel_less = [](const OffsetClaim& a, const OffsetClaim& b) { return a.channel < b.channel; };

// A lambda too: as a function, std::sort called it through a pointer (0.8% of the sweep).
constexpr auto seq_key_less = [](const SeqClaim& a, const SeqClaim& b) {
  return a.channel != b.channel ? a.channel < b.channel : a.sender < b.sender;
};

// Sorts offset claims by channel, fast for what a decoder appends: one ascending run per
// topic block, the blocks in topic-name order rather than id order. Those few ascending
// runs are merged pairwise (a natural merge sort, O(n log runs)); a general sort of a
// 64-claim clock was about half the cost of decoding it. More than kMaxRuns runs (input
// in no particular order) go to std::sort.
void sort_by_channel(Clock::Offsets& v) {
  constexpr std::size_t kMaxRuns = 16;
  struct Run {
    std::uint32_t begin;
    std::uint32_t end;
  };
  std::array<Run, kMaxRuns> runs{};
  std::size_t n_runs = 0;
  const OffsetClaim* d = v.data();
  const auto n = static_cast<std::uint32_t>(v.size());
  for (std::uint32_t i = 0; i < n;) {
    std::uint32_t j = i + 1;
    while (j < n && d[j - 1].channel <= d[j].channel) ++j;
    if (n_runs == kMaxRuns) {
      std::sort(v.begin(), v.end(), channel_less);
      return;
    }
    runs[n_runs++] = {i, j};
    i = j;
  }
  if (n_runs <= 1) return;
  thread_local std::vector<OffsetClaim> scratch;  // no allocation once warm
  scratch.resize(v.size());
  OffsetClaim* src = v.data();
  OffsetClaim* dst = scratch.data();
  while (n_runs > 1) {  // merge neighbouring runs, src -> dst, until one is left
    std::size_t merged = 0;
    for (std::size_t r = 0; r < n_runs; r += 2) {
      const Run a = runs[r];
      if (r + 1 == n_runs) {
        std::copy(src + a.begin, src + a.end, dst + a.begin);
        runs[merged++] = a;
        continue;
      }
      const Run b = runs[r + 1];
      std::merge(src + a.begin, src + a.end, src + b.begin, src + b.end, dst + a.begin, channel_less);
      runs[merged++] = {a.begin, b.end};
    }
    n_runs = merged;
    std::swap(src, dst);
  }
  if (src != v.data()) std::copy(src, src + v.size(), v.data());
}

}  // namespace

void Clock::claim(ChannelId ch, Offset n) {
  auto it = std::lower_bound(offsets_.begin(), offsets_.end(), ch,
                             [](const OffsetClaim& c, ChannelId v) { return c.channel < v; });
  if (it != offsets_.end() && it->channel == ch) {
    it->offset = std::max(it->offset, n);
  } else {
    offsets_.insert(it, {ch, n});
  }
}

void Clock::claim_seq(ChannelId ch, SenderId s, SeqNo q) {
  SeqClaim key{ch, s, q};
  auto it = std::lower_bound(seqs_.begin(), seqs_.end(), key, seq_key_less);
  if (it != seqs_.end() && it->channel == ch && it->sender == s) {
    it->seq = std::max(it->seq, q);
  } else {
    seqs_.insert(it, key);
  }
}

namespace {
// Joins sorted run `b` into sorted run `a` (pointwise max). The hot path is custody folding
// a small clock into a large custody clock that already holds most of its coordinates:
// each claim is found from the previous hit, by a merge walk when the two are of comparable
// size and by binary search when custody is much larger, and maxed in place, so the cost is
// at most min(|a| + |b|, |b| log |a|) and nothing is allocated; the few new coordinates are
// then inserted.
template <class Vec, class Less, class Max>
void join_runs(Vec& a, const Vec& b, Less less, Max max_into) {
  using Claim = typename Vec::value_type;
  if (b.empty()) return;
  std::size_t missing = 0;
  // Raw bounds, read once: nothing below changes a's size or storage.
  Claim* from = a.begin();
  Claim* const end = a.end();
  const bool walk = a.size() <= 4 * b.size();  // comparable sizes: a merge walk is cheapest
  for (const Claim *c = b.begin(), *c_end = b.end(); c != c_end; ++c) {
    if (walk) {
      while (from != end && less(*from, *c)) ++from;
    } else {
      from = std::lower_bound(from, end, *c, less);
    }
    if (from != end && !less(*c, *from)) {
      max_into(*from, *c);
    } else {
      ++missing;
    }
  }
  if (missing == 0) return;
  if (missing <= 4) {
    for (const Claim& c : b) {
      auto at = std::lower_bound(a.begin(), a.end(), c, less);
      if (at == a.end() || less(c, *at)) a.insert(at, c);
    }
    return;
  }
  Vec merged;
  merged.reserve(a.size() + missing);
  auto x = a.begin();
  auto y = b.begin();
  while (x != a.end() || y != b.end()) {
    if (y == b.end() || (x != a.end() && less(*x, *y))) {
      merged.push_back(*x++);
    } else if (x == a.end() || less(*y, *x)) {
      merged.push_back(*y++);
    } else {
      merged.push_back(*x);  // already maxed above
      ++x, ++y;
    }
  }
  a = std::move(merged);
}
}  // namespace

void Clock::join(const Clock& other) {
  join_runs(
      offsets_, other.offsets_, channel_less,
      [](OffsetClaim& into, const OffsetClaim& c) { into.offset = std::max(into.offset, c.offset); });
  join_runs(seqs_, other.seqs_, seq_key_less,
            [](SeqClaim& into, const SeqClaim& c) { into.seq = std::max(into.seq, c.seq); });
}

bool Clock::dominates(const Clock& other) const {
  auto a = offsets_.begin();
  for (const auto& c : other.offsets_) {
    while (a != offsets_.end() && a->channel < c.channel) ++a;
    if (a == offsets_.end() || a->channel != c.channel || a->offset < c.offset) return false;
  }
  auto s = seqs_.begin();
  for (const auto& c : other.seqs_) {
    while (s != seqs_.end() && seq_key_less(*s, c)) ++s;
    if (s == seqs_.end() || s->channel != c.channel || s->sender != c.sender || s->seq < c.seq) return false;
  }
  return true;
}

Offset Clock::offset_of(ChannelId ch) const {
  auto it = std::lower_bound(offsets_.begin(), offsets_.end(), ch,
                             [](const OffsetClaim& c, ChannelId v) { return c.channel < v; });
  return it != offsets_.end() && it->channel == ch ? it->offset : kNoOffset;
}

void Clock::normalize() {
  sort_by_channel(offsets_);
  OffsetClaim* d = offsets_.data();
  std::size_t out = 0;
  for (std::size_t i = 0; i < offsets_.size(); ++i) {
    if (out > 0 && d[out - 1].channel == d[i].channel) {
      d[out - 1].offset = std::max(d[out - 1].offset, d[i].offset);
    } else {
      d[out++] = d[i];
    }
  }
  offsets_.truncate(out);
  if (seqs_.size() > 1) std::sort(seqs_.begin(), seqs_.end(), seq_key_less);
  out = 0;
  for (std::size_t i = 0; i < seqs_.size(); ++i) {
    if (out > 0 && !seq_key_less(seqs_[out - 1], seqs_[i])) {
      seqs_[out - 1].seq = std::max(seqs_[out - 1].seq, seqs_[i].seq);
    } else {
      seqs_[out++] = seqs_[i];
    }
  }
  seqs_.truncate(out);
}

}  // namespace causal

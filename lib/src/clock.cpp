#include "causal/clock.hpp"

#include <algorithm>

namespace causal {

namespace {
bool seq_key_less(const SeqClaim& a, const SeqClaim& b) {
  return a.channel != b.channel ? a.channel < b.channel : a.sender < b.sender;
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
      offsets_, other.offsets_,
      [](const OffsetClaim& x, const OffsetClaim& y) { return x.channel < y.channel; },
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
  std::sort(offsets_.begin(), offsets_.end(),
            [](const OffsetClaim& a, const OffsetClaim& b) { return a.channel < b.channel; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < offsets_.size(); ++i) {
    if (out > 0 && offsets_[out - 1].channel == offsets_[i].channel) {
      offsets_[out - 1].offset = std::max(offsets_[out - 1].offset, offsets_[i].offset);
    } else {
      offsets_[out++] = offsets_[i];
    }
  }
  offsets_.truncate(out);
  std::sort(seqs_.begin(), seqs_.end(), seq_key_less);
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

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

void Clock::join(const Clock& other) {
  // Linear merges of two sorted runs.
  if (!other.offsets_.empty()) {
    std::vector<OffsetClaim> merged;
    merged.reserve(offsets_.size() + other.offsets_.size());
    auto a = offsets_.begin(), b = other.offsets_.begin();
    while (a != offsets_.end() || b != other.offsets_.end()) {
      if (b == other.offsets_.end() || (a != offsets_.end() && a->channel < b->channel)) {
        merged.push_back(*a++);
      } else if (a == offsets_.end() || b->channel < a->channel) {
        merged.push_back(*b++);
      } else {
        merged.push_back({a->channel, std::max(a->offset, b->offset)});
        ++a, ++b;
      }
    }
    offsets_ = std::move(merged);
  }
  if (!other.seqs_.empty()) {
    std::vector<SeqClaim> merged;
    merged.reserve(seqs_.size() + other.seqs_.size());
    auto a = seqs_.begin(), b = other.seqs_.begin();
    while (a != seqs_.end() || b != other.seqs_.end()) {
      if (b == other.seqs_.end() || (a != seqs_.end() && seq_key_less(*a, *b))) {
        merged.push_back(*a++);
      } else if (a == seqs_.end() || seq_key_less(*b, *a)) {
        merged.push_back(*b++);
      } else {
        merged.push_back({a->channel, a->sender, std::max(a->seq, b->seq)});
        ++a, ++b;
      }
    }
    seqs_ = std::move(merged);
  }
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
  offsets_.resize(out);
  std::sort(seqs_.begin(), seqs_.end(), seq_key_less);
  out = 0;
  for (std::size_t i = 0; i < seqs_.size(); ++i) {
    if (out > 0 && !seq_key_less(seqs_[out - 1], seqs_[i])) {
      seqs_[out - 1].seq = std::max(seqs_[out - 1].seq, seqs_[i].seq);
    } else {
      seqs_[out++] = seqs_[i];
    }
  }
  seqs_.resize(out);
}

}  // namespace causal

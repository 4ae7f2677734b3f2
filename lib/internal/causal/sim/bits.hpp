// A growable bitset over record ids: the oracle's representation of ancestor sets,
// delivered sets and "must be delivered" sets. Word-level operations keep a causal check
// at delivery O(records / 64).
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <vector>

namespace causal::sim {

class Bits {
 public:
  void set(std::size_t i) {
    grow(i + 1);
    w_[i >> 6] |= (1ULL << (i & 63));
  }
  void reset(std::size_t i) {
    if ((i >> 6) < w_.size()) w_[i >> 6] &= ~(1ULL << (i & 63));
  }
  bool test(std::size_t i) const { return (i >> 6) < w_.size() && ((w_[i >> 6] >> (i & 63)) & 1U); }
  void or_with(const Bits& o) {
    if (o.w_.size() > w_.size()) w_.resize(o.w_.size(), 0);
    for (std::size_t k = 0; k < o.w_.size(); ++k) w_[k] |= o.w_[k];
  }
  std::size_t words() const { return w_.size(); }
  std::uint64_t word(std::size_t k) const { return k < w_.size() ? w_[k] : 0; }
  bool any() const {
    for (auto x : w_)
      if (x) return true;
    return false;
  }
  std::size_t count() const {
    std::size_t n = 0;
    for (auto x : w_) n += static_cast<std::size_t>(__builtin_popcountll(x));
    return n;
  }
  // Returns |a & b| and calls f(i) for every i set in (a & b & ~c), ascending: both in one
  // walk over the words (the oracle's check at every delivery). Counted inline
  // (bit-slicing): without -mpopcnt, __builtin_popcountll is a library call per word.
  template <class F>
  static std::uint64_t count_and_for_each_and_not(const Bits& a, const Bits& b, const Bits& c, F f) {
    const std::size_t n = a.w_.size() < b.w_.size() ? a.w_.size() : b.w_.size();
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t both = a.w_[k] & b.w_[k];
      if (both == 0) continue;
      std::uint64_t x = both - ((both >> 1) & 0x5555555555555555ULL);
      x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
      x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
      total += (x * 0x0101010101010101ULL) >> 56;
      for (std::uint64_t y = both & ~c.word(k); y != 0; y &= y - 1)
        f(k * 64 + static_cast<std::size_t>(__builtin_ctzll(y)));
    }
    return total;
  }
  // Calls f(i) for every i set in (a & ~b), ascending.
  template <class F>
  static void for_each_and_not(const Bits& a, const Bits& b, F f) {
    for (std::size_t k = 0; k < a.w_.size(); ++k) {
      std::uint64_t x = a.w_[k] & ~b.word(k);
      while (x) {
        const int bit = __builtin_ctzll(x);
        f(k * 64 + static_cast<std::size_t>(bit));
        x &= x - 1;
      }
    }
  }

 private:
  void grow(std::size_t bits) {
    const std::size_t need = (bits + 63) / 64;
    if (need > w_.size()) w_.resize(need, 0);
  }
  std::vector<std::uint64_t> w_;
};

}  // namespace causal::sim

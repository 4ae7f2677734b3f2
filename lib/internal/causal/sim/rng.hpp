// The simulator's pseudo-random source: xoshiro256** seeded through splitmix64.
//
// Contract: the sequence of values is a pure function of the seed on every platform and
// standard library. That is why the simulator never uses <random>'s distributions, whose
// output is implementation-defined: a seed printed on one machine must replay the same
// world everywhere (verification.md, "Replay").
// Thread-safety: value type, no shared state.
#pragma once

#include <cstdint>
#include <vector>

namespace causal::sim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& w : s_) w = splitmix64(x);
  }

  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n). REQUIRES: n > 0. Multiply-shift (Lemire) without rejection: the
  // bias is below 2^-32 for the small n the simulator uses and, unlike a rejection loop,
  // consumes exactly one value per call, which keeps traces easy to reason about.
  std::uint64_t below(std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>(next()) * n) >> 64);
  }
  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  // True with probability per_mille / 1000 (integers only: no floating point in the world).
  bool chance(std::uint32_t per_mille) { return below(1000) < per_mille; }

  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  // A uniformly chosen subset of `from` with `k` elements, in `from`'s order.
  template <class T>
  std::vector<T> subset(const std::vector<T>& from, std::size_t k) {
    std::vector<T> pool = from;
    for (std::size_t i = 0; i < pool.size(); ++i) std::swap(pool[i], pool[i + below(pool.size() - i)]);
    pool.resize(k < pool.size() ? k : pool.size());
    return pool;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace causal::sim

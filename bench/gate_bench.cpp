// Gate throughput and scaling, side by side with a baseline in the same run.
//
//   1. deliveries/s with 8-claim clocks, records arriving in causal order (every gate
//      passes at once) and in reverse causal order across channels (every record is held,
//      then released by a cascade), against a baseline that moves the same records
//      through a plain FIFO without a gate;
//   2. per-delivery cost at 10, 1,000 and 100,000 channels (the ratio to 10 channels
//      should stay near 1: held heads are indexed by the claim that blocks them).
//
// Clocks are built before the timed loop (a host decodes into a Clock it then hands over);
// the timed loop includes moving them into the gate and destroying them at delivery.
// Usage: gate_bench [records]   (default 2,000,000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>

#include "causal/gate.hpp"

using namespace causal;
using Clk = std::chrono::steady_clock;

namespace {

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Counter : GateObserver {
  std::uint64_t n = 0;
  void delivered(const Delivery&) override { ++n; }
};

struct Input {
  std::vector<Received> records;
};

// Records round-robin over `channels` channels; each claims 8 other channels at the offset
// their latest record had when it was made (so every claim names a real earlier record).
// The 8 are the channel's neighbours c+1..c+8: each channel depends on a bounded set of
// upstream channels, as in a real topology, so custody clocks stay the same size at every
// channel count and the scaling figures measure the gate, not custody growth.
// When `reverse`, each batch of `channels` records is fed last-to-first, so a record's
// causes on other channels arrive after it and it is held until a cascade releases it.
Input make_input(Names& names, std::size_t channels, std::size_t records, bool reverse) {
  Input in;
  in.records.reserve(records);
  std::vector<ChannelId> ids;
  for (std::size_t i = 0; i < channels; ++i) ids.push_back(names.channel("bench", static_cast<std::int32_t>(i)));
  std::vector<Offset> next(channels, 0);
  std::uint64_t seed = 42;
  for (std::size_t r = 0; r < records; ++r) {
    std::size_t c = r % channels;
    Clock clock;
    for (int k = 0; k < 8 && channels > 1; ++k) {
      std::size_t other = reverse ? (c + channels - 1 - static_cast<std::size_t>(k) % (channels - 1)) % channels
                                  : (c + 1 + static_cast<std::size_t>(k) + splitmix(seed) % 2) % channels;
      if (other == c) other = (other + 1) % channels;
      if (next[other] > 0) clock.append_unsorted(OffsetClaim{ids[other], next[other] - 1});
    }
    clock.normalize();
    in.records.push_back({ids[c], next[c]++, std::move(clock), r, 0});
  }
  if (reverse) {
    for (std::size_t b = 0; b + channels <= records; b += channels) {
      std::reverse(in.records.begin() + static_cast<std::ptrdiff_t>(b),
                   in.records.begin() + static_cast<std::ptrdiff_t>(b + channels));
    }
  }
  return in;
}

double run_gate(Names& names, std::size_t channels, Input in, std::uint64_t& delivered) {
  Counter counter;
  Gate gate(names, &counter);
  for (std::size_t i = 0; i < channels; ++i) gate.add_channel(names.channel("bench", static_cast<std::int32_t>(i)), 0);
  auto t0 = Clk::now();
  for (auto& r : in.records) gate.receive(std::move(r));
  auto t1 = Clk::now();
  delivered = counter.n;
  return std::chrono::duration<double>(t1 - t0).count();
}

// Baseline: the same records through a FIFO per channel with no gate (push, pop, destroy).
double run_fifo(std::size_t channels, Input in, std::uint64_t& delivered) {
  std::vector<std::deque<Received>> queues(channels);
  delivered = 0;
  auto t0 = Clk::now();
  for (auto& r : in.records) {
    auto& q = queues[r.channel % channels];
    q.push_back(std::move(r));
    delivered += q.front().tag != ~0ULL;
    q.pop_front();
  }
  auto t1 = Clk::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  std::printf("gate_bench: %zu records, 8-claim clocks, one core\n\n", records);

  std::printf("%-34s %14s %14s %8s\n", "1. throughput (16 channels)", "gate rec/s", "fifo rec/s", "ratio");
  for (bool reverse : {false, true}) {
    Names names;
    std::uint64_t dg = 0, df = 0;
    double tg = run_gate(names, 16, make_input(names, 16, records, reverse), dg);
    double tf = run_fifo(16, make_input(names, 16, records, reverse), df);
    if (dg != records) {
      std::fprintf(stderr, "gate delivered %llu of %zu\n", static_cast<unsigned long long>(dg), records);
      return 1;
    }
    std::printf("%-34s %14.0f %14.0f %8.2f\n", reverse ? "   reverse causal order (held)" : "   causal order (immediate)",
                records / tg, records / tf, tf / tg);
  }

  std::printf("\n%-34s %14s %14s %8s\n", "2. scaling (causal order)", "ns/delivery", "rec/s", "vs 10");
  double base = 0;
  for (std::size_t channels : {10UL, 1'000UL, 100'000UL}) {
    Names names;
    std::uint64_t d = 0;
    double t = run_gate(names, channels, make_input(names, channels, records, false), d);
    double ns = t * 1e9 / static_cast<double>(records);
    if (base == 0) base = ns;
    std::printf("   %-31zu %14.1f %14.0f %8.2f\n", channels, ns, records / t, ns / base);
  }
  std::printf("\n%-34s %14s %14s %8s\n", "3. scaling (reverse order, held)", "ns/delivery", "rec/s", "vs 10");
  base = 0;
  for (std::size_t channels : {10UL, 1'000UL, 100'000UL}) {
    Names names;
    std::uint64_t d = 0;
    std::size_t n = records / channels * channels;
    double t = run_gate(names, channels, make_input(names, channels, n, true), d);
    if (d != n) {
      std::fprintf(stderr, "gate delivered %llu of %zu\n", static_cast<unsigned long long>(d), n);
      return 1;
    }
    double ns = t * 1e9 / static_cast<double>(n);
    if (base == 0) base = ns;
    std::printf("   %-31zu %14.1f %14.0f %8.2f\n", channels, ns, n / t, ns / base);
  }
  return 0;
}

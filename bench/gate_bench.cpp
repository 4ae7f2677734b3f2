// Gate throughput and scaling, side by side with a baseline in the same run.
//
//   1. deliveries/s with 8-claim clocks, records arriving in causal order (every gate
//      passes at once) and in reverse causal order across channels (every record is held,
//      then released by a cascade), against a baseline that moves the same records
//      through a plain FIFO without a gate;
//   2. per-delivery cost at 10, 1,000 and 100,000 channels (the ratio to 10 channels
//      should stay near 1: held heads are indexed by the claim that blocks them), in causal
//      order and in a held chain: each round fed last-to-first, every record held on
//      exactly one claim (the record of the channel before it in the same round) and
//      released by that record's delivery in one cascade per round. The chain gives every
//      record the same work at every channel count; the reverse order of section 1 does
//      not (at 10 channels most of a record's 8 claims name records already delivered,
//      at 100,000 none do), so it is no measure of scaling.
//      Beside each row, the floor: the same records through a store per channel with no gate
//      (a vector and a read index; a std::deque allocates on construction, which at 100,000
//      channels measures the allocator). In causal order each record is stored and taken
//      out at once; in the held chain each batch is stored whole and taken out in causal
//      order, as the gate must hold a whole round. Its "vs 10" is what the channel count
//      costs a workload that only keeps the records: at 100,000 channels a round of held
//      clocks (about 24 MB) and the batch being fed no longer fit in the caches, whatever
//      the gate does.
//
// Clocks are built untimed just before they are timed, a batch at a time (at least 4,096
// records, and whole rounds of `channels` records), as a host decodes a fetched batch into
// memory it then hands over; the timed part includes moving them into the gate and
// destroying them at delivery. Building the whole run up front instead (2 million clocks,
// about 500 MB) measured DRAM streaming more than the gate.
// Rates are per core: the timer is the thread's CPU time, so another process sharing the
// machine slows the figures (caches, memory) but does not add its own run time to them.
// Usage: gate_bench [records]   (default 2,000,000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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

// Thread CPU time in seconds.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Records round-robin over `channels` channels; each claims 8 other channels at the offset
// their latest record had when it was made (so every claim names a real earlier record).
// The 8 are the channel's neighbours c+1..c+8: each channel depends on a bounded set of
// upstream channels, as in a real topology, so custody clocks stay the same size at every
// channel count and the scaling figures measure the gate, not custody growth.
// Order::reverse feeds each round of `channels` records last-to-first, so a record's
// causes on other channels arrive after it and it is held until a cascade releases it.
// Order::chain is fed the same way, but only the claim on the channel before (c - 1) names
// a record of the same round; the other 7 name the round before, already delivered.
enum class Order { causal, reverse, chain };

class Workload {
 public:
  Workload(Names& names, std::size_t channels, Order order)
      : channels_(channels),
        reverse_(order != Order::causal),
        chain_(order == Order::chain),
        next_(channels, 0) {
    for (std::size_t i = 0; i < channels; ++i)
      ids_.push_back(names.channel("bench", static_cast<std::int32_t>(i)));
  }
  const std::vector<ChannelId>& ids() const { return ids_; }

  // The next batch: whole rounds of `channels` records, at least 4,096 records, at most
  // `left` (rounded down to whole rounds when reversing).
  std::vector<Received>& next_batch(std::size_t left) {
    std::size_t rounds = std::max<std::size_t>(1, (4096 + channels_ - 1) / channels_);
    std::size_t n = std::min(left, rounds * channels_);
    if (reverse_) n = n / channels_ * channels_;
    batch_.clear();
    for (std::size_t r = 0; r < n; ++r) {
      std::size_t c = (produced_ + r) % channels_;
      Clock clock;
      for (int k = 0; k < 8 && channels_ > 1; ++k) {
        std::size_t other = 0;
        Offset at = 0;
        if (chain_) {
          // k = 0: the channel before, this round (c > 0). k >= 1: neighbours after c, whose
          // latest record is from the round before; for a neighbour that wrapped below c
          // the round before is its second-latest.
          other =
              k == 0 ? (c + channels_ - 1) % channels_ : (c + 1 + static_cast<std::size_t>(k)) % channels_;
          at = next_[other] - 1 - ((k > 0 && other < c) ? 1 : 0);
          if (other == c || (k == 0 && c == 0)) continue;
        } else {
          other = reverse_ ? (c + channels_ - 1 - static_cast<std::size_t>(k) % (channels_ - 1)) % channels_
                           : (c + 1 + static_cast<std::size_t>(k) + splitmix(seed_) % 2) % channels_;
          if (other == c) other = (other + 1) % channels_;
          at = next_[other] - 1;
        }
        if (at >= 0) clock.append_unsorted(OffsetClaim{ids_[other], at});
      }
      clock.normalize();
      batch_.push_back({ids_[c], next_[c]++, std::move(clock), produced_ + r, 0});
    }
    produced_ += n;
    if (reverse_) {
      for (std::size_t b = 0; b + channels_ <= n; b += channels_) {
        std::reverse(batch_.begin() + static_cast<std::ptrdiff_t>(b),
                     batch_.begin() + static_cast<std::ptrdiff_t>(b + channels_));
      }
    }
    return batch_;
  }

 private:
  std::size_t channels_;
  bool reverse_;
  bool chain_;
  std::vector<ChannelId> ids_;
  std::vector<Offset> next_;
  std::uint64_t seed_ = 42;
  std::size_t produced_ = 0;
  std::vector<Received> batch_;
};

// Feeds `records` records to `consume`, a batch at a time; returns the CPU seconds spent in
// `consume` only. Sets `fed` to the number of records fed.
template <class Consume>
double timed(Names& names, std::size_t channels, std::size_t records, Order order, std::size_t& fed,
             Consume consume) {
  Workload w(names, channels, order);
  double spent = 0;
  fed = 0;
  while (fed < records) {
    auto& batch = w.next_batch(records - fed);
    if (batch.empty()) break;
    double t0 = cpu_seconds();
    consume(batch);
    spent += cpu_seconds() - t0;
    fed += batch.size();
  }
  return spent;
}

double run_gate(Names& names, std::size_t channels, std::size_t records, Order order, std::size_t& fed,
                std::uint64_t& delivered) {
  Counter counter;
  Gate gate(names, &counter);
  for (std::size_t i = 0; i < channels; ++i)
    gate.add_channel(names.channel("bench", static_cast<std::int32_t>(i)), 0);
  double t = timed(names, channels, records, order, fed, [&](std::vector<Received>& batch) {
    for (auto& r : batch) gate.receive(std::move(r));
  });
  delivered = counter.n;
  return t;
}

// Baseline: the same records through a FIFO per channel with no gate (push, pop, destroy).
double run_fifo(Names& names, std::size_t channels, std::size_t records, Order order,
                std::uint64_t& delivered) {
  std::vector<std::deque<Received>> queues(channels);
  delivered = 0;
  std::size_t fed = 0;
  return timed(names, channels, records, order, fed, [&](std::vector<Received>& batch) {
    for (auto& r : batch) {
      auto& q = queues[r.channel % channels];
      q.push_back(std::move(r));
      delivered += q.front().tag != ~0ULL;
      q.pop_front();
    }
  });
}

// The floor of section 2: the same records through a store per channel and no gate. In
// causal order each record is stored and taken out at once; otherwise each batch is stored
// whole, then taken out in causal order (round by round, channel 0 first).
double run_floor(Names& names, std::size_t channels, std::size_t records, Order order,
                 std::uint64_t& delivered) {
  struct Store {
    std::vector<Received> items;
    std::size_t head = 0;
  };
  std::vector<Store> stores(channels);
  delivered = 0;
  std::size_t fed = 0;
  auto take = [&](Store& s) {
    Received r = std::move(s.items[s.head++]);
    delivered += r.tag != ~0ULL;
    if (s.head == s.items.size()) s.items.clear(), s.head = 0;
  };
  return timed(names, channels, records, order, fed, [&](std::vector<Received>& batch) {
    if (order == Order::causal) {
      for (auto& r : batch) {
        Store& s = stores[r.channel % channels];
        s.items.push_back(std::move(r));
        take(s);
      }
      return;
    }
    for (auto& r : batch) stores[r.channel % channels].items.push_back(std::move(r));
    for (std::size_t i = 0; i < batch.size(); ++i) take(stores[i % channels]);
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  std::printf("gate_bench: %zu records, 8-claim clocks, one core (thread CPU time)\n\n", records);

  std::printf("%-34s %14s %14s %8s\n", "1. throughput (16 channels)", "gate rec/s", "fifo rec/s", "ratio");
  for (bool reverse : {false, true}) {
    Names names;
    std::uint64_t dg = 0, df = 0;
    std::size_t fed = 0;
    const Order order = reverse ? Order::reverse : Order::causal;
    double tg = run_gate(names, 16, records, order, fed, dg);
    double tf = run_fifo(names, 16, records, order, df);
    if (dg != fed) {
      std::fprintf(stderr, "gate delivered %llu of %zu\n", static_cast<unsigned long long>(dg), fed);
      return 1;
    }
    std::printf("%-34s %14.0f %14.0f %8.2f\n",
                reverse ? "   reverse causal order (held)" : "   causal order (immediate)",
                static_cast<double>(fed) / tg, static_cast<double>(df) / tf, tf / tg);
  }

  for (Order order : {Order::causal, Order::chain}) {
    std::printf("\n%-34s %14s %14s %8s %10s %8s\n",
                order == Order::chain ? "3. scaling (held chain)" : "2. scaling (causal order)",
                "ns/delivery", "rec/s", "vs 10", "floor ns", "vs 10");
    double base = 0, floor_base = 0;
    for (std::size_t channels : {10UL, 1'000UL, 100'000UL}) {
      Names names;
      std::uint64_t d = 0;
      std::size_t fed = 0;
      double t = run_gate(names, channels, records, order, fed, d);
      if (d != fed) {
        std::fprintf(stderr, "gate delivered %llu of %zu\n", static_cast<unsigned long long>(d), fed);
        return 1;
      }
      double ns = t * 1e9 / static_cast<double>(fed);
      if (base == 0) base = ns;
      Names floor_names;
      std::uint64_t df = 0;
      double floor_ns = run_floor(floor_names, channels, records, order, df) * 1e9 / static_cast<double>(df);
      if (floor_base == 0) floor_base = floor_ns;
      std::printf("   %-31zu %14.1f %14.0f %8.2f %10.1f %8.2f\n", channels, ns, static_cast<double>(fed) / t,
                  ns / base, floor_ns, floor_ns / floor_base);
    }
  }
  return 0;
}

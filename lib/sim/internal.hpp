// Pieces shared by the world's implementation files; not part of the public API.
#pragma once

#include <fmt/core.h>

#include "causal/sim/world.hpp"

// Formats a trace line only when tracing, so that sweeps pay nothing for it.
#define CAUSAL_SIM_TRACE(...)          \
  do {                                 \
    if (trace_) trace(__VA_ARGS__);    \
  } while (0)

namespace causal::sim {

// Folds `v` into the running hash `h` (World::state_hash, state_hash.cpp).
inline std::uint64_t mix64(std::uint64_t h, std::uint64_t v) {
  std::uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One schedulable event (world.cpp enumerates them; reduction.cpp reasons about them).
struct World::Action {
  enum class Kind : std::uint8_t {
    source_step,
    append,
    ack,
    start,
    fetch,
    commit,
    complete_flush,
    crash,
    restart,
    abort,
    grow,
    replay,
    rebalance,
    rewind,
    fence,
    refetch,
    handover,
  } kind;
  std::uint32_t a;  // source, sender or node
  std::uint32_t b;  // channel, where one applies
  std::uint32_t weight;
};

// Buffers a node's deliveries (the gate forbids calling back into it from the observer;
// the node processes them once the gate call returns) and counts holds by cause.
class NodeObserver : public GateObserver {
 public:
  NodeObserver(World& w, Node& n) : world_(w), node_(n) {}

  struct Delivered {
    ChannelId channel;
    Offset offset;
    std::uint64_t tag;
    Release release;
  };
  std::vector<Delivered> pending;
  std::vector<Delivered> spare;  // process_deliveries' batch buffer

  void delivered(const Delivery& d) override { pending.push_back({d.channel, d.offset, d.tag, d.release}); }
  void held(ChannelId ch, Offset o, const Blocker& b) override;

 private:
  World& world_;
  Node& node_;
};

template <class... Args>
void World::trace(fmt::format_string<Args...> f, Args&&... args) {
  if (!trace_) return;
  fmt::format_to(std::back_inserter(*trace_), "{:>6} ", step_);
  fmt::format_to(std::back_inserter(*trace_), f, std::forward<Args>(args)...);
  trace_->push_back('\n');
}

}  // namespace causal::sim

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

// Hand-built gate snapshots for the diagnosis's tests (tests/core/diagnosis_test.cpp) and
// the tool's renderings of it (tests/cli_unit/explain_render_test.cpp): claims, channels and
// held records as a snapshot (causal/snapshot.hpp) carries them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "causal/snapshot.hpp"

namespace causal::test {

inline ClaimView offset_claim(std::string topic, int p, Offset o, bool consumed = true) {
  ClaimView c;
  c.kind = "offset";
  c.topic = std::move(topic);
  c.partition = p;
  c.offset = o;
  c.consumed = consumed;
  return c;
}

inline ClaimView seq_claim(std::string topic, int p, std::string sender, SeqNo q) {
  ClaimView c;
  c.kind = "seq";
  c.topic = std::move(topic);
  c.partition = p;
  c.sender = std::move(sender);
  c.seq = q;
  return c;
}

inline ChannelSnapshot channel(std::string topic, int p, Offset baseline, Offset frontier) {
  ChannelSnapshot c;
  c.topic = std::move(topic);
  c.partition = p;
  c.baseline = baseline;
  c.frontier = frontier;
  return c;
}

inline HeldView held(Offset o, std::vector<ClaimView> unsatisfied, std::int64_t at = 0) {
  HeldView h;
  h.offset = o;
  h.received_at = at;
  h.unsatisfied = std::move(unsatisfied);
  return h;
}

inline void hold(ChannelSnapshot& c, HeldView h) {
  c.held.push_back(std::move(h));
  c.queue_length = c.held.size();
}

}  // namespace causal::test

// A gate snapshot: the gate's state as plain data, serialisable to JSON. `causal explain`
// reads it (from a file, or from a gate it reconstructed). Field names are snake_case and
// stable; docs/snapshot-format.md documents them.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "causal/error.hpp"
#include "causal/gate.hpp"

namespace causal {

struct ClaimView {
  std::string kind;    // "offset" | "seq"
  std::string topic;
  std::int32_t partition = 0;
  Offset offset = kNoOffset;  // kind offset
  std::string sender;         // kind seq
  SeqNo seq = 0;              // kind seq
  bool consumed = true;       // false: the claim's channel is outside the scope (ignored)
};

struct HeldView {
  Offset offset = kNoOffset;
  std::int64_t received_at = 0;
  std::optional<std::string> origin_sender;
  std::optional<SeqNo> origin_seq;
  std::vector<ClaimView> unsatisfied;  // after normalise and restrict (the head only)
  nlohmann::json clock;                // the full decoded clock, protocol.md's shape
};

struct ChannelSnapshot {
  std::string topic;
  std::int32_t partition = 0;
  Offset baseline = 0;
  Offset frontier = kNoOffset;
  std::optional<Offset> position;  // highest reported position
  bool failed = false;
  std::optional<Offset> failed_offset;
  std::size_t queue_length = 0;
  std::vector<HeldView> held;   // head first (the head carries its unsatisfied claims)
  // Senders with a delivered record on this channel, and their highest delivered seq.
  std::vector<std::pair<std::string, SeqNo>> delivered_seq;
};

struct GateSnapshot {
  int version = 1;
  std::vector<ChannelSnapshot> channels;
  GateStats stats;
};

GateSnapshot take_snapshot(const Gate& gate);
nlohmann::json to_json(const GateSnapshot& s);
// Errors name the JSON path that is wrong.
std::expected<GateSnapshot, Error> snapshot_from_json(const nlohmann::json& j);

}  // namespace causal

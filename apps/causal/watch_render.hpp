// causal watch's renderings of a round (causal/kafka/watch.hpp): the JSON line of a
// group's verdict (man/causal-watch.1, "OUTPUT") and the Prometheus text of /metrics
// ("METRICS"). The verdict's words are explain's (explain_render.hpp): the same summary,
// roots and remedies as `causal explain --format json`.
// Thread-safety: none; pure functions but for WatchMetrics, which its owner guards.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "causal/kafka/watch.hpp"
#include "explain_render.hpp"

namespace causal::cli {

// {"time", "group", "verdict", "reason", "summary", "state", "protocol", "members",
//  "held_channels", "stuck_roots", "roots", "remedies", "path", "scanned_records"}:
// `time` is `now_ms` as RFC 3339 UTC with milliseconds; `roots` and `remedies` as explain's
// JSON has them; at the scan bound `roots` and `remedies` are empty and `summary` says so.
// REQUIRES: !report.error.
nlohmann::json watch_line(const kafka::GroupReport& report, const ExplainWords& words, std::int64_t now_ms,
                          std::uint64_t max_scan_records);

// What /metrics shows: per group the last round's report, and the counters since start.
struct WatchMetrics {
  struct Group {
    std::optional<kafka::GroupReport> last;  // nullopt while its last round failed
    std::uint64_t scanned_total = 0;
    std::uint64_t errors_total = 0;
  };
  std::map<std::string, Group> groups;  // every watched group, from the start
  std::uint64_t rounds_total = 0;
  double last_round_seconds = 0;

  void add(const kafka::WatchRound& round);
  // The Prometheus text (causal/kafka/metrics_text.hpp).
  std::string text() const;
};

// The number of roots that block (explain's `blocks`): what causal_group_stuck_roots counts.
std::size_t stuck_roots(const Diagnosis& d);

}  // namespace causal::cli

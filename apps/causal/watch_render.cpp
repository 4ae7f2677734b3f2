#include "watch_render.hpp"

#include <algorithm>
#include <chrono>
#include <string_view>

#include <fmt/chrono.h>
#include <fmt/core.h>

#include "causal/kafka/metrics_text.hpp"

namespace causal::cli {

namespace {

std::string rfc3339_ms(std::int64_t ms) {
  const std::chrono::sys_time<std::chrono::milliseconds> t{std::chrono::milliseconds(ms)};
  const auto secs = std::chrono::floor<std::chrono::seconds>(t);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z", secs, (ms % 1000 + 1000) % 1000);
}

constexpr kafka::GroupVerdict kVerdicts[] = {kafka::GroupVerdict::drains, kafka::GroupVerdict::stuck,
                                             kafka::GroupVerdict::undecided};

}  // namespace

std::size_t stuck_roots(const Diagnosis& d) {
  return static_cast<std::size_t>(
      std::count_if(d.roots.begin(), d.roots.end(), [](const Root& r) { return blocks(r.verdict); }));
}

nlohmann::json watch_line(const kafka::GroupReport& r, const ExplainWords& words, std::int64_t now_ms,
                          std::uint64_t max_scan_records) {
  nlohmann::json j{{"time", rfc3339_ms(now_ms)},
                   {"group", r.group},
                   {"verdict", to_string(r.verdict)},
                   {"reason", r.undecided_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.undecided_reason)}};
  if (r.diagnosis) {
    const nlohmann::json e = explain_json(*r.diagnosis, words);
    j["summary"] = e["summary"];
    j["held_channels"] = e["held_channels"];
    j["stuck_roots"] = stuck_roots(*r.diagnosis);
    j["roots"] = e["roots"];
    j["remedies"] = e["remedies"];
  } else {
    j["summary"] = fmt::format(
        "undecided: scan bound: the replay read {} offset(s) this round (at most {}, --max-scan-records) and has not "
        "reached the LSO; the next round goes on from there",
        r.scanned_records, max_scan_records);
    j["held_channels"] = nullptr;
    j["stuck_roots"] = nullptr;
    j["roots"] = nlohmann::json::array();
    j["remedies"] = nlohmann::json::array();
  }
  j["state"] = r.state;
  j["protocol"] = r.protocol;
  j["members"] = r.members;
  j["path"] = to_string(r.path);
  j["scanned_records"] = r.scanned_records;
  return j;
}

void WatchMetrics::add(const kafka::WatchRound& round) {
  ++rounds_total;
  last_round_seconds = std::chrono::duration<double>(round.duration).count();
  for (const auto& r : round.groups) {
    Group& g = groups[r.group];
    if (r.error) {
      ++g.errors_total;
      g.last.reset();
      continue;
    }
    g.scanned_total += r.scanned_records;
    g.last = r;
  }
}

std::string WatchMetrics::text() const {
  using kafka::MetricType;
  kafka::MetricsText m;
  auto per_partition = [&](std::string_view name, std::string_view help, auto value) {
    m.family(name, MetricType::gauge, help);
    for (const auto& [group, g] : groups) {
      if (!g.last) continue;
      for (const auto& p : g.last->partitions) {
        auto v = value(p);
        if (!v) continue;
        const std::string partition = std::to_string(p.channel.partition);
        m.sample({{"group", group}, {"topic", p.channel.topic}, {"partition", partition}}, *v);
      }
    }
  };
  per_partition("causal_committed_offset", "The group's stable committed offset (partitions with a commit).",
                [](const kafka::WatchedPartition& p) -> std::optional<std::int64_t> { return p.committed; });
  per_partition("causal_log_stable_offset", "The partition's last stable offset (LSO).",
                [](const kafka::WatchedPartition& p) -> std::optional<std::int64_t> { return p.lso; });
  per_partition("causal_high_watermark", "The partition's high watermark.",
                [](const kafka::WatchedPartition& p) -> std::optional<std::int64_t> { return p.high_watermark; });
  per_partition("causal_held_head_age_seconds",
                "Age of the held head record (now minus its timestamp), for partitions holding records.",
                [](const kafka::WatchedPartition& p) -> std::optional<double> {
                  if (!p.head_age_ms) return std::nullopt;
                  return static_cast<double>(*p.head_age_ms) / 1000.0;
                });
  m.family("causal_group_members", MetricType::gauge, "The group's active members, by group protocol.");
  for (const auto& [group, g] : groups) {
    if (g.last) m.sample({{"group", group}, {"protocol", g.last->protocol}}, static_cast<std::uint64_t>(g.last->members));
  }
  m.family("causal_group_verdict", MetricType::gauge,
           "explain's verdict on the group: 1 for the current one (drains, stuck, undecided), 0 for the others.");
  for (const auto& [group, g] : groups) {
    if (!g.last) continue;
    for (auto v : kVerdicts) m.sample({{"group", group}, {"verdict", to_string(v)}}, g.last->verdict == v ? 1 : 0);
  }
  m.family("causal_group_stuck_roots", MetricType::gauge, "Root causes that hold the group's records (0: none).");
  for (const auto& [group, g] : groups) {
    if (g.last && g.last->diagnosis) {
      m.sample({{"group", group}}, static_cast<std::uint64_t>(stuck_roots(*g.last->diagnosis)));
    }
  }
  m.family("causal_watch_rounds_total", MetricType::counter, "Rounds watched since start.");
  m.sample({}, rounds_total);
  m.family("causal_watch_scanned_records_total", MetricType::counter,
           "Offsets the group's replay read since start (0 in a round that reused its verdict).");
  for (const auto& [group, g] : groups) m.sample({{"group", group}}, g.scanned_total);
  m.family("causal_watch_round_duration_seconds", MetricType::gauge, "How long the last round took.");
  m.sample({}, last_round_seconds);
  m.family("causal_watch_errors_total", MetricType::counter, "Rounds in which watching the group failed.");
  for (const auto& [group, g] : groups) m.sample({{"group", group}}, g.errors_total);
  return m.text();
}

}  // namespace causal::cli

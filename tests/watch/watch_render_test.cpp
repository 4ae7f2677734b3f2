// causal watch's renderings (apps/causal/watch_render.hpp): the JSON line of a verdict and
// the /metrics text, from reports built here (no broker).
#include <catch2/catch.hpp>
#include <fmt/core.h>

#include "watch_render.hpp"

using causal::cli::ExplainWords;
using causal::cli::WatchMetrics;
using causal::cli::watch_line;
namespace kafka = causal::kafka;

namespace {

kafka::GroupReport stuck_report() {
  kafka::GroupReport r;
  r.group = "billing";
  r.state = "Empty";
  r.protocol = "classic";
  r.verdict = kafka::GroupVerdict::stuck;
  r.path = kafka::WatchPath::replayed;
  r.scanned_records = 7;
  causal::Diagnosis d;
  causal::Root root;
  root.verdict = causal::Verdict::frozen_seq_claim;
  root.summary = "frozen";
  root.held_topic = "c";
  root.held_offset = 3;
  d.roots.push_back(root);
  causal::ChannelDiagnosis c;
  c.topic = "c";
  c.queue_length = 1;
  c.head_offset = 3;
  d.channels.push_back(c);
  r.diagnosis = d;
  kafka::WatchedPartition p;
  p.channel = {"c", 0};
  p.committed = 0;
  p.log_start = 0;
  p.lso = 4;
  p.high_watermark = 5;
  p.head_age_ms = 2500;
  r.partitions.push_back(p);
  return r;
}

}  // namespace

TEST_CASE("a verdict's line has explain's words and the watch's fields") {
  auto j = watch_line(stuck_report(), ExplainWords{}, 1'796'553'200'123, 100);
  CHECK(j["time"] == "2026-12-06T10:33:20.123Z");
  CHECK(j["group"] == "billing");
  CHECK(j["verdict"] == "stuck");
  CHECK(j["reason"].is_null());
  CHECK(j["stuck_roots"] == 1);
  CHECK(j["roots"][0]["verdict"] == "frozen_seq_claim");
  CHECK(j["summary"].get<std::string>().rfind("stuck:", 0) == 0);
  CHECK(j["path"] == "replayed");
  CHECK(j["scanned_records"] == 7);
}

TEST_CASE("at the scan bound the line is undecided with its reason and no roots") {
  kafka::GroupReport r;
  r.group = "g";
  r.verdict = kafka::GroupVerdict::undecided;
  r.undecided_reason = "scan bound";
  r.scanned_records = 100;
  auto j = watch_line(r, ExplainWords{}, 0, 100);
  CHECK(j["verdict"] == "undecided");
  CHECK(j["reason"] == "scan bound");
  CHECK(j["roots"].empty());
  CHECK(j["summary"].get<std::string>().find("--max-scan-records") != std::string::npos);
}

TEST_CASE("metrics: one-hot verdict, partition gauges, counters, and a failed group keeps only its counters") {
  WatchMetrics m;
  m.groups["billing"];
  m.groups["gone"];
  kafka::WatchRound round;
  round.groups.push_back(stuck_report());
  kafka::GroupReport failed;
  failed.group = "gone";
  failed.error = causal::runtime_error("unknown group");
  round.groups.push_back(failed);
  round.duration = std::chrono::milliseconds(250);
  m.add(round);
  m.add(round);
  const std::string t = m.text();
  auto has = [&](const std::string& line) {
    INFO(t);
    CHECK(t.find(line + "\n") != std::string::npos);
  };
  has("causal_group_verdict{group=\"billing\",verdict=\"drains\"} 0");
  has("causal_group_verdict{group=\"billing\",verdict=\"stuck\"} 1");
  has("causal_group_verdict{group=\"billing\",verdict=\"undecided\"} 0");
  has("causal_group_stuck_roots{group=\"billing\"} 1");
  has("causal_group_members{group=\"billing\",protocol=\"classic\"} 0");
  has("causal_committed_offset{group=\"billing\",topic=\"c\",partition=\"0\"} 0");
  has("causal_log_stable_offset{group=\"billing\",topic=\"c\",partition=\"0\"} 4");
  has("causal_high_watermark{group=\"billing\",topic=\"c\",partition=\"0\"} 5");
  has("causal_held_head_age_seconds{group=\"billing\",topic=\"c\",partition=\"0\"} 2.5");
  has("causal_watch_rounds_total 2");
  has("causal_watch_scanned_records_total{group=\"billing\"} 14");
  has("causal_watch_round_duration_seconds 0.25");
  has("causal_watch_errors_total{group=\"gone\"} 2");
  has("causal_watch_errors_total{group=\"billing\"} 0");
  CHECK(t.find("group=\"gone\",verdict") == std::string::npos);
}

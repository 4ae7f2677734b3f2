// Tests of the diagnosis as `causal explain` renders it (explain_render.hpp,
// remedy_command.hpp, option_words.hpp): remedies as commands that run as printed, fields
// as the tool's options, and the JSON and text forms of docs/explain-format.md.
#include "explain_render.hpp"

#include <catch2/catch.hpp>

#include "option_words.hpp"
#include "remedy_command.hpp"
#include "snapshot_builders.hpp"

using namespace causal;
using namespace causal::cli;
using namespace causal::test;

namespace {

ChannelFacts facts(std::string topic, int p, Offset lso, Offset log_end) {
  ChannelFacts f;
  f.topic = std::move(topic);
  f.partition = p;
  f.log_start = 0;
  f.lso = lso;
  f.log_end = log_end;
  f.caught_up = true;
  return f;
}

const ExplainWords kNoWords{};

}  // namespace

TEST_CASE("nothing held: the JSON says not stuck and the text starts with it", "[explain_render]") {
  GateSnapshot s;
  s.channels.push_back(channel("a", 0, 0, 9));
  auto d = diagnose(s);
  CHECK(explain_json(d, kNoWords)["stuck"] == false);
  CHECK(explain_text(d, kNoWords).rfind("not stuck", 0) == 0);
}

TEST_CASE("each remedy kind as the command printed", "[explain_render][remedy]") {
  CHECK(remedy_command({Remedy::Kind::explain, "billing", {}, {"a", "c"}, 0, std::nullopt}, "") ==
        "causal explain --group billing --topic a --topic c");
  // The connection options explain was given come with it, to reach the same cluster.
  CHECK(remedy_command({Remedy::Kind::explain, "billing", {}, {"a", "c"}, 0, std::nullopt},
                       "-b k1:9092 --cluster prod") ==
        "causal explain -b k1:9092 --cluster prod --group billing --topic a --topic c");
  // A group name the shell would split is quoted, so that the remedy runs as printed.
  CHECK(remedy_command({Remedy::Kind::explain, "billing team's", {}, {"a", "c"}, 0, std::nullopt}, "") ==
        "causal explain --group 'billing team'\\''s' --topic a --topic c");
  CHECK(remedy_command({Remedy::Kind::rewind, "joiners", {{"a", 0, 2}, {"b", 1, 7}}, {}, 0, std::nullopt}, "") ==
        "causal baseline --group joiners --apply a/0@2 b/1@7");
  CHECK(remedy_command({Remedy::Kind::decode, "", {{"a", 0, 1}}, {}, 0, std::nullopt}, "-b k1") ==
        "causal decode -b k1 a/0@1");
  CHECK(remedy_command({Remedy::Kind::start_joiners, "", {}, {"a", "c"}, 0, std::nullopt}, "") ==
        "causal baseline a c --group <NEW-GROUP> --apply");
  CHECK(remedy_command({Remedy::Kind::search_further, "g", {}, {"a", "c/1"}, 9, std::nullopt}, "-b k1") ==
        "causal explain -b k1 --group g --topic a --topic c/1 --lookup-max-offsets 9");
  CHECK(remedy_command({Remedy::Kind::search_further, "g", {}, {"a"}, 9, 480000}, "") ==
        "causal explain --group g --topic a --lookup-max-offsets 9 --replay-timeout-ms 480000");
}

TEST_CASE("a not-received root without the group: no remedy, the detail says to give --group", "[explain_render]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 2);
  hold(c, held(3, {offset_claim("a", 0, 5)}));
  s.channels.push_back(c);
  s.channels.push_back(channel("a", 0, 0, 4));
  auto bare = diagnose(s);
  auto j = explain_json(bare, kNoWords);
  CHECK(j["roots"][0]["remedy"].is_null());
  CHECK(j["remedies"] == nlohmann::json::array());
  CHECK(j["roots"][0]["detail"] ==
        "No log facts (LSO, high watermark) were given for the channel; explain against the group (--group) to tell "
        "an open transaction from a record not yet written. Give --group (the node's consumer group) for the command "
        "that does it.");
  DiagnosisFacts named;
  named.group = "billing";
  auto d = diagnose(s, named);
  CHECK(explain_json(d, {"-b k1:9092 --cluster prod", {}})["roots"][0]["remedy"] ==
        "causal explain -b k1:9092 --cluster prod --group billing --topic a --topic c");
}

TEST_CASE("a frozen claim: the rewind, the late joiners' advice and the text", "[explain_render]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 1)}));
  s.channels = {c, channel("a", 0, 4, 3)};
  DiagnosisFacts f;
  f.group = "joiners";
  f.channels.push_back(facts("a", 0, 4, 4));
  f.located.push_back({"a", 0, "S", 1, Offset{2}, 0, 4, std::nullopt});
  auto d = diagnose(s, f);
  auto j = explain_json(d, kNoWords);
  CHECK(j["roots"][0]["verdict"] == "frozen_seq_claim");
  CHECK(j["roots"][0]["remedy"] == "causal baseline --group joiners --apply a/0@2");
  CHECK(j["remedies"] == nlohmann::json::array({"causal baseline --group joiners --apply a/0@2"}));
  // Every topic of the scope, not only the frozen claim's: a joiner consumes them all.
  CHECK(j["advice"][0] ==
        "Late joiners still to start: baseline them at the last stable offset, not the log end: causal baseline a c "
        "--group <NEW-GROUP> --apply");
  CHECK(std::string(j["roots"][0]["detail"]).find("(causal tail --no-lookup, or a node") != std::string::npos);
  const std::string text = explain_text(d, {"", {"extra advice"}});
  CHECK(text.find("FROZEN SEQUENCE CLAIM") != std::string::npos);
  CHECK(text.find("    remedy: causal baseline --group joiners --apply a/0@2\n") != std::string::npos);
  CHECK(text.find("\nadvice: extra advice\n") != std::string::npos);
  // Without the group (a snapshot explained without --group): no command is printed.
  f.group.reset();
  auto bare = diagnose(s, f);
  const std::string bare_text = explain_text(bare, kNoWords);
  CHECK(bare_text.find("remedy:") == std::string::npos);
  CHECK(bare_text.find("Give --group (the node's consumer group) for the command that does it.") != std::string::npos);
}

TEST_CASE("a send looked up and not found in the log: its verdict in JSON", "[explain_render]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 2)}));
  s.channels = {c, channel("a", 0, 4, 5)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 9, 9));
  f.channels[0].log_start = 2;
  f.located.push_back({"a", 0, "S", 2, std::nullopt, 2, 4, std::nullopt});
  CHECK(explain_json(diagnose(s, f), kNoWords)["roots"][0]["verdict"] == "send_not_in_log");
}

TEST_CASE("claims outside the scope: two roots in JSON, the detail names --topic", "[explain_render]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {offset_claim("z", 0, 4, /*consumed=*/false), offset_claim("a", 0, 3)}));
  s.channels = {c, channel("a", 0, 0, 1)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 3, 3));
  auto j = explain_json(diagnose(s, f), kNoWords);
  CHECK(j["roots"].size() == 2);
  CHECK(std::string(j["roots"][0]["detail"]).ends_with("If the node does consume z/0, include it (--topic z) and "
                                                       "explain again."));
}

TEST_CASE("a channel failed closed with nothing waiting on it: JSON and text", "[explain_render]") {
  GateSnapshot s;
  auto a = channel("a", 0, 0, 0);
  a.failed = true;
  a.failed_offset = 1;
  s.channels = {a, channel("b", 0, 0, 4)};
  auto d = diagnose(s);
  auto j = explain_json(d, kNoWords);
  CHECK(j["stuck"] == true);
  CHECK(j["roots"][0]["claim"].is_null());
  CHECK(j["roots"][0]["held"]["offset"] == 1);
  CHECK(j["summary"] == "stuck: 0 of 2 channel(s) hold records, 1 failed closed; 1 root cause(s)");
  CHECK(j["remedies"] == nlohmann::json::array({"causal decode a/0@1"}));
  CHECK(explain_text(d, kNoWords).find("nothing held, delivers nothing more -> root [1]") != std::string::npos);
}

TEST_CASE("head age in JSON", "[explain_render]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {offset_claim("a", 0, 5)}, /*at=*/1000));
  s.channels = {c, channel("a", 0, 0, 0)};
  DiagnosisFacts f;
  f.now = 4500;
  CHECK(explain_json(diagnose(s, f), kNoWords)["channels"][0]["head_age_ms"] == 3500);
}

TEST_CASE("a held head with nothing unsatisfied: its claim is null in JSON", "[explain_render]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {}));
  s.channels = {c};
  auto j = explain_json(diagnose(s), kNoWords);
  CHECK(j["roots"][0]["verdict"] == "inconsistent");
  CHECK(j["roots"][0]["claim"].is_null());  // was {"kind":"none","offset":-1,"topic":""}
  CHECK(j["roots"][0]["held"]["offset"] == 1);
}

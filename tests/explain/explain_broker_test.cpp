// `causal explain` and `causal baseline` against the real test broker (fixture kafka_broker),
// running the built `causal` binary. Setup (topics, transactions, stamped records, group
// offsets) uses librdkafka through tests/kafka/broker_env.hpp and causal::encode for the
// causal.clock headers. Nothing here skips: an unreachable broker fails every test.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "broker_env.hpp"
#include "stamp.hpp"
#include "causal/codec.hpp"
#include "causal/gate.hpp"
#include "causal/kafka/offsets.hpp"
#include "causal/resolution_state.hpp"
#include "causal/snapshot.hpp"

using causal::test::Record;
using causal::test::Stamp;
using causal::test::stamped;
using Json = nlohmann::json;

namespace {

struct Run {
  int rc = -1;
  std::string out;
  std::string err;
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs the shell command `cmd`, capturing stdout, stderr and the exit status.
Run run_command(std::string cmd) {
  char errpath[] = "/tmp/causal-explain-test-XXXXXX";
  int fd = mkstemp(errpath);
  REQUIRE(fd >= 0);
  close(fd);
  cmd += " 2>" + quote(errpath);
  Run r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(errpath);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(errpath);
  INFO("causal " << cmd << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  return r;
}

// Runs `causal <args>` with CAUSAL_BROKERS set to the test broker.
Run causal_cli(const std::vector<std::string>& args) {
  static const std::string brokers = causal::test::bootstrap();
  std::string cmd = "CAUSAL_BROKERS=" + quote(brokers) + " " + quote(CAUSAL_BIN);
  for (const auto& a : args) cmd += " " + quote(a);
  return run_command(cmd);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const Json& only_root(const Json& j) {
  REQUIRE(j.contains("roots"));
  REQUIRE(j["roots"].size() >= 1);
  return j["roots"][0];
}

Json explain_json(const std::string& group, const std::vector<std::string>& topics, int expect_rc) {
  std::vector<std::string> args{"explain", "--group", group, "--format", "json"};
  for (const auto& t : topics) {
    args.push_back("--topic");
    args.push_back(t);
  }
  Run r = causal_cli(args);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.rc == expect_rc);
  return Json::parse(r.out);
}

// A member that joins `group` (subscribes to `topic`) and stays until closed.
causal::test::HandlePtr join_group(const std::string& group, const std::string& topic, const std::string& client_id) {
  auto member = causal::test::make_handle(RD_KAFKA_CONSUMER, {{"group.id", group},
                                                             {"client.id", client_id},
                                                             {"enable.auto.commit", "false"},
                                                             {"auto.offset.reset", "earliest"}});
  rd_kafka_poll_set_consumer(member.get());
  rd_kafka_topic_partition_list_t* sub = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(sub, topic.c_str(), RD_KAFKA_PARTITION_UA);
  REQUIRE(rd_kafka_subscribe(member.get(), sub) == RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(sub);
  bool joined = causal::test::eventually(
      [&] {
        if (rd_kafka_message_t* m = rd_kafka_consumer_poll(member.get(), 100)) rd_kafka_message_destroy(m);
        rd_kafka_topic_partition_list_t* a = nullptr;
        if (rd_kafka_assignment(member.get(), &a) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
        bool has = a->cnt > 0;
        rd_kafka_topic_partition_list_destroy(a);
        return has;
      },
      std::chrono::seconds(30));
  REQUIRE(joined);
  return member;
}

bool tail_available() {
  Run r = causal_cli({"tail", "--help"});
  return r.rc == 0 && r.out.find("--no-lookup") != std::string::npos;
}

}  // namespace

TEST_CASE("late joiners: the at-log-end joiner is stuck on a frozen sequence claim - the remedy is one command",
          "[explain][broker]") {
  const std::string A = causal::test::create_topic("explain-late-a", 1);
  const std::string C = causal::test::create_topic("explain-late-c", 1);
  const std::string S = causal::test::unique_name("sender-S");
  const std::string R = causal::test::unique_name("relay-R");
  const std::string at_end = causal::test::unique_name("joiner-end");
  const std::string at_lso = causal::test::unique_name("joiner-lso");
  const std::string from_start = causal::test::unique_name("joiner-start");

  // Something older on A from another sender, so that A's log does not start at S's send.
  causal::test::Producer other;
  Stamp o;
  o.origin(causal::test::unique_name("sender-O"), 1);
  other.send(A, stamped("older", 0, o));

  // S writes its send #1 to A inside a transaction that stays open while the joiners baseline.
  causal::test::TransactionalProducer s;
  s.begin();
  Stamp q;
  q.origin(S, 1);
  const int64_t send_q = s.send(A, stamped("q", 0, q));
  REQUIRE(send_q == 1);

  // Joiner 1: at the log end (high watermark), committed directly.
  const int64_t hwm_a = causal::test::high_watermark(A, 0);
  REQUIRE(hwm_a == send_q + 1);
  causal::test::commit_offsets(at_end, A, {{0, hwm_a}});
  causal::test::commit_offsets(at_end, C, {{0, causal::test::high_watermark(C, 0)}});

  // Joiner 2: at the LSO, as `causal baseline` gives it; the plan shows the open span.
  Run plan = causal_cli({"baseline", A, C, "--format", "json"});
  REQUIRE(plan.rc == 0);
  Json pj = Json::parse(plan.out);
  REQUIRE(pj["channels"].size() == 2);
  const Json& pa = pj["channels"][0]["topic"] == A ? pj["channels"][0] : pj["channels"][1];
  CHECK(pa["lso"] == send_q);
  CHECK(pa["high_watermark"] == hwm_a);
  CHECK(pa["open_span"] == 1);
  CHECK(pa["recommended_baseline"] == send_q);
  // Without --group, the group's fields are there and null (baseline(1) --format).
  for (const char* k : {"committed", "committed_pending", "skip"}) CHECK((pa.contains(k) && pa[k].is_null()));
  for (const char* k : {"group", "group_state", "members"}) CHECK((pj.contains(k) && pj[k].is_null()));
  Run applied = causal_cli({"baseline", A, C, "--group", at_lso, "--apply"});
  REQUIRE(applied.rc == 0);
  CHECK(applied.out.find("applied") != std::string::npos);
  CHECK(causal::test::committed_offsets(at_lso, A, {0}).at(0) == send_q);

  // Joiner 3: from the start.
  Run start = causal_cli({"baseline", A + "/0@0", C + "/0@0", "--group", from_start, "--apply"});
  REQUIRE(start.rc == 0);

  s.commit();  // S never writes A again.

  // R relays the claim (A, S, 1) from custody onto C: R does not consume A.
  causal::test::Producer relay;
  Stamp rc;
  rc.origin(R, 1).seq(A, 0, S, 1);
  const int64_t relayed = relay.send(C, stamped("relayed", 0, rc));

  SECTION("explain names the frozen claim, locates the send and gives the remedy") {
    Json j = explain_json(at_end, {A, C}, 4);
    CHECK(j["stuck"] == true);
    const Json& root = only_root(j);
    CHECK(root["verdict"] == "frozen_seq_claim");
    CHECK(root["claim"]["kind"] == "seq");
    CHECK(root["claim"]["topic"] == A);
    CHECK(root["claim"]["sender"] == S);
    CHECK(root["claim"]["seq"] == 1);
    CHECK(root["baseline"] == hwm_a);
    CHECK(root["located_offset"] == send_q);
    CHECK(root["held"]["topic"] == C);
    CHECK(root["held"]["offset"] == relayed);
    const std::string remedy = root["remedy"];
    CHECK(remedy == "causal baseline --group " + at_end + " --apply " + A + "/0@" + std::to_string(send_q));
    // The gate performed no lookups: the lookup reported is explain's own.
    REQUIRE(j["lookups"].size() == 1);
    CHECK(j["lookups"][0]["located_offset"] == send_q);

    // Text form: the short verdict first, then the root.
    Run text = causal_cli({"explain", "--group", at_end, "--topic", A, "--topic", C});
    CHECK(text.rc == 4);
    if (std::getenv("CAUSAL_TEST_SHOW")) fmt::print("{}\n{}\n", text.out, j.dump(2));
    CHECK(text.out.rfind("stuck:", 0) == 0);
    CHECK(text.out.find("FROZEN SEQUENCE CLAIM") != std::string::npos);
    CHECK(text.out.find(remedy) != std::string::npos);

    // With plain tail (lookups on), the same group drains without help.
    if (tail_available()) {
      Run t = causal_cli({"tail", A, C, "--group", at_end, "--from", "committed", "-e"});
      CHECK(t.rc == 0);
      Run stuck = causal_cli({"tail", A, C, "--no-lookup", "--group", at_end, "--from", "committed", "-e"});
      CHECK(stuck.rc == 4);
    } else {
      WARN("causal tail with --no-lookup is not built yet: the tail parts of this test did not run");
    }

    // Apply the remedy exactly as printed (it names the channel and offset).
    std::vector<std::string> args = split(remedy);
    REQUIRE(args.size() >= 2);
    args.erase(args.begin());  // "causal"
    Run fix = causal_cli(args);
    REQUIRE(fix.rc == 0);
    CHECK(fix.out.find(std::to_string(hwm_a) + " -> " + std::to_string(send_q)) != std::string::npos);
    CHECK(causal::test::committed_offsets(at_end, A, {0}).at(0) == send_q);
    CHECK(causal::test::committed_offsets(at_end, C, {0}).at(0) == relayed);  // untouched

    Json after = explain_json(at_end, {A, C}, 0);
    CHECK(after["stuck"] == false);
    if (tail_available()) {
      Run t = causal_cli({"tail", A, C, "--no-lookup", "--group", at_end, "--from", "committed", "-e"});
      CHECK(t.rc == 0);
    }
  }

  SECTION("without lookups explain only suspects the claim") {
    Run r = causal_cli({"explain", "--group", at_end, "--topic", A, "--topic", C, "--format", "json", "--no-lookup"});
    REQUIRE(r.rc == 4);
    CHECK(only_root(Json::parse(r.out))["verdict"] == "suspected_frozen_seq_claim");
  }

  SECTION("the at-LSO joiner and the from-start joiner drain without help") {
    CHECK(explain_json(at_lso, {A, C}, 0)["stuck"] == false);
    CHECK(explain_json(from_start, {A, C}, 0)["stuck"] == false);
  }
}

TEST_CASE("an open transaction on one partition: baseline shows the span and explain names the partition",
          "[explain][broker]") {
  const std::string T = causal::test::create_topic("explain-open", 2);
  const std::string group = causal::test::unique_name("held-behind-txn");
  causal::test::TransactionalProducer p;
  p.begin();
  p.send(T, {Record("in-txn-0", 1), Record("in-txn-1", 1)});  // T/1 offsets 0, 1: open
  // A record on T/0 claims T/1@1, as an end-offset seed taken now (read_uncommitted) would.
  causal::test::Producer w;
  Stamp st;
  st.origin(causal::test::unique_name("seeded"), 1).offset(T, 1, 1);
  w.send(T, stamped("claims-open", 0, st));
  causal::test::commit_offsets(group, T, {{0, 0}, {1, 0}});

  Run b = causal_cli({"baseline", T, "--format", "json"});
  REQUIRE(b.rc == 0);
  Json bj = Json::parse(b.out);
  const Json& p1 = bj["channels"][1];
  REQUIRE(p1["partition"] == 1);
  CHECK(p1["lso"] == 0);
  CHECK(p1["high_watermark"] == 2);
  CHECK(p1["open_span"] == 2);
  CHECK(bj["channels"][0]["open_span"] == 0);
  Run bt = causal_cli({"baseline", T});
  CHECK(bt.out.find("OPEN_SPAN") != std::string::npos);

  Json j = explain_json(group, {T}, 4);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "open_transaction");
  CHECK(root["claim"]["topic"] == T);
  CHECK(root["claim"]["partition"] == 1);
  CHECK(root["lso"] == 0);
  CHECK(root["high_watermark"] == 2);
  CHECK(root["open_txn_since_ms"].is_number());
  CHECK(root["summary"].get<std::string>().find(T + "/1") != std::string::npos);
  Run text = causal_cli({"explain", "--group", group, "--topic", T});
  CHECK(text.rc == 4);
  CHECK(text.out.find("OPEN TRANSACTION") != std::string::npos);
  if (std::getenv("CAUSAL_TEST_SHOW")) fmt::print("{}\n", text.out);

  p.commit();
  CHECK(explain_json(group, {T}, 0)["stuck"] == false);
}

// On a compacted topic a send the lookup does not find may have been removed by compaction
// from inside the log: explain reads the topic's cleanup.policy and says so, instead of "not
// appended" (for which the runbook would send the operator to its producer). The send here
// was never written: the verdict's text covers both cases, as for a log start above 0.
TEST_CASE("a send not found on a compacted topic is not called not appended", "[explain][broker]") {
  const std::string K = causal::test::unique_name("explain-compacted");
  {
    causal::test::HandlePtr admin = causal::test::make_handle(RD_KAFKA_PRODUCER, {});
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(K.c_str(), 2, 1, nullptr, 0);
    REQUIRE(rd_kafka_NewTopic_set_config(nt, "cleanup.policy", "compact") == RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_queue_t* q = rd_kafka_queue_new(admin.get());
    rd_kafka_CreateTopics(admin.get(), &nt, 1, nullptr, q);
    rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 15000);
    REQUIRE(ev != nullptr);
    size_t n = 0;
    const rd_kafka_topic_result_t** res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    REQUIRE(n == 1);
    REQUIRE(rd_kafka_topic_result_error(res[0]) == RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
    rd_kafka_NewTopic_destroy(nt);
  }
  const std::string group = causal::test::unique_name("waits-compacted");
  causal::test::Producer w;
  w.send(K, Record("k1", 1).with_key("k1"));  // a compacted topic refuses a record without a key
  Stamp st;
  st.origin(causal::test::unique_name("effect"), 1).seq(K, 1, "gone-sender", 1);
  w.send(K, stamped("needs-gone", 0, st).with_key("e1"));
  causal::test::commit_offsets(group, K, {{0, 0}, {1, 0}});

  Json j = explain_json(group, {K}, 4);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "send_not_in_log");
  CHECK(root["detail"].get<std::string>().find("is compacted (cleanup.policy compact)") != std::string::npos);
  // The way on that causal-explain(1) gives when the send was removed: give the held record
  // up. Then nothing is stuck.
  Run skip = causal_cli({"baseline", "--group", group, "--apply", "--allow-skip", K + "/0@1"});
  INFO(skip.out << skip.err);
  CHECK(skip.rc == 0);
  CHECK(explain_json(group, {K}, 0)["stuck"] == false);
}

TEST_CASE("a dependency on a record not yet written: exit 4 and then 0 once it is", "[explain][broker]") {
  const std::string A = causal::test::create_topic("explain-unwritten-a", 1);
  const std::string C = causal::test::create_topic("explain-unwritten-c", 1);
  const std::string group = causal::test::unique_name("waits-for-a");
  causal::test::Producer w;
  w.send(A, Record("a0", 0));
  Stamp st;
  st.origin(causal::test::unique_name("future"), 1).offset(A, 0, 2);
  w.send(C, stamped("needs-a2", 0, st));
  causal::test::commit_offsets(group, A, {{0, 0}});
  causal::test::commit_offsets(group, C, {{0, 0}});

  Json j = explain_json(group, {A, C}, 4);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "not_appended");
  CHECK(root["awaited_offset"] == 2);
  CHECK(root["claim"]["topic"] == A);
  Run text = causal_cli({"explain", "--group", group, "--topic", A, "--topic", C});
  CHECK(text.rc == 4);
  CHECK(text.out.find("NOT APPENDED") != std::string::npos);

  w.send(A, {Record("a1", 0), Record("a2", 0)});
  CHECK(explain_json(group, {A, C}, 0)["stuck"] == false);
}

TEST_CASE("a partition failed closed with nothing waiting on it: stuck (exit 4), its own root, the decode remedy",
          "[explain][broker]") {
  // Not "not stuck" with exit 0: tail from the group's commit exits 3 and never delivers
  // bad/0@2.
  const std::string T = causal::test::create_topic("explain-failed-alone", 1);
  const std::string group = causal::test::unique_name("failed-alone");
  causal::test::Producer w;
  w.send(T, Record("good", 0));
  w.send(T, Record("bad", 0).with_header("causal.clock", std::string("\xff\xff\xff\xff", 4)));
  w.send(T, Record("after", 0));
  causal::test::commit_offsets(group, T, {{0, 1}});

  Json j = explain_json(group, {T}, 4);
  CHECK(j["stuck"] == true);
  CHECK(j["held_channels"] == 0);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "failed_closed");
  CHECK(root["claim"].is_null());
  CHECK(root["held"]["offset"] == 1);
  CHECK(j["remedies"] == Json::array({"causal decode " + T + "/0@1"}));
  CHECK(j["summary"].get<std::string>().find("1 failed closed") != std::string::npos);
  // The remedy runs as printed and says why the header does not decode.
  Run decode = causal_cli({"decode", T + "/0@1"});
  CHECK(decode.rc == 3);
  CHECK(decode.err.find(T + "/0@1") != std::string::npos);
  Run text = causal_cli({"explain", "--group", group, "--topic", T});
  CHECK(text.rc == 4);
  CHECK(text.out.find("FAILED CLOSED") != std::string::npos);
}

TEST_CASE("baseline --apply refuses while the group has an active member and changes nothing",
          "[baseline][broker]") {
  const std::string T = causal::test::create_topic("baseline-active", 1);
  const std::string group = causal::test::unique_name("active-group");
  causal::test::Producer w;
  w.send(T, {Record("x"), Record("y"), Record("z")});
  causal::test::commit_offsets(group, T, {{0, 1}});

  // A member that joins the group (subscribe) and stays in it.
  auto member = join_group(group, T, "the-active-member");

  Run r = causal_cli({"baseline", T, "--group", group, "--apply"});
  CHECK(r.rc == 1);
  CHECK(r.err.find("refusing") != std::string::npos);
  CHECK(r.err.find("the-active-member") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line, members on it
  CHECK(r.out.empty());  // baseline(1) OUTPUT: nothing on stdout when --apply refuses
  CHECK(causal::test::committed_offsets(group, T, {0}).at(0) == 1);
  Run rj = causal_cli({"baseline", T, "--group", group, "--apply", "--format", "json"});
  CHECK(rj.rc == 1);
  CHECK(rj.out.empty());

  // The dry run (the default) says it would refuse, and writes nothing either.
  Run dry = causal_cli({"baseline", T, "--group", group});
  CHECK(dry.rc == 0);
  CHECK(dry.out.find("dry run") != std::string::npos);
  CHECK(causal::test::committed_offsets(group, T, {0}).at(0) == 1);
  rd_kafka_consumer_close(member.get());
}

TEST_CASE("baseline lists offsets in one ListOffsets request per broker per kind and not per partition",
          "[baseline][broker]") {
  const std::string T = causal::test::create_topic("baseline-batched", 8);
  causal::test::Producer w;
  w.send(T, {Record("a", 0), Record("b", 3), Record("c", 7)});
  Run r = causal_cli({"baseline", T, "--format", "csv", "-X", "debug=protocol"});
  REQUIRE(r.rc == 0);
  // CSV as kafka-consumer-groups --reset-offsets --export writes it: topic,partition,offset.
  CHECK(r.out.find(T + ",0,1\n") != std::string::npos);
  CHECK(r.out.find(T + ",3,1\n") != std::string::npos);
  CHECK(r.out.find(T + ",5,0\n") != std::string::npos);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 8);
  // One broker: log start, LSO and high watermark are one request each, for all 8 partitions.
  size_t sent = 0;
  for (size_t at = 0; (at = r.err.find("Sent ListOffsetsRequest", at)) != std::string::npos; ++at) ++sent;
  CHECK(sent == 3);
}

TEST_CASE("bad input: unknown group and unknown topic and unreadable or malformed snapshot", "[explain][broker]") {
  const std::string T = causal::test::create_topic("explain-bad", 1);
  Run g = causal_cli({"explain", "--group", causal::test::unique_name("no-such-group"), "--topic", T});
  CHECK(g.rc == 1);
  CHECK(g.err.find("unknown group") != std::string::npos);

  const std::string group = causal::test::unique_name("exists");
  causal::test::commit_offsets(group, T, {{0, 0}});
  Run t = causal_cli({"explain", "--group", group, "--topic", "no-such-topic-here"});
  CHECK(t.rc == 1);
  CHECK(t.err.find("unknown topic 'no-such-topic-here'") != std::string::npos);

  Run missing = causal_cli({"explain", "--snapshot", "/nonexistent/gate.json"});
  CHECK(missing.rc == 2);
  CHECK(missing.err.find("cannot read snapshot file '/nonexistent/gate.json'") != std::string::npos);
  Run dir = causal_cli({"explain", "--snapshot", "/tmp"});
  CHECK(dir.rc == 2);
  CHECK(dir.err.find("cannot read snapshot file '/tmp': Is a directory") != std::string::npos);

  char path[] = "/tmp/causal-bad-snapshot-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "{\"channels\": [", 14) == 14);
  close(fd);
  Run bad = causal_cli({"explain", "--snapshot", path});
  CHECK(bad.rc == 2);
  CHECK(bad.err.find("is not valid JSON") != std::string::npos);
  std::ofstream(path) << R"({"version": 1, "channels": 7})";
  Run wrong = causal_cli({"explain", "--snapshot", path});
  CHECK(wrong.rc == 2);
  CHECK(wrong.err.find("is not a gate snapshot") != std::string::npos);
  std::remove(path);

  Run neither = causal_cli({"explain"});
  CHECK(neither.rc == 2);
  Run apply_without_group = causal_cli({"baseline", T, "--apply"});
  CHECK(apply_without_group.rc == 2);
}

TEST_CASE("unreachable brokers: baseline and explain exit 1 with one line that quotes the cause", "[explain][broker]") {
  // -b overrides $CAUSAL_BROKERS; port 1 refuses connections at once.
  const std::vector<std::vector<std::string>> commands = {
      {"baseline", "-b", "127.0.0.1:1", "--timeout-ms", "2000", "orders"},
      {"explain", "-b", "127.0.0.1:1", "--timeout-ms", "2000", "--group", "g", "--topic", "orders"},
  };
  for (const auto& args : commands) {
    Run r = causal_cli(args);
    CHECK(r.rc == 1);
    CHECK(r.out.empty());
    // Every bootstrap address refused: said at once, before any client waits.
    CHECK(r.err.find("cannot reach the Kafka brokers at 127.0.0.1:1: connection refused;") !=
          std::string::npos);
    CHECK(r.err.find("%3|") == std::string::npos);                 // and no raw librdkafka log line
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("explain restores the resolution state saved in the commit metadata", "[explain][broker]") {
  // A node delivered S's send #1 (a/0@0), committed a/0@1 with its resolution state, and
  // stopped before c/0@0, which carries the relayed claim (a, S, 1), arrived. Restarted from
  // the committed positions it must not hold c/0@0: delivered_seq says send #1 was delivered.
  const std::string A = causal::test::create_topic("explain-rs-a", 1);
  const std::string C = causal::test::create_topic("explain-rs-c", 1);
  const std::string S = causal::test::unique_name("sender-S");
  causal::test::Producer w;
  Stamp send;
  send.origin(S, 1);
  REQUIRE(w.send(A, stamped("q", 0, send)) == 0);
  Stamp relay;
  relay.origin(causal::test::unique_name("relay"), 1).seq(A, 0, S, 1);
  REQUIRE(w.send(C, stamped("relayed", 0, relay)) == 0);

  causal::Names names;
  std::vector<causal::ResolutionEntry> entries{{names.channel(A, 0), names.sender(S), 1}};
  const std::string metadata = causal::encode_resolution_state(entries, names);
  REQUIRE(metadata.rfind("causal1:", 0) == 0);

  causal::kafka::ConnectionOptions conn;
  conn.brokers = causal::test::bootstrap();
  auto client = causal::kafka::OffsetsClient::open(conn);
  REQUIRE(client);
  const std::string with_state = causal::test::unique_name("restarted-with-state");
  const std::string without_state = causal::test::unique_name("restarted-without-state");
  std::vector<causal::kafka::OffsetsClient::NewOffset> saved{{{A, 0}, 1, metadata}, {{C, 0}, 0, ""}};
  REQUIRE(client->alter_committed(with_state, saved));
  std::vector<causal::kafka::OffsetsClient::NewOffset> bare{{{A, 0}, 1, ""}, {{C, 0}, 0, ""}};
  REQUIRE(client->alter_committed(without_state, bare));

  Json j = explain_json(with_state, {A, C}, 0);
  CHECK(j["stuck"] == false);
  bool restored = false;
  for (const auto& c : j["source"]["committed"]) {
    if (c["topic"] == A) restored = c["resolution_state"].get<bool>();
  }
  CHECK(restored);

  // The same positions without the saved state: the claim's send sits below the baseline.
  Json k = explain_json(without_state, {A, C}, 4);
  const Json& root = only_root(k);
  CHECK(root["verdict"] == "frozen_seq_claim");
  CHECK(root["located_offset"] == 0);
  CHECK(root["baseline"] == 1);
}

TEST_CASE("explain --snapshot reads a snapshot the library wrote", "[explain][broker]") {
  causal::Names n;
  const causal::ChannelId a = n.channel("snap-a", 0);
  const causal::ChannelId c = n.channel("snap-c", 0);
  causal::Gate gate(n);
  gate.add_channel(a, 5);
  gate.add_channel(c, 0);
  causal::Clock claim;
  claim.origin = causal::Origin{n.sender("R"), 1};
  claim.claim_seq(a, n.sender("S"), 1);
  gate.receive({c, 0, claim, 0, 0});
  REQUIRE(gate.held_count() == 1);

  char path[] = "/tmp/causal-snapshot-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << causal::to_json(causal::take_snapshot(gate)).dump();
  Run r = causal_cli({"explain", "--snapshot", path, "--group", "the-group", "--format", "json"});
  REQUIRE(r.rc == 4);
  Json j = Json::parse(r.out);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "suspected_frozen_seq_claim");
  // The remedy names the snapshot's whole scope: explaining snap-a alone would not see the
  // record held on snap-c.
  CHECK(root["remedy"] == "causal explain --group the-group --topic snap-a --topic snap-c");
  CHECK(j["source"]["snapshot"] == path);
  // Absent values are null, never missing (docs/explain-format.md).
  REQUIRE(j.contains("modelled_consumer"));
  CHECK(j["modelled_consumer"].is_null());
  CHECK(j["lookups"] == Json::array());
  Run text = causal_cli({"explain", "--snapshot", path});
  CHECK(text.rc == 4);
  CHECK(text.out.rfind("stuck:", 0) == 0);

  // Once the send arrives the gate drains, and so does its snapshot's diagnosis.
  causal::Clock s;
  s.origin = causal::Origin{n.sender("S"), 1};
  gate.receive({a, 5, s, 0, 0});
  REQUIRE(gate.held_count() == 0);
  std::ofstream(path) << causal::to_json(causal::take_snapshot(gate)).dump();
  Run ok = causal_cli({"explain", "--snapshot", path});
  CHECK(ok.rc == 0);
  CHECK(ok.out.rfind("not stuck", 0) == 0);
  std::remove(path);
}

TEST_CASE("explain reports an offset commit pending in an open transaction and replays from the stable one",
          "[explain][broker]") {
  const std::string T = causal::test::create_topic("explain-pending", 1);
  const std::string group = causal::test::unique_name("pending-commit");
  causal::test::Producer w;
  w.send(T, {Record("r0"), Record("r1"), Record("r2")});
  causal::test::commit_offsets(group, T, {{0, 1}});

  // A transactional node consumed up to 3 and sent its offsets into a transaction still open.
  causal::test::TransactionalProducer p;
  p.begin();
  p.send(T, Record("in-txn"));
  rd_kafka_topic_partition_list_t* offs = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offs, T.c_str(), 0)->offset = 3;
  // And for a second group, whose only commit that is: explain has nothing stable to start from.
  const std::string only_pending = causal::test::unique_name("only-pending");
  for (const std::string& g : {group, only_pending}) {
    rd_kafka_consumer_group_metadata_t* cgm = rd_kafka_consumer_group_metadata_new(g.c_str());
    rd_kafka_error_t* e = rd_kafka_send_offsets_to_transaction(p.handle(), offs, cgm, 10000);
    rd_kafka_consumer_group_metadata_destroy(cgm);
    if (e) {
      std::string why = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      FAIL("send_offsets_to_transaction: " << why);
    }
  }
  rd_kafka_topic_partition_list_destroy(offs);
  // The pending commit is said, not "has no committed offset on T: nothing to reconstruct".
  Run none = causal_cli({"explain", "--group", only_pending, "--topic", T});
  CHECK(none.rc == 1);
  CHECK(none.err.find("its offset commit on " + T + "/0 is pending in an open transaction") != std::string::npos);

  Json j = explain_json(group, {T}, 0);
  REQUIRE(j["source"]["committed"].size() == 1);
  const Json& c = j["source"]["committed"][0];
  CHECK(c["pending"] == true);
  CHECK(c["offset"] == 1);  // the last stable committed offset, replayed from
  CHECK(j["source"]["delivered"] == 2);
  Run text = causal_cli({"explain", "--group", group, "--topic", T});
  CHECK(text.rc == 0);
  CHECK(text.out.find("pending: " + T + "/0") != std::string::npos);
  // baseline shows the same last stable offset (not null, nor skip 0), and its dry
  // run says that --apply refuses while the commit is pending.
  Run plan = causal_cli({"baseline", "--group", group, T + "/0@0", "--format", "json"});
  REQUIRE(plan.rc == 0);
  Json pj = Json::parse(plan.out);
  CHECK(pj["channels"][0]["committed"] == 1);
  CHECK(pj["channels"][0]["committed_pending"] == true);
  Run dry = causal_cli({"baseline", "--group", group, T + "/0@0"});
  REQUIRE(dry.rc == 0);
  CHECK(dry.out.find("1 (pending)") != std::string::npos);
  CHECK(dry.out.find(T + "/0: an offset commit is pending in an open transaction") != std::string::npos);
  CHECK(causal_cli({"baseline", "--group", group, "--apply", T + "/0@0"}).rc == 1);

  p.commit();
  Json after = explain_json(group, {T}, 0);
  CHECK(after["source"]["committed"][0]["pending"] == false);
  CHECK(after["source"]["committed"][0]["offset"] == 3);
}

namespace {

// Runs `script` with sh, `causal` on the PATH and CAUSAL_BROKERS set: for the runbook's
// pipelines, exactly as docs/runbook.md prints them.
Run shell(const std::string& script) {
  static const std::string brokers = causal::test::bootstrap();
  std::string bin = CAUSAL_BIN;
  std::string dir = bin.substr(0, bin.rfind('/'));
  return run_command("PATH=" + quote(dir) + ":\"$PATH\" CAUSAL_BROKERS=" + quote(brokers) + " sh -c " + quote(script));
}

const Json& channel_of(const Json& j, const std::string& topic, int partition) {
  for (const auto& c : j["channels"]) {
    if (c["topic"] == topic && c["partition"] == partition) return c;
  }
  FAIL("no channel " << topic << "/" << partition << " in " << j.dump());
  return j;
}

}  // namespace

TEST_CASE("a lagging relay's claim names a send below the lookup window: explain widens the scan",
          "[explain][broker]") {
  const std::string T = causal::test::create_topic("explain-lagging", 3);
  const std::string S = causal::test::unique_name("sender-T");
  const std::string group = causal::test::unique_name("lagging-relay");
  causal::test::Producer w;
  Stamp send;
  send.origin(S, 1);
  REQUIRE(w.send(T, stamped("send", 2, send)) == 0);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  Stamp later;
  later.origin(causal::test::unique_name("other"), 1);
  REQUIRE(w.send(T, stamped("later", 2, later)) == 1);
  Stamp relayed;
  relayed.origin(causal::test::unique_name("relay"), 1).seq(T, 2, S, 1);
  REQUIRE(w.send(T, stamped("claim", 1, relayed)) == 0);
  causal::test::commit_offsets(group, T, {{0, 0}, {1, 0}, {2, 2}});

  SECTION("the window [1, 2) misses; the widened scan locates the send at 0: frozen, with the rewind") {
    Run r = causal_cli({"explain", "--group", group, "--topic", T, "--max-transaction-ms", "500", "--format", "json"});
    REQUIRE(r.rc == 4);
    Json j = Json::parse(r.out);
    const Json& root = only_root(j);
    CHECK(root["verdict"] == "frozen_seq_claim");
    CHECK(root["located_offset"] == 0);
    CHECK(root["remedy"] == "causal baseline --group " + group + " --apply " + T + "/2@0");
    REQUIRE(j["lookups"].size() == 1);
    CHECK(j["lookups"][0]["scanned_from"] == 0);
    CHECK(j["lookups"][0]["located_offset"] == 0);
  }

  SECTION("a scan bounded short of the log start says so, with the range and a command that searches further") {
    Run r = causal_cli({"explain", "--group", group, "--topic", T, "--max-transaction-ms", "500",
                        "--lookup-max-offsets", "1", "--format", "json"});
    REQUIRE(r.rc == 4);
    Json j = Json::parse(r.out);
    const Json& root = only_root(j);
    CHECK(root["verdict"] == "send_not_located");
    CHECK(root["summary"].get<std::string>().find("[1, 2)") != std::string::npos);
    REQUIRE(j["lookups"].size() == 1);
    CHECK(j["lookups"][0]["scanned_from"] == 1);
    CHECK(j["lookups"][0]["scanned_to"] == 2);
    CHECK(j["lookups"][0]["complete"] == false);
    Run text = causal_cli({"explain", "--group", group, "--topic", T, "--max-transaction-ms", "500",
                           "--lookup-max-offsets", "1"});
    CHECK(text.rc == 4);
    CHECK(text.out.find("SEND NOT LOCATED") != std::string::npos);
    CHECK(text.out.find("[1, 2)") != std::string::npos);  // the same range as the JSON
    CHECK(text.out.find("NOT APPENDED") == std::string::npos);

    // The printed command, run as printed, locates the send.
    REQUIRE(root["remedy"].is_string());
    std::vector<std::string> args = split(root["remedy"].get<std::string>());
    args.erase(args.begin());
    Run further = causal_cli(args);
    CHECK(further.rc == 4);
    CHECK(further.out.find("FROZEN SEQUENCE CLAIM") != std::string::npos);
    CHECK(further.out.find("--apply " + T + "/2@0") != std::string::npos);
  }
}

TEST_CASE("a lookup window with no record that recent is empty: the scan stays within --lookup-max-offsets",
          "[explain][broker]") {
  // T/2 holds the send at 0 and two later records; the claim on T/1 is written 1.5 s after
  // all of them, so with --max-transaction-ms 500 no record of T/2 is in the window. The
  // scan must then be the widening alone, [3 - N, 3), not the whole log from its start.
  const std::string T = causal::test::create_topic("explain-empty-window", 3);
  const std::string S = causal::test::unique_name("sender-T");
  const std::string group = causal::test::unique_name("empty-window");
  causal::test::Producer w;
  Stamp send;
  send.origin(S, 1);
  REQUIRE(w.send(T, stamped("send", 2, send)) == 0);
  REQUIRE(w.send(T, Record("later-1", 2)) == 1);
  REQUIRE(w.send(T, Record("later-2", 2)) == 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  Stamp relayed;
  relayed.origin(causal::test::unique_name("relay"), 1).seq(T, 2, S, 1);
  REQUIRE(w.send(T, stamped("claim", 1, relayed)) == 0);
  causal::test::commit_offsets(group, T, {{0, 0}, {1, 0}, {2, 3}});

  Run r = causal_cli({"explain", "--group", group, "--topic", T, "--max-transaction-ms", "500",
                      "--lookup-max-offsets", "1", "--format", "json"});
  REQUIRE(r.rc == 4);
  Json j = Json::parse(r.out);
  REQUIRE(j["lookups"].size() == 1);
  CHECK(j["lookups"][0]["scanned_from"] == 2);
  CHECK(j["lookups"][0]["scanned_to"] == 3);
  CHECK(j["lookups"][0]["complete"] == false);
  CHECK(only_root(j)["verdict"] == "send_not_located");

  // With room to widen, the same empty window finds the send.
  Run widened = causal_cli({"explain", "--group", group, "--topic", T, "--max-transaction-ms", "500", "--format", "json"});
  REQUIRE(widened.rc == 4);
  Json wide = Json::parse(widened.out);
  CHECK(wide["lookups"][0]["scanned_from"] == 0);
  CHECK(only_root(wide)["verdict"] == "frozen_seq_claim");
  CHECK(only_root(wide)["located_offset"] == 0);
}

TEST_CASE("several frozen claims on one partition get one remedy, and the runbook's pipeline drains it",
          "[explain][broker]") {
  const std::string A = causal::test::create_topic("explain-multi-a", 1);
  const std::string C = causal::test::create_topic("explain-multi-c", 2);
  const std::string S1 = causal::test::unique_name("sender-1");
  const std::string S2 = causal::test::unique_name("sender-2");
  const std::string group = causal::test::unique_name("two-frozen");
  causal::test::Producer w;
  Stamp s1, s2;
  s1.origin(S1, 1);
  s2.origin(S2, 1);
  REQUIRE(w.send(A, stamped("s1", 0, s1)) == 0);
  REQUIRE(w.send(A, stamped("s2", 0, s2)) == 1);
  REQUIRE(w.send(A, Record("a2")) == 2);
  Stamp c0, c1;
  c0.origin(causal::test::unique_name("relay"), 1).seq(A, 0, S1, 1);
  c1.origin(causal::test::unique_name("relay"), 1).seq(A, 0, S2, 1);
  REQUIRE(w.send(C, stamped("claims-s1", 0, c0)) == 0);
  REQUIRE(w.send(C, stamped("claims-s2", 1, c1)) == 0);
  causal::test::commit_offsets(group, A, {{0, 3}});
  causal::test::commit_offsets(group, C, {{0, 0}, {1, 0}});

  Json j = explain_json(group, {A, C}, 4);
  REQUIRE(j["roots"].size() == 2);
  const std::string one = "causal baseline --group " + group + " --apply " + A + "/0@0";
  for (const auto& r : j["roots"]) {
    CHECK(r["verdict"] == "frozen_seq_claim");
    CHECK(r["remedy"] == one);
  }
  REQUIRE(j["remedies"].size() == 1);
  CHECK(j["remedies"][0] == one);

  // docs/runbook.md: the pipeline yields the one command; run what it yields; explain drains.
  Run pipeline = shell("causal explain --group " + group + " --topic " + A + " --topic " + C +
                       " --format json | jq -r '.remedies[]'");
  REQUIRE(pipeline.rc == 0);
  CHECK(pipeline.out == one + "\n");
  Run applied = shell(pipeline.out);
  REQUIRE(applied.rc == 0);
  CHECK(causal::test::committed_offsets(group, A, {0}).at(0) == 0);
  CHECK(explain_json(group, {A, C}, 0)["stuck"] == false);
}

TEST_CASE("baseline --apply refuses to move a committed offset forward unless --allow-skip",
          "[baseline][broker]") {
  const std::string T = causal::test::create_topic("baseline-forward", 1);
  const std::string group = causal::test::unique_name("forward");
  causal::test::Producer w;
  w.send(T, {Record("x"), Record("y"), Record("z")});
  causal::test::commit_offsets(group, T, {{0, 0}});

  Run dry = causal_cli({"baseline", "--group", group, T + "/0@2"});
  CHECK(dry.rc == 0);
  CHECK(dry.out.find("would skip 2 offset(s) of " + T + "/0") != std::string::npos);
  CHECK(dry.out.find("--apply refuses without --allow-skip") != std::string::npos);
  Run dry_allowed = causal_cli({"baseline", "--group", group, "--allow-skip", T + "/0@2"});
  CHECK(dry_allowed.out.find("--allow-skip lets --apply write it") != std::string::npos);
  CHECK(dry_allowed.out.find("refuses") == std::string::npos);
  Run dryj = causal_cli({"baseline", "--group", group, T + "/0@2", "--format", "json"});
  REQUIRE(dryj.rc == 0);
  CHECK(Json::parse(dryj.out)["channels"][0]["skip"] == 2);

  Run refused = causal_cli({"baseline", "--group", group, "--apply", T + "/0@2"});
  CHECK(refused.rc == 1);
  CHECK(refused.err.find("skips 2 offset(s)") != std::string::npos);
  CHECK(refused.err.find("--allow-skip") != std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK(causal::test::committed_offsets(group, T, {0}).at(0) == 0);

  Run ok = causal_cli({"baseline", "--group", group, "--apply", "--allow-skip", T + "/0@2"});
  CHECK(ok.rc == 0);
  CHECK(causal::test::committed_offsets(group, T, {0}).at(0) == 2);
  // Backward (a rewind) needs no flag.
  Run back = causal_cli({"baseline", "--group", group, "--apply", T + "/0@1"});
  CHECK(back.rc == 0);
  CHECK(causal::test::committed_offsets(group, T, {0}).at(0) == 1);
}

TEST_CASE("a held record's claim on a topic outside the scope is shown", "[explain][broker]") {
  const std::string A = causal::test::create_topic("explain-scope-a", 1);
  const std::string C = causal::test::create_topic("explain-scope-c", 1);
  const std::string X = causal::test::create_topic("explain-scope-x", 1);
  const std::string group = causal::test::unique_name("outside");
  causal::test::Producer w;
  Stamp st;
  st.origin(causal::test::unique_name("s"), 1).offset(A, 0, 3).offset(X, 0, 5);
  REQUIRE(w.send(C, stamped("held", 0, st)) == 0);
  causal::test::commit_offsets(group, A, {{0, 0}});
  causal::test::commit_offsets(group, C, {{0, 0}});

  Json j = explain_json(group, {A, C}, 4);
  const Json& c = channel_of(j, C, 0);
  bool shown = false;
  for (const auto& cl : c["claims"]) {
    if (cl["claim"]["topic"] != X) continue;
    shown = true;
    CHECK(cl["claim"]["offset"] == 5);
    CHECK(cl["claim"]["consumed"] == false);
    const Json& root = j["roots"][cl["root"].get<std::size_t>()];
    CHECK(root["verdict"] == "outside_scope");
    CHECK(root["blocks"] == false);
  }
  CHECK(shown);
  CHECK(j["undecided"] == false);  // X is not a topic of the group
}

TEST_CASE("explain names the group's committed topics left out, and an ignored claim on one is undecided",
          "[explain][broker]") {
  const std::string T = causal::test::create_topic("explain-leftout-t", 1);
  const std::string U = causal::test::create_topic("explain-leftout-u", 1);
  const std::string group = causal::test::unique_name("left-out");
  causal::test::TransactionalProducer p;
  p.begin();
  p.send(T, Record("in-txn", 0));  // T/0@0, open
  causal::test::Producer w;
  Stamp st;
  st.origin(causal::test::unique_name("u-writer"), 1).offset(T, 0, 0);
  REQUIRE(w.send(U, stamped("waits-on-t", 0, st)) == 0);
  causal::test::commit_offsets(group, T, {{0, 0}});
  causal::test::commit_offsets(group, U, {{0, 0}});

  Json j = explain_json(group, {U}, 4);  // before: "not stuck", exit 0
  CHECK(j["stuck"] == false);
  CHECK(j["undecided"] == true);
  CHECK(j["summary"].get<std::string>().rfind("undecided:", 0) == 0);
  REQUIRE(j["left_out_topics"].size() == 1);
  CHECK(j["left_out_topics"][0] == T);
  REQUIRE(j["ignored_claims"].size() == 1);
  CHECK(j["ignored_claims"][0]["topic"] == U);
  CHECK(j["ignored_claims"][0]["delivered"] == true);
  CHECK(j["ignored_claims"][0]["claim"]["topic"] == T);
  Run text = causal_cli({"explain", "--group", group, "--topic", U});
  CHECK(text.rc == 4);
  CHECK(text.out.rfind("undecided:", 0) == 0);
  CHECK(text.out.find("left out: group '" + group + "' also has committed offsets on " + T) != std::string::npos);

  // Named, the wait shows.
  CHECK(only_root(explain_json(group, {T, U}, 4))["verdict"] == "open_transaction");
  p.commit();
}

TEST_CASE("the frozen remedy names the members to stop, and says what a consumer with lookups does",
          "[explain][broker]") {
  const std::string A = causal::test::create_topic("explain-running-a", 1);
  const std::string C = causal::test::create_topic("explain-running-c", 1);
  const std::string S = causal::test::unique_name("sender-S");
  const std::string group = causal::test::unique_name("running");
  causal::test::Producer w;
  Stamp send;
  send.origin(S, 1);
  REQUIRE(w.send(A, stamped("q", 0, send)) == 0);
  REQUIRE(w.send(A, Record("a1")) == 1);
  Stamp rc;
  rc.origin(causal::test::unique_name("relay"), 1).seq(A, 0, S, 1);
  REQUIRE(w.send(C, stamped("relayed", 0, rc)) == 0);
  causal::test::commit_offsets(group, A, {{0, 1}});
  causal::test::commit_offsets(group, C, {{0, 0}});

  // Which consumer explain modelled, and what the other one does.
  Json j = explain_json(group, {A, C}, 4);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "frozen_seq_claim");
  CHECK(root["drains_with_lookups"] == true);
  CHECK(j["modelled_consumer"] == "without_lookups");
  const std::string detail = root["detail"];
  CHECK(detail.find("WITHOUT lookups (causal tail --no-lookup") != std::string::npos);
  CHECK(detail.find("WITH lookups (causal tail,") != std::string::npos);
  CHECK(detail.find("can never deliver") == std::string::npos);
  CHECK(root["stop_first"].empty());
  if (tail_available()) {
    CHECK(causal_cli({"tail", A, C, "--group", group, "--from", "committed", "-e"}).rc == 0);
    CHECK(causal_cli({"tail", A, C, "--no-lookup", "--group", group, "--from", "committed", "-e"}).rc == 4);
  }

  // The consumer is still running; the remedy says to stop it first, naming it.
  const std::string client = causal::test::unique_name("stuck-node");
  auto member = join_group(group, C, client);
  Json running = explain_json(group, {A, C}, 4);
  const Json& r = only_root(running);
  REQUIRE(r["stop_first"].size() == 1);
  CHECK(r["stop_first"][0]["client_id"] == client);
  CHECK(r["stop_first"][0]["host"].get<std::string>().size() > 0);
  Run text = causal_cli({"explain", "--group", group, "--topic", A, "--topic", C});
  CHECK(text.rc == 4);
  CHECK(text.out.find("stop these 1 member(s) of the group first") != std::string::npos);
  CHECK(text.out.find("client " + client) != std::string::npos);
  // It is right: the remedy is refused while the member runs.
  std::vector<std::string> args = split(r["remedy"].get<std::string>());
  args.erase(args.begin());
  CHECK(causal_cli(args).rc == 1);
  rd_kafka_consumer_close(member.get());
}

TEST_CASE("explain over 300 partitions asks metadata and offsets per topic, not per partition",
          "[explain][broker]") {
  // The cost explain must not grow with the square of the partition count (bench/
  // explain_at_scale.sh times it): every partition is a channel of its own in the replay,
  // and the replay once asked the whole topic's metadata, and its offsets, for each. Counted
  // here as requests sent, which does not depend on the machine's speed.
  constexpr int kPartitions = 300;
  const std::string T = causal::test::create_topic("explain-scale", kPartitions);
  const std::string group = causal::test::unique_name("explain-scale");
  std::vector<Record> records;
  for (int p = 0; p < kPartitions; ++p) records.emplace_back(fmt::format("r{}", p), p);
  Stamp st;
  st.origin(causal::test::unique_name("scale"), 1).offset(T, kPartitions - 1, 5);  // never appended
  records.push_back(stamped("needs-last-5", 0, st));
  causal::test::Producer w;
  w.send(T, records);
  std::map<int32_t, int64_t> at_start;
  for (int p = 0; p < kPartitions; ++p) at_start[p] = 0;
  causal::test::commit_offsets(group, T, at_start);

  auto began = std::chrono::steady_clock::now();
  Run r = causal_cli({"explain", "--group", group, "--topic", T, "--format", "json", "-X", "debug=protocol"});
  auto took = std::chrono::steady_clock::now() - began;
  REQUIRE(r.rc == 4);
  Json j = Json::parse(r.out);
  const Json& root = only_root(j);
  CHECK(root["verdict"] == "not_appended");
  CHECK(root["awaited_offset"] == 5);
  CHECK(j["source"]["delivered"] == kPartitions);
  auto sent = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = 0; (at = r.err.find("Sent " + what, at)) != std::string::npos; ++at) ++n;
    return n;
  };
  // Before: one MetadataRequest per partition and four ListOffsetsRequests per partition
  // (about 300 and 1,200 here); now a handful of each.
  INFO("MetadataRequests " << sent("MetadataRequest") << ", ListOffsetsRequests " << sent("ListOffsetsRequest"));
  CHECK(sent("MetadataRequest") < 30);
  CHECK(sent("ListOffsetsRequest") <= 12);
  // A bound far above the ~1 s it takes, far below the minute it took at 3,000 partitions.
  CHECK(took < std::chrono::seconds(30));
}

TEST_CASE("remedies run as printed: they carry -b and a group name the shell would split", "[explain][broker]") {
  // The remedy of `explain -b B --group 'two words' ...` carries -b and quotes the group: as
  // `causal baseline --group two words --apply ...` it would reach no broker without
  // $CAUSAL_BROKERS, and with it, write offsets to group 'two' (and every partition of a
  // topic named 'words').
  const std::string A = causal::test::create_topic("explain-quoted-a", 1);
  const std::string C = causal::test::create_topic("explain-quoted-c", 1);
  const std::string S = causal::test::unique_name("sender");
  const std::string group = causal::test::unique_name("two words' $HOME");
  causal::test::Producer w;
  Stamp s;
  s.origin(S, 1);
  REQUIRE(w.send(A, stamped("s", 0, s)) == 0);
  REQUIRE(w.send(A, Record("a1")) == 1);
  Stamp c;
  c.origin(causal::test::unique_name("relay"), 1).seq(A, 0, S, 1);
  REQUIRE(w.send(C, stamped("claims-s", 0, c)) == 0);
  causal::test::commit_offsets(group, A, {{0, 2}});
  causal::test::commit_offsets(group, C, {{0, 0}});

  std::string bin = CAUSAL_BIN;
  std::string path = "PATH=" + quote(bin.substr(0, bin.rfind('/'))) + ":\"$PATH\"";
  const std::string B = causal::test::bootstrap();
  // No $CAUSAL_BROKERS anywhere: only -b names the cluster. A relative -F file (a property
  // the cluster does not need) is given made absolute, so the remedy runs from elsewhere.
  char dir[] = "/tmp/causal-remedy-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  REQUIRE(run_command(std::string("printf 'client.id=remedy-test\\n' > ") + dir + "/client.properties").rc == 0);
  auto bare = [&](const std::string& script) { return run_command("env -u CAUSAL_BROKERS " + path + " sh -c " + quote(script)); };
  Run remedies = bare(std::string("cd ") + dir + " && causal explain -b " + quote(B) + " -F client.properties --group " +
                      quote(group) + " --topic " + A + " --topic " + C + " --format json | jq -r '.remedies[]'");
  REQUIRE(remedies.rc == 0);
  CHECK(remedies.out.starts_with("causal baseline -b " + B + " -F " + dir + "/client.properties --group '"));
  Run applied = bare("cd / && " + remedies.out);
  INFO(remedies.out << applied.err);
  REQUIRE(applied.rc == 0);
  CHECK(causal::test::committed_offsets(group, A, {0}).at(0) == 0);
  Run after = bare("causal explain -b " + quote(B) + " --group " + quote(group) + " --topic " + A + " --topic " + C);
  CHECK(after.rc == 0);
}

TEST_CASE("a frozen claim queued behind a held head is in the one remedy and explain then exits 0", "[explain][broker]") {
  // Diagnosing only the head's frozen claim is not enough: its remedy rewinds A/0, explain
  // then finds the next record's frozen claim on A/1, and a second rewind (and a second
  // redelivery) is needed before it exits 0 (docs/runbook.md promises one).
  const std::string A = causal::test::create_topic("explain-queued-a", 2);
  const std::string C = causal::test::create_topic("explain-queued-c", 1);
  const std::string S = causal::test::unique_name("sender");
  const std::string group = causal::test::unique_name("queued-frozen");
  causal::test::Producer w;
  Stamp s1, s2, s3;
  s1.origin(S, 1);
  s2.origin(S, 2);
  s3.origin(S, 3);
  REQUIRE(w.send(A, stamped("s1", 0, s1)) == 0);
  REQUIRE(w.send(A, stamped("s2", 0, s2)) == 1);
  REQUIRE(w.send(A, stamped("s3", 1, s3)) == 0);
  Stamp c1, c2;
  const std::string relay = causal::test::unique_name("relay");
  c1.origin(relay, 1).seq(A, 0, S, 2);
  c2.origin(relay, 2).seq(A, 1, S, 3);
  REQUIRE(w.send(C, stamped("claims-s2", 0, c1)) == 0);
  REQUIRE(w.send(C, stamped("claims-s3", 0, c2)) == 1);
  causal::test::commit_offsets(group, A, {{0, 2}, {1, 1}});
  causal::test::commit_offsets(group, C, {{0, 0}});

  Json j = explain_json(group, {A, C}, 4);
  REQUIRE(j["roots"].size() == 1);
  CHECK(j["roots"][0]["verdict"] == "frozen_seq_claim");
  const std::string one = "causal baseline --group " + group + " --apply " + A + "/0@1 " + A + "/1@0";
  CHECK(j["roots"][0]["remedy"] == one);
  REQUIRE(j["remedies"].size() == 1);
  CHECK(j["remedies"][0] == one);
  REQUIRE(j["queued_frozen"].size() == 1);
  CHECK(j["queued_frozen"][0]["topic"] == A);
  CHECK(j["queued_frozen"][0]["partition"] == 1);
  CHECK(j["queued_frozen"][0]["seq"] == 3);
  CHECK(j["queued_frozen"][0]["located_offset"] == 0);

  Run applied = shell(one);
  REQUIRE(applied.rc == 0);
  CHECK(explain_json(group, {A, C}, 0)["stuck"] == false);
}

TEST_CASE("a scope naming some partitions of a topic the group commits leaves the others out and says so",
          "[explain][broker]") {
  // `--topic T/0` of a group committing T/0 and T/1 must not say "not stuck" (exit 0) with
  // nothing left out: T/0's record waits on T/1, and a node consuming both holds.
  const std::string T = causal::test::create_topic("explain-leftout-partition", 2);
  const std::string group = causal::test::unique_name("left-out-partition");
  causal::test::Producer w;
  Stamp st;
  st.origin(causal::test::unique_name("writer"), 1).offset(T, 1, 5);  // T/1@5: never written
  REQUIRE(w.send(T, stamped("waits-on-t1", 0, st)) == 0);
  causal::test::commit_offsets(group, T, {{0, 0}, {1, 0}});

  Json j = explain_json(group, {T + "/0"}, 4);
  CHECK(j["undecided"] == true);
  REQUIRE(j["left_out_topics"].size() == 1);
  CHECK(j["left_out_topics"][0] == T + "/1");
  REQUIRE(j["ignored_claims"].size() == 1);
  CHECK(j["ignored_claims"][0]["claim"]["partition"] == 1);
  CHECK(j["summary"].get<std::string>().find("on " + T + "/1 (committed by the group") != std::string::npos);
  // Both partitions named: the wait shows, and nothing is left out.
  Json both = explain_json(group, {T + "/0", T + "/1"}, 4);
  CHECK(only_root(both)["verdict"] == "not_appended");
  CHECK(both["left_out_topics"].empty());
}

// A transactional producer killed with its transaction open pins the partition's LSO; a node
// caught up to it holds nothing, and its lag grows, so "not stuck: nothing held" alone would
// leave the channel line's lso/high_watermark as the only trace. Explain says the LSO is
// pinned, when since, and advises Kafka's own tool, whose abort run as printed
// (kafka-transactions.sh being scripts/test-broker kafka-transactions here) moves the LSO on.
TEST_CASE("explain says which LSO a hung transaction pins, and its advice aborts it as printed", "[explain][broker]") {
  for (const std::string prefix : {"explain-hung", "-explain-hung"}) {
    INFO(prefix);
    const std::string T = causal::test::create_topic(prefix, 1);
    const std::string group = causal::test::unique_name("hung");
    causal::test::Producer w;
    w.send(T, {Record("r0"), Record("r1")});
    int to_produce[2];
    REQUIRE(pipe(to_produce) == 0);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(to_produce[0], STDIN_FILENO);
      close(to_produce[0]);
      close(to_produce[1]);
      std::string cmd = "exec " + quote(CAUSAL_BIN) + " produce -b " + quote(causal::test::bootstrap()) +
                        " --transactional-id " + causal::test::unique_name("hung") + " -- " + T + " >/dev/null 2>&1";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    close(to_produce[0]);
    const std::string line = "{\"value\":\"in-txn\"}\n";
    REQUIRE(write(to_produce[1], line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    REQUIRE(causal::test::eventually([&] { return causal::test::high_watermark(T, 0) == 3; }, std::chrono::seconds(20)));
    kill(pid, SIGKILL);  // gone, its transaction open
    int status = 0;
    waitpid(pid, &status, 0);
    close(to_produce[1]);
    w.send(T, {Record("r3"), Record("r4")});  // committed, behind the open transaction
    causal::test::commit_offsets(group, T, {{0, 0}});
    REQUIRE(causal::test::last_stable_offset(T, 0) == 2);

    Json j = explain_json(group, {T}, 0);  // nothing held: exit 0 still
    CHECK(j["stuck"] == false);
    CHECK(j["summary"] == "not stuck: nothing held on 1 channel(s); the gate would drain; a transaction still open "
                          "pins the LSO of 1 channel(s) (open transactions:)");
    REQUIRE(j["open_transactions"].size() == 1);
    const Json& open = j["open_transactions"][0];
    CHECK(open["topic"] == T);
    CHECK(open["lso"] == 2);
    CHECK(open["high_watermark"] == 5);
    CHECK(open["open_txn_since_ms"].is_number());
    REQUIRE(j["advice"].size() == 1);
    const std::string advice = j["advice"][0];
    // A topic starting with '-' is given as --topic=T, which the tool's parser does not take
    // for an option ("--topic -dash" fails, "expected one argument").
    const std::string topic_arg = T.starts_with('-') ? "--topic=" + T : "--topic " + T;
    const std::string abort_cmd = "kafka-transactions.sh --bootstrap-server " + causal::test::bootstrap() + " abort " +
                                  topic_arg + " --partition 0 --start-offset 2";
    CHECK(advice.find("kafka-transactions.sh --bootstrap-server " + causal::test::bootstrap() + " describe-producers " +
                      topic_arg + " --partition 0; ") != std::string::npos);
    REQUIRE(advice.find(abort_cmd + ".") != std::string::npos);
    CHECK(advice.find("--command-config") == std::string::npos);  // PLAINTEXT: the tool needs no properties file
    Run text = causal_cli({"explain", "--group", group, "--topic", T});
    CHECK(text.rc == 0);
    CHECK(text.out.find("  " + T + "/0: LSO 2, high watermark 5 (3 offset(s) held back), open since ") != std::string::npos);

    // An explicit baseline inside the open span is said, not accepted silently.
    Run above = causal_cli({"baseline", "--group", group, "--", T + "/0@4"});
    CHECK(above.rc == 0);
    CHECK(above.err.find("causal baseline: " + T + "/0@4 is above the LSO 2: a transaction still open holds offsets "
                         "from 2 on") != std::string::npos);

    // The advice's abort, run as printed with Kafka's tool.
    const std::string tool = std::string("CAUSAL_BROKER_DIR=") + quote(CAUSAL_BROKER_DIR) + " " +
                             quote(std::string(CAUSAL_SOURCE_DIR) + "/scripts/test-broker") + " kafka-transactions";
    Run aborted = run_command(tool + abort_cmd.substr(std::string("kafka-transactions.sh").size()));
    INFO(aborted.out << aborted.err);
    REQUIRE(aborted.rc == 0);
    CHECK(causal::test::eventually([&] { return causal::test::last_stable_offset(T, 0) == 6; }, std::chrono::seconds(10)));
    Json after = explain_json(group, {T}, 0);
    CHECK(after["open_transactions"].empty());
    CHECK(after["source"]["delivered"] == 4);  // r0, r1, r3, r4: the aborted record is not delivered
  }
}

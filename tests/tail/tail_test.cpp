// causal tail / produce against the REAL test broker (fixture kafka_broker), by running the
// built `causal` binary ($CAUSAL_BIN overrides the path) and reading its output.
// Nothing here skips: an unreachable broker fails every test (broker_env.hpp throws).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "broker_env.hpp"
#include "causal/resolution_state.hpp"

using nlohmann::json;
using namespace std::chrono_literals;
namespace t = causal::test;

namespace {

std::string causal_bin() {
  if (const char* e = std::getenv("CAUSAL_BIN"); e && *e) return e;
  return CAUSAL_BIN;
}

std::string tmpdir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/causal-tail-test-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

struct Run {
  int code = -1;
  std::string out, err;
  double seconds = 0;
};

// Runs `causal ARGS` with `input` on stdin; returns exit code, stdout, stderr.
Run run_causal(const std::string& args, const std::string& input = "") {
  static int n = 0;
  std::string base = tmpdir() + "/run" + std::to_string(++n);
  {
    std::ofstream in(base + ".in", std::ios::binary);
    in << input;
  }
  std::string cmd = quote(causal_bin()) + " " + args + " < " + base + ".in > " + base + ".out 2> " + base + ".err";
  auto t0 = std::chrono::steady_clock::now();
  int rc = std::system(cmd.c_str());
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

std::string brokers() { return "-b " + t::bootstrap(); }

std::vector<json> lines(const std::string& out) {
  std::vector<json> v;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) v.push_back(json::parse(line));  // throws on a partial line
  }
  return v;
}

// Each line is byte for byte what nlohmann writes for the same object with its keys in the
// order printed (held_ms aside: a float, printed with 3 decimals): the line writer's own
// escaping, base64 and number formatting agree with the library's.
void check_line_bytes(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++n;
    auto at = line.find("\"held_ms\":");
    std::string expect = line;
    if (at != std::string::npos) {
      auto v = at + std::strlen("\"held_ms\":");
      auto e = line.find_first_not_of("0123456789.", v);
      REQUIRE(e != std::string::npos);
      CHECK(line.find('.', v) < e);
      CHECK(e - line.find('.', v) == 4);  // three decimals
      expect = line.substr(0, v) + "\"X\"" + line.substr(e);
    }
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
    if (j.contains("held_ms")) j["held_ms"] = "X";
    CHECK(j.dump() == expect);
  }
  CHECK(n > 0);
}

std::vector<json> records(const std::vector<json>& all) {
  std::vector<json> v;
  for (const auto& j : all) {
    if (!j.contains("event")) v.push_back(j);
  }
  return v;
}

void produce(const std::string& sinks, const std::string& jsonl, const std::string& extra = "") {
  Run r = run_causal("produce " + brokers() + " " + extra + " " + sinks, jsonl);
  INFO("produce stderr: " << r.err);
  REQUIRE(r.code == 0);
}

// Every claim of every printed record on a printed channel is respected: no record at or
// below the claimed offset on that channel is printed after it.
void check_causal_order(const std::vector<json>& recs) {
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const auto& clock = recs[i]["clock"];
    if (clock.is_null()) continue;
    for (const auto& c : clock["claims"]) {
      for (std::size_t k = i + 1; k < recs.size(); ++k) {
        bool same_channel = recs[k]["topic"] == c["topic"] && recs[k]["partition"] == c["partition"];
        INFO("record " << recs[i].dump() << " printed before " << recs[k].dump());
        CHECK_FALSE((same_channel && recs[k]["offset"].get<long>() <= c["offset"].get<long>()));
      }
    }
  }
}

// The counters line: "bridges: A at receive, B behind a held head, C by position advance".
std::array<long, 3> bridges(const std::string& err) {
  auto p = err.find("bridges: ");
  REQUIRE(p != std::string::npos);
  std::array<long, 3> v{};
  REQUIRE(std::sscanf(err.c_str() + p, "bridges: %ld at receive, %ld behind a held head, %ld by position advance",
                      &v[0], &v[1], &v[2]) == 3);
  return v;
}

std::string claim_json(const std::string& topic, int p, long off) {
  return R"("claims":[{"topic":")" + topic + R"(","partition":)" + std::to_string(p) + R"(,"offset":)" +
         std::to_string(off) + "}]";
}

}  // namespace

TEST_CASE("effects appended before their causes are held and then delivered after them and clockless records flow") {
  std::string topic = t::create_topic("tail-effects", 3);
  // Tail first, so that the effect is received before its cause exists.
  std::string out = tmpdir() + "/effects.out", err = tmpdir() + "/effects.err";
  std::string cmd = "exec " + quote(causal_bin()) + " tail " + brokers() + " --format jsonl --show-held -c 4 " + topic +
                    " > " + out + " 2> " + err;
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(3s);
  // p1@0 "payment" claims p0@0, which does not exist yet; p2 has a clockless record.
  produce(topic + "/1", "{\"value\":\"payment\"," + claim_json(topic, 0, 0) + "}\n");
  produce(topic + "/2", "{\"value\":\"plain\"}\n", "--no-stamp");
  std::this_thread::sleep_for(2s);
  produce(topic + "/0", "{\"value\":\"order\"}\n");
  produce(topic + "/2", "{\"value\":\"plain-2\"}\n", "--no-stamp");
  int status = 0;
  auto until = std::chrono::steady_clock::now() + 30s;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      FAIL("tail did not print 4 records within 30 s: " << slurp(out) << slurp(err));
    }
    std::this_thread::sleep_for(100ms);
  }
  INFO(slurp(out) << slurp(err));
  REQUIRE(WEXITSTATUS(status) == 0);
  check_line_bytes(slurp(out));  // a record released by a frontier, its hold and release events
  auto all = lines(slurp(out));
  auto recs = records(all);
  REQUIRE(recs.size() == 4);
  std::vector<std::string> values;
  for (const auto& r : recs) values.push_back(r["value"]);
  auto pos = [&](const std::string& v) { return std::find(values.begin(), values.end(), v) - values.begin(); };
  CHECK(pos("order") < pos("payment"));
  CHECK(pos("plain") < pos("order"));  // not held behind the payment on another partition
  const json& payment = recs[pos("payment")];
  CHECK(payment["released_by"]["reason"] == "frontier");
  CHECK(payment["released_by"]["channel"] == topic + "/0");
  CHECK(payment["held_ms"].get<double>() > 500);
  CHECK(recs[pos("plain")]["clock"].is_null());
  CHECK(recs[pos("plain")]["released_by"]["reason"] == "immediate");
  bool hold_seen = false;
  for (const auto& e : all) {
    if (e.value("event", "") == "hold" && e["partition"] == 1) {
      hold_seen = true;
      CHECK(e["waiting_for"]["partition"] == 0);
      CHECK(e["waiting_for"]["offset"] == 0);
    }
  }
  CHECK(hold_seen);
  check_causal_order(recs);
}

TEST_CASE("interleaved committed and aborted transactions: exactly the committed records, in causal order") {
  std::string topic = t::create_topic("tail-txn", 2);
  std::string in;
  std::set<std::string> committed;
  for (int txn = 0; txn < 6; ++txn) {
    bool abort = txn % 2 == 1;
    for (int i = 0; i < 3; ++i) {
      std::string v = "t" + std::to_string(txn) + "-" + std::to_string(i);
      in += "{\"value\":\"" + v + "\",\"partition\":" + std::to_string((txn + i) % 2) + "}\n";
      if (!abort) committed.insert(v);
    }
    in += abort ? "{\"transaction\":\"abort\"}\n" : "{\"transaction\":\"commit\"}\n";
  }
  produce(topic, in, "--transactional-id " + t::unique_name("tail-txn"));
  Run r = run_causal("tail " + brokers() + " -e --format jsonl --show-held " + topic);
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  REQUIRE(r.seconds < 20);
  check_line_bytes(r.out);
  auto recs = records(lines(r.out));
  std::set<std::string> got;
  for (const auto& j : recs) got.insert(j["value"].get<std::string>());
  CHECK(got == committed);
  CHECK(recs.size() == committed.size());
  check_causal_order(recs);
  // Every stamp claims the latest acknowledged own send on both partitions, aborted ones
  // included: those claims are satisfied only by bridging over markers and aborted records.
  auto b = bridges(r.err);
  CHECK(b[0] + b[1] + b[2] > 0);
  CHECK(r.err.find("0 still held") != std::string::npos);
}

TEST_CASE("a claim on a trailing transaction marker is released by the position advance and -e exits") {
  std::string topic = t::create_topic("tail-marker", 2);
  // One committed record on p0: the record at 0, the commit marker at 1, end offset 2.
  produce(topic + "/0", "{\"value\":\"cause\"}\n", "--transactional-id " + t::unique_name("tail-marker"));
  REQUIRE(t::eventually([&] { return t::last_stable_offset(topic, 0) == 2; }));
  // A new sender seeds p0's end offset right after the commit: it claims p0@1, the marker.
  produce(topic, "{\"value\":\"effect\",\"partition\":1}\n");
  Run r = run_causal("tail " + brokers() + " -e --format jsonl --show-held " + topic);
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.seconds < 15);
  auto recs = records(lines(r.out));
  REQUIRE(recs.size() == 2);
  const json& effect = recs[0]["value"] == "effect" ? recs[0] : recs[1];
  REQUIRE(effect["value"] == "effect");
  bool claims_marker = false;
  for (const auto& c : effect["clock"]["claims"]) {
    if (c["topic"] == topic && c["partition"] == 0 && c["offset"] == 1) claims_marker = true;
  }
  CHECK(claims_marker);
  CHECK(recs[1]["value"] == "effect");  // after the cause either way
  auto reason = effect["released_by"]["reason"];
  CHECK((reason == "immediate" || reason == "position_advance"));
  // No record exists at p0@1: only a position advance can have raised p0's frontier to 1.
  CHECK(bridges(r.err)[2] >= 1);
}

TEST_CASE("a malformed causal.clock fails its partition closed: exit 3, nothing after it there") {
  std::string topic = t::create_topic("tail-bad", 2);
  produce(topic + "/0", "{\"value\":\"good-0\"}\n", "--no-stamp");
  // Version byte 0xff: undecodable.
  produce(topic + "/0",
          "{\"value\":\"bad\",\"headers\":[{\"name\":\"causal.clock\",\"value\":\"/wA=\",\"value_encoding\":\"base64\"}]}\n"
          "{\"value\":\"after-bad\"}\n",
          "--no-stamp");
  produce(topic + "/1", "{\"value\":\"other-1\"}\n", "--no-stamp");
  produce(topic + "/1", "{\"value\":\"other-2\"," + claim_json(topic, 0, 0) + "}\n");
  produce(topic + "/1", "{\"value\":\"needs-bad\"," + claim_json(topic, 0, 1) + "}\n");
  Run r = run_causal("tail " + brokers() + " -e --format jsonl " + topic);
  INFO(r.out << r.err);
  CHECK(r.code == 3);
  CHECK(r.err.find(topic + "/0@1") != std::string::npos);
  CHECK(r.err.find("causal.clock") != std::string::npos);
  std::set<std::string> got;
  for (const auto& j : records(lines(r.out))) got.insert(j["value"].get<std::string>());
  CHECK(got == std::set<std::string>{"good-0", "other-1", "other-2"});
}

// A causal.clock header with a null value fails closed as an empty one does, but the reason
// does not say "the header is empty (0 bytes)", which is not what the record has.
TEST_CASE("a causal.clock header with a null value fails closed, named for what it is") {
  std::string topic = t::create_topic("tail-null-clock", 1);
  produce(topic, "{\"value\":\"v\",\"headers\":[{\"name\":\"causal.clock\",\"value\":null}]}\n", "--no-stamp");
  Run r = run_causal("tail " + brokers() + " -e --format jsonl " + topic);
  INFO(r.out << r.err);
  CHECK(r.code == 3);
  CHECK(r.out.empty());
  CHECK(r.err.find(topic + "/0@0: undecodable causal.clock header (empty: the header's value is null)") !=
        std::string::npos);
}

TEST_CASE("unreachable brokers: exit 1 within 2 s with a clear error") {
  auto t0 = std::chrono::steady_clock::now();
  Run r = run_causal("tail -b 127.0.0.1:1 -e some-topic");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(s < 2);  // every bootstrap address refused: no client timeout is waited out
  CHECK(r.err.find("cannot reach the Kafka brokers at 127.0.0.1:1") != std::string::npos);
}

TEST_CASE("unknown topic: exit 1 naming it") {
  std::string name = t::unique_name("tail-no-such-topic");
  Run r = run_causal("tail " + brokers() + " -e " + name);
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("unknown topic '" + name + "'") != std::string::npos);
  // A long name is quoted as an excerpt, as all quoted input is (causal(1)); it was whole.
  std::string longer = name + std::string(80, 'x');
  Run l = run_causal("tail " + brokers() + " -e " + longer);
  INFO(l.err);
  CHECK(l.code == 1);
  CHECK(l.err.find("unknown topic '" + longer.substr(0, 60) + "...' (" + std::to_string(longer.size()) + " bytes)") !=
        std::string::npos);
}

// A failed write is never success (man/causal.1, EXIT STATUS): tail stops at it, and both
// tail and decode from Kafka exit 1 naming standard output and the reason.
TEST_CASE("standard output on a full disk: tail and decode exit 1 naming it") {
  std::string topic = t::create_topic("tail-full", 1);
  produce(topic + "/0", "{\"value\":\"a\"}\n{\"value\":\"b\"}\n");
  for (const std::string& args : {"tail " + brokers() + " -e --format jsonl " + topic,
                                  "tail " + brokers() + " -e --format text " + topic,
                                  "decode " + brokers() + " " + topic + "/0@0..1"}) {
    const std::string err = tmpdir() + "/full.err";
    const int rc = std::system((quote(causal_bin()) + " " + args + " < /dev/null > /dev/full 2> " + err).c_str());
    INFO(args << "\nstderr: " << slurp(err));
    CHECK(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 1);
    CHECK(slurp(err).find("causal: cannot write to standard output: No space left on device") != std::string::npos);
    // The counters line does not count as printed what the full disk refused.
    if (args.starts_with("tail")) CHECK(slurp(err).find("2 delivered (0 printed)") != std::string::npos);
  }
}

// causal-produce(1), EXIT STATUS: a run stopped early by bad input still counts, and reports,
// every record that reached Kafka; the bad line is named, and so is a record whose partition
// the topic does not have, or whose header object has a field it does not know.
TEST_CASE("produce stopped by bad input counts and reports what reached Kafka") {
  std::string topic = t::create_topic("produce-early-stop", 2);
  Run r = run_causal("produce " + brokers() + " --report jsonl " + topic,
                     "{\"value\":\"r1\",\"partition\":0}\n{\"value\":\"r2\",\"partition\":0}\nbad\n");
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("stdin line 3: not JSON") != std::string::npos);
  CHECK(r.err.find("2 records sent, 2 delivered") != std::string::npos);
  CHECK(lines(r.out).size() == 2);  // one --report line per record in Kafka
  Run read = run_causal("tail " + brokers() + " -e --format jsonl " + topic);
  CHECK(records(lines(read.out)).size() == 2);

  Run part = run_causal("produce " + brokers() + " " + topic, "{\"value\":\"a\"}\n{\"value\":\"b\",\"partition\":9}\n");
  INFO(part.err);
  CHECK(part.code == 2);
  CHECK(part.err.find("stdin line 2: topic '" + topic + "' has 2 partition(s); partition 9 does not exist") !=
        std::string::npos);
  CHECK(part.err.find("1 record sent, 1 delivered") != std::string::npos);

  Run hdr = run_causal("produce " + brokers() + " " + topic,
                       "{\"value\":\"a\",\"headers\":[{\"name\":\"h\",\"value\":\"x\",\"bogus\":1}]}\n");
  CHECK(hdr.code == 2);
  CHECK(hdr.err.find("stdin line 1: header unknown field \"bogus\"") != std::string::npos);

  // A transaction control line with a record's fields: refused, not the record dropped
  // unsent (otherwise nothing is sent for it and produce exits 0).
  Run ctl = run_causal("produce " + brokers() + " --transactional-id " + t::unique_name("ctl") + " " + topic,
                       "{\"value\":\"keep\"}\n{\"transaction\":\"commit\",\"value\":\"lost\"}\n");
  INFO(ctl.err);
  CHECK(ctl.code == 2);
  CHECK(ctl.err.find("stdin line 2: a control line has no other fields: \"value\" beside \"transaction\"") !=
        std::string::npos);

  // A --timeout-ms librdkafka refuses as message.timeout.ms (not above linger.ms, 5): exit 2.
  Run tmo = run_causal("produce " + brokers() + " --timeout-ms 5 " + topic, "{\"value\":\"a\"}\n");
  CHECK(tmo.code == 2);
  CHECK(tmo.err.find("--timeout-ms 5, librdkafka's message.timeout.ms, is refused: ") != std::string::npos);

  // Standard input that cannot be read is exit 1, not an empty input.
  const int rc = std::system((quote(causal_bin()) + " produce " + brokers() + " " + topic + " < /tmp 2>/dev/null").c_str());
  CHECK(WEXITSTATUS(rc) == 1);
}

// causal-produce(1): a transaction Kafka aborted (open past transaction.timeout.ms, which
// fences the producer) can be neither committed nor aborted; the summary says its records
// are never seen, and the error names the transactional id and both causes of "fenced".
// Kafka aborts a timed-out transaction at its next scan (every 10 s by default), so the input
// stays open for 3 s of timeout plus a whole scan interval and some.
// "0 transaction(s) committed, 0 aborted" and no more would hide that.
TEST_CASE("produce says when its transaction was neither committed nor aborted") {
  std::string topic = t::create_topic("produce-fenced", 1);
  const std::string id = t::unique_name("fenced");
  const std::string err = tmpdir() + "/fenced.err";
  const std::string cmd = "(echo '{\"value\":\"inflight\"}'; sleep 16) | " + quote(causal_bin()) + " produce " +
                          brokers() + " --sync --transactional-id " + id +
                          " -X transaction.timeout.ms=3000 --timeout-ms 3000 " + topic + " >/dev/null 2>" + err;
  const int rc = std::system(cmd.c_str());
  const std::string text = slurp(err);
  INFO(text);
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(text.find("0 transaction(s) committed, 0 aborted; the last one was not committed: read_committed readers "
                  "never see its records") != std::string::npos);
  CHECK(text.find("commit_transaction for transactional id '" + id + "'") != std::string::npos);
  CHECK(text.find("or the transaction stayed open longer than transaction.timeout.ms") != std::string::npos);
  Run read = run_causal("tail " + brokers() + " -e --format jsonl " + topic);
  CHECK(read.out.empty());
}

// causal-decode(1): an unknown topic or partition is said at once, not after --timeout-ms.
TEST_CASE("decode names an unknown topic or partition at once") {
  std::string topic = t::create_topic("decode-unknown", 1);
  auto t0 = std::chrono::steady_clock::now();
  Run nt = run_causal("decode " + brokers() + " --timeout-ms 20000 " + t::unique_name("no-such-topic") + "/0@0");
  CHECK(nt.code == 1);
  CHECK(nt.err.find("unknown topic") != std::string::npos);
  Run np = run_causal("decode " + brokers() + " --timeout-ms 20000 " + topic + "/7@0");
  CHECK(np.code == 1);
  CHECK(np.err.find("unknown partition " + topic + "/7: topic '" + topic + "' has 1 partition(s)") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15));
}

// causal-decode(1): offsets outside the readable records are said at once, in Kafka's terms.
// An offset in a transaction still open is not "no business record ... markers and aborted
// records", and a range or offset past the end is not librdkafka's "Offset out of range".
TEST_CASE("decode says where the readable records end: a transaction still open, past the end") {
  std::string topic = t::create_topic("decode-ends", 1);
  produce(topic + "/0", "{\"value\":\"a\"}\n{\"value\":\"b\"}\n");  // offsets 0, 1
  t::TransactionalProducer p;
  p.begin();
  p.send(topic, std::vector<t::Record>{t::Record("open", 0)});  // offset 2: in a transaction still open
  const std::string b = brokers() + " --timeout-ms 20000 ";
  auto t0 = std::chrono::steady_clock::now();
  Run in_txn = run_causal("decode " + b + topic + "/0@2");
  CHECK(in_txn.code == 1);
  CHECK(in_txn.err.find(topic + "/0@2: held back by a transaction still open: the last stable offset is 2 and the log ends at 3") !=
        std::string::npos);
  Run past = run_causal("decode " + b + topic + "/0@50");
  CHECK(past.code == 1);
  CHECK(past.err.find(topic + "/0@50: no record at that offset yet (the partition ends at 3)") != std::string::npos);
  Run range = run_causal("decode " + b + "--format jsonl " + topic + "/0@1..9");
  CHECK(range.code == 0);
  CHECK(lines(range.out).size() == 1);
  CHECK(range.err.find(topic + "/0 ends at 2, before the end of the range 9 (offset 2 is held back by a transaction still open)") !=
        std::string::npos);
  Run after = run_causal("decode " + b + topic + "/0@4..");
  CHECK(after.code == 0);
  CHECK(after.out.empty());
  CHECK(after.err.find(topic + "/0 ends at 2: nothing at or after 4 to read") != std::string::npos);
  Run open_end = run_causal("decode " + b + "--format jsonl " + topic + "/0@0..");
  CHECK(open_end.code == 0);
  CHECK(lines(open_end.out).size() == 2);
  CHECK(open_end.err.find(topic + "/0 ends at 2 (offset 2 is held back by a transaction still open)") !=
        std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15));  // none waited for --timeout-ms
  p.commit();
  Run done = run_causal("decode " + b + "--format jsonl " + topic + "/0@2");
  CHECK(done.code == 0);
  CHECK(lines(done.out).size() == 1);
}

// causal-tail(1): in text format control bytes are escaped, a sender's in the clock too (so
// the clock never prints a sender's ESC raw to the terminal).
TEST_CASE("tail --format text escapes a sender's control bytes in the clock") {
  std::string topic = t::create_topic("tail-text-sender", 1);
  Run p = run_causal("produce " + brokers() + " --sender \"$(printf 'ev\\033]0;x\\007il')\" " + topic, "{\"value\":\"v\"}\n");
  REQUIRE(p.code == 0);
  Run r = run_causal("tail " + brokers() + " -e --format text " + topic);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("clock{from ev\\x1b]0;x\\x07il#1") != std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);
}

TEST_CASE("SIGINT mid-stream: a clean summary and no half-printed line") {
  std::string topic = t::create_topic("tail-sigint", 1);
  std::string in;
  for (int i = 0; i < 2000; ++i) in += "{\"value\":\"" + std::string(200, 'x') + std::to_string(i) + "\"}\n";
  produce(topic, in);
  std::string out = tmpdir() + "/sigint.out", err = tmpdir() + "/sigint.err";
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = "exec " + quote(causal_bin()) + " tail " + brokers() + " --format jsonl " + topic + " > " + out +
                      " 2> " + err;
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  REQUIRE(t::eventually([&] { return slurp(out).size() > 0; }, 15s));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  std::string o = slurp(out);
  INFO(slurp(err));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE(!o.empty());
  CHECK(o.back() == '\n');
  CHECK_NOTHROW(lines(o));
  CHECK(slurp(err).find("delivered") != std::string::npos);
}

TEST_CASE("on a topic without clocks, tail reads what kcat reads with read_committed, record for record") {
  std::string topic = t::create_topic("tail-kcat", 3);
  std::string in;
  for (int txn = 0; txn < 8; ++txn) {
    for (int i = 0; i < 5; ++i) {
      std::string key = (i % 2) ? "null" : "\"k" + std::to_string(i) + "\"";
      in += "{\"key\":" + key + ",\"value\":\"v" + std::to_string(txn) + "-" + std::to_string(i) + "\"}\n";
    }
    in += txn % 3 == 2 ? "{\"transaction\":\"abort\"}\n" : "{\"transaction\":\"commit\"}\n";
  }
  produce(topic, in, "--no-stamp --transactional-id " + t::unique_name("tail-kcat"));
  Run r = run_causal("tail " + brokers() + " -e --format jsonl " + topic);
  INFO(r.err);
  REQUIRE(r.code == 0);
  check_line_bytes(r.out);
  std::string kout = tmpdir() + "/kcat.out";
  std::string kcmd = "kcat -C -b " + t::bootstrap() + " -t " + topic +
                     " -o beginning -e -J -q -X isolation.level=read_committed > " + kout + " 2>/dev/null";
  REQUIRE(std::system(kcmd.c_str()) == 0);
  using Key = std::tuple<int, long, json, json>;  // partition, offset, key, value
  std::set<Key> ours, theirs;
  std::map<int, std::vector<long>> our_order;
  for (const auto& j : records(lines(r.out))) {
    ours.insert({j["partition"].get<int>(), j["offset"].get<long>(), j["key"], j["value"]});
    our_order[j["partition"].get<int>()].push_back(j["offset"].get<long>());
  }
  for (const auto& j : lines(slurp(kout))) {
    theirs.insert({j["partition"].get<int>(), j["offset"].get<long>(), j["key"], j["payload"]});
  }
  CHECK(ours.size() == 30);  // 8 transactions of 5, 2 of them aborted
  CHECK(ours == theirs);
  for (auto& [p, offs] : our_order) CHECK(std::is_sorted(offs.begin(), offs.end()));
}

TEST_CASE("produce then tail round-trips keys, values and headers byte for byte, binary included") {
  std::string topic = t::create_topic("tail-roundtrip", 1);
  // Bytes that are not UTF-8, NUL, control characters, quotes, non-ASCII text, empty values.
  std::string in =
      R"({"key":"AP8BgA==","key_encoding":"base64","value":"3q2+7wAK","value_encoding":"base64",)"
      R"("headers":[{"name":"h","value":"1"},{"name":"h","value":"2"},{"name":"bin","value":"gICA","value_encoding":"base64"},{"name":"nul","value":null},{"name":"empty","value":""}]})"
      "\n"
      R"({"key":"ключ \"q\" \\ \n","value":"é\u0000\u0001\t","headers":[]})"
      "\n"
      R"({"value":null})"
      "\n";
  produce(topic, in);
  Run r = run_causal("tail " + brokers() + " -e --format jsonl " + topic);
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  check_line_bytes(r.out);
  auto recs = records(lines(r.out));
  REQUIRE(recs.size() == 3);
  CHECK(recs[0]["key"] == "AP8BgA==");
  CHECK(recs[0]["key_encoding"] == "base64");
  CHECK(recs[0]["value"] == "3q2+7wAK");
  CHECK(recs[0]["value_encoding"] == "base64");
  json h = json::array();
  for (const auto& x : recs[0]["headers"]) {
    if (x["name"] != "causal.clock") h.push_back(x);
  }
  CHECK(h == json::parse(R"([{"name":"h","value":"1"},{"name":"h","value":"2"},)"
                         R"({"name":"bin","value":"gICA","value_encoding":"base64"},)"
                         R"({"name":"nul","value":null},{"name":"empty","value":""}])"));
  CHECK(recs[0]["headers"].back()["name"] == "causal.clock");  // appended after the user's
  CHECK(recs[1]["key"] == "ключ \"q\" \\ \n");
  CHECK(recs[1]["value"] == std::string("é\0\1\t", 5));
  CHECK_FALSE(recs[1].contains("value_encoding"));
  CHECK(recs[2]["value"].is_null());
  CHECK(recs[2]["key"].is_null());
}

namespace {

// The base64 causal.clock header of a clock in `causal encode`'s text syntax.
std::string encoded(const std::string& clock_text) {
  Run r = run_causal("encode " + quote(clock_text));
  INFO(r.err);
  REQUIRE(r.code == 0);
  return r.out.substr(0, r.out.find('\n'));
}

// A sender identity 40 bytes long, numbered: 140 of them make a resolution state of about
// 6 KB, over Kafka's 4096-byte metadata bound.
std::string fmt_sender(int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "sender-with-a-long-service-name-%08d", i);
  return buf;
}

// A jsonl input line for `produce --no-stamp` carrying exactly this clock.
std::string with_clock(const std::string& value, const std::string& clock_text) {
  return R"({"value":")" + value + R"(","headers":[{"name":"causal.clock","value":")" + encoded(clock_text) +
         R"(","value_encoding":"base64"}]})" + "\n";
}

}  // namespace

// A lookup's answer releases a head; the next head the cascade reaches waits
// on another sequence claim whose send sits below the baseline. -e must not call that caught
// up: lookups run to a fixpoint before tail decides it is at the end.
TEST_CASE("exit-at-end waits for the lookups a release makes necessary, down a chain of three") {
  std::string T = t::create_topic("tail-lookup-chain", 4);
  // T/0 holds the three claimed sends; the tail starts T/0 at 3, above all of them.
  produce(T + "/0", with_clock("s1", "origin=s:1") + with_clock("r1", "origin=r:1") + with_clock("u1", "origin=u:1"),
          "--no-stamp");
  produce(T + "/1", with_clock("a", "origin=x:1 " + T + "/0#s:1"), "--no-stamp");
  produce(T + "/2", with_clock("b", "origin=y:1 " + T + "/1@0 " + T + "/0#r:1"), "--no-stamp");
  produce(T + "/3", with_clock("c", "origin=z:1 " + T + "/2@0 " + T + "/0#u:1"), "--no-stamp");

  Run r = run_causal("tail " + brokers() + " --from " + T + "/0=3 -e --format jsonl " + T);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  auto recs = records(lines(r.out));
  REQUIRE(recs.size() == 3);
  CHECK(recs[0]["value"] == "a");
  CHECK(recs[1]["value"] == "b");
  CHECK(recs[2]["value"] == "c");
  for (const auto& rec : recs) CHECK(rec["released_by"]["reason"] == "lookup");
  CHECK(r.err.find("3 lookups") != std::string::npos);

  // The lookup events give the range read half-open, as explain does: the located offset is
  // inside it, and it is the last offset read.
  Run shown = run_causal("tail " + brokers() + " --from " + T + "/0=3 -e --show-held --format jsonl " + T);
  INFO(shown.out);
  int lookups = 0;
  for (const auto& j : lines(shown.out)) {
    if (j.value("event", "") != "lookup") continue;
    ++lookups;
    REQUIRE(j["located"].is_number());
    CHECK(j["scanned_from"].get<long>() <= j["located"].get<long>());
    CHECK(j["scanned_to"].get<long>() == j["located"].get<long>() + 1);
  }
  CHECK(lookups == 3);

  // The same with --count, which reaches all three, as -e must.
  Run c = run_causal("tail " + brokers() + " --from " + T + "/0=3 -c 3 --format jsonl " + T);
  INFO(c.out << c.err);
  CHECK(c.code == 0);
  CHECK(records(lines(c.out)).size() == 3);
}

namespace {

// The committed offset and metadata of `group` on `topic`/`partition`, read without joining the group.
std::pair<int64_t, std::string> committed_with_metadata(const std::string& group, const std::string& topic,
                                                        int32_t partition = 0) {
  t::HandlePtr reader = t::make_handle(RD_KAFKA_CONSUMER, {{"group.id", group}, {"enable.auto.commit", "false"}});
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
  REQUIRE(rd_kafka_committed(reader.get(), list, 10'000) == RD_KAFKA_RESP_ERR_NO_ERROR);
  const auto& e = list->elems[0];
  std::pair<int64_t, std::string> out{
      e.offset, e.metadata_size > 0 ? std::string(static_cast<const char*>(e.metadata), e.metadata_size) : ""};
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_consumer_close(reader.get());
  return out;
}

}  // namespace

// Kafka keeps at most 4096 bytes of commit metadata (the fact test shows it
// refuses more). A member that saw 140 senders on one partition has a resolution state far
// over that: with lookups it commits the senders it saw last that fit and says so, and a
// claim on a pruned sender's send costs a lookup, never a wedge; without lookups the commit
// fails and nothing is committed.
TEST_CASE("a resolution state over the 4096-byte metadata bound: pruned with lookups, refused without") {
  std::string T = t::create_topic("tail-meta-bound", 2);
  auto sender = [](int i) { return fmt_sender(i); };
  std::string input;
  for (int i = 0; i < 140; ++i) input += with_clock("v" + std::to_string(i), "origin=" + sender(i) + ":1");
  produce(T + "/0", input, "--no-stamp");

  std::string G = t::unique_name("meta-bound");
  Run r = run_causal("tail " + brokers() + " --group " + G + " --commit -e --format jsonl " + T);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(records(lines(r.out)).size() == 140);
  unsigned kept = 0, had = 0;
  auto note = r.err.find("resolution state over 4096 bytes: committed ");
  REQUIRE(note != std::string::npos);
  REQUIRE(std::sscanf(r.err.c_str() + note, "resolution state over 4096 bytes: committed %u of %u sender entries", &kept,
                      &had) == 2);
  CHECK(had == 140);
  CHECK(kept > 0);
  CHECK(kept < 140);
  // Said when a pruned commit is sent, not again for each unchanged commit skipped (the exit
  // commit, the close, the revocation: otherwise said three times). At most one commit per
  // write (after the first write, and at exit) can be pruned here.
  std::size_t notes = 0;
  for (auto at = r.err.find("resolution state over"); at != std::string::npos; at = r.err.find("resolution state over", at + 1)) {
    ++notes;
  }
  CHECK(notes >= 1);
  CHECK(notes <= 2);

  auto [offset, meta] = committed_with_metadata(G, T);
  CHECK(offset == 140);
  CHECK(meta.size() <= 4096);
  CHECK(meta.starts_with("causal1:"));
  // As many entries as fit: one more (56 characters of base64) would not.
  CHECK(meta.size() > 4096 - 64);

  // On T/1, a claim on the send of a pruned sender (the first) and one on a kept sender (the
  // last): the restarted member resolves the first by a lookup, the second from the state.
  produce(T + "/1",
          with_clock("on-kept", "origin=late:1 " + T + "/0#" + sender(139) + ":1") +
              with_clock("on-pruned", "origin=late:2 " + T + "/0#" + sender(0) + ":1"),
          "--no-stamp");
  Run again = run_causal("tail " + brokers() + " --group " + G + " --commit -e --show-held --format jsonl " + T);
  INFO(again.out << again.err);
  CHECK(again.code == 0);
  auto recs = records(lines(again.out));
  REQUIRE(recs.size() == 2);
  CHECK(recs[0]["value"] == "on-kept");
  CHECK(recs[0]["released_by"]["reason"] == "immediate");
  CHECK(recs[1]["value"] == "on-pruned");
  CHECK(recs[1]["released_by"]["reason"] == "lookup");
  CHECK(again.err.find("1 lookup") != std::string::npos);
  CHECK(committed_with_metadata(G, T, 0).first == 140);
  CHECK(committed_with_metadata(G, T, 1).first == 2);

  // Without lookups nothing may be dropped: the commit fails, naming the partition, the size
  // and the bound, and the group has no commit.
  std::string N = t::unique_name("meta-bound-nolookup");
  Run no = run_causal("tail " + brokers() + " --group " + N + " --commit --no-lookup -e --format jsonl " + T);
  INFO(no.err);
  CHECK(no.code == 1);
  CHECK(no.err.find(T + "/0: the resolution state is ") != std::string::npos);
  CHECK(no.err.find("over the 4096 bytes Kafka keeps as commit metadata") != std::string::npos);
  CHECK(committed_with_metadata(N, T).first == RD_KAFKA_OFFSET_INVALID);
}

// A partition's custody restatement is committed beside its resolution
// state (causal2: metadata) and, unlike resolution entries, is never dropped. One record
// claiming 3 unconsumed topics commits them; one claiming 300 topics (about 15 KB of
// restatement, over Kafka's 4096-byte bound) makes the commit fail, naming the partition,
// and the group has no commit.
TEST_CASE("a custody restatement is committed as causal2 metadata, and refused whole over the bound") {
  std::string T = t::create_topic("tail-custody", 1);
  const std::string far = "custody-cause-" + std::string(30, 'x');
  auto claims = [&](int n) {
    std::string text = "origin=c:1";
    for (int i = 0; i < n; ++i) text += " " + far + "-" + std::to_string(i) + "/0@7";
    return text;
  };
  produce(T + "/0", with_clock("few", claims(3)), "--no-stamp");
  std::string G = t::unique_name("custody-few");
  Run r = run_causal("tail " + brokers() + " --group " + G + " --commit -e --format jsonl " + T);
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto [offset, meta] = committed_with_metadata(G, T);
  CHECK(offset == 1);
  REQUIRE(meta.starts_with("causal2:"));
  // The state, then the topic ID of the log the offset belongs to (docs/wire-format.md).
  const auto id_at = meta.rfind(";topic_id=");
  REQUIRE(id_at != std::string::npos);
  CHECK(meta.size() - id_at - 10 == 22);  // a Uuid in base64url without padding
  causal::Names names;
  auto state = causal::decode_committed_state(meta.substr(0, id_at), names);
  REQUIRE(state);
  CHECK(state->custody.offsets().size() == 3);
  CHECK(state->custody.offset_of(names.channel(far + "-2", 0)) == 7);

  std::string U = t::create_topic("tail-custody-big", 1);
  produce(U + "/0", with_clock("many", claims(300)), "--no-stamp");
  std::string H = t::unique_name("custody-many");
  Run big = run_causal("tail " + brokers() + " --group " + H + " --commit -e --format jsonl " + U);
  INFO(big.err);
  CHECK(big.code == 1);
  CHECK(big.err.find(U + "/0: the custody restatement alone is ") != std::string::npos);
  CHECK(big.err.find("(300 claims), over the 4096 bytes") != std::string::npos);
  CHECK(committed_with_metadata(H, U).first == RD_KAFKA_OFFSET_INVALID);
}

// A lookup that finds nothing to scan because the log start is at or above the baseline
// says more than "the send is at or above the baseline, or not appended yet": the log start
// above 0 may have taken the send with it (DeleteRecords below it), and that case is named too.
TEST_CASE("a lookup with nothing left to scan names a log start that may have taken the send") {
  std::string T = t::create_topic("tail-deleted-send", 2);
  produce(T + "/1", with_clock("s1", "origin=s:1") + with_clock("s2", "origin=s:2"), "--no-stamp");
  t::delete_records(T, 1, 2);
  produce(T + "/0", with_clock("a", "origin=x:1 " + T + "/1#s:1"), "--no-stamp");
  Run r = run_causal("tail " + brokers() + " --from " + T + "/1=2 -e --format jsonl " + T);
  INFO(r.out << r.err);
  CHECK(r.code == 4);  // held: the send was deleted
  CHECK(r.err.find("or it lay below the log start 2 and was deleted (then it never arrives: causal explain tells "
                   "which)") != std::string::npos);
}

// A reader without a group reads the partitions its topics had when it started; a claim on a
// partition added later is outside its scope and ignored (rule 7). That is said, once per
// partition: otherwise effects on the old partitions are printed, in silence, before their
// cause on the new one, which tail never reads. (A partition the topic never had
// stands in for one added while tail runs: the same check, without a race in the test.)
TEST_CASE("a claim on a partition a topic did not have when tail started is said, once") {
  std::string T = t::create_topic("tail-grown", 2);
  produce(T + "/0", with_clock("e1", "origin=x:1 " + T + "/5@0") + with_clock("e2", "origin=x:2 " + T + "/5@1"),
          "--no-stamp");
  Run r = run_causal("tail " + brokers() + " -e --format jsonl " + T);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(records(lines(r.out)).size() == 2);
  const std::string note = "causal tail: " + T + "/5: a record claims this partition, which topic '" + T +
                           "' did not have when this consumer started (2 partitions): it is not read";
  const auto at = r.err.find(note);
  CHECK(at != std::string::npos);
  CHECK(r.err.find(note, at + 1) == std::string::npos);
  // Not said for a partition tail was not asked to read (T/1 here): that is the scope asked for.
  Run one = run_causal("tail " + brokers() + " -e --format jsonl " + T + "/0");
  INFO(one.out << one.err);
  CHECK(one.code == 0);
  CHECK(one.err.find("a record claims this partition") == std::string::npos);
}

// A commit past the log end belongs to a log that is gone (a topic deleted and re-created,
// a truncated log). A member starting there would have librdkafka reset the fetch to the
// log start and the replay guard drop every record below the commit, exit 0, and the
// group's later records dropped the same way. So the commit is treated as one below the
// log start: the start rules, with a note; explain replays the same way.
TEST_CASE("a commit past the log end starts at the log start, nothing dropped, and explain replays the same") {
  std::string T = t::create_topic("tail-past-end", 1);
  std::string G = t::unique_name("past-end");
  produce(T + "/0", with_clock("a", "origin=s:1") + with_clock("b", "origin=s:2") + with_clock("c", "origin=s:3"),
          "--no-stamp");
  t::commit_offsets(G, T, {{0, 50}});

  Run ex = run_causal("explain " + brokers() + " --group " + G + " --topic " + T + " --format json");
  INFO(ex.out << ex.err);
  CHECK(ex.code == 0);
  CHECK(ex.err.find(T + "/0: the committed offset 50 is past the log end 3") != std::string::npos);

  Run watch = run_causal("tail " + brokers() + " " + T + " --group " + G + " --from committed -e --format jsonl");
  INFO(watch.out << watch.err);
  CHECK(watch.code == 0);
  CHECK(records(lines(watch.out)).size() == 3);
  CHECK(watch.err.find("committed offset 50 is past the log end 3") != std::string::npos);

  Run member = run_causal("tail " + brokers() + " --group " + G + " --commit -e --format jsonl " + T);
  INFO(member.out << member.err);
  CHECK(member.code == 0);
  auto recs = records(lines(member.out));
  REQUIRE(recs.size() == 3);
  CHECK(recs[0]["value"] == "a");
  CHECK(member.err.find(T + "/0: the committed offset 50 is past the log end 3") != std::string::npos);
  CHECK(committed_with_metadata(G, T, 0).first == 3);
  // The group's next records are delivered too.
  produce(T + "/0", with_clock("d", "origin=s:4"), "--no-stamp");
  Run again = run_causal("tail " + brokers() + " --group " + G + " --commit -e --format jsonl " + T);
  INFO(again.out << again.err);
  CHECK(again.code == 0);
  auto more = records(lines(again.out));
  REQUIRE(more.size() == 1);
  CHECK(more[0]["value"] == "d");
  // Kafka's own tool rewinds the group without the resolution state: said, as the docs say.
  t::commit_offsets(G, T, {{0, 3}});
  Run rewound = run_causal("tail " + brokers() + " --group " + G + " --commit -e --format jsonl " + T);
  INFO(rewound.out << rewound.err);
  CHECK(rewound.code == 0);
  CHECK(records(lines(rewound.out)).size() == 1);
  CHECK(rewound.err.find(T + "/0: the commit at 3 carries no resolution state (another tool wrote it") !=
        std::string::npos);
}

// Reading a group's commit without joining, a commit below the log start (DeleteRecords
// passed it) starts at the log start and says so, as --commit does.
TEST_CASE("from committed: a commit below the log start is said, and the read starts at the log start") {
  std::string T = t::create_topic("tail-below-start", 1);
  std::string G = t::unique_name("below-start");
  produce(T + "/0", with_clock("a", "origin=s:1") + with_clock("b", "origin=s:2") + with_clock("c", "origin=s:3"),
          "--no-stamp");
  t::commit_offsets(G, T, {{0, 1}});
  t::delete_records(T, 0, 2);
  Run r = run_causal("tail " + brokers() + " " + T + " --group " + G + " --from committed -e --format jsonl");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  auto recs = records(lines(r.out));
  REQUIRE(recs.size() == 1);
  CHECK(recs[0]["value"] == "c");
  CHECK(r.err.find(T + "/0: the committed offset 1 is below the log start 2 (records deleted") != std::string::npos);
}

TEST_CASE("tail from committed offsets restores the resolution state the group committed as its next run does") {
  // docs/runbook.md step 3 watches a group drain with `tail --group G --from committed -e
  // --no-lookup`. It starts with the group's saved resolution state: without it, a claim
  // on a send the group had delivered before its commit would be held (exit 4) although the
  // group itself, and explain, deliver it.
  std::string T = t::create_topic("tail-committed-state", 2);
  std::string G = t::unique_name("committed-state");
  produce(T + "/0", with_clock("s1", "origin=s:1"), "--no-stamp");
  Run first = run_causal("tail " + brokers() + " --group " + G + " --commit -e --no-lookup --format jsonl " + T);
  INFO(first.out << first.err);
  REQUIRE(first.code == 0);
  REQUIRE(records(lines(first.out)).size() == 1);
  REQUIRE(committed_with_metadata(G, T, 0).first == 1);
  produce(T + "/1", with_clock("a", "origin=x:1 " + T + "/0#s:1"), "--no-stamp");

  Run watch = run_causal("tail " + brokers() + " " + T + " --group " + G + " --from committed -e --no-lookup --format jsonl");
  INFO(watch.out << watch.err);
  CHECK(watch.code == 0);
  auto recs = records(lines(watch.out));
  REQUIRE(recs.size() == 1);
  CHECK(recs[0]["value"] == "a");
  // The group's own next run agrees.
  Run again = run_causal("tail " + brokers() + " --group " + G + " --commit -e --no-lookup --format jsonl " + T);
  INFO(again.out << again.err);
  CHECK(again.code == 0);
  CHECK(records(lines(again.out)).size() == 1);
}

namespace {

// Sends `group`'s commit of T/partition at `offset` into p's open transaction: until the
// transaction ends, the group's committed offsets are unreadable (UNSTABLE_OFFSET_COMMIT).
void pend_commit(t::TransactionalProducer& p, const std::string& group, const std::string& T, int32_t partition,
                 int64_t offset) {
  rd_kafka_topic_partition_list_t* offs = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offs, T.c_str(), partition)->offset = offset;
  rd_kafka_consumer_group_metadata_t* cgm = rd_kafka_consumer_group_metadata_new(group.c_str());
  rd_kafka_error_t* e = rd_kafka_send_offsets_to_transaction(p.handle(), offs, cgm, 10000);
  rd_kafka_consumer_group_metadata_destroy(cgm);
  rd_kafka_topic_partition_list_destroy(offs);
  if (e) {
    std::string why = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    FAIL("send_offsets_to_transaction: " << why);
  }
}

}  // namespace

// A member whose group's committed offsets cannot be read (a commit pending in an open
// transaction: the coordinator answers UNSTABLE_OFFSET_COMMIT until it ends) has read nothing;
// `--commit -e` does not count it caught up (it would exit 0 having delivered none of the
// partition's records, the error saying only "Local: Timed out"): it waits, says the
// pending commit may be the cause, and reads once the transaction ends.
TEST_CASE("a member whose group's commit is pending in an open transaction waits with -e, says why, then reads") {
  std::string T = t::create_topic("tail-pending-commit", 1);
  std::string group = t::unique_name("pending-member");
  t::Producer w;
  w.send(T, {t::Record("r0"), t::Record("r1"), t::Record("r2")});
  t::TransactionalProducer p;
  p.begin();
  p.send(T, t::Record("in-txn"));
  pend_commit(p, group, T, 0, 2);

  std::string out = tmpdir() + "/pending.out", err = tmpdir() + "/pending.err";
  std::string cmd = "exec " + quote(causal_bin()) + " tail " + brokers() + " --group " + group +
                    " --commit -e --format jsonl --timeout-ms 2000 " + T + " > " + out + " 2> " + err;
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  const bool still_running = t::eventually([&] { return slurp(err).find("trying again") != std::string::npos; }, 20s) &&
                             waitpid(pid, &status, WNOHANG) == 0;
  INFO(slurp(out) << slurp(err));
  if (!still_running) kill(pid, SIGKILL);
  REQUIRE(still_running);
  CHECK(slurp(out).empty());
  CHECK(slurp(err).find("cannot read committed offsets: Local: Timed out (within 2000 ms: the group coordinator did "
                        "not answer, or a commit of the group's offsets is pending in a transaction still open") !=
        std::string::npos);
  CHECK(slurp(err).find("`causal baseline TOPIC --group " + group + "` marks such a partition \"(pending)\"") !=
        std::string::npos);

  p.abort();  // the pending commit goes with it: no commit, so the member starts at the beginning
  auto until = std::chrono::steady_clock::now() + 40s;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      FAIL("tail did not exit within 40 s of the abort: " << slurp(out) << slurp(err));
    }
    std::this_thread::sleep_for(100ms);
  }
  INFO(slurp(out) << slurp(err));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  auto recs = records(lines(slurp(out)));
  REQUIRE(recs.size() == 3);  // r0..r2, not the aborted record
  CHECK(recs[0]["value"] == "r0");
  CHECK(recs[2]["value"] == "r2");
  CHECK(t::committed_offsets(group, T, {0}).at(0) == 5);  // past r0..r2, the aborted record and its marker
}

// A member whose generation is pending (it could not read the committed offsets: a commit
// pending in an open transaction on one of its partitions) still owns what librdkafka
// assigned it. A rebalance meanwhile (a second member joining takes one partition) must keep
// the other: once the transaction ends, the member starts its generation with it and reads
// it. A partition forgotten there would stay assigned to the member, fetched for it and
// counted as its by the group, its records never delivered or committed.
TEST_CASE("a rebalance while a member's generation is pending keeps the partitions it still owns") {
  // Classic members with cooperative-sticky: an eager assignor revokes everything first.
  for (const std::string protocol :
       {"classic -X partition.assignment.strategy=cooperative-sticky", "consumer"}) {
    DYNAMIC_SECTION("group protocol " << protocol) {
      std::string T = t::create_topic("tail-pending-rebalance", 2);
      std::string group = t::unique_name("pending-rebalance");
      t::TransactionalProducer p;
      p.begin();
      p.send(T, t::Record("in-txn", 1));
      pend_commit(p, group, T, 1, 0);

      auto member = [&](const std::string& name) {
        std::string out = tmpdir() + "/" + group + "-" + name + ".out", err = tmpdir() + "/" + group + "-" + name + ".err";
        std::string cmd = "exec " + quote(causal_bin()) + " tail " + brokers() + " --group " + group +
                          " --commit --group-protocol " + protocol + " --timeout-ms 2000 --format jsonl " + T + " > " +
                          out + " 2> " + err;
        pid_t pid = fork();
        if (pid == 0) {
          execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
          _exit(127);
        }
        return std::tuple{pid, out, err};
      };
      auto [a, a_out, a_err] = member("a");
      // a owns both partitions and cannot start its generation: T/1's commit is pending.
      bool a_pending = t::eventually([&] { return slurp(a_err).find("trying again") != std::string::npos; }, 30s);
      auto [b, b_out, b_err] = member("b");
      // b has its partition once a has given it up (both cooperative): a's rebalance ran
      // while its generation was pending. b says so whichever it got: T/0
      // starts, T/1 waits for the commit as a did.
      bool b_assigned = a_pending && t::eventually(
                                         [&] {
                                           std::string text = slurp(b_err);
                                           return text.find("generation 1 assigned") != std::string::npos ||
                                                  text.find("trying again") != std::string::npos;
                                         },
                                         30s);
      p.abort();  // the pending commit goes with it: both partitions start at the beginning
      t::Producer w;
      w.send(T, {t::Record("p0", 0), t::Record("p1", 1)});
      auto delivered = [&] {
        std::set<std::string> values;
        for (const auto& path : {a_out, b_out}) {
          for (const auto& r : records(lines(slurp(path)))) values.insert(r["value"].get<std::string>());
        }
        return values;
      };
      bool both = b_assigned && t::eventually([&] { return delivered() == std::set<std::string>{"p0", "p1"}; }, 40s);
      for (pid_t pid : {a, b}) kill(pid, SIGINT);
      for (pid_t pid : {a, b}) {
        int status = 0;
        auto until = std::chrono::steady_clock::now() + 30s;
        while (waitpid(pid, &status, WNOHANG) == 0) {
          if (std::chrono::steady_clock::now() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
          }
          std::this_thread::sleep_for(100ms);
        }
      }
      INFO("a: " << slurp(a_out) << slurp(a_err) << "\nb: " << slurp(b_out) << slurp(b_err));
      REQUIRE(a_pending);
      REQUIRE(b_assigned);
      CHECK(both);
      CHECK(delivered() == std::set<std::string>{"p0", "p1"});
    }
  }
}

// SIGINT or SIGTERM killing a transactional produce would leave its transaction open: the
// partition's LSO pinned, every read_committed reader behind it, until Kafka's transaction
// timeout. So produce aborts it, says so, and exits 130.
TEST_CASE("produce interrupted in a transaction aborts it and exits 130, the LSO moving on at once") {
  for (int sig : {SIGINT, SIGTERM}) {
    std::string T = t::create_topic("produce-interrupted", 1);
    std::string err = tmpdir() + "/interrupted.err";
    int to_produce[2];
    REQUIRE(pipe(to_produce) == 0);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(to_produce[0], STDIN_FILENO);
      close(to_produce[0]);
      close(to_produce[1]);
      std::string cmd = "exec " + quote(causal_bin()) + " produce " + brokers() + " --transactional-id " +
                        t::unique_name("interrupted") + " " + T + " > /dev/null 2> " + err;
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    close(to_produce[0]);
    const std::string line = "{\"value\":\"in-txn\"}\n";
    REQUIRE(write(to_produce[1], line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    // The record is in the log, in a transaction still open: the LSO is below it.
    INFO("signal " << sig);
    REQUIRE(t::eventually([&] { return t::high_watermark(T, 0) == 1; }, 20s));
    REQUIRE(t::last_stable_offset(T, 0) == 0);
    kill(pid, sig);
    int status = 0;
    auto until = std::chrono::steady_clock::now() + 20s;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > until) {
        kill(pid, SIGKILL);
        FAIL("produce did not exit within 20 s of the signal: " << slurp(err));
      }
      std::this_thread::sleep_for(50ms);
    }
    close(to_produce[1]);
    INFO(slurp(err));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    CHECK(slurp(err).find("1 record sent, 1 delivered") != std::string::npos);
    CHECK(slurp(err).find("0 transaction(s) committed, 1 aborted (the last one on the interrupt)") != std::string::npos);
    CHECK(slurp(err).find("causal: interrupted (SIGINT or SIGTERM) after stdin line 1") != std::string::npos);
    // Aborted, not left open: the marker follows the record and the LSO reaches the end.
    CHECK(t::eventually([&] { return t::last_stable_offset(T, 0) == 2 && t::high_watermark(T, 0) == 2; }, 10s));
  }
}

// A diagnostic that cannot be written (standard error closed, or full) changes neither what
// tail does nor its exit status, as kcat: the summary line must not throw, or tail exits
// 1 with "internal error" after printing every record, hiding exit 4.
TEST_CASE("standard error closed or full changes neither the output nor the exit status") {
  std::string T = t::create_topic("tail-stderr-gone", 2);
  produce(T + "/0", "{\"value\":\"free\"}\n");
  produce(T + "/0", "{\"value\":\"held\"," + claim_json(T, 1, 5) + "}\n");  // T/1@5: never written
  for (const std::string redirect : {"2>&-", "2>/dev/full"}) {
    INFO(redirect);
    std::string out = tmpdir() + "/stderr-gone.out";
    std::string cmd = quote(causal_bin()) + " tail " + brokers() + " -e --format jsonl " + T + " > " + out + " " + redirect;
    int rc = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 4);  // a record still held
    auto recs = records(lines(slurp(out)));
    REQUIRE(recs.size() == 1);
    CHECK(recs[0]["value"] == "free");
  }
}

// A commit whose metadata names another topic ID than its topic's belongs to an earlier topic
// of the same name (deleted and re-created; Kafka deletes a deleted topic's commits, so such a
// commit is one written while the topic was gone, or by a tool that kept old metadata): a
// reader from committed offsets, a member and explain start at the log start without its
// state, saying why; baseline --apply drops such metadata, so a baseline it writes is used.
TEST_CASE("a commit of an earlier topic of the same name (another topic ID) is not resumed from") {
  std::string T = t::create_topic("tail-other-log", 1);
  produce(T + "/0", with_clock("a", "origin=s:1") + with_clock("b", "origin=s:2") + with_clock("c", "origin=s:3"),
          "--no-stamp");
  const std::string stale = "causal1:;topic_id=AAAAAAAAAAAAAAAAAAAAAA";
  const std::string note = T + "/0: ";
  const std::string why = "belongs to an earlier topic '" + T + "' (its commit names topic ID AAAAAAAAAAAAAAAAAAAAAA";

  std::string G = t::unique_name("other-log-reader");
  t::commit_offsets(G, T, {{0, 2}}, stale);
  Run reader = run_causal("tail " + brokers() + " " + T + " --group " + G + " --from committed -e --format jsonl");
  INFO(reader.out << reader.err);
  CHECK(reader.code == 0);
  CHECK(records(lines(reader.out)).size() == 3);
  CHECK(reader.err.find(note + "group '" + G + "''s committed offset 2 " + why) != std::string::npos);

  std::string M = t::unique_name("other-log-member");
  t::commit_offsets(M, T, {{0, 2}}, stale);
  Run member = run_causal("tail " + brokers() + " --group " + M + " --commit -e --format jsonl " + T);
  INFO(member.out << member.err);
  CHECK(member.code == 0);
  CHECK(records(lines(member.out)).size() == 3);
  CHECK(member.err.find(note + "the committed offset 2 " + why) != std::string::npos);
  // Its own commit names the topic's ID: the next run resumes from it.
  Run again = run_causal("tail " + brokers() + " --group " + M + " --commit -e --format jsonl " + T);
  INFO(again.out << again.err);
  CHECK(again.code == 0);
  CHECK(records(lines(again.out)).empty());
  CHECK(again.err.find("earlier topic") == std::string::npos);

  std::string X = t::unique_name("other-log-explain");
  t::commit_offsets(X, T, {{0, 2}}, stale);
  Run explain = run_causal("explain " + brokers() + " --group " + X + " --topic " + T);
  INFO(explain.out << explain.err);
  CHECK(explain.code == 0);
  CHECK(explain.out.find(why) != std::string::npos);

  std::string B = t::unique_name("other-log-baseline");
  t::commit_offsets(B, T, {{0, 2}}, stale);
  Run baseline = run_causal("baseline " + brokers() + " " + T + "/0@1 --group " + B + " --apply");
  INFO(baseline.out << baseline.err);
  REQUIRE(baseline.code == 0);
  Run after = run_causal("tail " + brokers() + " --group " + B + " --commit -e --format jsonl " + T);
  INFO(after.out << after.err);
  CHECK(after.code == 0);
  auto recs = records(lines(after.out));
  REQUIRE(recs.size() == 2);
  CHECK(recs[0]["value"] == "b");
}

// `causal watch` against the real test broker (fixture kafka_broker), running the built
// binary in the background with --interval 1 and reading its JSON lines, its stderr and
// its /metrics. Setup (topics, stamped records, group offsets) uses librdkafka through
// tests/kafka/broker_env.hpp; the frozen claim is the one tests/explain freezes (a relay's
// claim on a send below the group's committed offset), and its remedy runs as printed.
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "broker_env.hpp"
#include "stamp.hpp"

using causal::test::Record;
using causal::test::Stamp;
using causal::test::stamped;
using Json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `causal <args>` to its end with CAUSAL_BROKERS set (unset without `brokers`); its
// exit status and stdout.
std::pair<int, std::string> causal_run(const std::vector<std::string>& args, bool brokers = true) {
  std::string cmd = (brokers ? "CAUSAL_BROKERS=" + quote(causal::test::bootstrap()) : std::string("env -u CAUSAL_BROKERS")) +
                    " " + quote(CAUSAL_BIN);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = pclose(p);
  INFO("causal " << cmd << "\n" << out);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// `causal watch ARGS` in the background, stdout and stderr in files of its own.
class Watch {
 public:
  explicit Watch(const std::vector<std::string>& args) {
    char dir[] = "/tmp/causal-watch-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    dir_ = dir;
    const std::string brokers = "CAUSAL_BROKERS=" + causal::test::bootstrap();
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int out = open((dir_ + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int err = open((dir_ + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(out, 1);
      dup2(err, 2);
      putenv(const_cast<char*>(brokers.c_str()));
      std::vector<char*> argv{const_cast<char*>(CAUSAL_BIN), const_cast<char*>("watch")};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(CAUSAL_BIN, argv.data());
      _exit(127);
    }
  }
  ~Watch() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::remove((dir_ + "/out").c_str());
    std::remove((dir_ + "/err").c_str());
    rmdir(dir_.c_str());
  }
  std::string err() const { return slurp(dir_ + "/err"); }
  std::vector<Json> lines() const {
    std::vector<Json> out;
    std::istringstream in(slurp(dir_ + "/out"));
    for (std::string l; std::getline(in, l);) out.push_back(Json::parse(l));  // every line is JSON
    return out;
  }
  // The first line after the first `after` lines for which `pred` holds, within `timeout`.
  Json wait_line(std::size_t after, const std::function<bool(const Json&)>& pred, std::chrono::seconds timeout = 30s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      auto ls = lines();
      for (std::size_t i = after; i < ls.size(); ++i) {
        if (pred(ls[i])) return ls[i];
      }
      std::this_thread::sleep_for(100ms);
    }
    INFO("stdout:\n" << slurp(dir_ + "/out") << "\nstderr:\n" << err());
    FAIL("no such line within the timeout");
    return {};
  }
  // The /metrics text (after "serving metrics on URL" on stderr).
  std::string metrics() {
    std::smatch m;
    std::string e;
    REQUIRE(causal::test::eventually(
        [&] {
          e = err();
          return std::regex_search(e, m, std::regex("serving metrics on (http://\\S+/metrics)"));
        },
        10s));
    FILE* p = popen(("curl -sf " + quote(m[1].str())).c_str(), "r");
    std::string out;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    REQUIRE(pclose(p) == 0);
    return out;
  }
  // SIGTERM; the exit status.
  int stop() {
    kill(pid_, SIGTERM);
    int status = 0;
    const auto until = std::chrono::steady_clock::now() + 15s;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > until) return -2;
      std::this_thread::sleep_for(20ms);
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  std::string dir_;
  pid_t pid_ = -1;
};

// The value of the sample `name{labels}` in Prometheus text; -1 when absent.
double sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(series + " ", 0) == 0) return std::stod(l.substr(series.size() + 1));
  }
  return -1;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A record with an origin and nothing claimed.
Record plain(const std::string& value, const std::string& sender, causal::SeqNo q) {
  Stamp s;
  s.origin(sender, q);
  return stamped(value, 0, s);
}

}  // namespace

TEST_CASE("drains, then stuck on a frozen claim, then drains once its remedy ran, and unchanged rounds read "
          "nothing",
          "[watch][broker]") {
  const std::string A = causal::test::create_topic("watch-a", 1);
  const std::string C = causal::test::create_topic("watch-c", 1);
  const std::string G = causal::test::unique_name("watch-group");
  const std::string S = causal::test::unique_name("sender-S");
  const std::string R = causal::test::unique_name("relay-R");
  causal::test::Producer p;
  p.send(A, plain("older", causal::test::unique_name("sender-O"), 1));  // A/0@0
  p.send(C, plain("c0", causal::test::unique_name("sender-P"), 1));     // C/0@0
  causal::test::commit_offsets(G, A, {{0, 0}});
  causal::test::commit_offsets(G, C, {{0, 0}});

  Watch w({"--group", G, "--interval", "1", "--listen", "127.0.0.1:0"});
  Json first = w.wait_line(0, [](const Json&) { return true; });
  CHECK(first["group"] == G);
  CHECK(first["verdict"] == "drains");
  CHECK(first["path"] == "replayed");
  CHECK(first["scanned_records"] == 2);
  CHECK(first["summary"].get<std::string>().rfind("not stuck:", 0) == 0);

  // Unchanged rounds: reused, nothing read (the scanned counter stays at 2).
  REQUIRE(causal::test::eventually([&] { return sample(w.metrics(), "causal_watch_rounds_total") >= 3; }, 15s));
  std::string m = w.metrics();
  CHECK(sample(m, fmt::format("causal_watch_scanned_records_total{{group=\"{}\"}}", G)) == 2);
  CHECK(sample(m, fmt::format("causal_group_verdict{{group=\"{}\",verdict=\"drains\"}}", G)) == 1);
  CHECK(sample(m, fmt::format("causal_group_verdict{{group=\"{}\",verdict=\"stuck\"}}", G)) == 0);
  CHECK(sample(m, fmt::format("causal_committed_offset{{group=\"{}\",topic=\"{}\",partition=\"0\"}}", G, A)) == 0);
  CHECK(sample(m, fmt::format("causal_log_stable_offset{{group=\"{}\",topic=\"{}\",partition=\"0\"}}", G, A)) == 1);
  CHECK(sample(m, fmt::format("causal_high_watermark{{group=\"{}\",topic=\"{}\",partition=\"0\"}}", G, C)) == 1);
  CHECK(sample(m, fmt::format("causal_group_members{{group=\"{}\",protocol=\"unknown\"}}", G)) +
            sample(m, fmt::format("causal_group_members{{group=\"{}\",protocol=\"classic\"}}", G)) + 1 >= 0);
  CHECK(sample(m, fmt::format("causal_watch_errors_total{{group=\"{}\"}}", G)) == 0);
  CHECK(w.lines().size() == 1);  // no change, no line

  // The LSO advances, the commits do not: the replay goes on, reading only the new record.
  p.send(C, plain("c1", causal::test::unique_name("sender-P"), 1));  // C/0@1
  REQUIRE(causal::test::eventually(
      [&] {
        return sample(w.metrics(), fmt::format("causal_watch_scanned_records_total{{group=\"{}\"}}", G)) == 3;
      },
      15s));
  CHECK(w.lines().size() == 1);  // still drains

  // Freeze a claim: S's send #1 on A, the group's commit past it, a relay's claim on it on C.
  const int64_t send_q = p.send(A, plain("q", S, 1));  // A/0@1
  causal::test::commit_offsets(G, A, {{0, send_q + 1}});
  Stamp rc;
  rc.origin(R, 1).seq(A, 0, S, 1);
  const int64_t relayed = p.send(C, stamped("relayed", 0, rc));
  Json stuck = w.wait_line(1, [](const Json& j) { return j["verdict"] == "stuck"; });
  CHECK(stuck["path"] == "replayed");
  CHECK(stuck["stuck_roots"] == 1);
  REQUIRE(stuck["roots"].size() == 1);
  const Json& root = stuck["roots"][0];
  CHECK(root["verdict"] == "frozen_seq_claim");
  CHECK(root["claim"]["sender"] == S);
  CHECK(root["held"]["topic"] == C);
  CHECK(root["held"]["offset"] == relayed);
  CHECK(root["located_offset"] == send_q);
  REQUIRE(stuck["remedies"].size() == 1);
  const std::string remedy = stuck["remedies"][0];
  CHECK(remedy == "causal baseline --group " + G + " --apply " + A + "/0@" + std::to_string(send_q));
  m = w.metrics();
  CHECK(sample(m, fmt::format("causal_group_verdict{{group=\"{}\",verdict=\"stuck\"}}", G)) == 1);
  CHECK(sample(m, fmt::format("causal_group_stuck_roots{{group=\"{}\"}}", G)) == 1);
  CHECK(sample(m, fmt::format("causal_held_head_age_seconds{{group=\"{}\",topic=\"{}\",partition=\"0\"}}", G, C)) >=
        0);

  // The remedy, as printed.
  std::vector<std::string> args = split(remedy);
  args.erase(args.begin());
  auto [rc_fix, out_fix] = causal_run(args);
  REQUIRE(rc_fix == 0);
  Json drains = w.wait_line(2, [](const Json& j) { return j["verdict"] == "drains"; });
  CHECK(drains["roots"].empty());
  CHECK(drains["remedies"].empty());
  CHECK(w.stop() == 0);
  CHECK(w.err().find("causal watch:") == std::string::npos);  // no error line
}

TEST_CASE("the scan bound makes a round undecided and the next rounds go on", "[watch][broker]") {
  const std::string T = causal::test::create_topic("watch-bound", 1);
  const std::string G = causal::test::unique_name("watch-bound-group");
  causal::test::Producer p;
  std::vector<Record> records;
  for (int i = 0; i < 50; ++i) records.push_back(plain(fmt::format("r{}", i), "sender-B", static_cast<causal::SeqNo>(i + 1)));
  p.send(T, records);
  causal::test::commit_offsets(G, T, {{0, 0}});

  Watch w({"--group", G, "--topic", T, "--interval", "1", "--max-scan-records", "20"});
  Json first = w.wait_line(0, [](const Json&) { return true; });
  CHECK(first["verdict"] == "undecided");
  CHECK(first["reason"] == "scan bound");
  CHECK(first["scanned_records"] == 20);
  CHECK(first["summary"].get<std::string>().find("scan bound") != std::string::npos);
  // 20 + 20 + 10: the third round reaches the LSO.
  Json drains = w.wait_line(1, [](const Json& j) { return j["verdict"] == "drains"; });
  CHECK(drains["path"] == "continued");
  CHECK(drains["scanned_records"] == 10);
  CHECK(w.stop() == 0);
}

TEST_CASE("an unknown group is an error line each round and the others are watched on", "[watch][broker]") {
  const std::string T = causal::test::create_topic("watch-unknown", 1);
  const std::string G = causal::test::unique_name("watch-known");
  const std::string U = causal::test::unique_name("watch-unknown-group");
  causal::test::Producer p;
  p.send(T, plain("x", "sender-U", 1));
  causal::test::commit_offsets(G, T, {{0, 0}});
  Watch w({"--group", U, "--group", G, "--interval", "1", "--listen", "127.0.0.1:0"});
  Json first = w.wait_line(0, [](const Json&) { return true; });
  CHECK(first["group"] == G);
  CHECK(first["verdict"] == "drains");
  REQUIRE(causal::test::eventually(
      [&] { return sample(w.metrics(), fmt::format("causal_watch_errors_total{{group=\"{}\"}}", U)) >= 2; }, 15s));
  const std::string err = w.err();
  CHECK(err.find("causal watch: group '" + U + "': unknown group") != std::string::npos);
  for (const auto& l : w.lines()) CHECK(l["group"] == G);
  CHECK(w.stop() == 0);
}

TEST_CASE("usage errors exit 2 at start-up", "[watch][broker]") {
  CHECK(causal_run({"watch"}).first == 2);
  CHECK(causal_run({"watch", "--group", "g", "--group", "g"}).first == 2);
  CHECK(causal_run({"watch", "--group", "g", "--interval", "0"}).first == 2);
  CHECK(causal_run({"watch", "--group", "g", "--max-scan-records", "0"}).first == 2);
  // The address's error names the option watch was given, in one line.
  const auto [rc, out] = causal_run({"watch", "--group", "g", "--listen", "nonsense"});
  CHECK(rc == 2);
  CHECK(out.starts_with("causal: --listen 'nonsense': no port"));
  CHECK(out.find('\n') == out.size() - 1);
  // What a round would refuse is refused before the first, as explain refuses it: no
  // brokers, a property causal sets itself, a --topic that is no channel.
  const auto [rc_nb, out_nb] = causal_run({"watch", "--group", "g"}, /*brokers=*/false);
  CHECK(rc_nb == 2);
  CHECK(out_nb.starts_with("causal: no Kafka brokers given"));
  const auto [rc_x, out_x] = causal_run({"watch", "--group", "g", "-X", "group.id=x"});
  CHECK(rc_x == 2);
  CHECK(out_x.find("group.id") != std::string::npos);
  CHECK(out_x.find("causal watch: group") == std::string::npos);
  const auto [rc_t, out_t] = causal_run({"watch", "--group", "g", "--topic", "bad/x"});
  CHECK(rc_t == 2);
  CHECK(out_t.starts_with("causal: 'bad/x': partition 'x' is not a non-negative integer"));
  CHECK(out_t.find('\n') == out_t.size() - 1);
}

TEST_CASE("brokers down: an error line per round, the watch goes on, and SIGTERM exits 0", "[watch][broker]") {
  Watch w({"-b", "127.0.0.1:1", "--group", "g", "--interval", "1"});
  REQUIRE(causal::test::eventually(
      [&] {
        const std::string e = w.err();
        std::size_t n = 0;
        for (std::size_t at = 0; (at = e.find("causal watch: group 'g': cannot reach", at)) != std::string::npos; ++at) ++n;
        return n >= 2;
      },
      20s));
  CHECK(w.lines().empty());
  CHECK(w.stop() == 0);
}

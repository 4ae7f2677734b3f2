// causal watch: watch consumer groups from the outside, round after round
// (man/causal-watch.1). kafka::GroupWatch (causal/kafka/watch.hpp) does each round; this
// file turns the options into its fields, prints a JSON line on stdout when a group's
// verdict changes (and its first one), one line on stderr per group that failed in a round,
// and serves the last round on /metrics with --listen.
//
// Exit: 0 stopped by SIGINT or SIGTERM; 2 usage error (at start-up, before any round);
// 1 the --listen address does not bind, or standard output failed; 130 a second signal.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/core.h>

#include "causal/eprint.hpp"
#include "causal/excerpt.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/offsets.hpp"
#include "causal/kafka/watch.hpp"
#include "metrics_server.hpp"
#include "option_words.hpp"
#include "output.hpp"
#include "stop_signal.hpp"
#include "subcommands.hpp"
#include "watch_render.hpp"

namespace causal::cli {

namespace {

struct WatchOptions {
  kafka::ConnectionOptions conn;
  std::vector<std::string> groups;
  std::vector<std::string> topics;
  std::string listen;
  double interval_s = 15;
  std::uint64_t max_scan_records = 100'000;
  std::int64_t max_transaction_ms = 15 * 60 * 1000;
  std::int64_t lookup_max_offsets = 1'000'000;
  int timeout_ms = 10000;
  int replay_timeout_ms = 120000;
};

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Outcome run_watch(const WatchOptions& o) {
  std::set<std::string> seen;
  for (const auto& g : o.groups) {
    if (!seen.insert(g).second) {
      return std::unexpected(usage_error(fmt::format("--group {} is given twice", quoted_excerpt(g))));
    }
  }
  // Bad options are refused before any round (exit 2), as every subcommand does: the
  // connection's configuration and the scope. Brokers that do not answer are not: the watch
  // goes on, an error line per group per round, until they do.
  if (auto c = kafka::check_conf(o.conn); !c) return std::unexpected(c.error());
  for (const auto& t : o.topics) {
    if (auto s = kafka::parse_channel_spec(t, /*allow_offset=*/false); !s) return std::unexpected(s.error());
  }
  // The remedies reach the cluster this run reached (explain's words).
  std::vector<std::string> left_out;
  const ExplainWords words{connection_words(o.conn, left_out), {}};
  for (const auto& what : left_out) eprint("causal watch: remedies leave out {}: add it when you run them\n", what);

  std::mutex mutex;
  WatchMetrics metrics;
  for (const auto& g : o.groups) metrics.groups[g];
  std::string rendered = metrics.text();
  MetricsServer server;
  if (!o.listen.empty()) {
    auto port = server.start(
        o.listen,
        [&] {
          std::lock_guard lock(mutex);
          return rendered;
        },
        "listen");
    if (!port) return std::unexpected(port.error());
    eprint("causal: serving metrics on http://{}/metrics\n", server.authority());
  }

  install_stop_signals();
  exit_on_second_signal("causal watch: interrupted again: exiting\n");
  kafka::WatchOptions wo;
  wo.connection = o.conn;
  wo.groups = o.groups;
  wo.topics = o.topics;
  wo.max_scan_records = o.max_scan_records;
  wo.max_transaction_ms = o.max_transaction_ms;
  wo.lookup_max_offsets = o.lookup_max_offsets;
  wo.timeout_ms = o.timeout_ms;
  wo.replay_timeout_ms = o.replay_timeout_ms;
  wo.stop = &g_stop;
  kafka::GroupWatch watch(std::move(wo));
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(o.interval_s));
  while (!g_stop) {
    const auto started = std::chrono::steady_clock::now();
    kafka::WatchRound round = watch.round();
    if (g_stop) break;  // a round cut short says nothing
    for (const auto& r : round.groups) {
      if (r.error) {
        eprint("causal watch: group {}: {}\n", quoted_excerpt(r.group), with_option_words(r.error->message));
      } else if (r.changed) {
        fmt::print("{}\n", watch_line(r, words, wall_ms(), o.max_scan_records).dump());
      }
    }
    if (!output::flush()) return {};  // finish() says what the failed write means
    {
      std::lock_guard lock(mutex);
      metrics.add(round);
      rendered = metrics.text();
    }
    while (!g_stop && std::chrono::steady_clock::now() - started < interval) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return {};
}

}  // namespace

void setup_watch(CLI::App& sub, Outcome& result) {
  auto opts = std::make_shared<WatchOptions>();
  add_kafka_options(sub, opts->conn);
  sub.add_option("-g,--group", opts->groups, "Consumer group to watch (never joined); repeatable")
      ->required()
      ->allow_extra_args(false)
      ->check(not_empty("group name"));
  sub.add_option("-t,--topic", opts->topics,
                 "Topic (or TOPIC/PARTITION) of every group's scope; repeatable (default: each group's committed "
                 "topics)")
      ->allow_extra_args(false);
  sub.add_option("--listen,--metrics-listen", opts->listen,
                 "Serve Prometheus metrics on http://ADDR:PORT/metrics (PORT 0 picks one)");
  sub.add_option("--interval", opts->interval_s, "Seconds from the start of one round to the next (default 15)")
      ->check(CLI::Range(0.1, 86400.0));
  sub.add_option("--max-scan-records", opts->max_scan_records,
                 "Offsets one group's replay reads per round at most; then undecided (scan bound) and the next round "
                 "goes on (default 100000)")
      ->check(whole_number(1));
  add_lookup_options(sub, opts->max_transaction_ms, opts->lookup_max_offsets, opts->timeout_ms);
  sub.add_option("--replay-timeout-ms", opts->replay_timeout_ms,
                 "Give up on a group's round when its replay has not reached the LSO after this long (default 120000)")
      ->check(whole_number(1));
  sub.footer(R"(Examples:
  causal watch --group billing --group shipping
  causal watch --group billing | jq -r 'select(.verdict == "stuck") | .remedies[]'
  causal watch --group billing --topic orders --topic payments --interval 30 --listen 127.0.0.1:9468
Prints one JSON line per change of a group's verdict (drains, stuck, undecided), and the first.
Exit status: 0 stopped by SIGINT or SIGTERM, 1 the --listen address does not bind or standard output
fails, 2 usage error (at start-up), 130 a second SIGINT or SIGTERM while the first is served.
Errors of one group in one round are one line on stderr; the watch goes on.)");
  sub.callback([opts, &result] { result = run_watch(*opts); });
}

}  // namespace causal::cli

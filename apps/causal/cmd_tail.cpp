// causal tail: consume topics through the delivery gate and print records in delivery order.
// Option parsing lives here; the consumer loop is in lib/kafka (ConsumerHost) and the output
// in record_writer.cpp. man/causal-tail.1 documents options, output fields and exit codes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>

#include <fmt/core.h>
#include <unistd.h>

#include "causal/eprint.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/health.hpp"
#include "causal/kafka/metrics_text.hpp"
#include "metrics_server.hpp"
#include "option_words.hpp"
#include "subcommands.hpp"
#include "record_writer.hpp"
#include "stop_signal.hpp"

namespace causal::cli {

namespace {

// The record writer, with the host's notes in this tool's words: the library names fields
// (`max_held_bytes`), the user reads options (--max-held-bytes).
class TailWriter final : public RecordWriter {
 public:
  using RecordWriter::RecordWriter;
  void note(std::string_view text) override { RecordWriter::note(with_option_words(text)); }
};

}  // namespace

struct TailOptions {
  kafka::ConnectionOptions connection;
  std::vector<std::string> channels;
  std::vector<std::string> from;
  std::string group;
  bool commit = false;  // --commit: join the group and commit as records are delivered
  std::string group_protocol = "classic";  // --group-protocol, with --commit
  bool exit_at_end = false;
  std::uint64_t count = 0;  // 0: no limit
  bool show_held = false;
  Format format = Format::text;
  std::string format_text = "text";
  bool no_lookup = false;
  std::int64_t max_txn_ms = 15 * 60 * 1000;
  int timeout_ms = 10000;  // connect_timeout: metadata and ListOffsets at start
  bool quiet = false;
  std::uint64_t max_held_bytes = kafka::ConsumerOptions{}.max_held_bytes;  // 0: no budget
  std::string metrics_listen;  // --metrics-listen ADDR:PORT: serve the host's health on /metrics
};

constexpr const char* kCommitInterrupted =
    "causal tail: interrupted again: exiting without the last commit and without leaving the group; what was "
    "delivered since the last commit is read again by the group's next member\n";

constexpr const char* kStartInterrupted =
    "causal tail: interrupted while starting: exiting before anything was read (nothing was committed)\n";

constexpr const char* kPeriodicCommitInterrupted =
    "causal tail: interrupted again: exiting without waiting for the commit in progress and without leaving the "
    "group; what was delivered since the last commit that succeeded is read again by the group's next member\n";

Outcome run_tail(const TailOptions& o);

// The exit summary on stderr: counters, then per channel what is still held and why.
// Shared with `causal demo`.
void print_tail_summary(const kafka::ConsumerHost& host, const RecordWriter& w, std::string_view prog, bool counters);

void setup_tail(CLI::App& sub, Outcome& result) {
  auto o = std::make_shared<TailOptions>();
  sub.add_option("channels", o->channels, "TOPIC (every partition it has at start) or TOPIC/PARTITION, one or more")->required();
  add_kafka_options(sub, o->connection);
  sub.add_option("--from", o->from,
                 "Start position: beginning|end|lso|committed|OFFSET|-N, for every channel, or per topic or "
                 "channel as TOPIC[/P]=POS (repeatable, one value per use; the most specific wins). Default: "
                 "beginning, or committed with --group")
      // One value per --from: without this CLI11 lets a vector option swallow the channel
      // names that follow it (`--from lso orders/0 payments/0`).
      ->allow_extra_args(false);
  auto* group = sub.add_option("-g,--group", o->group,
                               "Start from this group's committed offsets, read without joining the group; never "
                               "commits (unless --commit)")
                   ->check(not_empty("group name"));
  auto* commit = sub.add_flag("--commit", o->commit,
               "With --group: join the group (partitions assigned by it) and commit each partition's delivered "
               "position with the gate's resolution state, as a causal service does; at-least-once")
      ->needs(group);
  auto* protocol = sub.add_option("--group-protocol", o->group_protocol,
                                  "With --commit: the group protocol the member speaks, classic (default) or "
                                  "consumer (KIP-848, Kafka 4.0+)");
  one_of(protocol, {"classic", "consumer"})->needs(commit);
  sub.add_flag("-e,--exit-at-end", o->exit_at_end,
               "Exit once every partition is caught up to its last stable offset and nothing deliverable remains");
  sub.add_option("-c,--count", o->count, "Exit after printing N records")
      ->check(whole_number(1));
  sub.add_flag("--show-held", o->show_held, "Also print hold, release and lookup events as their own lines");
  // A plain string option: with the shared add_format_option the parsed value did not reach
  // o->format before this subcommand's callback ran (CLI11 2.1.2); converted in the callback.
  one_of(sub.add_option("--format", o->format_text, "Output format: text|jsonl|json (default text)"),
         {"text", "jsonl", "json"});
  sub.add_flag("--no-lookup", o->no_lookup,
               "Do not locate sequence-claimed sends below the baseline (reproduces the late-joiner wedge)");
  sub.add_option("--max-transaction-ms", o->max_txn_ms,
                 "Longest producer transaction to allow for when scanning for a claimed send "
                 "(the brokers' transaction.max.timeout.ms; default 900000)")
      ->check(whole_number(1));
  sub.add_option("--timeout-ms", o->timeout_ms,
                 "Kafka: give up after this many ms when the cluster does not answer the metadata and offset "
                 "requests at start; with --commit, also how long the last commit waits for a rebalance in flight "
                 "(default 10000)")
      ->check(whole_number(1));
  sub.add_option("--max-held-bytes", o->max_held_bytes,
                 "Memory budget for held records (payload + key + 1 KiB each); partitions whose blocked heads "
                 "hold more are paused until released. Suffixes k, m, g (KiB, MiB, GiB); 0: no budget "
                 "(default 64m)")
      ->transform(byte_size());
  sub.add_flag("-q,--quiet", o->quiet, "No counters line on stderr at exit (what is held is always reported)");
  sub.add_option("--metrics-listen", o->metrics_listen,
                 "Serve the consumer's health for Prometheus on http://ADDR:PORT/metrics while tail runs: "
                 "127.0.0.1:9464, [::1]:9464, :9464 (every address), PORT 0 a free one; the address is "
                 "said on stderr")
      ->type_name("ADDR:PORT")
      ->check(not_empty("address"));
  sub.footer(R"(Examples:
  causal tail -b localhost:9092 orders payments shipments
  causal tail -e --format jsonl orders | jq -c '{offset, value, released_by}'
  causal tail --from lso --show-held orders/0 payments/0
  causal tail --group billing -e orders          # what the group would see next, without joining it
  causal tail --group audit --commit -e orders payments   # join group audit, commit as records are delivered
  causal tail --group audit-848 --commit --group-protocol consumer -e orders   # a KIP-848 member
  causal tail --from orders=-10 --from payments=end orders payments
  causal tail --metrics-listen 127.0.0.1:9465 orders payments   # health on http://127.0.0.1:9465/metrics

Exit status: 0 ok; 1 Kafka unreachable, unknown topic, a --metrics-listen address that
does not bind (its port in use), other runtime failure; 2 usage;
3 undecodable causal.clock header (printed: topic/partition@offset); 4 records still held at exit.)");
  sub.callback([o, &result] {
    o->format = o->format_text == "jsonl" ? Format::jsonl : o->format_text == "json" ? Format::json : Format::text;
    result = run_tail(*o);
  });
}

void print_tail_summary(const kafka::ConsumerHost& host, const RecordWriter& w, std::string_view prog, bool counters) {
  const Gate& g = host.gate();
  const GateStats s = w.run_stats();
  if (counters) {
    eprint(
               "{}: {} delivered ({} printed) of {} received; {} held on arrival; bridges: {} at receive, {} "
               "behind a held head, {} by position advance; {} lookups; {} still held\n",
               prog, s.delivered, w.printed(), s.received, s.holds, s.bridges_at_receive, s.head_fold_ins,
               s.position_advances, host.lookups_done(), g.held_count());
  }
  // The hold budget's account: when it paused anything, or when there is none (--max-held-bytes 0)
  // and records were held; "held" as the budget charges them (ConsumerHost::hold_budget).
  const kafka::HoldBudgetStats budget = host.hold_budget();
  if (counters && budget.pauses > 0) {
    eprint(
               "{}: hold budget {} bytes: peak {} bytes held; {} pauses, {} resumes; {} times over the budget with "
               "nothing deliverable\n",
               prog, budget.budget, budget.peak_held_bytes, budget.pauses, budget.resumes, budget.overruns);
  } else if (counters && budget.budget == 0 && budget.peak_held_bytes > 0) {
    eprint("{}: no hold budget: peak {} bytes held\n", prog, budget.peak_held_bytes);
  }
  // What was not read: a partition the budget paused with records below its LSO (caught_up()
  // counts it once nothing fetched can release a held head). Always said, as what is held is.
  if (!budget.paused_unread.empty()) {
    std::string list;
    for (const auto& u : budget.paused_unread) {
      list += fmt::format("{}{} (at {}, last stable offset {})", list.empty() ? "" : ", ",
                          host.names().channel_text(u.channel), u.position, u.lso);
    }
    eprint(
               "{}: not read: {}, paused by the hold budget while nothing fetched could release the held records; "
               "their records may be deliverable: raise --max-held-bytes to read them\n",
               prog, list);
  }
  if (g.held_count() == 0) return;
  eprint("{}: still held when it ended: {} record{}\n", prog, g.held_count(),
             g.held_count() == 1 ? "" : "s");
  auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  for (ChannelId c : g.scope()) {
    if (g.held_count(c) == 0) continue;
    auto head = g.head(c);
    eprint("  {}: frontier {}, {} held, head @{} held {:.1f} s", host.names().channel_text(c),
               g.frontier(c), g.held_count(c), head ? head->offset : -1,
               head ? static_cast<double>(now_us - head->received_at) / 1e6 : 0.0);
    if (auto f = g.failed_at(c)) eprint(" (failed closed at @{})", *f);
    eprint("; waiting for:\n");
    for (const auto& b : g.unsatisfied(c)) eprint("      {}\n", w.describe(b));
  }
}

Outcome run_tail(const TailOptions& o) {
  kafka::ConsumerOptions co;
  co.connection = o.connection;
  co.connect_timeout = std::chrono::milliseconds(o.timeout_ms);
  for (const auto& text : o.channels) {
    auto sel = kafka::parse_selector(text);
    if (!sel) return std::unexpected(sel.error());
    co.channels.push_back(*sel);
  }
  if (!o.group.empty()) {
    co.group = o.group;
    // A member starts from its commits by itself; --from is for partitions without one.
    if (!o.commit) co.default_start = {kafka::StartPosition::Kind::committed, 0};
  }
  if (o.group_protocol == "consumer") co.group_protocol = kafka::ConsumerOptions::GroupProtocol::consumer;
  if (o.commit && o.count) {
    // The gate may deliver past the N-th record within one poll; those would be committed
    // without having been printed.
    return std::unexpected(usage_error("--count cannot be used with --commit: records delivered after the N-th "
                                       "would be committed without being printed"));
  }
  for (const auto& text : o.from) {
    auto rule = kafka::parse_start_rule(text);
    if (!rule) return std::unexpected(rule.error());
    co.start.push_back(*rule);
  }
  // What can be checked before any metadata: a rule's topic must be read, and its partition
  // too where only named partitions of the topic are read (the host checks the rest).
  auto named = kafka::check_start_rules(co.start, [&](const std::string& topic, std::optional<std::int32_t> p) {
    return std::any_of(co.channels.begin(), co.channels.end(), [&](const kafka::Selector& sel) {
      return sel.topic == topic && (!p || !sel.partition || *sel.partition == *p);
    });
  });
  if (!named) return std::unexpected(named.error());
  co.lookups = !o.no_lookup;
  co.max_held_bytes = o.max_held_bytes;
  co.max_transaction_duration = std::chrono::milliseconds(o.max_txn_ms);
  // Memory and throughput (-X overrides any of these). Every partition's fetch queue forwards
  // into the one consumer queue, and librdkafka 2.0 compares that shared queue's length with
  // queued.min.messages: at its default (100000) all partitions stopped fetching whenever
  // 100000 records of any partitions were queued. So the record count does not bound the
  // prefetch here; queued.max.messages.kbytes (payload bytes, also shared) does, overshot by
  // at most one fetch response (fetch.max.bytes). Both are small: the host's
  // fetch.queue.backoff.ms (10 ms) refetches a drained queue at once instead of after
  // librdkafka's default second, so a small queue costs no throughput.
  co.extra_defaults = {{"fetch.max.bytes", "8388608"},
                       {"max.partition.fetch.bytes", "1048576"},
                       {"queued.min.messages", "1000000"},
                       {"queued.max.messages.kbytes", "8192"}};

  RecordWriter::Settings ws;
  ws.format = o.format;
  ws.colour = o.format == Format::text && use_colour(STDOUT_FILENO);
  ws.show_held = o.show_held;
  if (o.count) ws.limit = o.count;
  Names names;
  TailWriter writer(ws, names);
  install_stop_signals();

  // tail writes through a buffer: poll() must not commit records that are delivered but not
  // yet written. The loop below commits after each successful flush instead.
  co.commit_interval = std::chrono::milliseconds(0);
  co.commit_on_close = false;
  auto next_commit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  // /metrics is bound before anything else, so that an address taken or not of this machine
  // fails at start-up, before the brokers are asked anything. Until the host is open it
  // serves an empty exposition; it is stopped before the host is destroyed.
  MetricsServer metrics;
  std::atomic<const kafka::ConsumerHost*> health_of = nullptr;
  if (!o.metrics_listen.empty()) {
    auto port = metrics.start(o.metrics_listen, [&health_of] {
      kafka::MetricsText text;
      if (const kafka::ConsumerHost* h = health_of.load()) kafka::write_metrics(text, h->health());
      return text.text();
    });
    if (!port) return std::unexpected(port.error());
    eprint("causal: serving metrics on http://{}/metrics\n", metrics.authority());
  }
  // Opening waits on the brokers (metadata, start positions, a member's first join) without
  // looking at g_stop: a signal then ends tail at once, before anything is read or written.
  exit_on_any_signal(kStartInterrupted);
  auto opened = o.commit ? kafka::ConsumerHost::join(co, names, &writer) : kafka::ConsumerHost::open(co, names, &writer);
  exit_on_any_signal(nullptr);
  if (!opened) return std::unexpected(opened.error());
  auto& host = **opened;
  health_of = &host;
  struct StopServing {  // the server's thread reads the host: it stops first, on every return
    MetricsServer& server;
    ~StopServing() { server.stop(); }
  } stop_serving{metrics};
  writer.set_gate(&host.gate());
  writer.begin();

  Outcome outcome;
  while (!g_stop) {
    if (auto r = host.poll(); !r) {
      outcome = std::unexpected(r.error());
      break;
    }
    writer.flush();
    if (writer.limit_reached() || writer.broken()) break;
    // A periodic commit waits while a rebalance is in flight (it would be fenced): the
    // rebalance's callback commits what was delivered, and the next round goes out after it.
    if (o.commit && !host.rebalancing() && std::chrono::steady_clock::now() >= next_commit) {
      next_commit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      // A failed commit loses nothing (the next one carries the same or a later position):
      // said, and tried again; only the last commit's failure is the exit status. It can
      // wait long on an absent coordinator; every record is written (flushed above), so a
      // second signal may end the run during it.
      if (!g_stop) exit_on_second_signal(kPeriodicCommitInterrupted);
      if (auto c = host.commit(); !c) writer.note(c.error().message);
      exit_on_second_signal(nullptr);
    }
    // A failed channel ends the run once the rest is caught up: exit 3 after printing
    // what was deliverable.
    if ((o.exit_at_end || !host.failures().empty()) && host.caught_up()) break;
  }
  writer.finish();
  std::fflush(stdout);
  // The summary before the last commit: nothing is delivered after the loop, so its counts are
  // final, and a second signal during the commit's wait still leaves it said.
  print_tail_summary(host, writer, "causal tail", !o.quiet);
  // Every record is written: a second signal may now end the run at once (exit 130), without
  // the last commit, whose records the group's next member reads again.
  exit_on_second_signal(o.commit ? kCommitInterrupted : "causal tail: interrupted again: exiting\n");
  // The member's last commit, said when it fails (leaving the group then commits nothing new).
  if (o.commit && outcome && !writer.broken()) {
    if (auto c = host.commit(); !c) outcome = std::unexpected(c.error());
  }
  if (!outcome) return outcome;
  if (!host.failures().empty()) {
    std::string msg;
    // One line, as every error is: the failed partitions separated by "; ".
    for (const auto& f : host.failures()) msg += (msg.empty() ? "" : "; ") + f.message;
    return std::unexpected(Error{Errc::bad_header, msg});
  }
  if (host.gate().held_count() > 0) return std::unexpected(Error{Errc::held, ""});
  return {};
}

}  // namespace causal::cli

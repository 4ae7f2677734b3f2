// causal explain: diagnose a stuck consumer (man/causal-explain.1, docs/explain-format.md).
//
// From a group (--group G --topic T...): kafka::explain_group (causal/kafka/explain.hpp)
// reads G's committed offsets without joining it, replays the scope to the last stable
// offset through a gate without lookups, makes the lookups beside it and diagnoses; this
// file turns the options into its fields and renders what it returns: the source lines,
// the diagnosis with remedies as commands (explain_render.hpp), Kafka's own commands for a
// hung transaction, and --format json.
// From a file (--snapshot FILE): the gate snapshot JSON a library gate wrote.
//
// Exit: 0 the gate would drain; 4 records are held, or undecided (claims on topics the
// group commits and --topic left out were ignored); 1 Kafka failure, unknown group or
// topic; 2 usage error, or a snapshot file that cannot be read or parsed.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "causal/eprint.hpp"
#include "causal/diagnosis.hpp"
#include "causal/excerpt.hpp"
#include "causal/kafka/explain.hpp"
#include "causal/snapshot.hpp"
#include "explain_render.hpp"
#include "stop_signal.hpp"
#include "option_words.hpp"
#include "shell_word.hpp"
#include "subcommands.hpp"

namespace causal::cli {

namespace {

struct ExplainOptions {
  kafka::ConnectionOptions conn;
  std::string group;
  std::vector<std::string> topics;
  std::string snapshot_file;
  Format format = Format::text;
  bool no_lookup = false;
  std::int64_t max_transaction_ms = 15 * 60 * 1000;
  std::int64_t lookup_max_offsets = 1'000'000;
  int timeout_ms = 10000;
  int replay_timeout_ms = 120000;
};

// The connection options for the remedies (common.hpp, connection_words): a remedy reaches
// the cluster this run reached. A secret -X is not printed; stderr says to give it again.
std::optional<std::string> remedy_connection(const kafka::ConnectionOptions& conn) {
  std::vector<std::string> left_out;
  std::string words = connection_words(conn, left_out);
  for (const auto& what : left_out) {
    eprint("causal explain: remedies leave out {}: add it when you run them\n", what);
  }
  if (words.empty()) return std::nullopt;
  return words;
}

std::string chan(const kafka::ChannelRef& c) { return fmt::format("{}/{}", c.topic, c.partition); }

Outcome print(const Diagnosis& d, const ExplainWords& words, nlohmann::json extra, const std::string& preface,
              Format format) {
  if (format == Format::json) {
    nlohmann::json j = explain_json(d, words);
    for (auto& [k, v] : extra.items()) j[k] = v;
    fmt::print("{}\n", j.dump(2));
  } else {
    std::string text = explain_text(d, words);
    // The short verdict stays first; what explain read follows it.
    auto nl = text.find('\n');
    fmt::print("{}\n{}{}", text.substr(0, nl), preface, text.substr(nl + 1));
  }
  // Undecided (claims on left-out topics ignored) is not "drains": exit 4 as well.
  if (d.stuck() || d.undecided()) return std::unexpected(Error{Errc::held, ""});
  return {};
}

Outcome explain_snapshot(const ExplainOptions& o) {
  std::string text;
  if (o.snapshot_file == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(o.snapshot_file, ec)) {
      return std::unexpected(usage_error(fmt::format("cannot read snapshot file '{}': {}", o.snapshot_file,
                                                     std::strerror(EISDIR))));
    }
    std::ifstream in(o.snapshot_file, std::ios::binary);
    if (!in) {
      return std::unexpected(usage_error(fmt::format("cannot read snapshot file '{}': {}", o.snapshot_file,
                                                     std::strerror(errno))));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
      return std::unexpected(usage_error(fmt::format("cannot read snapshot file '{}': {}", o.snapshot_file,
                                                     std::strerror(errno))));
    }
    text = ss.str();
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return std::unexpected(usage_error(fmt::format(
        "snapshot file '{}' is not valid JSON (byte {}): write it with the library's snapshot to_json", o.snapshot_file,
        e.byte)));
  }
  auto snap = snapshot_from_json(j);
  if (!snap) {
    return std::unexpected(
        usage_error(fmt::format("snapshot file '{}' is not a gate snapshot: {}", o.snapshot_file, snap.error().message)));
  }
  DiagnosisFacts facts;
  if (!o.group.empty()) facts.group = o.group;
  const ExplainWords words{remedy_connection(o.conn).value_or(""), {}};
  Diagnosis d = diagnose(*snap, facts);
  // Nothing is modelled (the snapshot is the gate's own state) and no lookup is made.
  nlohmann::json extra{{"source", {{"snapshot", o.snapshot_file}}},
                       {"modelled_consumer", nullptr},
                       {"lookups", nlohmann::json::array()}};
  return print(d, words, extra, fmt::format("source: snapshot file {} (no log facts, no lookups)\n", o.snapshot_file),
               o.format);
}

// The tool's progress and notes on stderr: notes always, progress on a terminal only.
class Progress : public kafka::ExplainObserver {
 public:
  explicit Progress(bool tty) : tty_(tty) {}
  void note(std::string_view line) override { eprint("causal explain: {}\n", with_option_words(line)); }
  void replay_starting() override { stop_on_sigint(); }
  void replaying(std::uint64_t delivered, std::uint64_t holds) override {
    if (!tty_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    shown_ = true;
    eprint("\rreplaying to the LSO: {} delivered, {} holds", delivered, holds);
  }
  void replay_done() override {
    if (tty_ && shown_) eprint("\r\033[K");
    default_sigint();
  }
  void scanning(const kafka::ChannelRef& c, std::string_view sender, SeqNo seq, Offset at, Offset from,
                Offset to) override {
    if (tty_) eprint("\rlooking up {}/{} sender '{}' send #{}: at offset {} (scan [{}, {}))\033[K", c.topic,
                     c.partition, sender, seq, at, from, to);
  }
  void scan_done() override {
    if (tty_) eprint("\r\033[K");
  }

 private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// Kafka's own commands for a hung transaction pinning the LSO of each open transaction.
// A hung transaction (its producer gone) pins the LSO until the coordinator's timeout
// aborts it: Kafka's own tool (KIP-664) shows the producer and aborts the transaction that
// starts at the LSO, which is the first offset of the oldest transaction open there.
std::vector<std::string> hung_transaction_advice(const Diagnosis& d, const kafka::ConnectionOptions& conn) {
  std::vector<std::string> out;
  const std::string bootstrap = shell_word(kafka::brokers_in_effect(conn));
  // A topic may start with '-', which the tool's parser takes for an option: --topic=T then.
  auto topic_arg = [](const std::string& t) {
    return t.starts_with('-') ? "--topic=" + shell_word(t) : "--topic " + shell_word(t);
  };
  // Kafka's tool reads no -X: on a secured cluster it connects only with a properties file in
  // the Java client's names, which are not librdkafka's (sasl.jaas.config against
  // sasl.username). Its --command-config is an option of the tool, before the subcommand.
  const std::string protocol = kafka::security_protocol_in_effect(conn);
  const bool secured = protocol != "plaintext";
  const std::string tool =
      "kafka-transactions.sh --bootstrap-server " + bootstrap + (secured ? " --command-config FILE" : "");
  const std::string file_is =
      secured ? fmt::format(" FILE: on this cluster (security.protocol={}) a Java client properties file with "
                            "credentials allowed to abort (Java's names: sasl.jaas.config, ssl.truststore.*, not "
                            "librdkafka's).",
                            protocol)
              : std::string();
  for (const auto& t : d.open_transactions) {
    out.push_back(fmt::format(
        "{}: if the producer of the transaction that pins its LSO is gone (a hung transaction), Kafka's own tool "
        "shows it, then aborts that transaction: {} describe-producers {} --partition {}; {} abort {} --partition {} "
        "--start-offset {}. A live producer commits or aborts by itself within its transaction.timeout.ms; "
        "aborting its transaction fails it.{}",
        chan({t.topic, t.partition}), tool, topic_arg(t.topic), t.partition, tool, topic_arg(t.topic), t.partition,
        t.lso, file_is));
  }
  return out;
}

Outcome explain_group(const ExplainOptions& o) {
  kafka::ExplainOptions eo;
  eo.connection = o.conn;
  eo.group = o.group;
  eo.topics = o.topics;
  eo.lookups = !o.no_lookup;
  eo.max_transaction_ms = o.max_transaction_ms;
  eo.lookup_max_offsets = o.lookup_max_offsets;
  eo.timeout_ms = o.timeout_ms;
  eo.replay_timeout_ms = o.replay_timeout_ms;
  eo.stop = &g_stop;
  Progress progress(show_progress());
  auto explained = kafka::explain_group(eo, &progress);
  if (!explained) return std::unexpected(explained.error());
  const kafka::ExplainResult& r = *explained;
  const DiagnosisFacts& facts = r.facts;
  const Diagnosis& d = r.diagnosis;

  ExplainWords words{remedy_connection(o.conn).value_or(""), hung_transaction_advice(d, o.conn)};
  for (const auto& topic : r.unread_configs) {
    eprint("causal explain: the configuration of topic {} could not be read (DescribeConfigs): whether it is "
           "compacted is not known, and a claimed send that compaction removed would be diagnosed as not "
           "appended\n",
           quoted_excerpt(topic));
  }

  std::string preface = fmt::format(
      "source: group {} ({}, {} protocol, {} member(s)), replayed from its committed offsets to the LSO: {} record(s) "
      "delivered, nothing committed; {} lookup(s)\n"
      "modelled: a consumer WITHOUT lookups (causal tail --no-lookup, or a node that does not implement them); "
      "explain's own lookups say what a consumer with lookups (causal tail, ConsumerHost with lookups on) would do\n",
      quoted_excerpt(o.group), r.group_state, r.group_protocol, r.group_member_count, r.delivered,
      facts.located.size());
  for (const auto& m : facts.members) {
    std::string held;
    for (const auto& p : m.assignment) held += (held.empty() ? "" : ", ") + fmt::format("{}/{}", p.topic, p.partition);
    preface += fmt::format("member: client {} on host {} (member {}), assigned {}\n", m.client_id, m.host, m.member_id,
                           held.empty() ? "nothing" : held);
  }
  if (!facts.left_out_topics.empty()) {
    std::string list;
    for (const auto& t : facts.left_out_topics) list += (list.empty() ? "" : ", ") + t;
    preface += fmt::format(
        "left out: group {} also has committed offsets on {}, not named with --topic. This is the diagnosis of a "
        "consumer of only the named topics: the replay ignored claims on {} (the gate's restrict step), {} of them; a "
        "node that consumes {} may hold where this one does not\n",
        quoted_excerpt(o.group), list, list, r.ignored_claims_total, list);
  }
  for (const auto& c : r.committed) {
    if (c.pending) preface += fmt::format("pending: {} has an offset commit pending in an open transaction\n", chan(c.channel));
  }
  for (const auto& n : r.notes) preface += fmt::format("note: {}\n", n);
  nlohmann::json committed = nlohmann::json::array();
  for (const auto& c : r.committed) {
    committed.push_back({{"topic", c.channel.topic},
                         {"partition", c.channel.partition},
                         {"offset", c.offset ? nlohmann::json(*c.offset) : nlohmann::json(nullptr)},
                         {"pending", c.pending},
                         {"resolution_state", c.resolution_state}});
  }
  nlohmann::json lookups = nlohmann::json::array();
  for (const auto& l : facts.located) {
    lookups.push_back({{"topic", l.topic},
                       {"partition", l.partition},
                       {"sender", l.sender},
                       {"seq", l.seq},
                       {"scanned_from", l.scanned_from},
                       {"scanned_to", l.scanned_to},
                       {"complete", !l.search_further.has_value()},
                       {"located_offset", l.offset ? nlohmann::json(*l.offset) : nlohmann::json(nullptr)}});
  }
  nlohmann::json extra{{"source",
                        {{"group", o.group},
                         {"group_state", r.group_state},
                         {"group_protocol", r.group_protocol},
                         {"members", r.group_member_count},
                         {"group_members", members_json(facts.members)},
                         {"committed", committed},
                         {"delivered", r.delivered},
                         {"ignored_claims_total", r.ignored_claims_total}}},
                       {"modelled_consumer", "without_lookups"},
                       {"lookups", lookups}};
  return print(d, words, extra, preface, o.format);
}

Outcome run_explain(const ExplainOptions& o) {
  if (!o.snapshot_file.empty()) {
    if (!o.topics.empty()) return std::unexpected(usage_error("--snapshot and --topic exclude each other"));
    return explain_snapshot(o);
  }
  if (o.group.empty()) {
    return std::unexpected(usage_error("name what to explain: --group G --topic T... , or --snapshot FILE"));
  }
  if (o.topics.empty()) {
    return std::unexpected(usage_error(fmt::format("--group {} needs the topics its node consumes: --topic T...", quoted_excerpt(o.group))));
  }
  return explain_group(o);
}

}  // namespace

void setup_explain(CLI::App& sub, Outcome& result) {
  auto opts = std::make_shared<ExplainOptions>();
  add_kafka_options(sub, opts->conn);
  sub.add_option("-g,--group", opts->group, "Consumer group whose committed positions to reconstruct (never joined)")
      ->check(not_empty("group name"));
  sub.add_option("-t,--topic", opts->topics, "Topic (or TOPIC/PARTITION) the group's node consumes; repeatable")
      ->allow_extra_args(false);
  completes(sub.add_option("--snapshot", opts->snapshot_file, "Explain a gate snapshot JSON file instead ('-' for stdin)"),
            {ValueCompletion::Kind::file, {}});
  add_format_option(sub, opts->format, {Format::text, Format::json}, Format::text);
  sub.add_flag("--no-lookup", opts->no_lookup,
               "Do not scan claimed channels for the sends of sequence claims (frozen claims stay suspected)");
  add_lookup_options(sub, opts->max_transaction_ms, opts->lookup_max_offsets, opts->timeout_ms);
  sub.add_option("--replay-timeout-ms", opts->replay_timeout_ms,
                 "Give up when the replay has not reached the LSO after this long (default 120000)")
      ->check(whole_number(1));
  sub.footer(R"(Examples:
  causal explain --group billing --topic orders --topic payments
  causal explain --group billing --topic orders --topic payments --format json | jq -r '.remedies[]'
  causal explain --group billing --topic orders --topic payments --max-transaction-ms 60000 --lookup-max-offsets 5000000
  causal explain --snapshot gate.json
Models a consumer WITHOUT lookups; each root says what one with lookups would do.
Exit status: 0 nothing held (the gate would drain), 4 records held or undecided (claims on
topics the group commits but --topic left out were ignored), 1 Kafka failure or unknown
group/topic, 2 usage error or unreadable/malformed snapshot file.)");
  sub.callback([opts, &result] { result = run_explain(*opts); });
}

}  // namespace causal::cli

// causal produce: read records from stdin and produce them stamped as a real causal sender
// (lib/kafka ProducerHost). man/causal-produce.1 documents the input format.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <iostream>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "causal/eprint.hpp"
#include "causal/excerpt.hpp"
#include "causal/codec.hpp"
#include "causal/kafka/producer_host.hpp"
#include "causal/base64.hpp"
#include "causal/kafka/json_string.hpp"
#include "stop_signal.hpp"
#include "subcommands.hpp"
#include "text_escape.hpp"

namespace causal::cli {

struct ProduceOptions {
  kafka::ConnectionOptions connection;
  std::vector<std::string> sinks;  // TOPIC or TOPIC/PARTITION; the first is the default
  std::string input = "jsonl";
  std::string transactional_id;
  std::uint64_t commit_every = 0;
  bool abort = false;
  bool sync = false;
  bool no_stamp = false;
  std::string sender;
  std::string sender_prefix = "causal-produce";
  std::string report;  // "" or "jsonl"
  int timeout_ms = 30000;  // ProducerOptions::timeout
};

Outcome run_produce(const ProduceOptions& o);

void setup_produce(CLI::App& sub, Outcome& result) {
  auto o = std::make_shared<ProduceOptions>();
  sub.add_option("sinks", o->sinks,
                 "Sinks: TOPIC (every partition) or TOPIC/PARTITION (that one); each sink partition is seeded "
                 "with its end offset; the first sink is the default for records that name no topic")
      ->required();
  add_kafka_options(sub, o->connection);
  one_of(sub.add_option("--input", o->input, "Input format: jsonl (one object per line) or text (one value per line)"),
         {"jsonl", "text"});
  sub.add_option("--transactional-id", o->transactional_id, "Produce in transactions with this transactional.id")
      // --transactional-id "$UNSET" must not quietly produce outside transactions.
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("an empty transactional id") : std::string(); },
                             ""));
  sub.add_option("--commit-every", o->commit_every, "End the transaction after every N records (default: one for all)")
      ->check(whole_number(1));
  sub.add_flag("--abort", o->abort, "End every transaction with an abort instead of a commit");
  sub.add_flag("--sync", o->sync,
               "Wait for each record's delivery report before the next, so that every record claims all earlier "
               "ones by offset (idempotent mode orders sends only through acknowledgements)");
  auto* no_stamp = sub.add_flag("--no-stamp", o->no_stamp, "Produce plain records without a causal.clock header");
  auto* sender = sub.add_option("--sender", o->sender, "Exact sender identity (default: PREFIX-<random hex>, fresh per run)")
                     ->check(not_empty("sender identity"))
                     ->excludes(no_stamp);
  sub.add_option("--sender-prefix", o->sender_prefix, "Prefix of the generated sender identity")
      ->check(not_empty("sender prefix"))
      ->excludes(sender)
      ->excludes(no_stamp);
  one_of(sub.add_option("--report", o->report, "Print one line per delivered record on stdout: jsonl"), {"jsonl"});
  sub.add_option("--timeout-ms", o->timeout_ms,
                 "Kafka: give up after this many ms on the metadata and end offsets at start, on each "
                 "record's delivery (message.timeout.ms), and on each transaction's commit, which is resumed up to 4 "
                 "times when it times out (default 30000)")
      ->check(whole_number(1));
  sub.footer(R"(Input (--input jsonl), one object per line; every field optional:
  {"key":"k","value":"v","headers":[{"name":"h","value":"x"}],"partition":1,"topic":"t",
   "key_encoding":"base64","value_encoding":"base64"   (and per header "value_encoding"),
   "claims":[{"topic":"t","partition":0,"offset":4}],
   "seq_claims":[{"topic":"t","partition":1,"sender":"s","seq":3}]}   (extra claims joined into the stamp)
  {"transaction":"commit"} or {"transaction":"abort"}   ends the open transaction that way

Examples:
  echo '{"key":"o-1","value":"order placed"}' | causal produce -b localhost:9092 orders
  seq 1000 | causal produce --input text --transactional-id loader --commit-every 100 numbers
  causal produce --report jsonl orders payments < workload.jsonl

Exit status: 0 ok; 1 Kafka unreachable, unknown topic, delivery or transaction failure; 2 bad input;
130 interrupted (SIGINT, SIGTERM: the open transaction is aborted).)");
  sub.callback([o, &result] { result = run_produce(*o); });
}

constexpr const char* kProduceInterruptedAgain =
    "causal produce: interrupted again: exiting without waiting for the brokers; an open transaction whose abort "
    "the brokers did not yet get stays open until Kafka's transaction timeout aborts it, and sends not yet "
    "acknowledged may or may not have been written\n";

namespace {

struct Sink {
  std::string topic;
  std::int32_t partition = -1;
};

// One parsed input line; the views in `record` point into these strings.
struct Parsed {
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  std::string topic;
  std::int32_t partition = -1;
  std::optional<Clock> extra;
  std::string control;  // "", "commit", "abort"
};

std::expected<std::optional<std::string>, std::string> bytes_field(const nlohmann::json& j, const char* field,
                                                                   const char* enc_field) {
  if (!j.contains(field) || j[field].is_null()) return std::optional<std::string>{};
  if (!j[field].is_string()) return std::unexpected(fmt::format("\"{}\" must be a string or null", field));
  std::string s = j[field].get<std::string>();
  if (j.contains(enc_field)) {
    if (j[enc_field] != "base64") return std::unexpected(fmt::format("\"{}\" must be \"base64\"", enc_field));
    std::string b;
    if (const std::size_t bad = base64_decode_into(s, b); bad != kBase64Decoded) {
      return std::unexpected(fmt::format("\"{}\": {}", field,
                                         bad < s.size() ? "invalid base64 character at position " + std::to_string(bad)
                                                        : std::string("truncated base64 (length leaves 6 stray bits)")));
    }
    return std::optional<std::string>{std::move(b)};
  }
  return std::optional<std::string>{std::move(s)};
}

// The first key of `j` not in `known`, as the error names it ("unknown field \"x\"",
// prefixed by `where`), or nullopt.
std::optional<std::string> unknown_field(const nlohmann::json& j, const std::set<std::string>& known,
                                         std::string_view where) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (known.contains(it.key())) continue;
    const std::string name = name_excerpt(it.key());
    return fmt::format("{}unknown field {}", where, name == it.key() ? "\"" + name + "\"" : name);
  }
  return std::nullopt;
}

std::expected<Parsed, std::string> parse_jsonl(const std::string& line, Names& names) {
  Parsed p;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    return std::unexpected("not JSON: " + json_error_text(e.what()));
  }
  if (!j.is_object()) return std::unexpected("expected a JSON object");
  static const std::set<std::string> known = {"key",   "value",      "headers",   "partition",    "topic",
                                              "claims", "seq_claims", "transaction", "key_encoding", "value_encoding",
                                              "origin"};
  if (auto u = unknown_field(j, known, "")) return std::unexpected(*u);
  if (j.contains("transaction")) {
    if (j["transaction"] != "commit" && j["transaction"] != "abort") {
      return std::unexpected("\"transaction\" must be \"commit\" or \"abort\"");
    }
    // A control line is nothing else: a record's fields beside it would be dropped unsent.
    if (j.size() > 1) {
      for (const auto& [k, v] : j.items()) {
        if (k != "transaction") {
          return std::unexpected(fmt::format("a control line has no other fields: \"{}\" beside \"transaction\" "
                                             "(a record and a control line are two lines)",
                                             k));
        }
      }
    }
    p.control = j["transaction"].get<std::string>();
    return p;
  }
  auto k = bytes_field(j, "key", "key_encoding");
  if (!k) return std::unexpected(k.error());
  p.key = std::move(*k);
  auto v = bytes_field(j, "value", "value_encoding");
  if (!v) return std::unexpected(v.error());
  p.value = std::move(*v);
  if (j.contains("headers")) {
    if (!j["headers"].is_array()) return std::unexpected("\"headers\" must be an array of {name, value}");
    for (const auto& h : j["headers"]) {
      if (!h.is_object() || !h.contains("name") || !h["name"].is_string()) {
        return std::unexpected("each header must be an object with a string \"name\"");
      }
      static const std::set<std::string> header_fields = {"name", "value", "value_encoding"};
      if (auto u = unknown_field(h, header_fields, "header ")) return std::unexpected(*u);
      auto hv = bytes_field(h, "value", "value_encoding");
      if (!hv) return std::unexpected("header: " + hv.error());
      p.headers.emplace_back(h["name"].get<std::string>(), std::move(*hv));
    }
  }
  if (j.contains("partition")) {
    if (!j["partition"].is_number_integer() || j["partition"].get<std::int64_t>() < 0) {
      return std::unexpected("\"partition\" must be a non-negative integer");
    }
    p.partition = j["partition"].get<std::int32_t>();
  }
  if (j.contains("topic")) {
    if (!j["topic"].is_string()) return std::unexpected("\"topic\" must be a string");
    p.topic = j["topic"].get<std::string>();
  }
  if (j.contains("claims") || j.contains("seq_claims")) {
    nlohmann::json c = nlohmann::json::object();
    if (j.contains("claims")) c["claims"] = j["claims"];
    if (j.contains("seq_claims")) c["seq_claims"] = j["seq_claims"];
    auto clock = clock_from_json(c, names);
    if (!clock) return std::unexpected(clock.error().message);
    p.extra = std::move(*clock);
  }
  return p;
}

}  // namespace

Outcome run_produce(const ProduceOptions& o) {
  std::vector<Sink> sinks;
  for (const auto& s : o.sinks) {
    auto slash = s.rfind('/');
    Sink k;
    if (slash == std::string::npos) {
      k.topic = s;
    } else {
      auto ch = parse_channel(s);
      if (!ch) return std::unexpected(usage_error(ch.error().message));
      k.topic = ch->first;
      k.partition = ch->second;
    }
    if (!valid_topic_name(k.topic)) return std::unexpected(usage_error(invalid_topic_text(k.topic)));
    sinks.push_back(k);
  }
  bool transactional = !o.transactional_id.empty();
  if (!transactional && (o.commit_every || o.abort)) {
    return std::unexpected(usage_error("--commit-every and --abort need --transactional-id"));
  }

  kafka::ProducerOptions po;
  po.connection = o.connection;
  po.timeout = std::chrono::milliseconds(o.timeout_ms);
  po.sender_prefix = o.sender_prefix;
  if (!o.sender.empty()) po.sender = o.sender;
  if (transactional) po.transactional_id = o.transactional_id;
  for (const auto& s : sinks) {
    if (s.partition >= 0) {
      po.sink_channels.emplace_back(s.topic, s.partition);
    } else if (std::find(po.sink_topics.begin(), po.sink_topics.end(), s.topic) == po.sink_topics.end()) {
      po.sink_topics.push_back(s.topic);
    }
  }
  po.wait_acks = o.sync;
  po.stamp = !o.no_stamp;
  po.extra_defaults = {{"linger.ms", "20"}, {"batch.num.messages", "10000"}, {"queue.buffering.max.messages", "500000"}};

  // The identity's bounds, said in the options' words (a sender is 1..255 bytes of UTF-8).
  if (!o.sender.empty() && !valid_sender_name(o.sender)) {
    return std::unexpected(
        usage_error(fmt::format("--sender {}: a sender identity is 1..255 bytes of UTF-8", quoted_excerpt(o.sender))));
  }
  if (o.sender.empty() && !valid_sender_name(o.sender_prefix + "-0123456789abcdef")) {
    return std::unexpected(usage_error(fmt::format(
        "--sender-prefix {}: the identity PREFIX-<16 hex digits> must be 1..255 bytes of UTF-8 (a prefix of at most "
        "238 bytes)",
        quoted_excerpt(o.sender_prefix))));
  }

  Names names;
  auto opened = kafka::ProducerHost::open(po, names);
  if (!opened) {
    // librdkafka's refusal of the message.timeout.ms that --timeout-ms sets (above
    // linger.ms, 20 here unless -X sets it; at most transaction.timeout.ms) is about the
    // user's option: a usage error that names it.
    const std::string& m = opened.error().message;
    if (m.starts_with("cannot create a Kafka producer") && m.find("`message.timeout.ms`") != std::string::npos) {
      return std::unexpected(usage_error(fmt::format(
          "--timeout-ms {}{}, librdkafka's message.timeout.ms, is refused: {}", o.timeout_ms,
          o.timeout_ms == 30000 ? " (the default)" : "", m)));
    }
    return std::unexpected(opened.error());
  }
  auto& host = **opened;

  fmt::memory_buffer report;
  if (o.report == "jsonl") {
    host.on_delivery = [&](const kafka::Produced& p) {
      fmt::format_to(std::back_inserter(report), "{{\"topic\":");
      kafka::append_json_string(report, names.channel_topic(p.channel));
      fmt::format_to(std::back_inserter(report), ",\"partition\":{},\"offset\":{},\"seq\":{},\"line\":{}}}\n",
                     names.channel_partition(p.channel), p.offset, p.seq, p.user);
      // Batched (the report of a bulk load costs one write per 64 KiB); with --sync, each
      // line is written at once, before the next input line is read: a script feeding
      // produce line by line sees each record's offset as it is known.
      if (report.size() > 65536 || o.sync) {
        std::fwrite(report.data(), 1, report.size(), stdout);
        if (o.sync) std::fflush(stdout);
        report.clear();
      }
    };
  }

  std::uint64_t in_txn = 0;
  auto end_txn = [&](bool commit) -> Outcome {
    if (!host.in_transaction()) return {};
    in_txn = 0;
    return commit ? host.commit() : host.abort();
  };

  // SIGINT/SIGTERM stop reading (a blocked read returns: no SA_RESTART); what follows ends
  // the run as an error does: the open transaction is aborted, sends already made are
  // waited for, the summary is said, exit 130. Killed by the signal instead, produce would leave
  // its transaction open, pinning the partitions' LSO until Kafka's transaction timeout.
  // A second signal while that waits (on the brokers) exits at once.
  install_stop_signals();
  exit_on_second_signal(kProduceInterruptedAgain);
  std::string line;
  std::uint64_t lineno = 0;
  Outcome outcome;
  while (!g_stop && std::getline(std::cin, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Parsed p;
    if (o.input == "text") {
      p.value = line;
    } else {
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      auto parsed = parse_jsonl(line, names);
      if (!parsed) {
        outcome = std::unexpected(usage_error(fmt::format("stdin line {}: {}", lineno, parsed.error())));
        break;
      }
      p = std::move(*parsed);
    }
    if (!p.control.empty()) {
      if (!transactional) {
        outcome = std::unexpected(usage_error(fmt::format("stdin line {}: \"transaction\" needs --transactional-id", lineno)));
        break;
      }
      if (auto r = end_txn(p.control == "commit"); !r) {
        outcome = r;
        break;
      }
      continue;
    }
    kafka::OutRecord rec;
    const Sink* sink = &sinks.front();
    if (!p.topic.empty() || p.partition >= 0) {
      // The sink naming this record's topic (and partition, where sinks name partitions).
      std::string_view want = p.topic.empty() ? std::string_view(sinks.front().topic) : std::string_view(p.topic);
      sink = nullptr;
      for (const auto& s : sinks) {
        if (s.topic != want) continue;
        if (!sink || s.partition == p.partition || s.partition < 0) sink = &s;
      }
      if (!sink) {
        outcome = std::unexpected(usage_error(
            fmt::format("stdin line {}: topic {} is not one of the sinks named on the command line", lineno,
                        quoted_excerpt(p.topic))));
        break;
      }
    }
    rec.topic = sink->topic;
    rec.partition = p.partition >= 0 ? p.partition : sink->partition;
    if (sink->partition >= 0 && rec.partition != sink->partition) {
      // The sinks named TOPIC/P are the channels seeded; another partition needs naming TOPIC.
      outcome = std::unexpected(usage_error(fmt::format(
          "stdin line {}: partition {} is not a sink: the command line names {}/{} only (name the topic instead)",
          lineno, rec.partition, sink->topic, sink->partition)));
      break;
    }
    if (p.key) rec.key = *p.key;
    if (p.value) rec.value = *p.value;
    for (const auto& [n, v] : p.headers) {
      if (n == kClockHeader && !o.no_stamp) {
        outcome = std::unexpected(usage_error(fmt::format(
            "stdin line {}: a causal.clock header is written by the stamper; use --no-stamp to write one by hand",
            lineno)));
        break;
      }
      rec.headers.push_back({n, v ? std::optional<std::string_view>(*v) : std::nullopt});
    }
    if (!outcome) break;
    if (p.extra) rec.extra = &*p.extra;
    if (transactional && !host.in_transaction()) {
      if (auto r = host.begin(); !r) {
        outcome = r;
        break;
      }
    }
    if (auto r = host.send(rec, lineno); !r) {
      Error e = r.error();
      if (e.code == Errc::usage) e.message = fmt::format("stdin line {}: {}", lineno, e.message);  // this record's
      outcome = std::unexpected(std::move(e));
      break;
    }
    if (transactional && o.commit_every && ++in_txn >= o.commit_every) {
      if (auto r = end_txn(!o.abort); !r) {
        outcome = r;
        break;
      }
    }
  }
  if (outcome && g_stop) {
    outcome = std::unexpected(Error{Errc::interrupted, fmt::format("interrupted (SIGINT or SIGTERM) after stdin line {}", lineno)});
  }
  // A read error is not the end of the input.
  if (outcome && std::ferror(stdin)) {
    outcome = std::unexpected(runtime_error(fmt::format("cannot read standard input (after line {}): {}", lineno,
                                                        std::strerror(errno))));
  }
  if (outcome && transactional) outcome = end_txn(!o.abort);
  bool aborted_open = false;
  if (outcome) {
    outcome = host.flush();
  } else if (transactional) {
    // Stopped early: the open transaction is aborted, so none of its records is committed.
    aborted_open = host.in_transaction() && host.abort_and_forget().has_value();
  } else {
    // Stopped early: the records already sent still reach Kafka. Wait for their reports, so
    // that the summary and --report count every one that did (the first error stays the
    // one reported).
    host.drain();
  }
  host.on_delivery = nullptr;  // `report` dies before `host`, whose destructor flushes
  std::fwrite(report.data(), 1, report.size(), stdout);
  std::fflush(stdout);
  eprint("causal produce: {} record{} sent, {} delivered, as {}", host.sent(), host.sent() == 1 ? "" : "s",
             host.delivered(), o.no_stamp ? "unstamped records" : "sender " + text_escaped(host.sender_name()));
  if (transactional) eprint("; {} transaction(s) committed, {} aborted", host.commits(), host.aborts());
  if (aborted_open) {
    eprint(" (the last one on the {})", outcome.error().code == Errc::interrupted ? "interrupt" : "error");
  }
  // A commit that timed out on every attempt is still in progress: the coordinator may have
  // it and complete it, so nothing is claimed either way.
  if (transactional && host.in_transaction() && !aborted_open && host.end_unknown()) {
    eprint("; the last one's {} timed out: Kafka may still complete it", o.abort ? "abort" : "commit");
  } else if (transactional && host.in_transaction() && !aborted_open) {
    // A transaction neither committed nor aborted (a fatal error: fenced): in the log, but no
    // read_committed reader ever sees its records, --report lines included.
    eprint("; the last one was not committed: read_committed readers never see its records");
  }
  eprint("\n");
  return outcome;
}

}  // namespace causal::cli

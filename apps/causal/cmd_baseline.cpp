// causal baseline: last-stable-offset baselines for late joiners (man/causal-baseline.1).
//
// Per channel: log start, LSO, high watermark, the open-transaction span (HWM - LSO) and
// the recommended baseline (the LSO: every claim minted inside a transaction still open
// now sits at or above it, so it resolves; liveness, "The sequence-claim caveat").
// With --group the plan shows the group's committed offsets beside the new ones;
// --apply writes them (refusing while the group has members, and refusing to move a
// committed offset forward, which skips records, unless --allow-skip). Explicit TOPIC/P@OFFSET
// entries replace the LSO for their channel, so an explain remedy is one command.
// Offsets are listed in one ListOffsets request per broker for each of log start, LSO
// and high watermark (causal/kafka/offsets.hpp), never one per partition.
#include <map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "causal/eprint.hpp"
#include "causal/excerpt.hpp"
#include "causal/kafka/offsets.hpp"
#include "subcommands.hpp"

namespace causal::cli {

namespace {

struct BaselineOptions {
  kafka::ConnectionOptions conn;
  std::vector<std::string> channels;
  std::string group;
  bool apply = false;
  bool dry_run = false;
  bool allow_skip = false;
  Format format = Format::text;
  int timeout_ms = 10000;
};

struct PlanRow {
  kafka::ChannelOffsets offsets;
  Offset baseline = 0;       // the offset to commit
  bool explicit_offset = false;
  std::optional<Offset> committed;  // the group's, before
  bool committed_pending = false;
  std::string metadata;  // the group's commit metadata, kept on write
  std::string topic_id;  // the topic ID that metadata names ("" when none)
  // Offsets a write would skip: the baseline is above the group's committed offset, so the
  // records (and transaction markers) in [committed, baseline) would never be consumed.
  Offset skip() const { return committed && baseline > *committed ? baseline - *committed : 0; }
};

std::string chan(const kafka::ChannelRef& c) { return fmt::format("{}/{}", c.topic, c.partition); }

nlohmann::json row_json(const PlanRow& r, bool with_group) {
  nlohmann::json j{
      {"topic", r.offsets.channel.topic},
      {"partition", r.offsets.channel.partition},
      {"log_start", r.offsets.log_start},
      {"lso", r.offsets.lso},
      {"high_watermark", r.offsets.log_end},
      {"open_span", r.offsets.open_span()},
      {"recommended_baseline", r.offsets.lso},
      {"baseline", r.baseline},
      {"explicit", r.explicit_offset},
  };
  // Every field is present (jq reads null, never a missing key); the group's are null
  // without --group.
  j["committed"] = with_group && r.committed ? nlohmann::json(*r.committed) : nlohmann::json(nullptr);
  j["committed_pending"] = with_group ? nlohmann::json(r.committed_pending) : nlohmann::json(nullptr);
  j["skip"] = with_group ? nlohmann::json(r.skip()) : nlohmann::json(nullptr);
  return j;
}

std::string text_table(const std::vector<PlanRow>& rows, bool with_group) {
  std::size_t w = 7;
  for (const auto& r : rows) w = std::max(w, chan(r.offsets.channel).size());
  std::string out = fmt::format("{:<{}}  {:>10}  {:>10}  {:>14}  {:>9}  {:>10}", "CHANNEL", w, "LOG_START", "LSO",
                                "HIGH_WATERMARK", "OPEN_SPAN", "BASELINE");
  if (with_group) out += fmt::format("  {:>10}", "COMMITTED");
  out += "\n";
  for (const auto& r : rows) {
    out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>14}  {:>9}  {:>10}", chan(r.offsets.channel), w, r.offsets.log_start,
                       r.offsets.lso, r.offsets.log_end, r.offsets.open_span(),
                       fmt::format("{}{}", r.baseline, r.explicit_offset ? "*" : ""));
    if (with_group) {
      std::string committed = r.committed ? fmt::format("{}", *r.committed) : std::string("-");
      out += fmt::format("  {:>10}", r.committed_pending ? committed + " (pending)" : committed);
    }
    out += "\n";
  }
  return out;
}

Outcome run_baseline(const BaselineOptions& o) {
  if (o.apply && o.dry_run) return std::unexpected(usage_error("--apply and --dry-run exclude each other"));
  if (o.apply && o.group.empty()) {
    return std::unexpected(usage_error("--apply writes a group's committed offsets: name the group with --group G"));
  }
  std::vector<kafka::ChannelSpec> specs;
  std::map<kafka::ChannelRef, Offset> explicit_offsets;
  for (const auto& text : o.channels) {
    auto s = kafka::parse_channel_spec(text, /*allow_offset=*/true);
    if (!s) return std::unexpected(s.error());
    if (s->offset) {
      kafka::ChannelRef c{s->topic, *s->partition};
      if (auto [it, fresh] = explicit_offsets.emplace(c, *s->offset); !fresh && it->second != *s->offset) {
        return std::unexpected(usage_error(fmt::format("{} is given two offsets ({} and {})", chan(c), it->second, *s->offset)));
      }
    }
    specs.push_back(std::move(*s));
  }

  auto client = kafka::OffsetsClient::open(o.conn, o.timeout_ms);
  if (!client) return std::unexpected(client.error());
  auto channels = client->resolve(specs);
  if (!channels) return std::unexpected(channels.error());
  if (show_progress()) eprint("listing offsets of {} partition(s)...\n", channels->size());
  auto offsets = client->list_offsets(*channels);
  if (!offsets) return std::unexpected(offsets.error());

  std::vector<PlanRow> rows;
  for (const auto& co : *offsets) {
    PlanRow r;
    r.offsets = co;
    r.baseline = co.lso;
    if (auto it = explicit_offsets.find(co.channel); it != explicit_offsets.end()) {
      if (it->second < co.log_start || it->second > co.log_end) {
        return std::unexpected(usage_error(fmt::format(
            "{}@{} is outside the log: {} holds offsets {}..{} (log start .. high watermark)", chan(co.channel),
            it->second, chan(co.channel), co.log_start, co.log_end)));
      }
      r.baseline = it->second;
      r.explicit_offset = true;
      if (it->second > co.lso) {
        // Allowed (the log holds it), but the records of the open span below it would be
        // skipped whatever becomes of them: said, since the LSO is the usual baseline.
        eprint("causal baseline: {}@{} is above the LSO {}: a transaction still open holds offsets from {} on, and "
               "the group never gets the records between, even those that commit\n",
               chan(co.channel), it->second, co.lso, co.lso);
      }
    }
    rows.push_back(std::move(r));
  }

  const bool with_group = !o.group.empty();
  std::optional<kafka::GroupDescription> desc;
  if (with_group) {
    auto d = client->describe_group(o.group);
    if (!d) return std::unexpected(d.error());
    desc = std::move(*d);
    auto committed = client->committed_or_stable(o.group, *channels);
    if (!committed) return std::unexpected(committed.error());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      rows[i].committed = (*committed)[i].offset;
      rows[i].committed_pending = (*committed)[i].pending;
      rows[i].metadata = (*committed)[i].metadata;
      rows[i].topic_id = (*committed)[i].topic_id;
    }
  }

  // Refusals before any write: active members, offsets pending in an open transaction.
  std::string refusal;
  if (o.apply && desc && !desc->members.empty()) {
    // One line, as every error is (causal(1)): the members follow, separated by "; ".
    std::string names;
    for (const auto& m : desc->members) {
      names += fmt::format("{}{} (client {}, host {})", names.empty() ? " " : "; ", m.member_id, m.client_id, m.host);
    }
    refusal = fmt::format(
        "refusing to write the committed offsets of group {}: it has {} active member(s) (state {}, {} protocol); stop "
        "them and run again:{}",
        quoted_excerpt(o.group), desc->members.size(), desc->state, desc->protocol, names);
  } else if (o.apply) {
    for (const auto& r : rows) {
      if (r.skip() > 0 && !o.allow_skip) {
        refusal = fmt::format(
            "refusing to move group {} forward on {}: {} -> {} skips {} offset(s) ({}..{}) whose records the group "
            "never consumes; add --allow-skip if that is intended",
            quoted_excerpt(o.group), chan(r.offsets.channel), *r.committed, r.baseline, r.skip(), *r.committed, r.baseline - 1);
        break;
      }
      if (r.committed_pending) {
        refusal = fmt::format(
            "refusing to write the committed offsets of group {}: an offset commit for {} is pending in an open "
            "transaction; wait until it commits or aborts",
            quoted_excerpt(o.group), chan(r.offsets.channel));
        break;
      }
    }
  }
  if (!refusal.empty()) return std::unexpected(runtime_error(refusal));

  bool applied = false;
  if (o.apply) {
    std::vector<kafka::OffsetsClient::NewOffset> writes;
    // Commit metadata (the node's saved resolution state) is kept as it was, unless it names
    // an earlier topic of the same name (another topic ID): the new offset is then in a log
    // that state knows nothing of, and is written without it.
    std::vector<std::string> topics;
    for (const auto& r : rows) {
      if (!r.topic_id.empty() && std::find(topics.begin(), topics.end(), r.offsets.channel.topic) == topics.end()) {
        topics.push_back(r.offsets.channel.topic);
      }
    }
    std::map<std::string, std::string> ids;
    if (!topics.empty()) {
      auto got = client->topic_ids(topics);
      if (!got) return std::unexpected(got.error());
      ids = std::move(*got);
    }
    for (const auto& r : rows) {
      const bool other_log = !r.topic_id.empty() && ids[r.offsets.channel.topic] != r.topic_id;
      writes.push_back({r.offsets.channel, r.baseline, other_log ? std::string() : r.metadata});
    }
    if (auto w = client->alter_committed(o.group, writes); !w) return std::unexpected(w.error());
    applied = true;
  }

  switch (o.format) {
    case Format::csv:
      // kafka-consumer-groups --reset-offsets --export, single group: "topic,partition,offset",
      // one line per partition, no header. Usable with --reset-offsets --from-file.
      for (const auto& r : rows) fmt::print("{},{},{}\n", r.offsets.channel.topic, r.offsets.channel.partition, r.baseline);
      break;
    case Format::json: {
      nlohmann::json rowsj = nlohmann::json::array();
      for (const auto& r : rows) rowsj.push_back(row_json(r, with_group));
      nlohmann::json j{{"group", with_group ? nlohmann::json(o.group) : nlohmann::json(nullptr)},
                       {"applied", applied},
                       {"channels", rowsj},
                       {"group_state", nullptr},
                       {"group_protocol", nullptr},
                       {"members", nullptr}};
      if (desc) {
        nlohmann::json members = nlohmann::json::array();
        for (const auto& m : desc->members) {
          members.push_back({{"member_id", m.member_id}, {"client_id", m.client_id}, {"host", m.host}});
        }
        j["group_state"] = desc->state;
        j["group_protocol"] = desc->protocol;
        j["members"] = members;
      }
      fmt::print("{}\n", j.dump(2));
      break;
    }
    default: {
      fmt::print("{}", text_table(rows, with_group));
      if (!explicit_offsets.empty()) fmt::print("(* explicit offset given on the command line; otherwise the LSO)\n");
      if (applied) {
        fmt::print("\napplied: group {} committed offsets changed:\n", quoted_excerpt(o.group));
        for (const auto& r : rows) {
          fmt::print("  {}: {} -> {}\n", chan(r.offsets.channel),
                     r.committed ? fmt::format("{}", *r.committed) : std::string("none"), r.baseline);
        }
      } else if (with_group) {
        fmt::print("\ndry run: nothing written. Add --apply to write BASELINE as the committed offsets of group {}",
                   quoted_excerpt(o.group));
        if (desc && !desc->members.empty()) {
          fmt::print(" (it has {} active member(s) now: --apply would refuse)", desc->members.size());
        }
        fmt::print(".\n");
        for (const auto& r : rows) {
          if (r.committed_pending) {
            fmt::print("{}: an offset commit is pending in an open transaction (COMMITTED is the last stable one): "
                       "--apply refuses until it commits or aborts\n",
                       chan(r.offsets.channel));
          }
          if (r.skip() == 0) continue;
          fmt::print("would skip {} offset(s) of {} ({}..{}): the group never consumes their records; {}\n", r.skip(),
                     chan(r.offsets.channel), *r.committed, r.baseline - 1,
                     o.allow_skip ? "--allow-skip lets --apply write it" : "--apply refuses without --allow-skip");
        }
      }
    }
  }
  if (applied && o.format != Format::text) {
    for (const auto& r : rows) {
      eprint("causal: group {} {}: {} -> {}\n", quoted_excerpt(o.group), chan(r.offsets.channel),
                 r.committed ? fmt::format("{}", *r.committed) : std::string("none"), r.baseline);
    }
  }
  return {};
}

}  // namespace

void setup_baseline(CLI::App& sub, Outcome& result) {
  auto opts = std::make_shared<BaselineOptions>();
  add_kafka_options(sub, opts->conn);
  sub.add_option("channels", opts->channels,
                 "TOPIC, TOPIC/PARTITION, or TOPIC/PARTITION@OFFSET (an explicit baseline instead of the LSO)")
      ->required();
  sub.add_option("-g,--group", opts->group, "Consumer group: show its committed offsets; with --apply, write them")
      ->check(not_empty("group name"));
  auto* apply = sub.add_flag("--apply", opts->apply, "Write the baselines as the group's committed offsets");
  sub.add_flag("--dry-run", opts->dry_run, "Only print the plan (the default)")->excludes(apply);
  sub.add_flag("--allow-skip", opts->allow_skip,
               "With --apply: allow moving a committed offset forward, skipping the records in between");
  add_format_option(sub, opts->format, {Format::text, Format::json, Format::csv}, Format::text);
  sub.add_option("--timeout-ms", opts->timeout_ms, "Timeout of each request round (default 10000)")
      ->check(whole_number(1));
  sub.footer(R"(Examples:
  causal baseline orders payments                  # LSO baselines of every partition
  causal baseline orders --format csv > plan.csv   # for kafka-consumer-groups --from-file
  causal baseline orders --group billing           # the plan beside billing's committed offsets
  causal baseline orders --group billing-v2 --apply   # start a new group there (no members yet)
  causal baseline --group billing --apply orders/3@1041   # rewind one channel (an explain remedy)
  causal baseline --group billing --apply --allow-skip orders/3@1100   # move forward, skipping records
Exit status: 0 ok, 1 Kafka failure, unknown topic or refusal (active members), 2 usage.)");
  sub.callback([opts, &result] { result = run_baseline(*opts); });
}

}  // namespace causal::cli

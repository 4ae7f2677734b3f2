// Gate snapshots: take_snapshot reads a Gate through its public inspection API only, and
// to_json / snapshot_from_json give the stable JSON form documented in
// docs/snapshot-format.md. snapshot_from_json is strict: unknown or missing fields and
// wrong types are errors naming the JSON path ("channels[2].frontier: expected an integer").
#include "causal/snapshot.hpp"
#include "causal/excerpt.hpp"

#include <algorithm>
#include <limits>

#include <fmt/core.h>

#include "causal/codec.hpp"

namespace causal {

namespace {

ClaimView claim_view(const Gate& gate, const Blocker& b) {
  Names& names = gate.names();
  ClaimView v;
  v.kind = b.kind == Blocker::Kind::offset ? "offset" : "seq";
  v.topic = names.channel_topic(b.channel);
  v.partition = names.channel_partition(b.channel);
  if (b.kind == Blocker::Kind::offset) {
    v.offset = b.offset;
  } else {
    v.sender = names.sender_name(b.sender);
    v.seq = b.seq;
  }
  v.consumed = gate.consumes(b.channel);
  return v;
}

// The stats as (name, field) pairs: one list for both directions, so they cannot drift.
template <class Stats, class F>
void for_each_stat(Stats& s, F f) {
  f("received", s.received);
  f("delivered", s.delivered);
  f("holds", s.holds);
  f("cascades_multi", s.cascades_multi);
  f("bridges_at_receive", s.bridges_at_receive);
  f("head_fold_ins", s.head_fold_ins);
  f("position_advances", s.position_advances);
  f("position_remembered", s.position_remembered);
  f("replays_dropped", s.replays_dropped);
  f("seq_claims_resolved", s.seq_claims_resolved);
  f("lookups_resolved", s.lookups_resolved);
  f("scope_growths", s.scope_growths);
  f("reassignments", s.reassignments);
  f("failed_closed", s.failed_closed);
}

nlohmann::json claim_json(const ClaimView& c) {
  nlohmann::json j = {{"kind", c.kind}, {"topic", c.topic}, {"partition", c.partition}};
  if (c.kind == "offset") {
    j["offset"] = c.offset;
  } else {
    j["sender"] = c.sender;
    j["seq"] = c.seq;
  }
  j["consumed"] = c.consumed;
  return j;
}

// ---- strict reading ----------------------------------------------------------------------

struct Reader {
  std::optional<Error> err;

  // Paths are named from the document's top level, which has none ("stats.holds").
  bool fail(const std::string& path, std::string_view what) {
    if (!err) err = usage_error(fmt::format("{}: {}", path.empty() ? std::string("the document") : path, what));
    return false;
  }
  static std::string member(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  bool object(const nlohmann::json& j, const std::string& path, std::initializer_list<std::string_view> required,
              std::initializer_list<std::string_view> optional = {}) {
    if (!j.is_object()) return fail(path, "expected an object");
    for (const auto& [k, v] : j.items()) {
      bool known = std::find(required.begin(), required.end(), k) != required.end() ||
                   std::find(optional.begin(), optional.end(), k) != optional.end();
      if (!known) return fail(member(path, name_excerpt(k)), "unknown field");
    }
    for (auto k : required) {
      if (!j.contains(k)) return fail(member(path, std::string(k)), "missing");
    }
    return true;
  }

  template <class T>
  bool integer(const nlohmann::json& j, const std::string& path, T& out, T min = std::numeric_limits<T>::min(),
               T max = std::numeric_limits<T>::max()) {
    if (!j.is_number_integer()) return fail(path, "expected an integer");
    bool ok = j.is_number_unsigned() ? j.get<std::uint64_t>() <= static_cast<std::uint64_t>(max) &&
                                           (min <= 0 || j.get<std::uint64_t>() >= static_cast<std::uint64_t>(min))
                                     : j.get<std::int64_t>() >= static_cast<std::int64_t>(min) &&
                                           (max < 0 || j.get<std::int64_t>() <= static_cast<std::int64_t>(
                                                                                    std::min<std::uint64_t>(max, INT64_MAX)));
    // j is an integer here, so its dump is short: quoted as it is.
    if (!ok) return fail(path, fmt::format("{} is outside {}..{}", j.dump(), min, max));
    out = j.is_number_unsigned() ? static_cast<T>(j.get<std::uint64_t>()) : static_cast<T>(j.get<std::int64_t>());
    return true;
  }

  bool string(const nlohmann::json& j, const std::string& path, std::string& out) {
    if (!j.is_string()) return fail(path, "expected a string");
    out = j.get<std::string>();
    return true;
  }

  bool boolean(const nlohmann::json& j, const std::string& path, bool& out) {
    if (!j.is_boolean()) return fail(path, "expected true or false");
    out = j.get<bool>();
    return true;
  }

  bool topic(const nlohmann::json& j, const std::string& path, std::string& out) {
    if (!string(j, path, out)) return false;
    if (!valid_topic_name(out)) return fail(path, invalid_topic_text(out));
    return true;
  }

  bool sender(const nlohmann::json& j, const std::string& path, std::string& out) {
    if (!string(j, path, out)) return false;
    if (!valid_sender_name(out)) return fail(path, "a sender is 1..255 bytes of UTF-8");
    return true;
  }

  bool array(const nlohmann::json& j, const std::string& path) {
    if (!j.is_array()) return fail(path, "expected an array");
    return true;
  }

  bool claim(const nlohmann::json& j, const std::string& path, ClaimView& c) {
    if (!j.is_object()) return fail(path, "expected an object");
    if (!j.contains("kind")) return fail(path + ".kind", "missing");
    if (!string(j["kind"], path + ".kind", c.kind)) return false;
    if (c.kind == "offset") {
      if (!object(j, path, {"kind", "topic", "partition", "offset", "consumed"})) return false;
      if (!integer<Offset>(j["offset"], path + ".offset", c.offset, 0)) return false;
    } else if (c.kind == "seq") {
      if (!object(j, path, {"kind", "topic", "partition", "sender", "seq", "consumed"})) return false;
      if (!sender(j["sender"], path + ".sender", c.sender)) return false;
      if (!integer<SeqNo>(j["seq"], path + ".seq", c.seq, 1)) return false;
    } else {
      return fail(path + ".kind", fmt::format("{} is neither \"offset\" nor \"seq\"", quoted_excerpt(c.kind)));
    }
    return topic(j["topic"], path + ".topic", c.topic) &&
           integer<std::int32_t>(j["partition"], path + ".partition", c.partition, 0) &&
           boolean(j["consumed"], path + ".consumed", c.consumed);
  }

  bool held(const nlohmann::json& j, const std::string& path, HeldView& h) {
    if (!object(j, path, {"offset", "received_at", "origin", "unsatisfied", "clock"})) return false;
    if (!integer<Offset>(j["offset"], path + ".offset", h.offset, 0)) return false;
    if (!integer<std::int64_t>(j["received_at"], path + ".received_at", h.received_at)) return false;
    const auto& o = j["origin"];
    if (!o.is_null()) {
      if (!object(o, path + ".origin", {"sender", "seq"})) return false;
      std::string s;
      SeqNo q = 0;
      if (!sender(o["sender"], path + ".origin.sender", s) || !integer<SeqNo>(o["seq"], path + ".origin.seq", q, 1)) {
        return false;
      }
      h.origin_sender = s;
      h.origin_seq = q;
    }
    if (!array(j["unsatisfied"], path + ".unsatisfied")) return false;
    for (std::size_t i = 0; i < j["unsatisfied"].size(); ++i) {
      ClaimView c;
      if (!claim(j["unsatisfied"][i], fmt::format("{}.unsatisfied[{}]", path, i), c)) return false;
      h.unsatisfied.push_back(std::move(c));
    }
    // The clock must be one the codec accepts (checked with a scratch Names).
    Names scratch;
    if (auto c = clock_from_json(j["clock"], scratch); !c) {
      std::string inner = c.error().message;
      // clock_from_json names paths relative to the clock ("claims[0].offset: ...").
      if (inner.starts_with("clock: ")) inner = inner.substr(7);
      return fail(path + ".clock" + (inner.starts_with("[") || inner.empty() ? "" : ".") +
                      inner.substr(0, inner.find(':')),
                  inner.find(':') == std::string::npos ? inner : inner.substr(inner.find(':') + 2));
    }
    h.clock = j["clock"];
    return true;
  }

  bool channel(const nlohmann::json& j, const std::string& path, ChannelSnapshot& c) {
    if (!object(j, path,
                {"topic", "partition", "baseline", "frontier", "position", "failed", "failed_offset", "queue_length",
                 "held", "delivered_seq"})) {
      return false;
    }
    if (!topic(j["topic"], path + ".topic", c.topic) ||
        !integer<std::int32_t>(j["partition"], path + ".partition", c.partition, 0) ||
        !integer<Offset>(j["baseline"], path + ".baseline", c.baseline, 0) ||
        !integer<Offset>(j["frontier"], path + ".frontier", c.frontier, kNoOffset) ||
        !boolean(j["failed"], path + ".failed", c.failed) ||
        !integer<std::size_t>(j["queue_length"], path + ".queue_length", c.queue_length)) {
      return false;
    }
    if (!j["position"].is_null()) {
      Offset p = 0;
      if (!integer<Offset>(j["position"], path + ".position", p, 0)) return false;
      c.position = p;
    }
    if (!j["failed_offset"].is_null()) {
      Offset p = 0;
      if (!integer<Offset>(j["failed_offset"], path + ".failed_offset", p, 0)) return false;
      c.failed_offset = p;
    }
    if (!array(j["held"], path + ".held")) return false;
    for (std::size_t i = 0; i < j["held"].size(); ++i) {
      HeldView h;
      if (!held(j["held"][i], fmt::format("{}.held[{}]", path, i), h)) return false;
      c.held.push_back(std::move(h));
    }
    if (!array(j["delivered_seq"], path + ".delivered_seq")) return false;
    for (std::size_t i = 0; i < j["delivered_seq"].size(); ++i) {
      std::string p = fmt::format("{}.delivered_seq[{}]", path, i);
      const auto& e = j["delivered_seq"][i];
      if (!object(e, p, {"sender", "seq"})) return false;
      std::string s;
      SeqNo q = 0;
      if (!sender(e["sender"], p + ".sender", s) || !integer<SeqNo>(e["seq"], p + ".seq", q, 1)) return false;
      c.delivered_seq.emplace_back(std::move(s), q);
    }
    return true;
  }
};

}  // namespace

GateSnapshot take_snapshot(const Gate& gate) {
  Names& names = gate.names();
  GateSnapshot s;
  s.stats = gate.stats();
  auto resolution = gate.resolution_state();
  for (ChannelId ch : gate.scope()) {
    ChannelSnapshot c;
    c.topic = names.channel_topic(ch);
    c.partition = names.channel_partition(ch);
    c.baseline = gate.baseline(ch);
    c.frontier = gate.frontier(ch);
    c.position = gate.remembered_position(ch);
    c.failed_offset = gate.failed_at(ch);
    c.failed = c.failed_offset.has_value() || gate.failed(ch);
    c.queue_length = gate.held_count(ch);
    auto held = gate.held(ch);
    for (std::size_t i = 0; i < held.size(); ++i) {
      HeldView h;
      h.offset = held[i].offset;
      h.received_at = held[i].received_at;
      if (held[i].clock->origin) {
        h.origin_sender = names.sender_name(held[i].clock->origin->sender);
        h.origin_seq = held[i].clock->origin->seq;
      }
      if (i == 0) {
        for (const auto& b : gate.unsatisfied(ch)) h.unsatisfied.push_back(claim_view(gate, b));
      }
      h.clock = clock_to_json(*held[i].clock, names);
      c.held.push_back(std::move(h));
    }
    for (const auto& e : resolution) {
      if (e.channel == ch) c.delivered_seq.emplace_back(names.sender_name(e.sender), e.seq);
    }
    std::sort(c.delivered_seq.begin(), c.delivered_seq.end());
    s.channels.push_back(std::move(c));
  }
  // Stable order for people and diffs: by topic, then partition.
  std::sort(s.channels.begin(), s.channels.end(), [](const ChannelSnapshot& a, const ChannelSnapshot& b) {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  });
  return s;
}

nlohmann::json to_json(const GateSnapshot& s) {
  nlohmann::json j = {{"version", s.version}};
  auto& channels = j["channels"] = nlohmann::json::array();
  for (const auto& c : s.channels) {
    nlohmann::json cj = {{"topic", c.topic},
                         {"partition", c.partition},
                         {"baseline", c.baseline},
                         {"frontier", c.frontier},
                         {"position", c.position ? nlohmann::json(*c.position) : nlohmann::json(nullptr)},
                         {"failed", c.failed},
                         {"failed_offset", c.failed_offset ? nlohmann::json(*c.failed_offset) : nlohmann::json(nullptr)},
                         {"queue_length", c.queue_length}};
    auto& held = cj["held"] = nlohmann::json::array();
    for (const auto& h : c.held) {
      nlohmann::json hj = {{"offset", h.offset}, {"received_at", h.received_at}};
      hj["origin"] = h.origin_sender && h.origin_seq
                         ? nlohmann::json{{"sender", *h.origin_sender}, {"seq", *h.origin_seq}}
                         : nlohmann::json(nullptr);
      auto& un = hj["unsatisfied"] = nlohmann::json::array();
      for (const auto& u : h.unsatisfied) un.push_back(claim_json(u));
      hj["clock"] = h.clock.is_null() ? nlohmann::json{{"origin", nullptr}, {"claims", nlohmann::json::array()},
                                                       {"seq_claims", nlohmann::json::array()}}
                                      : h.clock;
      held.push_back(std::move(hj));
    }
    auto& ds = cj["delivered_seq"] = nlohmann::json::array();
    for (const auto& [sender, seq] : c.delivered_seq) ds.push_back({{"sender", sender}, {"seq", seq}});
    channels.push_back(std::move(cj));
  }
  auto& stats = j["stats"] = nlohmann::json::object();
  for_each_stat(s.stats, [&](const char* name, std::uint64_t v) { stats[name] = v; });
  return j;
}

std::expected<GateSnapshot, Error> snapshot_from_json(const nlohmann::json& j) {
  Reader r;
  GateSnapshot s;
  if (!j.is_object()) return std::unexpected(usage_error("snapshot: expected an object"));
  if (!r.object(j, "", {"version", "channels", "stats"})) return std::unexpected(*r.err);
  if (!r.integer<int>(j["version"], "version", s.version)) return std::unexpected(*r.err);
  if (s.version != 1) return std::unexpected(usage_error(fmt::format("version: {} is not a snapshot version this build reads (1)", s.version)));
  if (!r.array(j["channels"], "channels")) return std::unexpected(*r.err);
  for (std::size_t i = 0; i < j["channels"].size(); ++i) {
    ChannelSnapshot c;
    if (!r.channel(j["channels"][i], fmt::format("channels[{}]", i), c)) return std::unexpected(*r.err);
    s.channels.push_back(std::move(c));
  }
  const auto& st = j["stats"];
  if (!st.is_object()) return std::unexpected(usage_error("stats: expected an object"));
  for (const auto& [k, v] : st.items()) {
    bool known = false;
    for_each_stat(s.stats, [&](const char* name, std::uint64_t&) { known = known || k == name; });
    if (!known) return std::unexpected(usage_error(fmt::format("stats.{}: unknown field", name_excerpt(k))));
  }
  bool ok = true;
  for_each_stat(s.stats, [&](const char* name, std::uint64_t& field) {
    if (!ok) return;
    std::string p = std::string("stats.") + name;
    if (!st.contains(name)) {
      ok = r.fail(p, "missing");
      return;
    }
    ok = r.integer<std::uint64_t>(st[name], p, field);
  });
  if (!ok) return std::unexpected(*r.err);
  return s;
}

}  // namespace causal

#include "causal/diagnosis.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/core.h>

namespace causal {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::not_appended: return "not_appended";
    case Verdict::open_transaction: return "open_transaction";
    case Verdict::trailing_skip: return "trailing_skip";
    case Verdict::unfetched: return "unfetched";
    case Verdict::not_received: return "not_received";
    case Verdict::frozen_seq_claim: return "frozen_seq_claim";
    case Verdict::send_not_located: return "send_not_located";
    case Verdict::send_not_in_log: return "send_not_in_log";
    case Verdict::suspected_frozen_seq_claim: return "suspected_frozen_seq_claim";
    case Verdict::outside_scope: return "outside_scope";
    case Verdict::failed_closed: return "failed_closed";
    case Verdict::cycle: return "cycle";
    case Verdict::inconsistent: return "inconsistent";
  }
  return "inconsistent";
}

bool blocks(Verdict v) { return v != Verdict::outside_scope; }

bool is_left_out(const std::vector<std::string>& left_out, std::string_view topic, std::int32_t partition) {
  const std::string channel = fmt::format("{}/{}", topic, partition);
  return std::any_of(left_out.begin(), left_out.end(),
                     [&](const std::string& e) { return e == topic || e == channel; });
}

std::string offset_text(std::string_view topic, std::int32_t partition, Offset offset) {
  return fmt::format("{}/{}@{}", topic, partition, offset);
}

std::string claim_text(const ClaimView& c) {
  if (c.kind == "seq") return fmt::format("{}/{} sender '{}' send #{}", c.topic, c.partition, c.sender, c.seq);
  return offset_text(c.topic, c.partition, c.offset);
}

std::string utc_text(std::int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms % 1000);
}

bool Diagnosis::stuck() const { return held_channels() > 0 || failed_channels() > 0; }

bool Diagnosis::undecided() const { return !stuck() && !ignored_claims.empty(); }

std::size_t Diagnosis::held_channels() const {
  return static_cast<std::size_t>(
      std::count_if(channels.begin(), channels.end(), [](const ChannelDiagnosis& c) { return c.queue_length > 0; }));
}

std::size_t Diagnosis::failed_channels() const {
  return static_cast<std::size_t>(
      std::count_if(channels.begin(), channels.end(), [](const ChannelDiagnosis& c) { return c.failed; }));
}

namespace {

using ChannelKey = std::pair<std::string, std::int32_t>;

std::string channel_text(std::string_view topic, std::int32_t partition) {
  return fmt::format("{}/{}", topic, partition);
}

class Diagnoser {
 public:
  Diagnoser(const GateSnapshot& s, const DiagnosisFacts& f) : snap_(s), facts_(f) {
    for (std::size_t i = 0; i < s.channels.size(); ++i) channels_[{s.channels[i].topic, s.channels[i].partition}] = i;
    for (const auto& c : f.channels) chfacts_[{c.topic, c.partition}] = &c;
    for (const auto& l : f.located) located_[{l.topic, l.partition, l.sender, l.seq}] = &l;
    group_ = f.group;
  }

  Diagnosis run() {
    for (std::size_t i = 0; i < snap_.channels.size(); ++i) {
      const auto& ch = snap_.channels[i];
      ChannelDiagnosis d;
      d.topic = ch.topic;
      d.partition = ch.partition;
      d.baseline = ch.baseline;
      d.frontier = ch.frontier;
      d.position = ch.position;
      d.queue_length = ch.queue_length;
      d.failed = ch.failed;
      d.failed_offset = ch.failed_offset;
      if (const auto* cf = facts_for(ch.topic, ch.partition)) {
        d.lso = cf->lso;
        d.log_end = cf->log_end;
        if (cf->lso && cf->log_end && *cf->lso < *cf->log_end) {
          out_.open_transactions.push_back({ch.topic, ch.partition, *cf->lso, *cf->log_end, cf->open_txn_since_ms});
        }
      }
      if (!ch.held.empty()) {
        const auto& head = ch.held.front();
        d.head_offset = head.offset;
        if (facts_.now) d.head_age = *facts_.now - head.received_at;
        std::vector<ClaimView> claims = head.unsatisfied;
        for (auto& c : outside_claims(head)) claims.push_back(std::move(c));
        for (const auto& claim : claims) {
          ClaimDiagnosis cd;
          cd.claim = claim;
          std::vector<std::size_t> path{i};
          cd.root = follow(i, claim, cd.chain, path);
          d.claims.push_back(std::move(cd));
          if (!claim.consumed && is_left_out(facts_.left_out_topics, claim.topic, claim.partition)) {
            out_.ignored_claims.push_back({ch.topic, ch.partition, head.offset, false, claim});
          }
        }
        if (head.unsatisfied.empty()) {
          // A held head with nothing unsatisfied: the snapshot was not taken at a fixpoint.
          Root r;
          r.verdict = Verdict::inconsistent;
          r.held_topic = ch.topic;
          r.held_partition = ch.partition;
          r.held_offset = head.offset;
          r.summary = fmt::format("{} is held with no unsatisfied claim", offset_text(ch.topic, ch.partition, head.offset));
          r.detail = "The snapshot was taken before the gate's cascade reached its fixpoint, or the gate has a bug.";
          ClaimDiagnosis cd;
          cd.chain.push_back({ch.topic, ch.partition, head.offset, {}});
          cd.root = add_root("inconsistent|" + offset_text(ch.topic, ch.partition, head.offset), std::move(r));
          d.claims.push_back(std::move(cd));
        }
      }
      out_.channels.push_back(std::move(d));
    }
    root_failed_channels();
    combine_rewinds();
    for (auto& r : out_.roots) {
      if (r.remedy && r.remedy->kind == Remedy::Kind::rewind) r.stop_first = facts_.members;
      if (r.remedy && std::find(out_.remedies.begin(), out_.remedies.end(), *r.remedy) == out_.remedies.end()) {
        out_.remedies.push_back(*r.remedy);
      }
    }
    out_.left_out_topics = facts_.left_out_topics;
    for (const auto& c : facts_.ignored_claims) out_.ignored_claims.push_back(c);
    advise();
    return std::move(out_);
  }

 private:
  const ChannelSnapshot* find(const std::string& topic, std::int32_t partition) const {
    auto it = channels_.find({topic, partition});
    return it == channels_.end() ? nullptr : &snap_.channels[it->second];
  }
  std::optional<std::size_t> index(const std::string& topic, std::int32_t partition) const {
    auto it = channels_.find({topic, partition});
    if (it == channels_.end()) return std::nullopt;
    return it->second;
  }
  const ChannelFacts* facts_for(const std::string& topic, std::int32_t partition) const {
    auto it = chfacts_.find({topic, partition});
    return it == chfacts_.end() ? nullptr : it->second;
  }

  // The distinct topics of the scope, sorted.
  std::vector<std::string> scope_topics() const {
    std::vector<std::string> topics;
    for (const auto& ch : snap_.channels) topics.push_back(ch.topic);
    std::sort(topics.begin(), topics.end());
    topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
    return topics;
  }
  // Without the group (a snapshot explained without it) no remedy that needs it is given,
  // since one with a placeholder would not run as printed; the detail says so.
  static constexpr std::string_view without_group =
      " Give `group` (the node's consumer group) for the command that does it.";

  // The remedy that explains the scope against the group, with lookups.
  void explain_remedy(Root& r) const {
    if (group_) {
      r.remedy = Remedy{Remedy::Kind::explain, *group_, {}, scope(), 0, std::nullopt};
    } else {
      r.detail += without_group;
    }
  }

  // The scope as the facts name it; by default every topic of the snapshot.
  std::vector<std::string> scope() const { return facts_.scope ? *facts_.scope : scope_topics(); }

  // The head's claims on channels outside the scope, read from its clock: the gate's
  // restrict step drops them from its unsatisfied list, but the diagnosis must show them.
  std::vector<ClaimView> outside_claims(const HeldView& head) const {
    std::vector<ClaimView> out;
    if (!head.clock.is_object()) return out;
    auto add = [&](const nlohmann::json& c, bool seq) {
      if (!c.is_object() || !c.contains("topic") || !c.contains("partition")) return;
      ClaimView v;
      v.kind = seq ? "seq" : "offset";
      v.topic = c["topic"].get<std::string>();
      v.partition = c["partition"].get<std::int32_t>();
      if (index(v.topic, v.partition)) return;  // in scope: the gate's own list has it when unsatisfied
      if (seq) {
        v.sender = c.value("sender", std::string());
        v.seq = c.value("seq", SeqNo{0});
      } else {
        v.offset = c.value("offset", Offset{0});
      }
      v.consumed = false;
      bool listed = std::any_of(head.unsatisfied.begin(), head.unsatisfied.end(), [&](const ClaimView& u) {
        return u.kind == v.kind && u.topic == v.topic && u.partition == v.partition && u.offset == v.offset &&
               u.sender == v.sender && u.seq == v.seq;
      });
      if (!listed) out.push_back(std::move(v));
    };
    if (auto it = head.clock.find("claims"); it != head.clock.end() && it->is_array()) {
      for (const auto& c : *it) add(c, false);
    }
    if (auto it = head.clock.find("seq_claims"); it != head.clock.end() && it->is_array()) {
      for (const auto& c : *it) add(c, true);
    }
    return out;
  }

  // One command for every located frozen claim: per channel, the lowest located send
  // (rewinding there brings every claimed send of the channel back above the baseline).
  // Separate per-root commands would conflict: run in order, the last one wins and
  // leaves the lower sends frozen.
  //
  // The command also covers the frozen claims of records queued behind held heads (sends
  // the tool's lookups located below the baseline that no root waits on): they hold once
  // the records ahead of them are released, so rewinding for the roots alone would leave
  // the group stuck again, one rewind (and one redelivery) later.
  void combine_rewinds() {
    std::map<ChannelKey, Offset> lowest;
    auto lower = [&lowest](const std::string& topic, std::int32_t partition, Offset at) {
      auto [it, fresh] = lowest.emplace(ChannelKey{topic, partition}, at);
      if (!fresh) it->second = std::min(it->second, at);
    };
    std::set<std::tuple<std::string, std::int32_t, std::string, SeqNo>> rooted;
    for (const auto& r : out_.roots) {
      if (r.claim.kind == "seq") rooted.emplace(r.claim.topic, r.claim.partition, r.claim.sender, r.claim.seq);
      if (r.verdict != Verdict::frozen_seq_claim || !r.located_offset) continue;
      lower(r.claim.topic, r.claim.partition, *r.located_offset);
    }
    const bool roots_frozen = !lowest.empty();
    std::string queued;
    for (const auto& l : facts_.located) {
      const ChannelSnapshot* t = find(l.topic, l.partition);
      if (!l.offset || !t || *l.offset >= t->baseline || rooted.contains({l.topic, l.partition, l.sender, l.seq})) continue;
      out_.queued_frozen.push_back(l);
      queued += fmt::format("{}{} sender '{}' send #{} at {}", queued.empty() ? "" : ", ",
                            channel_text(l.topic, l.partition), l.sender, l.seq,
                            offset_text(l.topic, l.partition, *l.offset));
      lower(l.topic, l.partition, *l.offset);
    }
    if (lowest.empty()) return;
    std::optional<Remedy> cmd;  // none without the group: the roots' details say so
    if (group_) {
      cmd = Remedy{Remedy::Kind::rewind, *group_, {}, {}, 0, std::nullopt};
      for (const auto& [k, at] : lowest) cmd->offsets.push_back({k.first, k.second, at});
    }
    for (auto& r : out_.roots) {
      if (r.verdict == Verdict::frozen_seq_claim && r.located_offset) r.remedy = cmd;
    }
    if (queued.empty()) return;
    const std::string frozen = fmt::format(
        "Frozen sequence claims of records queued behind the held heads (they hold once the records ahead of them "
        "are released): {}.",
        queued);
    if (roots_frozen) {
      out_.advice.push_back({frozen + " The frozen claims' remedy rewinds for them too.", std::nullopt});
    } else if (cmd) {
      out_.advice.push_back({frozen + " Rewind for them with: ", cmd});
    } else {
      out_.advice.push_back({frozen + " Give `group` for the command that rewinds for them.", std::nullopt});
    }
  }

  // What a failed_closed root says about channel t, whichever way it was reached.
  void describe_failure(Root& r, const ChannelSnapshot& t) const {
    r.summary = fmt::format("{} failed closed at {}: an undecodable causal.clock header",
                            channel_text(t.topic, t.partition), offset_text(t.topic, t.partition, *t.failed_offset));
    r.detail = "Nothing at or after an undecodable header is delivered on its channel (fail closed). Inspect the header; "
               "the producer that wrote it must be fixed, and the record skipped only by an operator decision.";
    r.remedy = Remedy{Remedy::Kind::decode, {}, {{t.topic, t.partition, *t.failed_offset}}, {}, 0, std::nullopt};
  }

  // A channel that failed closed delivers nothing at or after the undecodable record, whether
  // or not a held head waits on it, so the gate does not drain: the failure is a root of its
  // own (claim null, held = the record that failed), unless a chain already ends there.
  void root_failed_channels() {
    for (std::size_t i = 0; i < snap_.channels.size(); ++i) {
      const auto& ch = snap_.channels[i];
      if (!ch.failed || !ch.failed_offset) continue;
      const bool reached = std::any_of(out_.roots.begin(), out_.roots.end(), [&](const Root& r) {
        return r.verdict == Verdict::failed_closed && r.claim.topic == ch.topic && r.claim.partition == ch.partition;
      });
      if (reached) continue;
      Root r;
      r.verdict = Verdict::failed_closed;
      r.held_topic = ch.topic;
      r.held_partition = ch.partition;
      r.held_offset = *ch.failed_offset;
      r.baseline = ch.baseline;
      if (const auto* cf = facts_for(ch.topic, ch.partition)) {
        r.lso = cf->lso;
        r.log_end = cf->log_end;
      }
      describe_failure(r, ch);
      const std::size_t root = add_root("failed_closed|" + offset_text(ch.topic, ch.partition, *ch.failed_offset), std::move(r));
      if (!ch.held.empty()) continue;  // the head's claims are its chains; the root stands alone
      ClaimDiagnosis cd;
      cd.chain.push_back({ch.topic, ch.partition, *ch.failed_offset, {}});
      cd.root = root;
      out_.channels[i].claims.push_back(std::move(cd));
    }
  }

  std::size_t add_root(const std::string& key, Root r) {
    if (auto it = roots_.find(key); it != roots_.end()) return it->second;
    out_.roots.push_back(std::move(r));
    roots_[key] = out_.roots.size() - 1;
    return out_.roots.size() - 1;
  }

  Root root_at(const ChannelSnapshot& held_on, Offset held_offset, const ClaimView& claim, Verdict v) const {
    Root r;
    r.verdict = v;
    r.claim = claim;
    r.held_topic = held_on.topic;
    r.held_partition = held_on.partition;
    r.held_offset = held_offset;
    if (const auto* t = find(claim.topic, claim.partition)) r.baseline = t->baseline;
    if (const auto* cf = facts_for(claim.topic, claim.partition)) {
      r.lso = cf->lso;
      r.log_end = cf->log_end;
      if (cf->lso && cf->log_end && *cf->lso < *cf->log_end) r.open_txn_since_ms = cf->open_txn_since_ms;
    }
    return r;
  }

  static std::string key_of(Verdict v, const ClaimView& c, std::optional<Offset> awaited) {
    return fmt::format("{}|{}|{}|{}|{}|{}|{}", to_string(v), c.kind, c.topic, c.partition, c.kind == "seq" ? c.sender : "",
                       c.kind == "seq" ? static_cast<std::int64_t>(c.seq) : c.offset, awaited.value_or(-2));
  }

  // Follows `claim` of the head of channel `from`, appending hops to `chain`. Returns the
  // root index. `path` holds the channels whose heads the chain has visited.
  std::size_t follow(std::size_t from, const ClaimView& claim, std::vector<WaitStep>& chain,
                     std::vector<std::size_t>& path) {
    const auto& src = snap_.channels[from];
    const Offset head_offset = src.held.front().offset;
    chain.push_back({src.topic, src.partition, head_offset, claim});

    auto ti = index(claim.topic, claim.partition);
    if (!claim.consumed || !ti) {
      Root r = root_at(src, head_offset, claim, Verdict::outside_scope);
      r.summary = fmt::format("{} claims {}, a channel outside the scope", offset_text(src.topic, src.partition, head_offset),
                              claim_text(claim));
      r.detail = fmt::format(
          "The gate ignores claims on channels it does not consume (the restrict step), so this claim holds nothing. "
          "If the node does consume {}, include it (`topic` {}) and explain again.",
          channel_text(claim.topic, claim.partition), claim.topic);
      return add_root(key_of(Verdict::outside_scope, claim, std::nullopt), std::move(r));
    }
    const auto& t = snap_.channels[*ti];

    std::optional<Offset> awaited;
    std::optional<Offset> located;
    if (claim.kind == "seq") {
      auto lit = located_.find({claim.topic, claim.partition, claim.sender, claim.seq});
      const LocatedSend* loc = lit == located_.end() ? nullptr : lit->second;
      if (loc && loc->offset) {
        located = loc->offset;
        if (*loc->offset < t.baseline) return frozen(src, head_offset, claim, t, *loc->offset);
        awaited = loc->offset;
      } else if (loc) {
        return not_found(src, head_offset, claim, t, *loc);
      } else {
        // No lookup. Is the send among the records received on t?
        bool presence = std::any_of(t.delivered_seq.begin(), t.delivered_seq.end(),
                                    [&](const auto& e) { return e.first == claim.sender; });
        std::optional<Offset> later;  // a received record of S on t with a higher send number
        for (const auto& h : t.held) {
          if (h.origin_sender && *h.origin_sender == claim.sender) {
            presence = true;
            if (h.origin_seq && *h.origin_seq == claim.seq) awaited = h.offset;
            if (h.origin_seq && *h.origin_seq > claim.seq && !later) later = h.offset;
          }
        }
        if (!presence) {
          // Nothing of t lies below its baseline (it starts at the log start): the send
          // cannot be frozen there, so no lookup is needed to say it is not in the log.
          const auto* cf = facts_for(t.topic, t.partition);
          if (cf && cf->log_start && t.baseline <= *cf->log_start) {
            return not_found(src, head_offset, claim, t,
                             LocatedSend{claim.topic, claim.partition, claim.sender, claim.seq, std::nullopt,
                                         t.baseline, t.baseline, std::nullopt});
          }
          return suspected_frozen(src, head_offset, claim, t);
        }
        // A sender's sends reach a channel in send-number order, so send q sits below S's
        // later record; undelivered below a held head means below the baseline.
        if (!awaited && later) return frozen_inferred(src, head_offset, claim, t, *later);
      }
    } else {
      awaited = claim.offset;
    }

    if (t.failed && t.failed_offset && (!awaited || *t.failed_offset <= *awaited)) {
      Root r = root_at(src, head_offset, claim, Verdict::failed_closed);
      r.awaited_offset = awaited;
      r.located_offset = located;
      describe_failure(r, t);
      return add_root(key_of(Verdict::failed_closed, claim, awaited), std::move(r));
    }

    // Does the wait continue at t's head?
    if (!t.held.empty() && (!awaited || t.held.front().offset <= *awaited)) {
      if (auto at = std::find(path.begin(), path.end(), *ti); at != path.end()) {
        // One root per cycle, whichever of its channels the walk entered it from: keyed by
        // the cycle's channels in a fixed order, not by the claim that closed it.
        std::vector<std::size_t> members(at, path.end());
        std::sort(members.begin(), members.end());
        std::string cycle_key = "cycle";
        for (auto m : members) cycle_key += "|" + channel_text(snap_.channels[m].topic, snap_.channels[m].partition);
        if (auto it = roots_.find(cycle_key); it != roots_.end()) return it->second;
        Root r = root_at(src, head_offset, claim, Verdict::cycle);
        for (auto p : path) r.cycle.push_back(channel_text(snap_.channels[p].topic, snap_.channels[p].partition));
        r.cycle.push_back(channel_text(t.topic, t.partition));
        r.summary = fmt::format("wait cycle through {} channels: a claim on a later append, or a bug", path.size());
        r.detail = "A claim the protocol makes names a record appended before the claiming one, so every wait edge points "
                   "to an earlier append and no cycle can form (liveness, \"Why over-claims cannot deadlock\"). One on "
                   "this cycle does not: a claim written by hand on an offset not yet appended (produce's claims field, "
                   "encode), or a bug. Check the claims on the cycle with causal decode; if the stamper made them, "
                   "report this output.";
        return add_root(cycle_key, std::move(r));
      }
      const auto& next_head = t.held.front();
      if (next_head.unsatisfied.empty()) {
        Root r = root_at(t, next_head.offset, claim, Verdict::inconsistent);
        r.summary = fmt::format("{} is held with no unsatisfied claim", offset_text(t.topic, t.partition, next_head.offset));
        r.detail = "The snapshot was taken before the gate's cascade reached its fixpoint, or the gate has a bug.";
        chain.push_back({t.topic, t.partition, next_head.offset, {}});
        return add_root("inconsistent|" + offset_text(t.topic, t.partition, next_head.offset), std::move(r));
      }
      path.push_back(*ti);
      return follow(*ti, next_head.unsatisfied.front(), chain, path);
    }

    if (!awaited) {
      // A seq claim whose sender is present on t, the send itself not received, t's queue
      // empty: it is above everything received, so classify at the next offset to receive.
      awaited = t.frontier + 1;
    }
    return classify(src, head_offset, claim, t, *awaited, located);
  }

  std::size_t frozen(const ChannelSnapshot& src, Offset head_offset, const ClaimView& claim, const ChannelSnapshot& t,
                     Offset at) {
    Root r = root_at(src, head_offset, claim, Verdict::frozen_seq_claim);
    r.located_offset = at;
    r.awaited_offset = at;
    r.summary = fmt::format("frozen sequence claim: {} waits on sender '{}' send #{} to {}, which sits at {}, below the "
                            "baseline {}",
                            offset_text(src.topic, src.partition, head_offset), claim.sender, claim.seq,
                            channel_text(t.topic, t.partition), offset_text(t.topic, t.partition, at), t.baseline);
    r.detail = fmt::format(
        "The consumer started {} at {}, above the claimed send, so it never receives it (protocol.md, \"Late joiners "
        "and frozen claims\"). Modelled here: a consumer WITHOUT lookups (`lookups=false`, or a node that does "
        "not implement them), which stays held. A consumer WITH lookups (causal tail, the library's ConsumerHost with "
        "lookups on) locates the send below its baseline, accounts for the claim and drains. Rewinding {} to {} "
        "or below makes the send arrive (the records of {} from there up to {} inclusive are delivered again).",
        channel_text(t.topic, t.partition), t.baseline, channel_text(t.topic, t.partition), at,
        channel_text(t.topic, t.partition), t.baseline - 1);
    r.drains_with_lookups = true;
    // The command itself is set by combine_rewinds (one for every frozen root).
    if (!group_) r.detail += without_group;
    return add_root(key_of(Verdict::frozen_seq_claim, claim, at), std::move(r));
  }

  std::size_t frozen_inferred(const ChannelSnapshot& src, Offset head_offset, const ClaimView& claim,
                              const ChannelSnapshot& t, Offset later) {
    Root r = root_at(src, head_offset, claim, Verdict::frozen_seq_claim);
    r.summary = fmt::format("frozen sequence claim: {} waits on sender '{}' send #{} to {}, which sits below the "
                            "baseline {} (the sender's later send is at {})",
                            offset_text(src.topic, src.partition, head_offset), claim.sender, claim.seq,
                            channel_text(t.topic, t.partition), t.baseline, offset_text(t.topic, t.partition, later));
    r.detail = "A sender's sends reach a channel in send-number order, so the claimed send sits below its later one; "
               "it was never delivered here, so it sits below the baseline. Modelled here: a consumer without lookups, "
               "which stays held; a consumer with lookups drains if the send is still in the log. Locate it (a lookup) "
               "to get the offset to rewind to.";
    explain_remedy(r);
    return add_root(key_of(Verdict::frozen_seq_claim, claim, std::nullopt), std::move(r));
  }

  std::size_t suspected_frozen(const ChannelSnapshot& src, Offset head_offset, const ClaimView& claim,
                               const ChannelSnapshot& t) {
    Root r = root_at(src, head_offset, claim, Verdict::suspected_frozen_seq_claim);
    r.summary = fmt::format("suspected frozen sequence claim: {} waits on sender '{}' send #{} to {}, and '{}' has no "
                            "record on {} since the baseline {}",
                            offset_text(src.topic, src.partition, head_offset), claim.sender, claim.seq,
                            channel_text(t.topic, t.partition), claim.sender, channel_text(t.topic, t.partition),
                            t.baseline);
    r.detail = "No lookup located the send. If it sits below the baseline the claim is frozen; if it is not yet "
               "appended it will arrive. A lookup (scanning the channel for the sender's origin) decides which.";
    explain_remedy(r);
    return add_root(key_of(Verdict::suspected_frozen_seq_claim, claim, std::nullopt), std::move(r));
  }

  std::size_t not_found(const ChannelSnapshot& src, Offset head_offset, const ClaimView& claim, const ChannelSnapshot& t,
                        const LocatedSend& loc) {
    const auto* cf = facts_for(t.topic, t.partition);
    const std::string scanned =
        loc.scanned_from < loc.scanned_to
            ? fmt::format(" (scanned offsets [{}, {}))", loc.scanned_from, loc.scanned_to)
            : fmt::format(" (nothing lies below the baseline {}, the log start: nothing to scan)", t.baseline);
    // The send was appended before the claim became visible, so it is in the log unless
    // retention removed it or it is in a transaction still open. Not finding it proves
    // something only when the scan covered everything from the log start to the baseline.
    const bool complete = !cf || !cf->log_start || (loc.scanned_from <= *cf->log_start && loc.scanned_to >= t.baseline);
    if (!complete) {
      // What the scan left out: below it (it stopped short of the log start: the window and
      // how far a miss widens it, kafka::ExplainOptions::lookup_max_offsets), above it (it
      // ran out of time, replay_timeout_ms, before the baseline), or both.
      const Offset log_start = *cf->log_start;
      const bool below = loc.scanned_from > log_start;
      const bool above = loc.scanned_to < t.baseline;
      std::string shortfall;
      if (below && above) {
        shortfall = fmt::format("a scan that reached neither the log start {} nor, out of time, the baseline {}",
                                log_start, t.baseline);
      } else if (above) {
        shortfall = fmt::format("a scan that ran out of time short of the baseline {}", t.baseline);
      } else {
        shortfall = fmt::format("a scan that stopped short of the log start {}", log_start);
      }
      std::string unscanned;
      if (below) unscanned = fmt::format("[{}, {})", log_start, loc.scanned_from);
      if (above) unscanned += fmt::format("{}[{}, {})", below ? " or " : "", loc.scanned_to, t.baseline);
      Root r = root_at(src, head_offset, claim, Verdict::send_not_located);
      r.summary = fmt::format("send not located: {} waits on sender '{}' send #{} to {}, not found in offsets [{}, {}) "
                              "of {}, {}",
                              offset_text(src.topic, src.partition, head_offset), claim.sender, claim.seq,
                              channel_text(t.topic, t.partition), loc.scanned_from, loc.scanned_to,
                              channel_text(t.topic, t.partition), shortfall);
      r.detail = fmt::format(
          "The send was appended before the claim became visible, so it is most likely in the offsets not scanned, "
          "{}, below the baseline {}: a frozen claim (a consumer without lookups stays held; one with lookups "
          "drains). Search further with the remedy to locate it and get the offset to rewind to.",
          unscanned, t.baseline);
      r.remedy = loc.search_further;
      return add_root(key_of(r.verdict, claim, std::nullopt), std::move(r));
    }
    bool open = cf && cf->lso && cf->log_end && *cf->lso < *cf->log_end;
    // Records below a log start above 0 were deleted, and compaction removes records from
    // anywhere below the active segment: the send may have been one of them.
    const bool below_start = cf && cf->log_start && *cf->log_start > 0;
    const bool compacted = cf && cf->compacted.value_or(false);
    bool trimmed = !open && (below_start || compacted);
    Root r = root_at(src, head_offset, claim,
                     open ? Verdict::open_transaction : trimmed ? Verdict::send_not_in_log : Verdict::not_appended);
    r.drains_with_lookups = false;
    if (open) {
      r.awaited_offset = cf->lso;
      r.summary = fmt::format("open transaction on {}: {} waits on sender '{}' send #{}, not found below the LSO {}{}",
                              channel_text(t.topic, t.partition), offset_text(src.topic, src.partition, head_offset),
                              claim.sender, claim.seq, *cf->lso, scanned);
      r.detail = fmt::format("A transaction open on {} pins its last stable offset at {} (high watermark {}){}; the send "
                             "is presumably inside it and arrives when it commits.",
                             channel_text(t.topic, t.partition), *cf->lso, *cf->log_end,
                             r.open_txn_since_ms ? fmt::format(" since {} (the timestamp of its first record there)",
                                                               utc_text(*r.open_txn_since_ms))
                                                 : "");
    } else if (trimmed) {
      r.summary = fmt::format("send not in log: {} waits on sender '{}' send #{} to {}, not found from the log start {} "
                              "to the baseline{}",
                              offset_text(src.topic, src.partition, head_offset), claim.sender, claim.seq,
                              channel_text(t.topic, t.partition), *cf->log_start, scanned);
      const std::string removed =
          below_start && compacted
              ? fmt::format("The log of {} starts at {}: the records below it were deleted (retention, DeleteRecords); "
                            "its topic is also compacted (cleanup.policy {}), which removes a record whose key a later "
                            "record has, from anywhere in the log.",
                            channel_text(t.topic, t.partition), *cf->log_start, "compact")
          : below_start
              ? fmt::format("The log of {} starts at {}: the records below it were deleted (retention, DeleteRecords).",
                            channel_text(t.topic, t.partition), *cf->log_start)
              : fmt::format("The topic of {} is compacted (cleanup.policy compact): compaction removes a record whose "
                            "key a later record has, from anywhere in the log.",
                            channel_text(t.topic, t.partition));
      r.detail = fmt::format(
          "{} If the send was one of those removed it never arrives, and the record stays held in every consumer, "
          "with lookups or without; if it is not written yet, the record is held until it is. Ask the sender whether "
          "it wrote send #{} to {}.",
          removed, claim.seq, channel_text(t.topic, t.partition));
    } else {
      r.summary = fmt::format("not appended: {} waits on sender '{}' send #{} to {}, not found on the channel{}",
                              offset_text(src.topic, src.partition, head_offset), claim.sender, claim.seq,
                              channel_text(t.topic, t.partition), scanned);
      r.detail = "The claimed send is not in the log yet; the record is held until it is written.";
    }
    return add_root(key_of(r.verdict, claim, std::nullopt), std::move(r));
  }

  // The record at `n` of t was never received here.
  std::size_t classify(const ChannelSnapshot& src, Offset head_offset, const ClaimView& claim, const ChannelSnapshot& t,
                       Offset n, std::optional<Offset> located) {
    const auto* cf = facts_for(t.topic, t.partition);
    Verdict v = Verdict::not_received;
    if (cf && cf->log_end && n >= *cf->log_end) {
      v = Verdict::not_appended;
    } else if (cf && cf->lso && n >= *cf->lso) {
      v = Verdict::open_transaction;
    } else if (cf && cf->lso) {
      v = cf->caught_up ? Verdict::trailing_skip : Verdict::unfetched;
    }
    Root r = root_at(src, head_offset, claim, v);
    r.awaited_offset = n;
    r.located_offset = located;
    if (v != Verdict::not_received) r.drains_with_lookups = false;
    const std::string who = offset_text(src.topic, src.partition, head_offset);
    const std::string what = claim.kind == "seq" ? fmt::format("sender '{}' send #{} at {}", claim.sender, claim.seq,
                                                               offset_text(t.topic, t.partition, n))
                                                 : offset_text(t.topic, t.partition, n);
    switch (v) {
      case Verdict::not_appended:
        r.summary = fmt::format("not appended: {} waits on {}, beyond the log end {}", who, what, *cf->log_end);
        r.detail = "The awaited record has not been written yet; the head is held until it is.";
        break;
      case Verdict::open_transaction:
        r.summary = fmt::format("open transaction on {}: {} waits on {}, at or above the LSO {} (high watermark {})",
                                channel_text(t.topic, t.partition), who, what, *cf->lso,
                                cf->log_end ? fmt::format("{}", *cf->log_end) : std::string("unknown"));
        r.detail = fmt::format(
            "A transaction still open on {} pins its last stable offset at {}{}; a read_committed consumer sees nothing "
            "at or above it until the transaction commits or aborts (at most transaction.timeout.ms).",
            channel_text(t.topic, t.partition), *cf->lso,
            r.open_txn_since_ms ? fmt::format(" since {} (the timestamp of its first record there)",
                                              utc_text(*r.open_txn_since_ms))
                                : "");
        break;
      case Verdict::trailing_skip:
        r.summary = fmt::format("trailing skip: {} waits on {}, below the LSO {} with nothing left to fetch", who, what,
                                *cf->lso);
        r.detail = "Everything below the LSO was fetched; the awaited offset is a transaction marker or aborted record. "
                   "The consumer's next position advance closes it (keep polling).";
        break;
      case Verdict::unfetched:
        r.summary = fmt::format("unfetched: {} waits on {}, below the LSO {} and not fetched yet", who, what, *cf->lso);
        r.detail = "The consumer has not read that far; it is released as consumption continues.";
        break;
      default:
        r.summary = fmt::format("not received: {} waits on {}", who, what);
        r.detail = "No log facts (LSO, high watermark) were given for the channel; explain against the group "
                   "(`group`) to tell an open transaction from a record not yet written.";
        explain_remedy(r);
        break;
    }
    return add_root(key_of(v, claim, n), std::move(r));
  }

  void advise() {
    bool frozen = std::any_of(out_.roots.begin(), out_.roots.end(), [](const Root& r) {
      return r.verdict == Verdict::frozen_seq_claim || r.verdict == Verdict::suspected_frozen_seq_claim;
    });
    if (frozen) {
      // Every topic of the scope: a joiner of this node consumes them all, and a baseline
      // written for the frozen claim's topic alone would leave the others at the group's
      // default start.
      out_.advice.push_back({"Late joiners still to start: baseline them at the last stable offset, not the log end: ",
                             Remedy{Remedy::Kind::start_joiners, {}, {}, scope_topics(), 0, std::nullopt}});
    }
    if (std::any_of(out_.roots.begin(), out_.roots.end(), [](const Root& r) { return r.verdict == Verdict::cycle; })) {
      out_.advice.push_back(
          {"A wait cycle needs a claim on a record appended after the claiming one: a claim written by hand (produce's "
          "claims field, encode), or a bug in the gate or a stamper; if no claim on it was written by hand, please "
          "report it with this output.",
           std::nullopt});
    }
  }

  const GateSnapshot& snap_;
  const DiagnosisFacts& facts_;
  std::optional<std::string> group_;  // none for a snapshot explained without the group
  std::map<ChannelKey, std::size_t> channels_;
  std::map<ChannelKey, const ChannelFacts*> chfacts_;
  std::map<std::tuple<std::string, std::int32_t, std::string, SeqNo>, const LocatedSend*> located_;
  std::map<std::string, std::size_t> roots_;
  Diagnosis out_;
};

}  // namespace

Diagnosis diagnose(const GateSnapshot& snapshot, const DiagnosisFacts& facts) {
  return Diagnoser(snapshot, facts).run();
}

}  // namespace causal

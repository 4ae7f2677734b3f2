#include <fmt/core.h>

#include "explain_render.hpp"
#include "option_words.hpp"
#include "remedy_command.hpp"

namespace causal::cli {

namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A claim; null when there is none (an inconsistent head waits on nothing).
nlohmann::json claim_json(const ClaimView& c) {
  if (c.kind.empty()) return nullptr;
  nlohmann::json j{{"kind", c.kind}, {"topic", c.topic}, {"partition", c.partition}};
  if (c.kind == "seq") {
    j["sender"] = c.sender;
    j["seq"] = c.seq;
  } else {
    j["offset"] = c.offset;
  }
  j["consumed"] = c.consumed;
  return j;
}

}  // namespace

nlohmann::json members_json(const std::vector<MemberFact>& members) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : members) {
    nlohmann::json assignment = nlohmann::json::array();
    for (const auto& p : m.assignment) assignment.push_back({{"topic", p.topic}, {"partition", p.partition}});
    out.push_back({{"member_id", m.member_id}, {"client_id", m.client_id}, {"host", m.host}, {"assignment", assignment}});
  }
  return out;
}

nlohmann::json explain_json(const Diagnosis& d, const ExplainWords& words) {
  nlohmann::json roots = nlohmann::json::array();
  for (std::size_t i = 0; i < d.roots.size(); ++i) {
    const auto& r = d.roots[i];
    roots.push_back({
        {"id", i},
        {"verdict", to_string(r.verdict)},
        {"blocks", blocks(r.verdict)},
        {"summary", r.summary},
        {"detail", with_option_words(r.detail)},
        {"remedy", r.remedy ? nlohmann::json(remedy_command(*r.remedy, words.connection)) : nlohmann::json(nullptr)},
        {"claim", claim_json(r.claim)},
        {"held", {{"topic", r.held_topic}, {"partition", r.held_partition}, {"offset", r.held_offset}}},
        {"awaited_offset", opt(r.awaited_offset)},
        {"located_offset", opt(r.located_offset)},
        {"baseline", opt(r.baseline)},
        {"lso", opt(r.lso)},
        {"high_watermark", opt(r.log_end)},
        {"open_txn_since_ms", opt(r.open_txn_since_ms)},
        {"cycle", r.cycle},
        {"stop_first", members_json(r.stop_first)},
        {"drains_with_lookups", opt(r.drains_with_lookups)},
    });
  }
  nlohmann::json remedies = nlohmann::json::array();
  for (const auto& r : d.remedies) remedies.push_back(remedy_command(r, words.connection));
  nlohmann::json channels = nlohmann::json::array();
  for (const auto& c : d.channels) {
    nlohmann::json claims = nlohmann::json::array();
    for (const auto& cd : c.claims) {
      nlohmann::json chain = nlohmann::json::array();
      for (const auto& s : cd.chain) {
        chain.push_back({{"topic", s.topic}, {"partition", s.partition}, {"head_offset", s.head_offset},
                         {"claim", claim_json(s.claim)}});
      }
      claims.push_back({{"claim", claim_json(cd.claim)}, {"root", cd.root}, {"chain", chain}});
    }
    channels.push_back({
        {"topic", c.topic},
        {"partition", c.partition},
        {"baseline", c.baseline},
        {"frontier", c.frontier},
        {"position", opt(c.position)},
        {"queue_length", c.queue_length},
        {"head_offset", opt(c.head_offset)},
        {"head_age_ms", opt(c.head_age)},
        {"lso", opt(c.lso)},
        {"high_watermark", opt(c.log_end)},
        {"failed", c.failed},
        {"failed_offset", opt(c.failed_offset)},
        {"claims", claims},
    });
  }
  nlohmann::json ignored = nlohmann::json::array();
  for (const auto& c : d.ignored_claims) {
    ignored.push_back({{"topic", c.topic}, {"partition", c.partition}, {"offset", c.offset}, {"delivered", c.delivered},
                       {"claim", claim_json(c.claim)}});
  }
  nlohmann::json open = nlohmann::json::array();
  for (const auto& t : d.open_transactions) {
    open.push_back({{"topic", t.topic}, {"partition", t.partition}, {"lso", t.lso}, {"high_watermark", t.log_end},
                    {"open_txn_since_ms", opt(t.since_ms)}});
  }
  nlohmann::json queued = nlohmann::json::array();
  for (const auto& l : d.queued_frozen) {
    queued.push_back({{"topic", l.topic}, {"partition", l.partition}, {"sender", l.sender}, {"seq", l.seq},
                      {"located_offset", opt(l.offset)}});
  }
  return {{"version", 1},
          {"stuck", d.stuck()},
          {"undecided", d.undecided()},
          {"summary", summary_line(d)},
          {"held_channels", d.held_channels()},
          {"roots", roots},
          {"remedies", remedies},
          {"channels", channels},
          {"advice", advice_lines(d, words)},
          {"left_out_topics", d.left_out_topics},
          {"ignored_claims", ignored},
          {"queued_frozen", queued},
          {"open_transactions", open}};
}

}  // namespace causal::cli

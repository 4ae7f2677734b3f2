#include <fmt/core.h>

#include "explain_render.hpp"
#include "option_words.hpp"
#include "remedy_command.hpp"

namespace causal::cli {

namespace {

std::string channel_text(std::string_view topic, std::int32_t partition) {
  return fmt::format("{}/{}", topic, partition);
}

std::string age_text(std::int64_t ms) {
  if (ms < 0) return "0s";
  if (ms < 1000) return fmt::format("{}ms", ms);
  if (ms < 60'000) return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
  if (ms < 3'600'000) return fmt::format("{}m{}s", ms / 60'000, (ms / 1000) % 60);
  return fmt::format("{}h{}m", ms / 3'600'000, (ms / 60'000) % 60);
}

std::string verdict_label(Verdict v) {
  switch (v) {
    case Verdict::not_appended: return "NOT APPENDED";
    case Verdict::open_transaction: return "OPEN TRANSACTION";
    case Verdict::trailing_skip: return "TRAILING SKIP";
    case Verdict::unfetched: return "UNFETCHED";
    case Verdict::not_received: return "NOT RECEIVED";
    case Verdict::frozen_seq_claim: return "FROZEN SEQUENCE CLAIM";
    case Verdict::send_not_located: return "SEND NOT LOCATED";
    case Verdict::send_not_in_log: return "SEND NOT IN LOG";
    case Verdict::suspected_frozen_seq_claim: return "SUSPECTED FROZEN SEQUENCE CLAIM";
    case Verdict::outside_scope: return "OUTSIDE SCOPE";
    case Verdict::failed_closed: return "FAILED CLOSED";
    case Verdict::cycle: return "WAIT CYCLE (BUG)";
    case Verdict::inconsistent: return "INCONSISTENT SNAPSHOT";
  }
  return "?";
}

// ", assigned t/0, t/1" (", assigned nothing" for a member that holds no partition).
std::string assignment_text(const std::vector<MemberFact::Partition>& assignment) {
  std::string out;
  for (const auto& p : assignment) out += (out.empty() ? "" : ", ") + channel_text(p.topic, p.partition);
  return ", assigned " + (out.empty() ? std::string("nothing") : out);
}

}  // namespace

std::string explain_text(const Diagnosis& d, const ExplainWords& words) {
  std::string out = summary_line(d) + "\n";
  for (std::size_t i = 0; i < d.roots.size(); ++i) {
    const auto& r = d.roots[i];
    out += fmt::format("\n[{}] {}{}\n    {}\n    {}\n", i + 1, verdict_label(r.verdict),
                       blocks(r.verdict) ? "" : " (does not block)", r.summary,
                       with_option_words(r.detail));
    if (r.remedy) out += fmt::format("    remedy: {}\n", remedy_command(*r.remedy, words.connection));
    if (!r.stop_first.empty()) {
      out += fmt::format("    stop these {} member(s) of the group first (baseline --apply refuses while it has any):\n",
                         r.stop_first.size());
      for (const auto& m : r.stop_first) {
        out += fmt::format("      client {} on host {} (member {}){}\n", m.client_id, m.host, m.member_id,
                           assignment_text(m.assignment));
      }
    }
  }
  if (!d.ignored_claims.empty()) {
    out += "\nignored claims on left-out topics (a consumer of those topics would wait on them):\n";
    for (const auto& c : d.ignored_claims) {
      out += fmt::format("  {} claims {}{}\n", offset_text(c.topic, c.partition, c.offset), claim_text(c.claim),
                         c.delivered ? " (delivered by the replay, which ignored the claim)" : "");
    }
  }
  if (!d.open_transactions.empty()) {
    out += "\nopen transactions (nothing of these channels at or past the LSO is read until they commit or abort):\n";
    for (const auto& t : d.open_transactions) {
      out += fmt::format("  {}: LSO {}, high watermark {} ({} offset(s) held back){}\n", channel_text(t.topic, t.partition),
                         t.lso, t.log_end, t.log_end - t.lso,
                         t.since_ms ? fmt::format(", open since {} (the timestamp of its first record there)",
                                                  utc_text(*t.since_ms))
                                    : std::string());
    }
  }
  for (const auto& a : advice_lines(d, words)) out += fmt::format("\nadvice: {}\n", a);
  out += "\nchannels:\n";
  for (const auto& c : d.channels) {
    out += fmt::format("  {:<24} baseline {:<8} frontier {:<8}", channel_text(c.topic, c.partition), c.baseline,
                       c.frontier);
    if (c.position) out += fmt::format(" position {}", *c.position);
    if (c.lso) out += fmt::format(" lso {}", *c.lso);
    if (c.log_end) out += fmt::format(" high_watermark {}", *c.log_end);
    if (c.failed) out += fmt::format(" FAILED CLOSED at {}", c.failed_offset.value_or(-1));
    if (!c.head_offset) {
      out += "  nothing held";
      // A failed channel's own root: it delivers nothing at or after the failed record.
      for (const auto& cd : c.claims) out += fmt::format(", delivers nothing more -> root [{}]", cd.root + 1);
      out += "\n";
      continue;
    }
    out += fmt::format("\n    head {} held{}, {} record(s) queued\n", *c.head_offset,
                       c.head_age ? " for " + age_text(*c.head_age) : std::string(), c.queue_length);
    for (const auto& cd : c.claims) {
      out += fmt::format("    waits on {} -> root [{}]\n", cd.claim.kind.empty() ? "nothing" : claim_text(cd.claim),
                         cd.root + 1);
      if (cd.chain.size() > 1) {
        std::string chain;
        for (const auto& s : cd.chain) {
          chain += fmt::format("{}{} (waits on {})", chain.empty() ? "" : " -> ",
                               offset_text(s.topic, s.partition, s.head_offset), claim_text(s.claim));
        }
        out += fmt::format("      chain: {}\n", chain);
      }
    }
  }
  return out;
}

}  // namespace causal::cli

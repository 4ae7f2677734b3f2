#include <algorithm>

#include <fmt/core.h>

#include "explain_render.hpp"
#include "remedy_command.hpp"

namespace causal::cli {

namespace {

// The left-out topics (or "T/P" channels, as left out) the ignored claims name.
std::string topics_text(const Diagnosis& d) {
  std::vector<std::string> topics;
  for (const auto& c : d.ignored_claims) {
    std::string channel = fmt::format("{}/{}", c.claim.topic, c.claim.partition);
    const bool by_channel =
        std::find(d.left_out_topics.begin(), d.left_out_topics.end(), channel) != d.left_out_topics.end();
    std::string name = by_channel ? channel : c.claim.topic;
    if (std::find(topics.begin(), topics.end(), name) == topics.end()) topics.push_back(std::move(name));
  }
  std::string out;
  for (const auto& t : topics) out += (out.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace

std::string summary_line(const Diagnosis& d) {
  std::size_t blocking = static_cast<std::size_t>(
      std::count_if(d.roots.begin(), d.roots.end(), [](const Root& r) { return blocks(r.verdict); }));
  if (d.undecided()) {
    // "not stuck" would be false for the node if it consumes the left-out topics.
    return fmt::format("undecided: nothing held on {} channel(s) by a consumer of only the named topics, but {} "
                       "claim(s) on {} (committed by the group, left out of the scope) were ignored; name it with "
                       "--topic and explain again",
                       d.channels.size(), d.ignored_claims.size(), topics_text(d));
  }
  // Said whether or not anything is held: a node caught up to a pinned LSO lags all the same.
  const std::string pinned =
      d.open_transactions.empty()
          ? std::string()
          : fmt::format("; a transaction still open pins the LSO of {} channel(s) (open transactions:)",
                        d.open_transactions.size());
  if (!d.stuck()) {
    return fmt::format("not stuck: nothing held on {} channel(s); the gate would drain{}", d.channels.size(), pinned);
  }
  std::string line = fmt::format("stuck: {} of {} channel(s) hold records", d.held_channels(), d.channels.size());
  if (d.failed_channels() > 0) line += fmt::format(", {} failed closed", d.failed_channels());
  line += fmt::format("; {} root cause(s)", blocking);
  if (!d.ignored_claims.empty()) {
    line += fmt::format("; {} claim(s) on left-out {} ignored", d.ignored_claims.size(), topics_text(d));
  }
  return line + pinned;
}

std::vector<std::string> advice_lines(const Diagnosis& d, const ExplainWords& words) {
  std::vector<std::string> out;
  for (const auto& a : d.advice) out.push_back(advice_text(a, words.connection));
  out.insert(out.end(), words.extra_advice.begin(), words.extra_advice.end());
  return out;
}

}  // namespace causal::cli

// Start positions and the --from rules that give each channel one: parsing, checking and
// choosing (consumer_host.hpp, StartPosition and StartRule).
#include <charconv>
#include <map>
#include <string_view>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "consumer_host_impl.hpp"

namespace causal::kafka {

std::expected<StartPosition, Error> parse_start_position(std::string_view text) {
  using K = StartPosition::Kind;
  if (text == "beginning" || text == "earliest" || text == "start") return StartPosition{K::beginning, 0};
  if (text == "end" || text == "latest") return StartPosition{K::end, 0};
  if (text == "lso" || text == "stable") return StartPosition{K::lso, 0};
  if (text == "committed") return StartPosition{K::committed, 0};
  bool neg = !text.empty() && text.front() == '-';
  std::string_view digits = neg ? text.substr(1) : text;
  Offset v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || v < 0) {
    return std::unexpected(usage_error(
        fmt::format("`start` {}: expected beginning, end, lso, committed, an offset, or -N (N records before the end)",
                    quoted_excerpt(text)),
        "start"));
  }
  return neg ? StartPosition{K::from_end, v} : StartPosition{K::offset, v};
}

std::string to_string(const StartPosition& p) {
  using K = StartPosition::Kind;
  switch (p.kind) {
    case K::beginning: return "beginning";
    case K::end: return "end";
    case K::lso: return "lso";
    case K::committed: return "committed";
    case K::offset: return std::to_string(p.value);
    case K::from_end: return "-" + std::to_string(p.value);
  }
  return "?";
}

std::expected<Selector, Error> parse_selector(std::string_view text) {
  auto slash = text.rfind('/');
  Selector s;
  if (slash == std::string_view::npos) {
    s.topic = std::string(text);
  } else {
    auto ch = parse_channel(text);
    if (!ch) return std::unexpected(usage_error(ch.error().message));
    s.topic = ch->first;
    s.partition = ch->second;
  }
  if (!valid_topic_name(s.topic)) {
    return std::unexpected(usage_error(
        invalid_topic_text(s.topic)));
  }
  return s;
}

std::expected<StartRule, Error> parse_start_rule(std::string_view text) {
  StartRule rule;
  auto sep = text.find_first_of("=@");
  std::string_view pos = text;
  if (sep != std::string_view::npos) {
    auto sel = parse_selector(text.substr(0, sep));
    if (!sel) return std::unexpected(sel.error());
    rule.scope = *sel;
    pos = text.substr(sep + 1);
  }
  auto p = parse_start_position(pos);
  if (!p) return std::unexpected(p.error());
  rule.position = *p;
  return rule;
}

std::expected<void, Error> check_start_rules(
    const std::vector<StartRule>& rules,
    const std::function<bool(const std::string& topic, std::optional<std::int32_t> partition)>& reads) {
  auto scope_text = [](const std::optional<Selector>& s) {
    if (!s) return std::string("every channel");
    return s->partition ? fmt::format("{}/{}", s->topic, *s->partition) : s->topic;
  };
  // Scope -> the first rule given for it (partition -1: a whole topic; "" topic: unscoped).
  std::map<std::pair<std::string, std::int32_t>, std::size_t> seen;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    std::pair<std::string, std::int32_t> key{r.scope ? r.scope->topic : std::string(),
                                             r.scope ? r.scope->partition.value_or(-1) : -1};
    if (auto [it, fresh] = seen.emplace(std::move(key), i); !fresh) {
      return std::unexpected(usage_error(fmt::format("`start`: {} is given two start positions ({} and {}); give one",
                                                     scope_text(r.scope), to_string(rules[it->second].position),
                                                     to_string(r.position)),
                                         "start"));
    }
    if (r.scope && !reads(r.scope->topic, r.scope->partition)) {
      return std::unexpected(usage_error(fmt::format("`start` {}={}: {} is not among the channels read",
                                                     scope_text(r.scope), to_string(r.position),
                                                     scope_text(r.scope)),
                                         "start"));
    }
  }
  return {};
}

StartPosition start_for(const ConsumerOptions& o, const std::string& topic, std::int32_t partition) {
  StartPosition best = o.default_start;
  int best_rank = 0;
  for (const auto& r : o.start) {
    int rank = 1;
    if (r.scope) {
      if (r.scope->topic != topic) continue;
      if (r.scope->partition && *r.scope->partition != partition) continue;
      rank = r.scope->partition ? 3 : 2;
    }
    if (rank >= best_rank) {
      best = r.position;
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace causal::kafka

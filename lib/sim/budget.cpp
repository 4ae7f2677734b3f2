// The hold budget in the simulator: the Kafka host's pause/resume rule (lib/kafka/
// hold_budget.cpp) with the budget counted in held records (WorldConfig::held_budget).
//
//   awaited(c)  a blocked head of the node has an unsatisfied claim on c that nothing
//               fetched can satisfy yet: a sequence claim on c, or an offset claim at or
//               past c's position. Never paused: only fetching c can move that head.
//   pause c     not awaited, and holds more than its share (budget / scope size, at
//               least 1), or the node's total passes the budget.
//   resume c    awaited, or, with the total within the budget, holds nothing or at most
//               half its share.
// A paused channel is not fetched (World::enabled_actions). apply_budget runs after every
// event that changes what the gate holds (fetch, with its lookups; scope growth; replay).
//
// What the sweep checks: the oracle's drain checks find any deadlock (a paused channel
// that nothing resumes leaves records held or undelivered at quiescence), and
// check_budget, before every fetch, that the fetched channel is one the rule lets through:
// fetching a channel that should be paused is a budget_overrun violation. Over the budget,
// only awaited channels are fetched: counted in budget_over.
//
// Mutant rule pause_wrong_partition pauses the awaited channels instead of the holders.
#include <algorithm>

#include "causal/rules.hpp"
#include "internal.hpp"

namespace causal::sim {

namespace {

struct Account {
  std::size_t total = 0;
  std::size_t share = 1;
  std::map<ChannelIndex, bool> awaited;  // by scope channel
};

Account account(const Node& n, std::uint32_t budget) {
  Account a;
  const Gate& g = *n.gate;
  a.total = g.held_count();
  a.share = std::max<std::size_t>(budget / std::max<std::size_t>(n.scope.size(), 1), 1);
  for (ChannelIndex ch : n.scope) a.awaited[ch] = false;
  for (ChannelId ch : g.scope()) {
    if (g.held_count(ch) == 0) continue;
    for (const Blocker& b : g.unsatisfied(ch)) {
      auto it = a.awaited.find(b.channel);
      if (it == a.awaited.end()) continue;  // not fetched by this node
      if (b.kind == Blocker::Kind::seq || b.offset >= n.position.at(b.channel)) it->second = true;
    }
  }
  return a;
}

}  // namespace

void World::apply_budget(Node& n) {
  const std::uint32_t budget = config_.held_budget;
  if (budget == 0 || !n.up || !n.gate) return;
  const Account a = account(n, budget);
  const Gate& g = *n.gate;
  const bool over = a.total > budget;
  bool any_over_share = false;
  for (ChannelIndex ch : n.scope) any_over_share |= g.held_count(ch) > a.share;
  if (over) ++counters_.budget_over;
  for (ChannelIndex ch : n.scope) {
    const std::size_t held = g.held_count(ch);
    const bool awaited = a.awaited.at(ch);
    const bool paused = n.paused.contains(ch);
    bool pause = false, resume = false;
    if (rules::on(rules::Rule::pause_wrong_partition)) {
      pause = !paused && !awaited && ((held > 0 && held > a.share) || over);
      resume = paused && (awaited || (!over && (held == 0 || held <= a.share / 2)));
    } else {
      pause = !paused && awaited && (over || any_over_share);
      resume = paused && !awaited;
    }
    if (pause) {
      n.paused.insert(ch);
      ++counters_.budget_pauses;
      CAUSAL_SIM_TRACE("pause   {} {} (holds {}, share {}, total {} of {})", senders_[n.sender].name,
                       names_.channel_text(ch), held, a.share, a.total, budget);
    } else if (resume) {
      n.paused.erase(ch);
      ++counters_.budget_resumes;
      CAUSAL_SIM_TRACE("resume  {} {} (holds {}{})", senders_[n.sender].name, names_.channel_text(ch), held,
                       awaited ? ", awaited" : "");
    }
  }
}

void World::check_budget(Node& n, ChannelIndex ch) {
  const std::uint32_t budget = config_.held_budget;
  if (budget == 0) return;
  const Account a = account(n, budget);
  const std::size_t held = n.gate->held_count(ch);
  if (a.awaited.at(ch)) return;
  if ((held > 0 && held > a.share) || a.total > budget) {
    oracle_.violate(ViolationKind::budget_overrun,
                    fmt::format("{} fetches {}, which holds {} records (share {}) with {} held in all (budget {}) "
                                "and on which no blocked head waits",
                                senders_[n.sender].name, names_.channel_text(ch), held, a.share, a.total, budget));
  }
}

}  // namespace causal::sim

// The exhaustive explorer (see causal/sim/explore.hpp).
#include "causal/sim/explore.hpp"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <exception>
#include <unordered_map>

#include <fmt/core.h>

#include "causal/sim/sweep.hpp"

namespace causal::sim {

const char* to_string(JoinerMode j) {
  switch (j) {
    case JoinerMode::none: return "none";
    case JoinerMode::lso: return "lso";
    case JoinerMode::lso_no_lookups: return "lso-no-lookups";
  }
  return "?";
}

std::optional<JoinerMode> parse_joiner(const std::string& s) {
  for (JoinerMode j : {JoinerMode::none, JoinerMode::lso, JoinerMode::lso_no_lookups})
    if (s == to_string(j)) return j;
  return std::nullopt;
}

const char* to_string(RelayMode r) {
  switch (r) {
    case RelayMode::narrow: return "narrow";
    case RelayMode::wide: return "wide";
  }
  return "?";
}

std::optional<RelayMode> parse_relay(const std::string& s) {
  for (RelayMode r : {RelayMode::narrow, RelayMode::wide})
    if (s == to_string(r)) return r;
  return std::nullopt;
}

bool parse_explore_events(const std::string& text, ExploreBounds& b, std::string& error) {
  b.abort = b.crash = b.replay = b.rebalance = b.rewind = b.fence = b.refetch = false;
  if (text == "none") return true;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string e = text.substr(at, comma - at);
    if (e == "abort") {
      b.abort = true;
    } else if (e == "crash") {
      b.crash = true;
    } else if (e == "replay") {
      b.replay = true;
    } else if (e == "rebalance") {
      b.rebalance = true;
    } else if (e == "rewind") {
      b.rewind = true;
    } else if (e == "fence") {
      b.fence = true;
    } else if (e == "refetch") {
      b.refetch = true;
    } else {
      error = fmt::format(
          "`events`: unknown event '{}' (none, or a list of abort, crash, replay, rebalance, rewind, fence, refetch)", e);
      return false;
    }
    at = comma + 1;
  }
  return true;
}

WorldConfig explore_config(const ExploreBounds& b) {
  const int n = std::clamp(b.channels, 1, 3);
  WorldConfig c;
  c.seed = 0;
  c.fixed_choices = true;
  c.fixed_fetch = std::max<std::size_t>(1, b.fetch);
  c.max_hops = 1;  // the relay's emissions are not relayed again (with one channel it reads its own sink)
  c.strip_clocks = b.strip_clocks;
  const char* topics[] = {"a", "b", "c"};
  for (int i = 0; i < n; ++i) c.channels.push_back({topics[i], 0});
  const ChannelIndex a = 0, second = n >= 2 ? 1 : 0, third = n >= 3 ? 2 : 0;
  std::vector<ChannelIndex> both = {a};
  if (second != a) both.push_back(second);
  const int q_sends = b.q_sends >= 0 ? std::min(b.q_sends, b.sends) : b.sends / 3;
  // p: transactional, two sends per transaction alternating between its sinks, so a
  // transaction writes a/0 then b/0 (a sequence claim on a/0 rides on the b/0 record).
  c.sources.push_back({"p", true, both, b.sends - q_sends, 2, b.abort ? 1000 : 0, true, 0});
  // q: idempotent; its sends alternate too, starting with the relay's channel (an
  // acknowledged send is claimed by offset).
  std::vector<ChannelIndex> q_sinks(both.rbegin(), both.rend());
  if (q_sends > 0) c.sources.push_back({"q", false, q_sinks, q_sends, 1, 0, true, 0});
  // r: the relay, EOS, consuming the second channel only and emitting one record per
  // delivery to the third (so a claim on a/0 is relayed in custody past a channel r does
  // not consume).
  NodeSpec r;
  r.name = "r";
  r.kind = NodeKind::worker;
  r.eos = true;
  r.lookups = true;
  r.scope = {second};
  r.sinks = {third};
  if (b.relay == RelayMode::wide) {
    // Consumes a/0 and b/0 and emits crosswise (sinks[channel mod 2]: a/0's deliveries to
    // b/0, b/0's to a/0); with one channel, a/0 to a/0 as the narrow relay does.
    r.scope = both;
    r.sinks = q_sinks;
  }
  r.emit_per_mille = 1000;
  r.crashes = b.crash ? 1 : 0;
  r.replays = b.replay ? 1 : 0;
  r.rebalances = b.rebalance ? 1 : 0;
  r.rewinds = b.rewind ? 1 : 0;
  r.fencings = b.fence ? 1 : 0;
  r.refetches = b.refetch ? 1 : 0;
  c.nodes.push_back(r);
  if (b.joiner != JoinerMode::none) {
    // j: joins at the LSO, consuming a/0 and the relay's sink (with two channels, a/0 and
    // b/0): the liveness page's window.
    NodeSpec j;
    j.name = "j";
    j.kind = NodeKind::joiner_lso;
    j.eos = false;
    j.lookups = b.joiner == JoinerMode::lso;
    // With the wide relay, j consumes a/0 only: the relay's crosswise emissions land there.
    j.scope = {a};
    if (n >= 2 && b.relay == RelayMode::narrow) j.scope.push_back(n >= 3 ? third : second);
    c.nodes.push_back(j);
  }
  c.step_budget = 1'000'000;
  return c;
}

std::string format_schedule(const Schedule& s) {
  if (s.empty()) return "-";
  std::string out;
  for (std::uint32_t i : s) {
    if (!out.empty()) out += '.';
    out += std::to_string(i);
  }
  return out;
}

std::optional<Schedule> parse_schedule(const std::string& s) {
  Schedule out;
  if (s == "-") return out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t dot = std::min(s.find('.', at), s.size());
    std::uint32_t v = 0;
    const auto r = std::from_chars(s.data() + at, s.data() + dot, v);
    if (r.ec != std::errc() || r.ptr != s.data() + dot || dot == at) return std::nullopt;
    out.push_back(v);
    at = dot + 1;
  }
  return out;
}

namespace {

// One distinct state: how it was first reached (breadth-first: by a shortest schedule).
struct StateNode {
  std::uint32_t parent;
  std::uint32_t choice;
  long double paths = 0;  // schedule prefixes that reach it
  bool expanded = false;
  // The most events of a schedule prefix seen to reach it (breadth-first order finds it
  // by a shortest one first; a longer one may reach it later).
  std::uint32_t longest = 0;
};

Schedule schedule_of(const std::vector<StateNode>& nodes, std::uint32_t id) {
  Schedule s;
  while (id != 0) {
    s.push_back(nodes[id].choice);
    id = nodes[id].parent;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

}  // namespace

namespace {

// The breadth-first search; states at depth `max_depth` are checked but not expanded.
ExploreResult search(const ExploreBounds& b, bool stop_at_first, std::uint64_t max_depth = UINT64_MAX) {
  const auto t0 = std::chrono::steady_clock::now();
  const WorldConfig config = explore_config(b);
  ExploreResult res;
  res.bounds = b;
  std::vector<StateNode> nodes;
  std::unordered_map<std::uint64_t, std::uint32_t> seen;
  std::vector<std::uint32_t> level, next;
  {
    World w(config);
    nodes.push_back({0, 0, 1, false, 0});
    seen.emplace(w.state_hash(), 0);
    level.push_back(0);
  }
  auto fail = [&](Schedule s, bool at_drain, std::vector<Violation> v) {
    ++res.violations;
    if (res.counterexamples.size() < 3) res.counterexamples.push_back({std::move(s), at_drain, std::move(v)});
  };
  std::uint64_t depth = 0;
  bool stop = false;
  while (!level.empty() && !stop) {
    next.clear();
    for (std::uint32_t id : level) {
      const Schedule prefix = schedule_of(nodes, id);
      // Replayed once per child: the world is not copyable (it owns gates and stampers).
      // The first replay also decides which events to expand: every enabled one, or with
      // the reduction a persistent set of them (reduction.cpp).
      nodes[id].expanded = true;
      std::vector<std::size_t> expand;
      std::optional<World> first(std::in_place, config);
      for (std::uint32_t c : prefix) first->step_event(c);
      const std::size_t enabled = first->enabled_count();
      if (b.reduction) {
        expand = first->persistent_set();
      } else {
        expand.resize(enabled);
        for (std::size_t i = 0; i < enabled; ++i) expand[i] = i;
      }
      if (expand.size() < enabled) {
        ++res.reduced;
        res.pruned += enabled - expand.size();
      }
      for (std::size_t k = 0; k < expand.size(); ++k) {
        const auto choice = static_cast<std::uint32_t>(expand[k]);
        std::optional<World> again;
        if (k > 0) {
          again.emplace(config);
          for (std::uint32_t c : prefix) again->step_event(c);
        }
        World& w = k == 0 ? *first : *again;
        ++res.transitions;
        Schedule s = prefix;
        s.push_back(choice);
        try {
          w.step_event(choice);
        } catch (const std::exception& e) {
          fail(s, false, {{ViolationKind::crash, fmt::format("exception at step {}: {}", s.size(), e.what())}});
          if (stop_at_first) {
            stop = true;
            break;
          }
          continue;
        }
        if (w.oracle().violation_count() > 0) {
          fail(s, false, w.oracle().violations());
          if (stop_at_first) {
            stop = true;
            break;
          }
          continue;
        }
        const std::uint64_t h = w.state_hash();
        const auto [it, fresh] = seen.emplace(h, static_cast<std::uint32_t>(nodes.size()));
        const std::uint32_t longest = nodes[id].longest + 1;
        depth = std::max<std::uint64_t>(depth, longest);
        if (!fresh) {
          StateNode& known = nodes[it->second];
          known.paths += nodes[id].paths;
          if (longest > known.longest) {
            known.longest = longest;
            if (known.expanded) res.depth_exact = false;  // its successors were reached shorter
          }
          if (w.enabled_count() == 0) {
            res.schedules += nodes[id].paths;
          } else if (known.expanded) {
            res.schedules_exact = false;  // its successors were counted without these paths
          }
          continue;
        }
        if (nodes.size() >= b.max_states) {
          res.complete = false;
          stop = true;
          break;
        }
        nodes.push_back({id, choice, nodes[id].paths, false, longest});
        if (w.enabled_count() > 0) {
          if (s.size() < max_depth) next.push_back(it->second);
          continue;
        }
        ++res.terminal;
        res.terminal_digest += h * 0x9e3779b97f4a7c15ULL + (h >> 29);  // order-free: a sum
        res.schedules += nodes[id].paths;
        const WorldResult r = w.finish(true);
        res.attributed += r.attributed.empty() ? 0 : 1;
        if (!r.ok()) {
          fail(s, true, r.violations);
          if (stop_at_first) stop = true;
        }
        if (stop) break;
      }
      if (stop) break;
    }
    level.swap(next);
  }
  res.states = nodes.size();
  res.depth = depth;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace

ExploreResult explore(const ExploreBounds& b, bool stop_at_first) {
  ExploreResult res = search(b, stop_at_first);
  if (!stop_at_first || !b.reduction || res.counterexamples.empty()) return res;
  // The reduction explores one schedule per class of equivalent ones, and a class's
  // representative may violate later than its shortest member: a full search of every
  // schedule one event shorter than the counterexample finds a shorter one if there is one
  // (breadth-first: the shortest), or proves this one shortest.
  const auto t0 = std::chrono::steady_clock::now();
  ExploreBounds full = b;
  full.reduction = false;
  const std::size_t len = res.counterexamples.front().schedule.size();
  const ExploreResult shorter = search(full, true, len - 1);
  res.shortening_states = shorter.states;
  if (!shorter.counterexamples.empty()) {
    res.counterexamples = shorter.counterexamples;
    res.shortest = true;
  } else {
    res.shortest = shorter.complete;  // every schedule of len - 1 events or fewer passed
  }
  res.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::optional<WorldResult> replay_schedule(const ExploreBounds& b, const Schedule& schedule, std::string* trace,
                                           std::string& error) {
  World w(explore_config(b), trace);
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const std::size_t enabled = w.enabled_count();
    if (schedule[i] >= enabled) {
      error = fmt::format("`replay`: step {} chooses event {}, but only {} events are enabled there", i + 1,
                          schedule[i], enabled);
      return std::nullopt;
    }
    try {
      w.step_event(schedule[i]);
    } catch (const std::exception& e) {
      WorldResult r = w.finish(false);
      r.violations.push_back({ViolationKind::crash, fmt::format("exception at step {}: {}", i + 1, e.what())});
      ++r.violation_count;
      return r;
    }
  }
  const bool quiescent = w.enabled_count() == 0;
  WorldResult r = w.finish(quiescent);
  if (!quiescent && trace) *trace += fmt::format("(schedule ends with {} events still enabled: no drain checks)\n",
                                                 w.enabled_count());
  return r;
}

std::string counterexample_trace(const ExploreResult& r, bool& reproduced) {
  reproduced = false;
  if (r.counterexamples.empty()) return {};
  const Counterexample& c = r.counterexamples.front();
  std::string trace, error;
  const auto w = replay_schedule(r.bounds, c.schedule, &trace, error);
  reproduced = w && !w->ok();
  return trace + (error.empty() ? "" : error + "\n");
}

std::string format_summary(const ExploreResult& r, const ExploreWords& words) {
  std::string s = fmt::format("explored {}\n", words.bounds(r.bounds));
  s += fmt::format("  distinct states      {}\n", r.states);
  s += fmt::format("  transitions          {}\n", r.transitions);
  if (r.bounds.reduction)
    s += fmt::format("  reduction            persistent sets: {} states expanded partly, {} enabled events pruned\n",
                     r.reduced, r.pruned);
  else
    s += "  reduction            none (every enabled event expanded)\n";
  s += fmt::format("  terminal states      {} (drain-checked; {} with an attributed stall; digest {:016x})\n", r.terminal,
                   r.attributed, r.terminal_digest);
  s += fmt::format("  schedules explored   {}{:.0f}\n", r.schedules_exact ? "" : "at least ", static_cast<double>(r.schedules));
  s += fmt::format("  longest schedule     {}{} events\n", r.depth_exact ? "" : "at least ", r.depth);
  s += fmt::format("  violations           {}\n", r.violations);
  s += fmt::format("  time                 {:.1f} s\n", r.seconds);
  if (!r.complete) s += "INCOMPLETE: the state limit (`max_states`) was reached; nothing is proved\n";
  for (const Counterexample& c : r.counterexamples) {
    s += fmt::format("counterexample ({} events, {}{}):\n", c.schedule.size(), c.at_drain ? "at drain" : "at a delivery",
                     !r.bounds.reduction || r.shortest
                         ? ""
                         : "; shortest among the reduced search's schedules, not proved shortest of all");
    for (const Violation& v : c.violations) s += fmt::format("  {}: {}\n", to_string(v.kind), v.detail);
    s += fmt::format("  replay: {}\n", words.replay(r.bounds, c.schedule));
  }
  s += r.ok() ? "PASS\n" : "FAIL\n";
  return s;
}

nlohmann::json to_json(const ExploreResult& r, const ExploreWords& words) {
  nlohmann::json j;
  j["bounds"] = {{"channels", r.bounds.channels}, {"sends", r.bounds.sends},     {"q_sends", r.bounds.q_sends},
                 {"abort", r.bounds.abort},
                 {"crash", r.bounds.crash},       {"replay", r.bounds.replay},   {"joiner", to_string(r.bounds.joiner)},
                 {"relay", to_string(r.bounds.relay)},
                 {"fetch", r.bounds.fetch},       {"reduction", r.bounds.reduction}};
  j["states"] = r.states;
  j["transitions"] = r.transitions;
  j["states_reduced"] = r.reduced;
  j["events_pruned"] = r.pruned;
  j["terminal_states"] = r.terminal;
  j["attributed_terminal_states"] = r.attributed;
  j["terminal_digest"] = fmt::format("{:016x}", r.terminal_digest);
  j["schedules"] = static_cast<double>(r.schedules);
  j["schedules_exact"] = r.schedules_exact;
  j["longest_schedule"] = r.depth;
  j["longest_schedule_exact"] = r.depth_exact;
  j["violations"] = r.violations;
  j["complete"] = r.complete;
  j["seconds"] = r.seconds;
  j["ok"] = r.ok();
  j["shortest"] = !r.bounds.reduction || r.shortest || r.counterexamples.empty();
  nlohmann::json ces = nlohmann::json::array();
  for (const Counterexample& c : r.counterexamples) {
    nlohmann::json vs = nlohmann::json::array();
    for (const Violation& v : c.violations) vs.push_back({{"kind", to_string(v.kind)}, {"detail", v.detail}});
    ces.push_back({{"schedule", format_schedule(c.schedule)},
                   {"events", c.schedule.size()},
                   {"at_drain", c.at_drain},
                   {"violations", vs},
                   {"replay", words.replay(r.bounds, c.schedule)}});
  }
  j["counterexamples"] = ces;
  return j;
}

}  // namespace causal::sim

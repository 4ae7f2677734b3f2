// How a seed chooses a world (see causal/sim/config.hpp).
//
// The generator biases worlds towards the shapes the protocol's rules are about: scopes
// drawn mostly from channels something writes (so records flow), partial overlaps between
// scopes and sinks (relays that consume one channel of a transaction but not the other),
// transactional sources sharing channels (concurrent transactions in opposite orders),
// and small channel counts often (contention) but up to 64.
#include <algorithm>
#include <sstream>

#include <fmt/core.h>

#include "causal/sim/config.hpp"
#include "causal/sim/rng.hpp"

namespace causal::sim {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::worker: return "worker";
    case NodeKind::joiner_start: return "joiner-start";
    case NodeKind::joiner_committed: return "joiner-committed";
    case NodeKind::joiner_end: return "joiner-end";
    case NodeKind::joiner_lso: return "joiner-lso";
  }
  return "?";
}

bool is_joiner(NodeKind k) { return k != NodeKind::worker; }

namespace {

std::vector<ChannelIndex> all_channels(std::size_t n) {
  std::vector<ChannelIndex> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<ChannelIndex>(i);
  return v;
}

// k channels, drawn from `preferred` first (at least one when it is non-empty).
std::vector<ChannelIndex> draw_scope(Rng& rng, const std::vector<ChannelIndex>& preferred, std::size_t channels,
                                     std::size_t k) {
  std::vector<ChannelIndex> out;
  if (!preferred.empty()) out = rng.subset(preferred, std::max<std::size_t>(1, k - rng.below(k)));
  std::vector<ChannelIndex> rest = rng.subset(all_channels(channels), channels);
  for (ChannelIndex c : rest) {
    if (out.size() >= k) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

WorldConfig generate_config(std::uint64_t seed, const Knobs& knobs) {
  Rng rng(seed ^ 0x6a09e667f3bcc909ULL);
  WorldConfig w;
  w.seed = seed;

  static const int kChannelChoices[] = {1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 8, 8, 12, 16, 24, 32, 48, 64};
  const int channels = std::clamp(knobs.channels.value_or(kChannelChoices[rng.below(std::size(kChannelChoices))]), 1, 64);
  const int topics = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(channels, 4))));
  for (int i = 0; i < channels; ++i) w.channels.push_back({fmt::format("t{}", i % topics), i / topics});
  const auto C = static_cast<std::size_t>(channels);
  const std::vector<ChannelIndex> all = all_channels(C);

  std::vector<ChannelIndex> written;
  auto note_written = [&](const std::vector<ChannelIndex>& v) {
    for (ChannelIndex c : v)
      if (std::find(written.begin(), written.end(), c) == written.end()) written.push_back(c);
  };

  const int sources = std::clamp(knobs.sources.value_or(static_cast<int>(rng.between(1, 3))), 1, 8);
  for (int i = 0; i < sources; ++i) {
    SourceSpec s;
    s.name = fmt::format("p{}", i);
    s.transactional = rng.chance(650);
    // Transactional sources share channels often, so that concurrent transactions write
    // the same partitions in different orders.
    s.sinks = (s.transactional && !written.empty() && rng.chance(500))
                  ? draw_scope(rng, written, C, std::min<std::size_t>(C, 2 + rng.below(2)))
                  : rng.subset(all, static_cast<std::size_t>(rng.between(1, std::min(channels, 4))));
    std::sort(s.sinks.begin(), s.sinks.end());
    s.sends = knobs.sends.value_or(static_cast<int>(rng.between(3, 20)));
    s.max_txn = static_cast<int>(rng.between(1, 4));
    s.abort_per_mille = knobs.faults.aborts ? static_cast<int>(rng.between(0, 250)) : 0;
    s.seeded = rng.chance(700);
    s.start_delay = rng.chance(300) ? 1 : 0;
    note_written(s.sinks);
    w.sources.push_back(std::move(s));
  }

  const int workers = std::clamp(knobs.nodes.value_or(static_cast<int>(rng.between(1, 4))), 0, 8);
  for (int i = 0; i < workers; ++i) {
    NodeSpec n;
    n.name = fmt::format("n{}", i);
    n.kind = NodeKind::worker;
    n.eos = rng.chance(700);
    n.lookups = knobs.lookups;
    const std::size_t width = rng.chance(150) ? C : static_cast<std::size_t>(rng.between(1, std::min(channels, 5)));
    n.scope = draw_scope(rng, written, C, width);
    n.sinks = rng.subset(all, static_cast<std::size_t>(rng.between(0, std::min(channels, 3))));
    std::sort(n.sinks.begin(), n.sinks.end());
    n.emit_per_mille = static_cast<int>(rng.between(300, 900));
    n.crashes = knobs.faults.crashes ? static_cast<int>(rng.between(0, 2)) : 0;
    n.aborts = (knobs.faults.aborts && n.eos) ? static_cast<int>(rng.between(0, 1)) : 0;
    n.replays = knobs.faults.replays ? static_cast<int>(rng.between(0, 2)) : 0;
    if (knobs.faults.growth && n.scope.size() < C && rng.chance(400)) {
      for (ChannelIndex c : rng.subset(all, C)) {
        if (std::find(n.scope.begin(), n.scope.end(), c) == n.scope.end()) {
          n.growth.push_back(c);
          break;
        }
      }
    }
    note_written(n.sinks);
    w.nodes.push_back(std::move(n));
  }

  // The runtime's transitions, drawn from a stream of their own so that every other choice
  // of a seed's world stays what it was before they existed.
  Rng transitions(seed ^ 0xbb67ae8584caa73bULL);
  for (NodeSpec& n : w.nodes) {
    const bool eos = n.eos;
    n.rebalances = knobs.faults.rebalances && transitions.chance(300) ? 1 : 0;
    n.rewinds = knobs.faults.rewinds && eos && transitions.chance(300) ? 1 : 0;
    n.fencings = knobs.faults.fencings && eos && transitions.chance(250) ? 1 : 0;
    n.refetches = knobs.faults.refetches && transitions.chance(300) ? static_cast<int>(transitions.between(1, 2)) : 0;
  }
  // Drawn after the others, so that adding it changed none of theirs.
  for (NodeSpec& n : w.nodes) n.handovers = knobs.faults.handovers && workers > 1 && transitions.chance(300) ? 1 : 0;

  if (knobs.faults.joiners) {
    const int joiners = static_cast<int>(rng.between(0, 3));
    for (int i = 0; i < joiners; ++i) {
      NodeSpec n;
      n.name = fmt::format("j{}", i);
      const std::uint64_t k = rng.below(4);
      n.kind = k == 0 ? NodeKind::joiner_start : k == 1 ? NodeKind::joiner_committed : k == 2 ? NodeKind::joiner_end : NodeKind::joiner_lso;
      if (n.kind == NodeKind::joiner_committed && workers == 0) n.kind = NodeKind::joiner_lso;
      n.eos = false;
      n.lookups = knobs.lookups && !(knobs.faults.no_lookups && rng.chance(500));
      if (n.kind == NodeKind::joiner_committed) {
        n.copy_of = static_cast<std::uint32_t>(rng.below(static_cast<std::uint64_t>(workers)));
        n.lookups = w.nodes[n.copy_of].lookups;
      } else {
        const std::size_t width = rng.chance(300) ? C : static_cast<std::size_t>(rng.between(1, std::min(channels, 6)));
        n.scope = draw_scope(rng, written, C, width);
      }
      w.nodes.push_back(std::move(n));
    }
  }

  w.max_hops = static_cast<int>(rng.between(1, 4));
  w.step_budget = knobs.step_budget.value_or(400000);
  w.stateful_restarts = knobs.stateful_restarts;
  w.held_budget = knobs.held_budget.value_or(0);  // drawn from no seed: worlds stay as they were
  return w;
}

namespace {

// The faults a FaultMix switches, by the names --faults takes (and to_string prints).
struct FaultName {
  const char* name;
  bool FaultMix::*on;
};
constexpr FaultName kFaultNames[] = {
    {"crash", &FaultMix::crashes}, {"abort", &FaultMix::aborts},   {"replay", &FaultMix::replays},
    {"growth", &FaultMix::growth}, {"joiners", &FaultMix::joiners}, {"nolookup", &FaultMix::no_lookups},
    {"rebalance", &FaultMix::rebalances}, {"rewind", &FaultMix::rewinds}, {"fence", &FaultMix::fencings},
    {"refetch", &FaultMix::refetches}, {"handover", &FaultMix::handovers},
};

const FaultName* find_fault(const std::string& name) {
  for (const auto& f : kFaultNames) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> fault_names() {
  std::vector<std::string> names{"all", "none"};
  for (const auto& f : kFaultNames) names.emplace_back(f.name);
  return names;
}

// The list is read left to right from a starting mix: every fault when it begins with "all"
// or with a removal ("-crash" is all but crash), none when it begins with a fault's name
// ("crash,abort" is those two only: a user naming faults means those, as "none,crash,abort").
std::optional<FaultMix> parse_faults(const std::string& text, std::string& error) {
  FaultMix f;
  std::stringstream ss(text);
  std::string item;
  bool first = true;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (first && item[0] != '-' && find_fault(item)) f = FaultMix::none();
    first = false;
    const bool off = item[0] == '-';
    const std::string name = off ? item.substr(1) : item;
    const bool on = !off;
    if (name == "all") {
      f = FaultMix{};
      if (off) f = FaultMix::none();
    } else if (name == "none") {
      f = FaultMix::none();
    } else if (const FaultName* fault = find_fault(name)) {
      f.*(fault->on) = on;
    } else {
      std::string expected;
      for (const auto& n : fault_names()) expected += (expected.empty() ? "" : ", ") + n;
      error = fmt::format("unknown fault '{}' (expected {})", name, expected);
      return std::nullopt;
    }
  }
  return f;
}

std::string to_string(const FaultMix& f) {
  std::string s;
  for (const auto& n : kFaultNames) {
    if (!(f.*(n.on))) continue;
    if (!s.empty()) s += ",";
    s += n.name;
  }
  return s.empty() ? "none" : s;
}

}  // namespace causal::sim

// Counter listing and the anti-vacuity rule (see causal/sim/counters.hpp).
#include "causal/sim/counters.hpp"

#include <algorithm>

#include "causal/sim/config.hpp"

namespace causal::sim {

std::vector<Counters::Entry> Counters::entries() const {
  std::vector<Entry> out;
#define CAUSAL_SIM_ENTRY(name, must, desc) out.push_back({#name, must, desc, name});
  CAUSAL_SIM_COUNTERS(CAUSAL_SIM_ENTRY)
#undef CAUSAL_SIM_ENTRY
  return out;
}

std::vector<std::string> excused(const Knobs& k) {
  const FaultMix& f = k.faults;
  std::vector<std::string> out;
  // Which fault fires which counter, as measured: each is zero over thousands of worlds with
  // its fault off and the rest on. Lookups happen in late joiners and restarted nodes.
  if (!f.crashes) out.emplace_back("restarts");
  if (!f.replays) {
    out.emplace_back("replays_dropped");
    out.emplace_back("reassignments");
  }
  if (!f.growth) out.emplace_back("scope_growths");
  if (!f.aborts) out.emplace_back("aborts");
  if (!f.joiners) out.emplace_back("joiners");
  if (!f.rebalances) out.emplace_back("rebalances");
  if (!f.rewinds) out.emplace_back("rewinds");
  if (!f.fencings) out.emplace_back("fencings");
  if (!f.handovers) out.emplace_back("handovers");
  if (!f.rebalances && !f.rewinds && !f.fencings && !f.handovers) {
    out.emplace_back("generations");
    out.emplace_back("generations_behind");
  }
  if (!f.refetches) {
    out.emplace_back("refetches");
    out.emplace_back("queue_tail_drops");
  }
  if (!k.lookups || (!f.joiners && !f.crashes)) out.emplace_back("lookups_resolved");
  if (!k.held_budget.value_or(0)) {
    out.emplace_back("budget_pauses");
    out.emplace_back("budget_resumes");
  }
  return out;
}

std::vector<std::string> vacuous(const Counters& c, const Knobs& knobs) {
  const std::vector<std::string> skip = excused(knobs);
  std::vector<std::string> out;
  for (const auto& e : c.entries())
    if (e.must_fire && e.value == 0 && std::find(skip.begin(), skip.end(), e.name) == skip.end())
      out.emplace_back(e.name);
  return out;
}

}  // namespace causal::sim

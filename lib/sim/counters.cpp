// Counter listing and the anti-vacuity rule (see causal/sim/counters.hpp).
#include "causal/sim/counters.hpp"

namespace causal::sim {

std::vector<Counters::Entry> Counters::entries() const {
  std::vector<Entry> out;
#define CAUSAL_SIM_ENTRY(name, must, desc) out.push_back({#name, must, desc, name});
  CAUSAL_SIM_COUNTERS(CAUSAL_SIM_ENTRY)
#undef CAUSAL_SIM_ENTRY
  return out;
}

std::vector<std::string> vacuous(const Counters& c) {
  std::vector<std::string> out;
  for (const auto& e : c.entries())
    if (e.must_fire && e.value == 0) out.emplace_back(e.name);
  return out;
}

}  // namespace causal::sim

#include "simulate_commands.hpp"

#include <fmt/core.h>

namespace causal::cli {

std::string repro_command(std::string_view program, const sim::Repro& r) {
  const sim::Knobs& k = r.knobs;
  std::string cmd = fmt::format("{} --seed {} --trace", program, r.seed);
  if (k.channels) cmd += fmt::format(" --channels {}", *k.channels);
  if (k.nodes) cmd += fmt::format(" --nodes {}", *k.nodes);
  if (k.sources) cmd += fmt::format(" --sources {}", *k.sources);
  if (k.sends) cmd += fmt::format(" --sends {}", *k.sends);
  const std::string faults = to_string(k.faults);
  if (faults != to_string(sim::FaultMix{})) cmd += fmt::format(" --faults {}", faults);
  if (!k.lookups) cmd += " --no-lookups";
  if (k.step_budget) cmd += fmt::format(" --step-budget {}", *k.step_budget);
  if (k.stateful_restarts) cmd += " --stateful-restarts";
  if (k.held_budget) cmd += fmt::format(" --held-budget {}", *k.held_budget);
  return cmd;
}

std::string bounds_options(const sim::ExploreBounds& b) {
  std::string s = fmt::format("--exhaustive --channels {} --sends {} --events {} --joiner {}", b.channels, b.sends,
                              [&] {
                                std::string e;
                                if (b.abort) e += ",abort";
                                if (b.crash) e += ",crash";
                                if (b.replay) e += ",replay";
                                if (b.rebalance) e += ",rebalance";
                                if (b.rewind) e += ",rewind";
                                if (b.fence) e += ",fence";
                                if (b.refetch) e += ",refetch";
                                return e.empty() ? std::string("none") : e.substr(1);
                              }(),
                              to_string(b.joiner));
  if (b.relay != sim::RelayMode::narrow) s += fmt::format(" --relay {}", to_string(b.relay));
  if (b.q_sends >= 0) s += fmt::format(" --q-sends {}", b.q_sends);
  if (b.fetch != 1) s += fmt::format(" --fetch {}", b.fetch);
  if (!b.reduction) s += " --no-reduction";
  return s;
}

std::string replay_command(std::string_view program, const sim::ExploreBounds& b, const sim::Schedule& s) {
  return fmt::format("{} {} --replay {}", program, bounds_options(b), sim::format_schedule(s));
}

sim::ReproCommand repro_commands(std::string program) {
  return [program = std::move(program)](const sim::Repro& r) { return repro_command(program, r); };
}

sim::ExploreWords explore_words(std::string program) {
  return {bounds_options, [program = std::move(program)](const sim::ExploreBounds& b, const sim::Schedule& s) {
            return replay_command(program, b, s);
          }};
}

}  // namespace causal::cli

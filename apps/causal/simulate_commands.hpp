// The simulator's results name no option (causal/sim/sweep.hpp, explore.hpp): what
// reproduces a failure comes as data, and these are causal simulate's commands for it. The
// test sweep (tests/sim/sweep_main.cpp) takes the same options and uses them too.
#pragma once

#include <string>
#include <string_view>

#include "causal/sim/explore.hpp"
#include "causal/sim/sweep.hpp"

namespace causal::cli {

// `PROGRAM --seed N --trace [--channels C ...]`: replays a failing world step by step.
std::string repro_command(std::string_view program, const sim::Repro& r);
// `--exhaustive --channels C --sends S --events E --joiner J [...]`: the options that
// rebuild the bounds.
std::string bounds_options(const sim::ExploreBounds& b);
// `PROGRAM <bounds_options> --replay SCHEDULE`.
std::string replay_command(std::string_view program, const sim::ExploreBounds& b, const sim::Schedule& s);

// The same, as the callbacks the summaries and JSON take.
sim::ReproCommand repro_commands(std::string program);
sim::ExploreWords explore_words(std::string program);

}  // namespace causal::cli

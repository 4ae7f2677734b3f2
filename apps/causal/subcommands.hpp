// The subcommand table: one line per subcommand, one file per subcommand (cmd_<name>.cpp).
// Each setup function adds its options to `sub` and sets a callback that parses nothing
// further and calls run_<name>(options), returning its result through `result`.
#pragma once

#include <CLI/CLI.hpp>

#include "common.hpp"

namespace causal::cli {

void setup_tail(CLI::App& sub, Outcome& result);
void setup_decode(CLI::App& sub, Outcome& result);
void setup_encode(CLI::App& sub, Outcome& result);
void setup_explain(CLI::App& sub, Outcome& result);
void setup_baseline(CLI::App& sub, Outcome& result);
void setup_watch(CLI::App& sub, Outcome& result);
void setup_produce(CLI::App& sub, Outcome& result);
void setup_simulate(CLI::App& sub, Outcome& result);
void setup_demo(CLI::App& sub, Outcome& result);
void setup_completions(CLI::App& sub, Outcome& result);

struct Subcommand {
  const char* name;
  const char* description;
  void (*setup)(CLI::App&, Outcome&);
};

inline constexpr Subcommand kSubcommands[] = {
    {"tail", "Consume topics through the delivery gate and print records in delivery order", setup_tail},
    {"decode", "Decode causal.clock headers from Kafka, stdin or kcat -J output", setup_decode},
    {"encode", "Encode a clock (JSON or text) into causal.clock header bytes", setup_encode},
    {"explain", "Diagnose a stuck consumer: held heads, wait chains, frozen claims", setup_explain},
    {"baseline", "Compute last-stable-offset baselines for late joiners", setup_baseline},
    {"watch", "Watch consumer groups from the outside: explain's verdict each round, metrics", setup_watch},
    {"produce", "Produce stdin records stamped as a causal sender", setup_produce},
    {"simulate", "Run the deterministic verification simulator and its oracle", setup_simulate},
    {"demo", "Show the gate holding and releasing records on an in-process mock cluster", setup_demo},
    {"completions", "Print a bash, zsh or fish completion script", setup_completions},
};

}  // namespace causal::cli

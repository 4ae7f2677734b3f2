// causal: one binary, one subcommand per file (see subcommands.hpp for the table).
// This is the one place that maps an Error to an exit code (man/causal.1 documents them):
//   0 ok, 1 runtime failure, 2 usage error, 3 undecodable clock header, 4 records held.
#include <cstdio>
#include <exception>

#include <fmt/core.h>

#include "subcommands.hpp"

int main(int argc, char** argv) {
  using namespace causal;
  using namespace causal::cli;

  CLI::App app{"causal: causal delivery over Apache Kafka, made visible and debuggable", "causal"};
  app.set_version_flag("--version", "causal " CAUSAL_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 undecodable causal.clock header,\n"
      "4 records still held. See causal(1) and causal-<subcommand>(1).");

  Outcome outcome;
  for (const auto& s : kSubcommands) {
    CLI::App* sub = app.add_subcommand(s.name, s.description);
    s.setup(*sub, outcome);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help/version itself with exit 0; parse errors exit 2.
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(Errc::usage);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "causal: internal error: {}\n", e.what());
    return static_cast<int>(Errc::runtime);
  }

  if (!outcome) {
    std::fflush(stdout);
    if (!outcome.error().message.empty()) fmt::print(stderr, "causal: {}\n", outcome.error().message);
    return static_cast<int>(outcome.error().code);
  }
  return 0;
}

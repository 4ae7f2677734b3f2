// causal simulate: not built yet (see the open issues). Exits 1 and says so.
#include "subcommands.hpp"

namespace causal::cli {

void setup_simulate(CLI::App& sub, Outcome& result) {
  sub.callback([&result] { result = std::unexpected(runtime_error("'causal simulate' is not built yet")); });
}

}  // namespace causal::cli

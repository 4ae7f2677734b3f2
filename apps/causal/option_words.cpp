#include "option_words.hpp"

#include "shell_word.hpp"

#include <array>
#include <string>
#include <utility>

namespace causal::cli {

namespace {

// Field (as the libraries name it) -> this tool's words for it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 21> kWords{{
    {"brokers", "-b"},                             // ConnectionOptions::brokers
    {"properties", "-X"},                          // ConnectionOptions::properties
    {"property_files", "-F"},                      // ConnectionOptions::property_files
    {"cluster", "--cluster"},                      // ConnectionOptions::cluster
    {"timeout_ms", "--timeout-ms"},                // how long a request waits for its answer
    {"max_held_bytes", "--max-held-bytes"},        // ConsumerOptions::max_held_bytes
    {"start", "--from"},                           // ConsumerOptions::start, default_start
    {"group", "--group"},                          // DiagnosisFacts::group, ConsumerOptions::group
    {"topic", "--topic"},                          // a topic of explain's scope
    {"lookups=false", "causal tail --no-lookup"},  // a consumer without lookups
    {"metrics_listen", "--metrics-listen"},        // tail's MetricsServer::start address
    {"listen", "--listen"},                        // watch's
    {"replay_timeout_ms", "--replay-timeout-ms"},  // ExplainOptions, WatchOptions::replay_timeout_ms
    {"max_scan_records", "--max-scan-records"},    // WatchOptions::max_scan_records
    // The fields and calls a property causal sets itself is refused for (owned_properties.hpp).
    {"ConsumerHost::commit", "tail --commit"},
    {"ConsumerOptions::group", "--group (tail, explain, baseline)"},
    {"ProducerOptions::transactional_id", "causal produce's --transactional-id"},
    // The simulator's fields (causal/sim/explore.hpp, sweep.hpp, counters.hpp).
    {"events", "--events"},
    {"replay", "--replay"},
    {"max_states", "--max-states"},
    {"Knobs::held_budget", "sim_sweep --held-budget"},
}};

}  // namespace

std::string with_option_words(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('`', i);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view field = text.substr(open + 1, close - open - 1);
    out.append(text.substr(i, open - i));
    std::string_view words;
    for (const auto& [f, w] : kWords) {
      if (f == field) words = w;
    }
    // An action with a value: "baseline group=G", the baseline that marks the group's
    // pending commits, as the command that runs it (in backquotes, as a command is quoted).
    constexpr std::string_view kBaselineOfGroup = "baseline group=";
    std::string command;
    if (field.starts_with(kBaselineOfGroup)) {
      command = "`causal baseline TOPIC --group " + shell_word(field.substr(kBaselineOfGroup.size())) + "`";
      words = command;
    }
    if (words.empty()) {
      // Not a field: keep it as written (a command quoted in backquotes, say), and look for
      // the next field after its opening quote only, so that its closing one can open one.
      out += '`';
      i = open + 1;
    } else {
      out += words;
      i = close + 1;
    }
  }
  out.append(text.substr(i));
  return out;
}

}  // namespace causal::cli

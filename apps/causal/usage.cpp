#include "usage.hpp"

#include "causal/excerpt.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include <fmt/core.h>

namespace causal::cli {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The subcommand the parse had reached, for "see causal SUB --help".
std::string help_command(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return fmt::format("causal {} --help", sub->get_name());
  return "causal --help";
}

}  // namespace

std::optional<std::string> nearest_subcommand(const CLI::App& app, const std::string& word) {
  std::optional<std::string> best;
  std::size_t best_d = 3;  // further than 2 edits is not a typo
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    const std::size_t d = name.starts_with(word) && word.size() >= 2 ? 1 : edit_distance(word, name);
    if (d < best_d) {
      best_d = d;
      best = name;
    }
  }
  return best;
}

std::optional<int> handle_first_word(CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string word = argv[1];
  if (word.empty()) return std::nullopt;
  if (word.front() == '-') {
    // causal itself takes only these; every other option belongs to a subcommand.
    if (word == "-h" || word == "--help" || word == "-V" || word == "--version") return std::nullopt;
    std::fprintf(stderr, "causal: unknown option %s before the subcommand (causal --help lists them)\n",
                 quoted_excerpt(word).c_str());
    return 2;
  }
  if (word == kHelpCommand) {
    if (argc == 2) {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    if (argc > 3) {
      std::fprintf(stderr, "causal: help takes one subcommand, not %d words: causal help SUBCOMMAND\n", argc - 2);
      return 2;
    }
    const std::string topic = argv[2];
    if (topic == "-h" || topic == "--help") {  // help about help: what causal --help says
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == topic) {
        std::fputs(sub->help("causal").c_str(), stdout);  // "Usage: causal SUB", as SUB --help says
        return 0;
      }
    }
    auto near = nearest_subcommand(app, topic);
    std::fprintf(stderr, "causal: help: no subcommand %s%s (causal --help lists them)\n", quoted_excerpt(topic).c_str(),
                 near ? fmt::format("; did you mean '{}'?", *near).c_str() : "");
    return 2;
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == word) return std::nullopt;
  }
  std::string hint;
  if (word == "version") {
    hint = "; did you mean 'causal --version'?";
  } else if (auto near = nearest_subcommand(app, word)) {
    hint = fmt::format("; did you mean 'causal {}'?", *near);
  }
  std::fprintf(stderr, "causal: unknown subcommand %s%s (causal --help lists them)\n", quoted_excerpt(word).c_str(),
               hint.c_str());
  return 2;
}

std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e) {
  std::string what = e.what();
  if (e.get_name() == "RequiredError" && what == "A subcommand is required") {
    return "a subcommand is required: causal SUBCOMMAND [OPTIONS] (causal --help lists them)";
  }
  // The topics positional (tail's, baseline's "channels", produce's "sinks"): CLI11 names it
  // by its variable, which the user never typed.
  if (e.get_name() == "RequiredError" && (what == "channels is required" || what == "sinks is required")) {
    return fmt::format("name at least one topic: TOPIC (every partition) or TOPIC/PARTITION (see {})",
                       help_command(app));
  }
  // An option given twice that takes one value: CLI11 says "--format: At Most 1 required but
  // received 2", its own words for a count.
  if (const auto at = what.find(": At Most 1 required but received "); at != std::string::npos) {
    return fmt::format("{} given {} times: it takes one value (see {})", what.substr(0, at),
                       what.substr(at + std::string_view(": At Most 1 required but received ").size()),
                       help_command(app));
  }
  // The words CLI11 did not expect are the user's: quoted and cut like every other echo of
  // input (causal(1)), so a long or binary word keeps the error one readable line; each
  // word on its own, in the order given (this CLI11 joins them last word first).
  // (By its text: CLI11 names the error after the subcommand when a subcommand throws it.)
  if (what.starts_with("The following argument")) {
    const CLI::App* from = &app;
    for (const CLI::App* sub : app.get_subcommands()) from = sub;
    std::string words;
    for (const std::string& w : from->remaining(false)) words += (words.empty() ? "" : " ") + quoted_excerpt(w);
    if (const auto colon = what.find(": "); colon != std::string::npos && !words.empty()) {
      what = what.substr(0, colon + 2) + words;
    }
  }
  if (!what.empty()) what.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(what.front())));
  return fmt::format("{} (see {})", what, help_command(app));
}

}  // namespace causal::cli

#include "common.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include <unistd.h>

namespace causal::cli {

void add_kafka_options(CLI::App& sub, kafka::ConnectionOptions& opts) {
  sub.add_option("-b,--brokers", opts.brokers, "Bootstrap brokers HOST:PORT[,...] (default: $CAUSAL_BROKERS)")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("an empty broker list") : std::string(); },
                             ""));  // $CAUSAL_BROKERS is read by make_conf, after -X and -F
  sub.add_option("-X", opts.properties, "librdkafka property key=value (repeatable)")->allow_extra_args(false);
  sub.add_option("-F", opts.property_files, "Read librdkafka properties (key=value lines) from FILE")
      ->allow_extra_args(false);
}

std::string_view to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::json: return "json";
    case Format::jsonl: return "jsonl";
    case Format::csv: return "csv";
  }
  return "text";
}

void add_format_option(CLI::App& sub, Format& f, std::initializer_list<Format> choices, Format deflt) {
  std::vector<std::pair<std::string, Format>> named;
  std::string help = "Output format: ";
  for (Format c : choices) {
    named.emplace_back(to_string(c), c);
    help += (named.size() == 1 ? "" : "|") + std::string(to_string(c));
  }
  add_choice_option(sub, "--format", "FORMAT", f, std::move(named), deflt, help);
}

bool use_colour(int fd) {
  const char* no = std::getenv("NO_COLOR");
  return isatty(fd) && !(no && *no);
}

bool show_progress() { return isatty(STDERR_FILENO); }

CLI::Validator whole_number(std::uint64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const char* end = text.data() + text.size();
        auto [p, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || text.front() == '-' || text.front() == '+' || ec != std::errc() || p != end || v < min) {
          return "'" + text + "' is not a whole number of at least " + std::to_string(min);
        }
        return {};
      },
      "N>=" + std::to_string(min));
}

std::string json_error_text(const std::string& what) {
  if (what.starts_with("[json.exception.")) {
    if (auto end = what.find("] "); end != std::string::npos) return what.substr(end + 2);
  }
  return what;
}

}  // namespace causal::cli

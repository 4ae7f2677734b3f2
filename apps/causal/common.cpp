#include "common.hpp"

#include "causal/excerpt.hpp"
#include "causal/kafka/config_file.hpp"
#include "shell_word.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <expected>
#include <limits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>
#include <unistd.h>

#include <fmt/core.h>

namespace causal::cli {

namespace {

// Options live as long as the App that owns them, which is the whole run.
std::map<const CLI::Option*, ValueCompletion>& completions() {
  static std::map<const CLI::Option*, ValueCompletion> registry;
  return registry;
}

enum class NotWhole { malformed, too_large };

// The whole number `digits` spells, in decimal: no sign, nothing after the digits. One past
// 2^64 - 1 is too large rather than malformed, so that the message says which.
std::expected<std::uint64_t, NotWhole> parse_whole(std::string_view digits) {
  std::uint64_t v = 0;
  const char* end = digits.data() + digits.size();
  auto [p, ec] = std::from_chars(digits.data(), end, v);
  if (digits.empty() || digits.front() == '-' || digits.front() == '+' || p != end) {
    return std::unexpected(NotWhole::malformed);
  }
  if (ec == std::errc::result_out_of_range) return std::unexpected(NotWhole::too_large);
  if (ec != std::errc()) return std::unexpected(NotWhole::malformed);
  return v;
}

}  // namespace

CLI::Option* completes(CLI::Option* opt, ValueCompletion values) {
  completions().insert_or_assign(opt, std::move(values));
  return opt;
}

const ValueCompletion* completion_of(const CLI::Option* opt) {
  auto it = completions().find(opt);
  return it == completions().end() ? nullptr : &it->second;
}

CLI::Validator member_of(std::vector<std::string> names, bool any_case) {
  std::string set = "{";
  for (const auto& n : names) set += (set.size() > 1 ? "," : "") + n;
  set += "}";
  return CLI::Validator(
      [names, any_case, set](std::string& text) -> std::string {
        for (const auto& n : names) {
          if (std::equal(text.begin(), text.end(), n.begin(), n.end(), [any_case](char a, char b) {
                return any_case ? std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b))
                                : a == b;
              })) {
            return {};
          }
        }
        return quoted_excerpt(text) + " is not one of " + set;
      },
      set);
}

CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> names) {
  opt->check(member_of(names, false));
  return completes(opt, {ValueCompletion::Kind::one_of, std::move(names)});
}

void add_kafka_options(CLI::App& sub, kafka::ConnectionOptions& opts) {
  opts.config_file = true;  // the tool reads the configuration file; the library only when asked
  sub.add_option("-b,--brokers", opts.brokers, "Bootstrap brokers HOST:PORT[,...] (default: $CAUSAL_BROKERS)")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("an empty broker list") : std::string(); },
                             ""));  // $CAUSAL_BROKERS is read by make_conf, after -X and -F
  sub.add_option("-X", opts.properties, "librdkafka property key=value (repeatable)")->allow_extra_args(false);
  completes(sub.add_option("-F", opts.property_files, "Read librdkafka properties (key=value lines) from FILE")
                ->allow_extra_args(false),
            {ValueCompletion::Kind::file, {}});
  sub.add_option("--cluster", opts.cluster,
                 "Use section [NAME] of the configuration file ($CAUSAL_CONFIG, else ~/.config/causal/causal.conf; "
                 "see causal-config(5))")
      ->type_name("NAME")
      ->allow_extra_args(false)
      // --cluster "$UNSET" must not quietly mean no cluster (and connect elsewhere).
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("an empty section name") : std::string(); },
                             ""));
}

std::string connection_words(const kafka::ConnectionOptions& opts, std::vector<std::string>& left_out) {
  std::string out;
  auto add = [&out](std::string_view option, std::string_view value) {
    out += fmt::format("{}{} {}", out.empty() ? "" : " ", option, shell_word(value));
  };
  if (!opts.brokers.empty()) add("-b", opts.brokers);
  if (!opts.cluster.empty()) add("--cluster", opts.cluster);
  for (const auto& f : opts.property_files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) {
      left_out.push_back(fmt::format("-F {} (not a regular file: it cannot be read again)", quoted_excerpt(f)));
    } else {
      add("-F", std::filesystem::absolute(f, ec).string());  // runs from any directory
    }
  }
  for (const auto& p : opts.properties) {
    const std::string key = p.substr(0, p.find('='));
    if (kafka::holds_secret(key)) {
      left_out.push_back(fmt::format("-X {} (a secret)", key));
    } else {
      add("-X", p);
    }
  }
  return out;
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
        const auto v = parse_whole(text);
        if (!v && v.error() == NotWhole::too_large) return quoted_excerpt(text) + " is too large a number";
        if (!v || *v < min) return quoted_excerpt(text) + " is not a whole number of at least " + std::to_string(min);
        return {};
      },
      "N>=" + std::to_string(min));
}

void add_lookup_options(CLI::App& sub, std::int64_t& max_transaction_ms, std::int64_t& lookup_max_offsets,
                        int& timeout_ms) {
  sub.add_option("--max-transaction-ms", max_transaction_ms,
                 "Longest transaction to allow for when choosing where a lookup scan starts (default 900000)")
      ->check(whole_number(1));
  sub.add_option("--lookup-max-offsets", lookup_max_offsets,
                 "When the lookup window misses, scan at most this many offsets below the baseline toward the log "
                 "start (default 1000000; 0: do not widen)")
      ->check(whole_number(0));
  sub.add_option("--timeout-ms", timeout_ms, "Timeout of each metadata/offset request (default 10000)")
      ->check(whole_number(1));
}

CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string bad = quoted_excerpt(text) + " is not a size: a whole number of bytes, optionally followed "
                                                       "by k, m or g (KiB, MiB, GiB)";
        std::string_view digits = text;
        int shift = 0;
        if (!digits.empty()) {
          switch (digits.back()) {
            case 'k': case 'K': shift = 10; break;
            case 'm': case 'M': shift = 20; break;
            case 'g': case 'G': shift = 30; break;
            default: break;
          }
          if (shift) digits.remove_suffix(1);
        }
        const auto v = parse_whole(digits);
        if (!v && v.error() == NotWhole::malformed) return bad;
        constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
        if (!v || *v > (kMax >> shift)) return quoted_excerpt(text) + " is too large a size (at most 2^63 - 1 bytes)";
        text = std::to_string(*v << shift);
        return {};
      },
      "SIZE");
}

CLI::Validator not_empty(const std::string& name) {
  return CLI::Validator([name](std::string& text) { return text.empty() ? "the " + name + " is empty" : std::string(); },
                        "");
}

std::string json_error_text(const std::string& what) {
  std::string text = what;
  if (text.starts_with("[json.exception.")) {
    if (auto end = text.find("] "); end != std::string::npos) text.erase(0, end + 2);
  }
  // nlohmann quotes the token it stopped in whole ("last read: '...'"): a long string
  // literal would fill the terminal. Keep a short escaped excerpt of it instead.
  constexpr std::string_view kLastRead = "last read: '";
  if (auto at = text.find(kLastRead); at != std::string::npos) {
    const auto from = at + kLastRead.size();
    if (auto to = text.rfind('\''); to != std::string::npos && to >= from) {
      text = text.substr(0, at) + "last read: " + quoted_excerpt(std::string_view(text).substr(from, to - from)) +
             text.substr(to + 1);
    }
  }
  return text;
}

}  // namespace causal::cli

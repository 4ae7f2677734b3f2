// Shared pieces of the command line: Kafka connection options, output formats, and the
// outcome every subcommand returns (mapped to an exit code in main.cpp, nowhere else).
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "causal/error.hpp"
#include "causal/kafka/config.hpp"

namespace causal::cli {

// What a subcommand ended with. Errc::held (exit 4) is an outcome, not a failure message,
// so `message` may be empty.
using Outcome = std::expected<void, Error>;

// -b/--brokers (and $CAUSAL_BROKERS), -X key=value (repeatable), -F file.
void add_kafka_options(CLI::App& sub, kafka::ConnectionOptions& opts);

enum class Format { text, json, jsonl, csv };
// Adds --format with the given choices; `deflt` must be one of them.
void add_format_option(CLI::App& sub, Format& f, std::initializer_list<Format> choices, Format deflt);
std::string_view to_string(Format f);

// True when colour may be used on `fd`: a TTY and NO_COLOR unset.
bool use_colour(int fd);
// True when progress may be shown (stderr is a TTY).
bool show_progress();

// A CLI11 check that the option's text is a whole number of at least `min`, written in
// decimal digits: checked as text, so that -1 never reaches an unsigned option as 2^64-1,
// and with a message that says what is expected rather than a floating-point range.
CLI::Validator whole_number(std::uint64_t min);

}  // namespace causal::cli

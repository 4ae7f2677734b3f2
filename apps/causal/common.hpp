// Shared pieces of the command line: Kafka connection options, output formats, and the
// outcome every subcommand returns (mapped to an exit code in main.cpp, nowhere else).
#pragma once

#include <algorithm>
#include <cctype>
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

// What the completion scripts (`causal completions`) offer as the value of an option or of a
// positional argument. Declared beside the option, from the same list the parser checks or
// dispatches on, so that the scripts offer what the parser takes and nothing else.
struct ValueCompletion {
  enum class Kind {
    one_of,   // one of `names`
    list_of,  // a comma-separated list of `names`, each of which may be prefixed with '-'
    file,     // a file name
  };
  Kind kind;
  std::vector<std::string> names;
};
// Records what `opt`'s value completes to; returns `opt`.
CLI::Option* completes(CLI::Option* opt, ValueCompletion values);
// What `opt`'s value completes to, or null (any text: nothing is offered).
const ValueCompletion* completion_of(const CLI::Option* opt);
// `opt` takes one of `names`, as written: checked (CLI::IsMember) and offered by completion.
CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> names);
// The check behind one_of and add_choice_option: the value is one of `names` (any case when
// `any_case`). Shown in --help as {a,b,c}; refused as "'VALUE' is not one of {a,b,c}", the
// value quoted as an excerpt (CLI11's IsMember quoted it whole and raw).
CLI::Validator member_of(std::vector<std::string> names, bool any_case);

// -b/--brokers (and $CAUSAL_BROKERS), -X key=value (repeatable), -F file (repeatable),
// --cluster NAME (a section of the configuration file).
void add_kafka_options(CLI::App& sub, kafka::ConnectionOptions& opts);

// The connection options as given on the command line (-b, --cluster, -F, -X, in that
// order), shell-quoted, for a printed command that must reach the same cluster (explain's
// remedies); an -F path made absolute, so that the command runs from any directory. Left
// out, each said in `left_out` ("-X sasl.password (a secret)"): an -X whose value is a
// secret (kafka::holds_secret), never printed, and an -F that is not a regular file (a
// pipe such as <(...) cannot be read again). $CAUSAL_BROKERS and the configuration file
// need no words: the printed command reads them as this one did.
std::string connection_words(const kafka::ConnectionOptions& opts, std::vector<std::string>& left_out);

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
// A size in bytes: digits, optionally followed by one of k, m, g (KiB, MiB, GiB; either
// case), at most 2^63 - 1 bytes. Rewrites the text to the number of bytes; anything else
// (a sign, a fraction, another suffix) is refused naming the text.
CLI::Validator byte_size();
// The lookup and request options explain and watch share, with their defaults in the help:
// --max-transaction-ms, --lookup-max-offsets and --timeout-ms.
void add_lookup_options(CLI::App& sub, std::int64_t& max_transaction_ms, std::int64_t& lookup_max_offsets,
                        int& timeout_ms);
// Refuses an empty value: "the NAME is empty" (e.g. --group "").
CLI::Validator not_empty(const std::string& name);

// An option NAME whose value is one of `choices` (case-insensitive), stored in `var` as its
// enum value; shown in --help as NAME TYPE:{a,b,c} with the default named. Only the names
// are accepted (not the enum's numbers), and `var` holds `deflt` until the option is given.
template <class E>
CLI::Option* add_choice_option(CLI::App& sub, const std::string& name, const std::string& type_name, E& var,
                               std::vector<std::pair<std::string, E>> choices, E deflt, const std::string& help) {
  var = deflt;
  std::vector<std::string> names;
  std::string deflt_name;
  for (const auto& [n, e] : choices) {
    names.push_back(n);
    if (e == deflt) deflt_name = n;
  }
  auto* opt = sub.add_option_function<std::string>(
      name,
      [&var, choices](const std::string& v) {
        // The check below accepts any case but hands the value on as typed.
        for (const auto& [n, e] : choices) {
          if (std::equal(v.begin(), v.end(), n.begin(), n.end(),
                         [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }))
            var = e;
        }
      },
      help + " (default " + deflt_name + ")");
  opt->check(member_of(names, true))->type_name(type_name);
  return completes(opt, {ValueCompletion::Kind::one_of, std::move(names)});
}

// An exception's text from nlohmann/json without its "[json.exception.parse_error.101] "
// prefix, which means nothing to a user.
std::string json_error_text(const std::string& what);

}  // namespace causal::cli

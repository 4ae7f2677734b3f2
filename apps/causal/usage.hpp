// What the command line says before any subcommand runs, and how its mistakes are told.
//
//   causal help [SUB]      the help of causal, or of SUB (as --help prints it), exit 0
//   causal WORD ...        WORD not a subcommand: one line naming it, the nearest subcommand
//                          when WORD looks like a typo of one, exit 2
//   causal --OPTION ...    an option causal itself does not take (only -h, --help, -V, --version):
//                          one line naming it, exit 2
//   a CLI11 parse error    one line with the `causal:` prefix every other error has, and where
//                          to read the options, exit 2
// Thread-safety: none; main() only.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace causal::cli {

// `causal help [SUB]` is not a CLI11 subcommand; the completion scripts offer it beside them.
inline constexpr const char* kHelpCommand = "help";
inline constexpr const char* kHelpDescription = "Print the help of causal or of a subcommand";

// Handles `help` and an unknown first word before CLI11 parses anything. Returns the exit
// status when it handled the command line, nullopt when CLI11 should parse it.
std::optional<int> handle_first_word(CLI::App& app, int argc, char** argv);

// The one line (without the `causal: ` prefix) for a parse error that is not a request for
// help or the version.
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e);

// The subcommand nearest `word` (edit distance at most 2, or a prefix), if any.
std::optional<std::string> nearest_subcommand(const CLI::App& app, const std::string& word);

}  // namespace causal::cli

// causal: one binary, one subcommand per file (see subcommands.hpp for the table).
// This is the one place that maps an Error's kind to an exit code (man/causal.1 documents
// them): 0 ok, 1 runtime failure, 2 usage error, 3 undecodable clock header, 4 records
// held, 130 interrupted before a result that only counts whole (a simulate sweep, a
// produce run). An Error's message names fields (error.hpp); it is printed with this
// tool's options in their place (option_words.hpp).
// It is also the one catch boundary: running out of memory, and a write to standard
// output that failed (output.hpp says what that means), end here with exit status 1 and
// one line on stderr, never with status 0 or a stack trace.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <system_error>

#include <fmt/core.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/librdkafka_version.hpp"
#include "causal/version.hpp"
#include "option_words.hpp"
#include "output.hpp"
#include "subcommands.hpp"
#include "usage.hpp"

namespace {

// One line on stderr. Not fmt::print: that throws when stderr itself cannot be written,
// and there is nobody left to catch it.
void say(const std::string& line) {
  // one_line: whatever a message carries (a parser's quote of the input, a path), the error
  // stays one line and writes no control byte to the terminal.
  std::fputs(("causal: " + causal::one_line(line) + "\n").c_str(), stderr);
}

// The exit status of a run that ended with an Error of kind `code` (man/causal.1).
int exit_code(causal::Errc code) {
  switch (code) {
    case causal::Errc::runtime: return 1;
    case causal::Errc::usage: return 2;
    case causal::Errc::bad_header: return 3;
    case causal::Errc::held: return 4;
    case causal::Errc::interrupted: return 130;  // as a shell reports a SIGINT
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace causal;
  using namespace causal::cli;

  // Started with standard error closed (2>&-), the first file or socket opened would get
  // descriptor 2 and diagnostics would be written into it (a broker connection, say): it is
  // pointed at /dev/null instead. Diagnostics that cannot be written are dropped (eprint.hpp).
  // Standard output is left as it is: a write to a closed one is a failed write (exit 1).
  if (::fcntl(STDERR_FILENO, F_GETFD) == -1 && errno == EBADF) {
    if (int fd = ::open("/dev/null", O_WRONLY); fd >= 0 && fd != STDERR_FILENO) ::close(fd);
  }
  output::init();
  // Reading stdin with getline() catches a failed allocation and only sets badbit, so
  // a line too long for memory looked like the end of the input: let it reach the catch
  // below instead.
  std::cin.exceptions(std::ios::badbit);

  CLI::App app{"causal: causal delivery over Apache Kafka, made visible and debuggable", "causal"};
  // -V as kcat has it; like kcat -V, also the librdkafka this binary runs with.
  app.set_version_flag("-V,--version", fmt::format("causal {}\n{}", causal::version, kafka::librdkafka_version_text()));
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 undecodable causal.clock header,\n"
      "4 records still held (explain: or undecided), 130 interrupted (a simulate sweep, produce).\n"
      "See causal(1) and causal-<subcommand>(1).");

  Outcome outcome;
  for (const auto& s : kSubcommands) {
    CLI::App* sub = app.add_subcommand(s.name, s.description);
    s.setup(*sub, outcome);
  }

  // What ended the run when it did not return an Outcome.
  int rc = 0;
  std::optional<std::string> thrown;
  try {
    if (auto handled = handle_first_word(app, argc, argv)) {
      rc = *handled;  // `causal help [SUB]`, or an unknown subcommand (usage.hpp)
    } else {
      app.parse(argc, argv);
    }
  } catch (const CLI::ParseError& e) {
    // Help and --version: CLI11 prints them, exit 0. Any other parse error is one line
    // with the prefix every error has, exit 2.
    if (e.get_exit_code() == 0) {
      rc = app.exit(e);
    } else {
      rc = exit_code(Errc::usage);
      thrown = parse_error_line(app, e);
    }
  } catch (const std::bad_alloc&) {
    rc = exit_code(Errc::runtime);
    thrown = "out of memory (an allocation failed; give the command less input, or more memory)";
  } catch (const std::system_error& e) {
    // fmt::print throws when a write to stdout fails part-way; the command did not finish,
    // so its result is unknown: exit 1. finish() below says why (or nothing, on EPIPE).
    rc = exit_code(Errc::runtime);
    if (std::ferror(stdout)) {
      output::write_failed(e.code().value());
    } else {
      thrown = fmt::format("internal error: {}", e.what());
    }
  } catch (const std::exception& e) {
    rc = exit_code(Errc::runtime);
    thrown = fmt::format("internal error: {}", e.what());
  }

  // Flush stdout before anything goes to stderr, so that a terminal shows them in order.
  const std::optional<std::string> write_error = output::finish();
  if (thrown) say(*thrown);
  if (!outcome) {
    if (!outcome.error().message.empty()) say(with_option_words(outcome.error().message));
    rc = exit_code(outcome.error().code);
  }
  if (write_error) {
    say(*write_error);
    rc = exit_code(Errc::runtime);
  }
  return rc;
}

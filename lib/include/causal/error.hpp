// Error values for expected failures.
//
// Contract: library code returns std::expected<T, Error>; it throws only on
// programming errors (violated REQUIRES). An Errc is a kind of failure, with no number
// attached: apps/causal/main.cpp is the one place that maps a kind to a process exit code.
//
// A message names the fields of the library's options, never a tool's options: where it
// tells the caller what to set, it names the field in backquotes (`brokers`,
// `max_held_bytes`, `cluster`, ...), and `field` names the one the error is about. A tool
// puts its own option in each field's place (apps/causal/option_words.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace causal {

enum class Errc : std::uint8_t {
  runtime,      // the cluster, the network or the process: Kafka unreachable, unknown topic, auth, I/O
  usage,        // the caller's mistake: options that conflict or name nothing, a bad input file
  bad_header,   // an undecodable causal.clock header (fail closed)
  held,         // records still held when the work ended
  interrupted,  // a signal ended work whose result only counts whole (a sweep, a run of sends)
};

struct Error {
  Error() = default;
  Error(Errc c, std::string m, std::string f = {}) : code(c), message(std::move(m)), field(std::move(f)) {}

  Errc code = Errc::runtime;  // the kind
  std::string message;        // names what failed and, where possible, what to do
  std::string field;          // the option field the message is about ("brokers"), or empty
};

inline Error runtime_error(std::string m) { return {Errc::runtime, std::move(m)}; }
inline Error usage_error(std::string m) { return {Errc::usage, std::move(m)}; }
// An error about the option field `field`, which `m` names in backquotes.
inline Error runtime_error(std::string m, std::string field) { return {Errc::runtime, std::move(m), std::move(field)}; }
inline Error usage_error(std::string m, std::string field) { return {Errc::usage, std::move(m), std::move(field)}; }

}  // namespace causal

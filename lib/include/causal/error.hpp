// Error values for expected failures, and the exit codes they map to.
//
// Contract: library code returns std::expected<T, Error>; it throws only on
// programming errors (violated REQUIRES). apps/causal/main.cpp is the one place
// that maps an Error to a process exit code.
#pragma once

#include <string>

namespace causal {

// Exit codes documented in man/causal.1. The numeric values are the exit codes.
enum class Errc : int {
  runtime = 1,     // Kafka unreachable, unknown topic, auth, I/O
  usage = 2,       // bad command line or bad input file
  bad_header = 3,  // undecodable causal.clock header (fail closed)
  held = 4,        // records still held when the command ended
  interrupted = 130,  // SIGINT/SIGTERM ended work whose result is incomplete (a sweep), as a shell reports
};

struct Error {
  Errc code = Errc::runtime;
  std::string message;  // names what failed and, where possible, what to do
};

inline Error runtime_error(std::string m) { return {Errc::runtime, std::move(m)}; }
inline Error usage_error(std::string m) { return {Errc::usage, std::move(m)}; }

}  // namespace causal

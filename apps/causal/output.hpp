// Standard output of every subcommand: a failed write is never ignored.
//
// Subcommands write stdout through C stdio (fmt::print, fwrite, fputs), CLI11 writes help
// and --version through std::cout (synced with stdio, so through the same FILE), and the
// record writer of tail and demo calls write(2) on fd 1 itself. What a failed write means:
//
//   - EPIPE on a pipe or socket (the reader went away, e.g. `causal tail | head`): the
//     reader has what it wanted. Output stops, nothing more is printed, and the exit
//     status is what the command would have returned had its output ended there.
//   - any other failure (ENOSPC, EIO, EBADF, EPIPE where stdout is not a pipe, ...):
//     data is lost. The exit status is 1 and stderr gets one line:
//     `causal: cannot write to standard output: <reason>`.
//
// So a truncated plan.csv or header.bin never comes with exit status 0. man/causal.1
// (EXIT STATUS) documents this.
//
// Order of use: main() calls init() before anything is written (SIGPIPE is ignored, so
// a closed pipe is an EPIPE error instead of a silent death by signal) and finish() once
// at the end. Streaming subcommands (decode, tail, demo) call flush() after each record,
// or report their own write(2) failures through write_failed(), and stop at the first
// failure; the others write everything and let finish() find the failure.
// Thread-safety: none; the main thread only.
#pragma once

#include <optional>
#include <string>

namespace causal::cli::output {

// Ignores SIGPIPE. Call once, before anything is written.
void init();

// Flushes stdout. False once any write to standard output has failed (now or earlier).
bool flush();

// When fd is a pipe, asks the kernel to grow its buffer to kPipeBytes (1 MiB, the default
// fs.pipe-max-size) if it is smaller. A 64 KiB pipe makes a writer of hundreds of MB block
// and wake its reader every 64 KiB; measured on `causal tail | wc -l` over 1M records it was
// a third of the wall time. Best effort: a refusal (a lower pipe-max-size, the per-user
// pipe limit) leaves the pipe as it was and is not an error. Changes nothing else.
inline constexpr int kPipeBytes = 1 << 20;
void widen_pipe(int fd);

// Records a failed write(2) on fd 1 by a writer that bypasses stdio.
void write_failed(int errno_value);

// True once any write to standard output has failed (stdout's error flag included).
bool failed();

// Flushes std::cout and stdout and returns the one-line message for a failed write, or
// nullopt when every write succeeded or the reader closed the pipe (see above).
std::optional<std::string> finish();

}  // namespace causal::cli::output

#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/core.h>

namespace causal::cli::output {

namespace {

bool g_failed = false;
int g_errno = 0;  // of the first failed write

void note(int errno_value) {
  if (g_failed) return;
  g_failed = true;
  g_errno = errno_value != 0 ? errno_value : EIO;
}

// EPIPE means "the reader went away" only on a pipe or a socket; on anything else it is
// treated as what it is, a failed write.
bool stdout_is_pipe() {
  struct stat st {};
  return ::fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

}  // namespace

void init() { std::signal(SIGPIPE, SIG_IGN); }

bool flush() {
  if (std::fflush(stdout) != 0) {
    note(errno);
    return false;
  }
  return !failed();
}

void widen_pipe(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  int now = ::fcntl(fd, F_GETPIPE_SZ);
  if (now >= 0 && now < kPipeBytes) (void)::fcntl(fd, F_SETPIPE_SZ, kPipeBytes);  // refusal: keep it
}

void write_failed(int errno_value) { note(errno_value); }

bool failed() {
  // A write inside an earlier fwrite failed; glibc drops what it could not write, so a
  // later fflush succeeds and only the stream's error flag remembers. errno is still that
  // write's error when this runs soon after it, as the streaming commands make sure.
  if (!g_failed && std::ferror(stdout)) note(errno);
  return g_failed;
}

std::optional<std::string> finish() {
  std::cout.flush();  // CLI11's help and --version; the same FILE as stdout
  flush();
  if (!g_failed || (g_errno == EPIPE && stdout_is_pipe())) return std::nullopt;
  return fmt::format("cannot write to standard output: {}", std::strerror(g_errno));
}

}  // namespace causal::cli::output

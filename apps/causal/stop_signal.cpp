// SIGINT and SIGTERM as requests to stop: see stop_signal.hpp.
#include "stop_signal.hpp"

#include <cstring>
#include <unistd.h>

namespace causal::cli {

volatile std::sig_atomic_t g_stop = 0;

namespace {
const char* volatile g_second_note = nullptr;  // set once every record is written
const char* volatile g_first_note = nullptr;   // set while nothing is read yet (start-up)
}  // namespace

void exit_on_second_signal(const char* note) { g_second_note = note; }
void exit_on_any_signal(const char* note) { g_first_note = note; }

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = [](int) {
    if (const char* note = g_first_note) {
      (void)!::write(STDERR_FILENO, note, std::strlen(note));  // async-signal-safe
      ::_exit(130);
    }
    if (g_stop && g_second_note) {
      (void)!::write(STDERR_FILENO, g_second_note, std::strlen(g_second_note));  // async-signal-safe
      ::_exit(130);
    }
    g_stop = 1;
  };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

void stop_on_sigint() {
  // What std::signal installs on glibc (BSD semantics), with a handler that only sets the flag.
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_stop = 1; };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
}

void default_sigint() { std::signal(SIGINT, SIG_DFL); }

}  // namespace causal::cli

// The one way the subcommands learn that they are asked to stop: SIGINT and SIGTERM set
// g_stop, which their loops look at between steps, so that what was done is reported whole
// (a closed JSON document, a summary, a last commit) before the exit.
//
// Two installations, by what a signal may interrupt:
//   install_stop_signals  SIGINT and SIGTERM, blocking calls interrupted (no SA_RESTART):
//                         tail, produce and simulate, whose loops block in reads.
//   stop_on_sigint        SIGINT only, blocking calls restarted; SIGTERM keeps its default
//                         action: decode's and explain's reads from Kafka, which time out on
//                         their own. default_sigint gives SIGINT its default action back.
// Thread-safety: the handlers touch only async-signal-safe state; install from the main
// thread before the work starts.
#pragma once

#include <csignal>

namespace causal::cli {

// Set (to 1) by a first SIGINT or SIGTERM; never cleared.
extern volatile std::sig_atomic_t g_stop;

// SIGINT/SIGTERM set g_stop (no SA_RESTART, so blocking calls return early); SIGPIPE is
// ignored so that a closed stdout is an EPIPE write error, not a silent death.
void install_stop_signals();
// From now on (every record is written), a second SIGINT/SIGTERM after the first writes
// `note` (a line, kept alive by the caller) to stderr and exits at once with status 130,
// abandoning the work left (a member's last commit and leaving its group, which wait on
// the group coordinator: a whole outage, when the brokers are away).
void exit_on_second_signal(const char* note);
// While `note` is set (non-null), the first SIGINT/SIGTERM writes it to stderr and exits at
// once with 130: for start-up waits that do not look at g_stop (metadata, start positions, a
// member's first join, each up to --timeout-ms or a session), when nothing is read or written
// yet. nullptr turns it off.
void exit_on_any_signal(const char* note);

// SIGINT sets g_stop, every time (a second one too), blocking calls restarted (SA_RESTART);
// SIGTERM and SIGPIPE are left as they are.
void stop_on_sigint();
// SIGINT's default action again (the process ends at the next one).
void default_sigint();

}  // namespace causal::cli

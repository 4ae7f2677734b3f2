// A word of a command the tools print for the user to run (explain's remedies), quoted so
// that the command runs as printed.
#pragma once

#include <string>
#include <string_view>

namespace causal {

// `word` as one word of a POSIX shell command line: as it is when it is non-empty and made
// only of [A-Za-z0-9_./:@%+=,-] (every Kafka topic name is); in single quotes otherwise, a
// quote inside written '\''; as $'...' with \xNN escapes when it holds a control byte
// (below 0x20, or 0x7f), which single quotes would pass to the terminal raw and which no
// POSIX quoting keeps on one line ($'...' is bash's, zsh's and ksh's, and POSIX.1-2024's).
std::string shell_word(std::string_view word);

}  // namespace causal

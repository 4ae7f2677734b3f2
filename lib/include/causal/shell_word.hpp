// A word of a command printed for the user to run, quoted so that the command runs as
// printed: the tool's remedies (apps/causal/remedy_command.cpp), and the one hint of a
// library message that is a command (lib/kafka/group_membership.cpp, a group's committed
// offsets unreadable while a commit is pending).
#pragma once

#include <string>
#include <string_view>

namespace causal {

// `word` as one word of a POSIX shell command line (sh, dash, bash, zsh alike): as it is
// when it is non-empty and made only of [A-Za-z0-9_./:@%+=,-] (every Kafka topic name is);
// in single quotes otherwise, a quote inside written '\''. A tab or a newline stays raw
// inside the quotes (a newline then breaks the printed line, never the command); any other
// control byte (below 0x20, or 0x7f) is made at run time by "$(printf '\NNN')" between the
// quotes, so that it never reaches the terminal raw.
std::string shell_word(std::string_view word);

}  // namespace causal

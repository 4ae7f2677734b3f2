// A word of a command printed for the user to run, quoted so that the command runs as
// printed: the tool's remedies (remedy_command.cpp), the commands explain prints, and the
// commands option_words.cpp puts in place of a library's actions.
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

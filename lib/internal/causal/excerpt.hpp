// Input quoted in an error message, so that no input reaches a terminal raw and a huge
// input does not become a huge message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace causal {

// 'text' with every byte outside printable ASCII (and the quote and the backslash) written as
// \xNN, cut after `max` bytes of input with "...' (N bytes)" saying how long it was.
std::string quoted_excerpt(std::string_view text, std::size_t max = 60);

// A name from the input (a JSON key) as an error names it: as it is when it is 1 to 60 bytes
// of [A-Za-z0-9_.-], which needs no quoting, and as quoted_excerpt otherwise.
std::string name_excerpt(std::string_view name);

// `text` made one line that is safe on a terminal: every control byte (below 0x20, and 0x7f)
// written as \xNN, other bytes unchanged. The last guard before an error line is printed,
// for text from elsewhere (a parser's message) that may carry the user's input.
std::string one_line(std::string_view text);

}  // namespace causal

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

}  // namespace causal

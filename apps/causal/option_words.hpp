// The tool's words for the fields the libraries name. A library message, note or
// diagnosis names a field the caller sets in backquotes (`brokers`, `max_held_bytes`,
// `group`, ...) and never an option of this tool; with_option_words puts this tool's
// option in its place, so that the user reads what to type.
#pragma once

#include <string>
#include <string_view>

namespace causal::cli {

// `text` with every backquoted field this tool has an option for replaced by that option
// ("`max_held_bytes`" -> "--max-held-bytes"), and "`baseline group=G`" by the command
// "`causal baseline TOPIC --group G`"; anything else, backquotes included, as it is.
std::string with_option_words(std::string_view text);

}  // namespace causal::cli

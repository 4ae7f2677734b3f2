// A remedy of the diagnosis (causal/diagnosis.hpp, Remedy) as a command of this tool that
// runs as printed: the connection options the tool was given, the group shell-quoted.
#pragma once

#include <string>
#include <string_view>

#include "causal/diagnosis.hpp"

namespace causal::cli {

// `connection`: the connection options, already shell-quoted ("-b k1:9092 --cluster prod"),
// or empty; every command that connects carries them, so that it reaches the same cluster.
//   rewind          causal baseline C --group G --apply T/P@O ...
//   explain         causal explain C --group G --topic T ...
//   search_further  causal explain C --group G --topic T ... --lookup-max-offsets N [--replay-timeout-ms M]
//   decode          causal decode C T/P@O
//   start_joiners   causal baseline C T ... --group <NEW-GROUP> --apply
std::string remedy_command(const Remedy& r, std::string_view connection);

// An advice of the diagnosis: its prose in this tool's words, then its command.
std::string advice_text(const Advice& a, std::string_view connection);

}  // namespace causal::cli

#include "remedy_command.hpp"

#include <fmt/core.h>

#include "option_words.hpp"
#include "shell_word.hpp"

namespace causal::cli {

std::string remedy_command(const Remedy& r, std::string_view connection) {
  const auto command = [&](std::string_view sub) {
    return fmt::format("causal {}{}{}", sub, connection.empty() ? "" : " ", connection);
  };
  std::string out;
  switch (r.kind) {
    case Remedy::Kind::rewind:
      out = fmt::format("{} --group {} --apply", command("baseline"), shell_word(r.group));
      for (const auto& o : r.offsets) out += " " + offset_text(o.topic, o.partition, o.offset);
      return out;
    case Remedy::Kind::explain: {
      std::string scope;
      for (const auto& t : r.scope) scope += (scope.empty() ? "--topic " : " --topic ") + t;
      return fmt::format("{} --group {} {}", command("explain"), shell_word(r.group), scope);
    }
    case Remedy::Kind::search_further:
      out = fmt::format("{} --group {}", command("explain"), shell_word(r.group));
      for (const auto& t : r.scope) out += " --topic " + t;
      out += fmt::format(" --lookup-max-offsets {}", r.lookup_max_offsets);
      if (r.replay_timeout_ms) out += fmt::format(" --replay-timeout-ms {}", *r.replay_timeout_ms);
      return out;
    case Remedy::Kind::decode:
      out = command("decode");
      for (const auto& o : r.offsets) out += " " + offset_text(o.topic, o.partition, o.offset);
      return out;
    case Remedy::Kind::start_joiners:
      out = command("baseline");
      for (const auto& t : r.scope) out += " " + t;
      return out + " --group <NEW-GROUP> --apply";
  }
  return out;
}

std::string advice_text(const Advice& a, std::string_view connection) {
  std::string out = with_option_words(a.text);
  if (a.command) out += remedy_command(*a.command, connection);
  return out;
}

}  // namespace causal::cli

#include "causal/kafka/owned_properties.hpp"

#include <cctype>
#include <string>

#include <fmt/core.h>

namespace causal::kafka {

namespace {

// The value as librdkafka reads it: enums in any case; booleans as true/t/1 or false/f/0 in
// any case. A value librdkafka would read as causal's own is accepted, whatever its spelling.
std::string lower(std::string_view v) {
  std::string out(v);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
bool reads_true(std::string_view v) {
  const std::string l = lower(v);
  return l == "true" || l == "t" || l == "1";
}
bool reads_false(std::string_view v) {
  const std::string l = lower(v);
  return l == "false" || l == "f" || l == "0";
}

}  // namespace

std::optional<std::string> refuse_owned_property(std::string_view key, std::string_view value) {
  if (key == "isolation.level" && lower(value) != "read_committed") {
    return fmt::format(
        "causal reads only committed records (read_committed): a record of a transaction that may yet "
        "abort is never delivered, committed past, decoded or diagnosed, so {} cannot be set", value);
  }
  if ((key == "enable.auto.commit" || key == "enable.auto.offset.store") && !reads_false(value)) {
    return std::string("a member commits itself, and only what it delivered (`ConsumerHost::commit`); "
                       "librdkafka's automatic commits would pass records still held");
  }
  if (key == "enable.idempotence" && !reads_true(value)) {
    return std::string("a sender's claims rely on the order of its acknowledged sends, which idempotence keeps");
  }
  if (key == "group.id") return std::string("causal sets the group id itself; a group is named with `ConsumerOptions::group`");
  if (key == "transactional.id") {
    return std::string("give it with `ProducerOptions::transactional_id`, which runs the sends in transactions");
  }
  return std::nullopt;
}

bool is_owned_property(std::string_view key) {
  return key == "isolation.level" || key == "enable.auto.commit" || key == "enable.auto.offset.store" ||
         key == "enable.idempotence" || key == "group.id" || key == "transactional.id";
}

}  // namespace causal::kafka

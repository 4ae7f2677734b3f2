#include "causal/kafka/owned_properties.hpp"

#include <fmt/core.h>

namespace causal::kafka {

std::optional<std::string> refuse_owned_property(std::string_view key, std::string_view value) {
  if (key == "isolation.level" && value != "read_committed") {
    return fmt::format(
        "causal reads only committed records (read_committed): a record of a transaction that may yet "
        "abort is never delivered, committed past, decoded or diagnosed, so {} cannot be set", value);
  }
  if ((key == "enable.auto.commit" || key == "enable.auto.offset.store") && value != "false") {
    return std::string("a member commits itself, and only what it delivered (tail --commit); librdkafka's "
                       "automatic commits would pass records still held");
  }
  if (key == "enable.idempotence" && value != "true") {
    return std::string("a sender's claims rely on the order of its acknowledged sends, which idempotence keeps");
  }
  if (key == "group.id") return std::string("causal sets the group id itself; a group is named with --group (tail, explain, baseline)");
  if (key == "transactional.id") {
    return std::string("give it with causal produce's --transactional-id, which runs the sends in transactions");
  }
  return std::nullopt;
}

bool is_owned_property(std::string_view key) {
  return key == "isolation.level" || key == "enable.auto.commit" || key == "enable.auto.offset.store" ||
         key == "enable.idempotence" || key == "group.id" || key == "transactional.id";
}

}  // namespace causal::kafka

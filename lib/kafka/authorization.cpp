#include "causal/kafka/authorization.hpp"
#include "causal/excerpt.hpp"

#include <fmt/core.h>

namespace causal::kafka {

bool is_authorization_error(rd_kafka_resp_err_t err) {
  return err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
         err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
         err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED ||
         err == RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
}

std::optional<std::string> denied(rd_kafka_resp_err_t err, std::string_view operation, std::string_view kind,
                                  std::string_view name) {
  if (!is_authorization_error(err)) return std::nullopt;
  // Kafka says which kind it refused; the caller says which operation its request needed.
  if (err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED && kind != "topic") return std::nullopt;
  if (err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED && kind != "group") return std::nullopt;
  if (err == RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED && kind != "transactional id")
    return std::nullopt;
  if (err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED && kind != "cluster") return std::nullopt;
  return fmt::format(
      "not authorised to {} {} {} ({}): the cluster's ACLs must allow {} on {} {} for this user",
      operation, kind, quoted_excerpt(name), rd_kafka_err2name(err), operation, kind, quoted_excerpt(name));
}

}  // namespace causal::kafka

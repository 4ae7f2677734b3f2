// Secrets and refusals, with no broker: the configuration file's parser, the secret
// scrubber applied to librdkafka's lines, and the wording of refused ACLs.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "causal/kafka/authorization.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/config_file.hpp"

using namespace causal::kafka;

TEST_CASE("the configuration file: global lines, sections, spaces, '=' and '#' in values") {
  auto f = parse_config_file("/c.conf",
                             "# comment\n"
                             "  client.id = x \n"
                             "\n"
                             "[prod]\n"
                             "bootstrap.servers=a:1\n"
                             "sasl.password = p=q#r\n"
                             "[ staging ]\n"
                             "bootstrap.servers=b:2\n"
                             "[prod]\n"
                             "sasl.username=u\n");
  REQUIRE(f);
  REQUIRE(f->global.size() == 1);
  CHECK(f->global[0].key == "client.id");
  CHECK(f->global[0].value == "x");
  const auto* prod = f->section("prod");
  REQUIRE(prod);
  REQUIRE(prod->size() == 3);  // a section named twice adds up
  CHECK((*prod)[1].value == "p=q#r");
  CHECK((*prod)[1].line == 6);
  CHECK((*prod)[2].key == "sasl.username");
  REQUIRE(f->section("staging"));
  CHECK(f->section("nope") == nullptr);
}

TEST_CASE("the configuration file: malformed lines name file and line, never their text") {
  auto no_eq = parse_config_file("/c.conf", "a=1\nsasl.password hunter2\n");
  REQUIRE_FALSE(no_eq);
  CHECK(no_eq.error().code == causal::Errc::usage);
  CHECK(no_eq.error().message == "/c.conf:2: expected key=value or [section]");
  CHECK(parse_config_file("/c.conf", "=v\n").error().message.starts_with("/c.conf:1: "));
  CHECK(parse_config_file("/c.conf", "[a b]\n").error().message.starts_with("/c.conf:1: "));
  CHECK(parse_config_file("/c.conf", "[]\n").error().message.starts_with("/c.conf:1: "));
  // A section header with more on its line: the line may hold a secret, so it is not shown.
  for (const char* text : {"[prod]  sasl.password=hunter2\n", "[prod sasl.password=hunter2]\n"}) {
    auto e = parse_config_file("/c.conf", text);
    REQUIRE_FALSE(e);
    CHECK(e.error().message.starts_with("/c.conf:1: "));
    CHECK(e.error().message.find("hunter2") == std::string::npos);
  }
}

TEST_CASE("which properties are secrets to keep out of readable files") {
  for (auto k : {"sasl.password", "ssl.key.password", "ssl.keystore.password",
                 "sasl.oauthbearer.client.secret", "sasl.jaas.config", "ssl.key.pem", "my.token",
                 "Sasl.Password", "SASL.PASSWORD", "sasl.passwd"}) {  // any case, and a common misspelling
    CHECK(holds_secret(k));
  }
  for (auto k : {"ssl.key.location", "ssl.keystore.location", "sasl.kerberos.keytab", "sasl.username",
                 "bootstrap.servers", "ssl.ca.location"}) {
    CHECK_FALSE(holds_secret(k));
  }
}

TEST_CASE("librdkafka's lines are scrubbed of every secret value a configuration was given") {
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.properties = {"sasl.password=s3cr3t-value", "ssl.key.password=k3y-value", "sasl.username=alice"};
  ::unsetenv("CAUSAL_CONFIG");
  (void)brokers_in_effect(opts);  // builds the configuration without connecting
  CHECK(scrub_secrets("auth as alice with s3cr3t-value and k3y-value, s3cr3t-value") ==
        "auth as alice with [redacted] and [redacted], [redacted]");
  CHECK(scrub_secrets("nothing here") == "nothing here");
}

TEST_CASE("a refused ACL is named by operation, kind, resource and Kafka's error") {
  CHECK(denied(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, "Read", "topic", "t").value() ==
        "not authorised to Read topic 't' (TOPIC_AUTHORIZATION_FAILED): the cluster's ACLs must allow Read "
        "on topic "
        "'t' for this user");
  CHECK(denied(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED, "Describe", "group", "g").has_value());
  // Kafka's error says which kind it refused: a group refusal is not a topic's.
  CHECK_FALSE(denied(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED, "Read", "topic", "t"));
  CHECK_FALSE(denied(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "Read", "topic", "t"));
  CHECK_FALSE(denied(RD_KAFKA_RESP_ERR_NO_ERROR, "Read", "topic", "t"));
}

// A broker failure is logged by librdkafka (facility FAIL, "[thrd:NAME]: <reason>") and
// reported to the error callback with the same reason: said once, and the error callback's
// line is the last error that messages quote. Both lines printed would say it twice.
TEST_CASE("a FAIL log line and the error callback's report of it are said once") {
  causal::kafka::ClientLog log;
  const char* reason = "127.0.0.1:9/1: Connect to ipv4#127.0.0.1:9 failed: Connection refused (after 0ms in state CONNECT)";
  causal::kafka::handle_client_log(nullptr, 3, "FAIL", (std::string("[thrd:127.0.0.1:9/bootstrap]: ") + reason).c_str(),
                                   log);
  causal::kafka::handle_client_error(RD_KAFKA_RESP_ERR__TRANSPORT, reason, log);
  const auto lines = log.take();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].starts_with("librdkafka FAIL: [thrd:127.0.0.1:9/bootstrap]: 127.0.0.1:9/1: Connect"));
  CHECK(log.last_error() == std::string("librdkafka: ") + reason + " (_TRANSPORT)");
  // Another error, not logged as FAIL, is said.
  causal::kafka::handle_client_error(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "1/1 brokers are down", log);
  CHECK(log.take() == std::vector<std::string>{"librdkafka: 1/1 brokers are down (_ALL_BROKERS_DOWN)"});
}

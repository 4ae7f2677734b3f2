// The librdkafka properties causal sets itself (causal/kafka/owned_properties.hpp): which a
// user may not change, which spellings of causal's own value are accepted, and why the rest
// are refused. No broker.
#include <catch2/catch.hpp>

#include <string>

#include "causal/kafka/owned_properties.hpp"

using namespace causal::kafka;

TEST_CASE("owned properties: the six causal sets itself, and no others") {
  for (auto key : {"isolation.level", "enable.auto.commit", "enable.auto.offset.store", "enable.idempotence",
                   "group.id", "transactional.id"}) {
    CHECK(is_owned_property(key));
  }
  for (auto key : {"", "client.id", "group.instance.id", "group.protocol", "transaction.timeout.ms",
                   "auto.offset.reset", "enable.partition.eof", "isolation.level ", "Group.Id"}) {
    CHECK_FALSE(is_owned_property(key));
  }
}

TEST_CASE("owned properties: causal's own value is accepted in every spelling librdkafka reads as it") {
  for (auto v : {"read_committed", "READ_COMMITTED", "Read_Committed"}) CHECK_FALSE(refuse_owned_property("isolation.level", v));
  for (auto key : {"enable.auto.commit", "enable.auto.offset.store"}) {
    for (auto v : {"false", "FALSE", "False", "f", "F", "0"}) {
      INFO(key << "=" << v);
      CHECK_FALSE(refuse_owned_property(key, v));
    }
  }
  for (auto v : {"true", "TRUE", "True", "t", "T", "1"}) CHECK_FALSE(refuse_owned_property("enable.idempotence", v));
}

TEST_CASE("owned properties: another isolation level is refused, naming the value") {
  auto why = refuse_owned_property("isolation.level", "read_uncommitted");
  REQUIRE(why);
  CHECK(*why == "causal reads only committed records (read_committed): a record of a transaction that may yet "
                "abort is never delivered, committed past, decoded or diagnosed, so read_uncommitted cannot be set");
  CHECK(refuse_owned_property("isolation.level", ""));
  CHECK(refuse_owned_property("isolation.level", "read_committed "));  // librdkafka would not read it either
}

TEST_CASE("owned properties: automatic commits and offset stores are refused unless off") {
  for (auto key : {"enable.auto.commit", "enable.auto.offset.store"}) {
    for (auto v : {"true", "1", "t", "yes", "no", "", "00", "false "}) {
      INFO(key << "=" << v);
      auto why = refuse_owned_property(key, v);
      REQUIRE(why);
      CHECK(*why == "a member commits itself, and only what it delivered (`ConsumerHost::commit`); librdkafka's "
                    "automatic commits would pass records still held");
    }
  }
}

TEST_CASE("owned properties: idempotence is refused unless on") {
  for (auto v : {"false", "0", "f", "", "yes", "2"}) {
    INFO(v);
    auto why = refuse_owned_property("enable.idempotence", v);
    REQUIRE(why);
    CHECK(*why == "a sender's claims rely on the order of its acknowledged sends, which idempotence keeps");
  }
}

TEST_CASE("owned properties: group.id and transactional.id are refused whatever their value, with the option to use") {
  for (auto v : {"", "g", "causal"}) {
    auto group = refuse_owned_property("group.id", v);
    REQUIRE(group);
    CHECK(group->find("`ConsumerOptions::group`") != std::string::npos);
    auto tid = refuse_owned_property("transactional.id", v);
    REQUIRE(tid);
    CHECK(tid->find("`ProducerOptions::transactional_id`") != std::string::npos);
  }
}

TEST_CASE("owned properties: any other property is never refused") {
  for (auto key : {"client.id", "bootstrap.servers", "sasl.password", "group.instance.id", "Isolation.Level"}) {
    CHECK_FALSE(refuse_owned_property(key, "read_uncommitted"));
    CHECK_FALSE(refuse_owned_property(key, "true"));
  }
}

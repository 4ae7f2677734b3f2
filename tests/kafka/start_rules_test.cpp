// The start rules (--from; causal/kafka/consumer_host.hpp): positions and rules as text,
// their errors, and the checks made before any channel is read. No broker.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "causal/kafka/consumer_host.hpp"

using namespace causal::kafka;
using Kind = StartPosition::Kind;

namespace {

const std::string kExpected =
    ": expected beginning, end, lso, committed, an offset, or -N (N records before the end)";

std::vector<StartRule> rules(std::initializer_list<const char*> texts) {
  std::vector<StartRule> out;
  for (const char* t : texts) {
    auto r = parse_start_rule(t);
    REQUIRE(r);
    out.push_back(*r);
  }
  return out;
}

}  // namespace

TEST_CASE("start positions (--from): each name and its synonyms") {
  CHECK(parse_start_position("beginning") == StartPosition{Kind::beginning, 0});
  CHECK(parse_start_position("earliest") == StartPosition{Kind::beginning, 0});
  CHECK(parse_start_position("start") == StartPosition{Kind::beginning, 0});
  CHECK(parse_start_position("end") == StartPosition{Kind::end, 0});
  CHECK(parse_start_position("latest") == StartPosition{Kind::end, 0});
  CHECK(parse_start_position("lso") == StartPosition{Kind::lso, 0});
  CHECK(parse_start_position("stable") == StartPosition{Kind::lso, 0});
  CHECK(parse_start_position("committed") == StartPosition{Kind::committed, 0});
}

TEST_CASE("start positions (--from): an offset, and N before the end") {
  CHECK(parse_start_position("0") == StartPosition{Kind::offset, 0});
  CHECK(parse_start_position("1041") == StartPosition{Kind::offset, 1041});
  CHECK(parse_start_position("9223372036854775807") == StartPosition{Kind::offset, 9223372036854775807});
  CHECK(parse_start_position("-10") == StartPosition{Kind::from_end, 10});
}

TEST_CASE("start positions (--from): anything else is a usage error quoting the text") {
  for (const char* text : {"", "-", "--5", "+5", "5x", " 5", "5 ", "Beginning", "END", "1e3", "0x10",
                           "9223372036854775808", "-9223372036854775809"}) {
    INFO('"' << text << '"');
    auto p = parse_start_position(text);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == causal::Errc::usage);
    CHECK(p.error().message == "`start` '" + std::string(text) + "'" + kExpected);
  }
}

TEST_CASE("start positions (--from): a long or unprintable text is quoted cut and escaped") {
  const std::string long_text(100, '7');
  auto p = parse_start_position(long_text + "x");
  REQUIRE_FALSE(p);
  CHECK(p.error().message == "`start` '" + std::string(60, '7') + "...' (101 bytes)" + kExpected);
  auto q = parse_start_position("e\nd");
  REQUIRE_FALSE(q);
  CHECK(q.error().message == "`start` 'e\\x0ad'" + kExpected);
}

TEST_CASE("start positions (--from): to_string gives the text that parses back to the same position") {
  for (const StartPosition& p :
       {StartPosition{Kind::beginning, 0}, StartPosition{Kind::end, 0}, StartPosition{Kind::lso, 0},
        StartPosition{Kind::committed, 0}, StartPosition{Kind::offset, 0}, StartPosition{Kind::offset, 77},
        StartPosition{Kind::from_end, 3}}) {
    const auto text = to_string(p);
    INFO(text);
    auto back = parse_start_position(text);
    REQUIRE(back);
    CHECK(*back == p);
  }
  CHECK(to_string(StartPosition{Kind::from_end, 3}) == "-3");
  CHECK(to_string(StartPosition{Kind::lso, 0}) == "lso");
}

TEST_CASE("start rules (--from): unscoped, a topic, or a partition, with '=' or '@'") {
  auto all = parse_start_rule("end");
  REQUIRE(all);
  CHECK_FALSE(all->scope);
  CHECK(all->position == StartPosition{Kind::end, 0});

  auto topic = parse_start_rule("orders=5");
  REQUIRE(topic);
  REQUIRE(topic->scope);
  CHECK(topic->scope->topic == "orders");
  CHECK_FALSE(topic->scope->partition);
  CHECK(topic->position == StartPosition{Kind::offset, 5});

  auto partition = parse_start_rule("orders.v2/3@-10");
  REQUIRE(partition);
  REQUIRE(partition->scope);
  CHECK(partition->scope->topic == "orders.v2");
  CHECK(partition->scope->partition == std::optional<std::int32_t>(3));
  CHECK(partition->position == StartPosition{Kind::from_end, 10});

  // The first '=' or '@' ends the scope: what follows is the position.
  auto at = parse_start_rule("orders@committed");
  REQUIRE(at);
  CHECK(at->scope->topic == "orders");
  CHECK(at->position == StartPosition{Kind::committed, 0});
}

TEST_CASE("start rules (--from): a bad position, topic or partition is a usage error") {
  // The position's error, as parse_start_position words it.
  auto empty = parse_start_rule("orders=");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message == "`start` ''" + kExpected);
  auto twice = parse_start_rule("orders=5=6");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message == "`start` '5=6'" + kExpected);
  // A scope without a position is taken for a position.
  auto bare = parse_start_rule("orders/3");
  REQUIRE_FALSE(bare);
  CHECK(bare.error().message == "`start` 'orders/3'" + kExpected);
  // The selector's errors.
  for (const char* text : {"=5", "bad topic=5", "orders/x=5", "orders/-1=5", "orders/=5", "/3=5"}) {
    INFO(text);
    auto r = parse_start_rule(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == causal::Errc::usage);
  }
}

TEST_CASE("start rules (--from): two rules of the same scope are refused, naming both positions") {
  auto always = [](const std::string&, std::optional<std::int32_t>) { return true; };
  auto r = check_start_rules(rules({"end", "5"}), always);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == causal::Errc::usage);
  CHECK(r.error().message == "`start`: every channel is given two start positions (end and 5); give one");

  r = check_start_rules(rules({"t=end", "t/1=lso", "t@-2"}), always);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "`start`: t is given two start positions (end and -2); give one");

  r = check_start_rules(rules({"t/1=end", "t/2=end", "t/1@committed"}), always);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "`start`: t/1 is given two start positions (end and committed); give one");
}

TEST_CASE("start rules (--from): one rule per scope passes, however they overlap") {
  auto always = [](const std::string&, std::optional<std::int32_t>) { return true; };
  CHECK(check_start_rules({}, always));
  CHECK(check_start_rules(rules({"end", "t=5", "t/0=lso", "t/1=-3", "u=committed"}), always));
}

TEST_CASE("start rules (--from): a scoped rule must match a channel read, and an unscoped one is never asked about") {
  std::vector<std::pair<std::string, std::optional<std::int32_t>>> asked;
  auto reads = [&](const std::string& topic, std::optional<std::int32_t> partition) {
    asked.emplace_back(topic, partition);
    return topic == "t" && (!partition || *partition < 2);
  };
  CHECK(check_start_rules(rules({"end", "t=5", "t/1=lso"}), reads));
  REQUIRE(asked.size() == 2);
  CHECK(asked[0] == std::pair<std::string, std::optional<std::int32_t>>{"t", std::nullopt});
  CHECK(asked[1] == std::pair<std::string, std::optional<std::int32_t>>{"t", 1});

  auto r = check_start_rules(rules({"t/2=lso"}), reads);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == causal::Errc::usage);
  CHECK(r.error().message == "`start` t/2=lso: t/2 is not among the channels read");
  r = check_start_rules(rules({"u@-4"}), reads);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "`start` u=-4: u is not among the channels read");
}

TEST_CASE("start selectors (--from): a topic, or a topic and partition") {
  auto t = parse_selector("orders");
  REQUIRE(t);
  CHECK(t->topic == "orders");
  CHECK_FALSE(t->partition);
  auto p = parse_selector("orders/12");
  REQUIRE(p);
  CHECK(p->topic == "orders");
  CHECK(p->partition == std::optional<std::int32_t>(12));
}

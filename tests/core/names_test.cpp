// Tests of names.cpp: Kafka's topic rule, sender identities (strict UTF-8), interning,
// and parse_channel.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "causal/names.hpp"

using namespace causal;

TEST_CASE("valid_topic_name follows Kafka's rule", "[names]") {
  CHECK(valid_topic_name("orders"));
  CHECK(valid_topic_name("a"));
  CHECK(valid_topic_name("Orders.v2_eu-west-1"));
  CHECK(valid_topic_name(std::string(249, 'x')));
  CHECK_FALSE(valid_topic_name(std::string(250, 'x')));
  CHECK_FALSE(valid_topic_name(""));
  CHECK_FALSE(valid_topic_name("."));
  CHECK_FALSE(valid_topic_name(".."));
  CHECK(valid_topic_name("..."));  // only "." and ".." are reserved
  CHECK(valid_topic_name(".a"));
  for (char c : std::string("/ #@:=+,!$%*\t\n\\\"'")) {
    INFO("character " << int(c));
    CHECK_FALSE(valid_topic_name(std::string("a") + c + "b"));
  }
  CHECK_FALSE(valid_topic_name(std::string("a\0b", 3)));
  CHECK_FALSE(valid_topic_name("caf\xc3\xa9"));  // non-ASCII
}

TEST_CASE("valid_sender_name: 1..255 bytes of strict UTF-8", "[names]") {
  CHECK(valid_sender_name("billing-7f3a"));
  CHECK(valid_sender_name("node with spaces:and#marks"));
  CHECK(valid_sender_name(std::string(255, 's')));
  CHECK_FALSE(valid_sender_name(std::string(256, 's')));
  CHECK_FALSE(valid_sender_name(""));
  CHECK(valid_sender_name("caf\xc3\xa9"));               // U+00E9, 2 bytes
  CHECK(valid_sender_name("\xe2\x82\xac"));              // U+20AC, 3 bytes
  CHECK(valid_sender_name("\xf0\x9f\x98\x80"));          // U+1F600, 4 bytes
  CHECK(valid_sender_name("\xf4\x8f\xbf\xbf"));          // U+10FFFF, the last code point
  CHECK(valid_sender_name("\xed\x9f\xbf"));              // U+D7FF, just below the surrogates
  CHECK(valid_sender_name("\xee\x80\x80"));              // U+E000, just above them
  SECTION("overlong encodings are rejected") {
    CHECK_FALSE(valid_sender_name("\xc0\xaf"));          // '/' in 2 bytes
    CHECK_FALSE(valid_sender_name("\xc1\xbf"));
    CHECK_FALSE(valid_sender_name("\xe0\x80\xaf"));      // '/' in 3 bytes
    CHECK_FALSE(valid_sender_name("\xe0\x9f\xbf"));      // U+07FF in 3 bytes
    CHECK_FALSE(valid_sender_name("\xf0\x80\x80\xaf"));  // '/' in 4 bytes
    CHECK_FALSE(valid_sender_name("\xf0\x8f\xbf\xbf"));  // U+FFFF in 4 bytes
  }
  SECTION("surrogates and out-of-range code points are rejected") {
    CHECK_FALSE(valid_sender_name("\xed\xa0\x80"));      // U+D800
    CHECK_FALSE(valid_sender_name("\xed\xbf\xbf"));      // U+DFFF
    CHECK_FALSE(valid_sender_name("\xf4\x90\x80\x80"));  // U+110000
    CHECK_FALSE(valid_sender_name("\xf5\x80\x80\x80"));
    CHECK_FALSE(valid_sender_name("\xff"));
  }
  SECTION("truncated and stray bytes are rejected") {
    CHECK_FALSE(valid_sender_name("\xc3"));
    CHECK_FALSE(valid_sender_name("ab\xe2\x82"));
    CHECK_FALSE(valid_sender_name("\x80"));
    CHECK_FALSE(valid_sender_name("\xc3\x28"));          // continuation byte missing
  }
}

TEST_CASE("Names interns densely and never reuses ids", "[names]") {
  Names n;
  TopicId orders = n.topic("orders");
  TopicId payments = n.topic("payments");
  CHECK(orders == 0);
  CHECK(payments == 1);
  CHECK(n.topic("orders") == orders);
  CHECK(n.topic_name(payments) == "payments");

  ChannelId a = n.channel("orders", 3);
  ChannelId b = n.channel(payments, 0);
  ChannelId c = n.channel("orders", 4);
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(c == 2);
  CHECK(n.channel(orders, 3) == a);
  CHECK(n.channel_count() == 3);
  CHECK(n.channel_topic(b) == "payments");
  CHECK(n.channel_partition(c) == 4);
  CHECK(n.channel_text(a) == "orders/3");
  CHECK(n.channel_info(c).topic == orders);

  SenderId s = n.sender("cart-19c2");
  CHECK(n.sender("cart-19c2") == s);
  CHECK(n.sender("billing-7f3a") == s + 1);
  CHECK(n.sender_name(s) == "cart-19c2");
  CHECK(n.sender_count() == 2);

  // Violated REQUIREs are programming errors: they throw and intern nothing.
  CHECK_THROWS_AS(n.topic("bad/topic"), std::invalid_argument);
  CHECK_THROWS_AS(n.channel("orders", -1), std::invalid_argument);
  CHECK_THROWS_AS(n.sender(""), std::invalid_argument);
  CHECK_THROWS_AS(n.sender("\xc0\xaf"), std::invalid_argument);
  CHECK(n.channel_count() == 3);
  CHECK(n.sender_count() == 2);
  CHECK(n.topic("shipments") == 2);  // the failed intern took no id
}

TEST_CASE("Names lookups find exactly what was interned", "[names]") {
  Names n;
  CHECK_FALSE(n.find_topic("orders"));
  CHECK_FALSE(n.find_sender("cart-19c2"));
  TopicId orders = n.topic("orders");
  TopicId ordersx = n.topic("ordersx");  // same length class and first byte as "orders"
  CHECK(n.find_topic("orders") == orders);
  CHECK(n.find_topic("ordersx") == ordersx);
  CHECK_FALSE(n.find_topic("orderz"));
  CHECK_FALSE(n.find_topic("bad/topic"));  // any input is allowed; nothing is interned
  CHECK(n.topic_count() == 2);

  // Dense partitions and the sparse ones above kDensePartitions resolve alike.
  ChannelId low = n.channel(orders, 2);
  ChannelId high = n.channel(orders, 100000);
  CHECK(n.find_channel(orders, 2) == low);
  CHECK(n.find_channel(orders, 100000) == high);
  CHECK_FALSE(n.find_channel(orders, 1));
  CHECK_FALSE(n.find_channel(orders, 99999));
  CHECK_FALSE(n.find_channel(ordersx, 2));
  CHECK_FALSE(n.find_channel(7, 0));  // an unknown topic id
  auto dense = n.dense_channels(orders);
  REQUIRE(dense.size() > 2);
  CHECK(dense[2] == low);
  CHECK(dense[1] == Names::kNoChannel);
  CHECK(n.channel(orders, 100000) == high);  // re-interning finds the same id
  CHECK_THROWS_AS(n.channel(9, 0), std::invalid_argument);

  // Many names sharing cache slots: every lookup still returns its own id.
  std::vector<SenderId> ids;
  for (int i = 0; i < 300; ++i) ids.push_back(n.sender("s" + std::to_string(i)));
  for (int i = 0; i < 300; ++i) CHECK(n.find_sender("s" + std::to_string(i)) == ids[static_cast<std::size_t>(i)]);
  for (int i = 299; i >= 0; --i) CHECK(n.sender("s" + std::to_string(i)) == ids[static_cast<std::size_t>(i)]);
  CHECK(n.sender_count() == 300);
}

TEST_CASE("parse_channel", "[names]") {
  auto ok = parse_channel("orders/3");
  REQUIRE(ok);
  CHECK(ok->first == "orders");
  CHECK(ok->second == 3);
  auto big = parse_channel("t/2147483647");
  REQUIRE(big);
  CHECK(big->second == 2147483647);

  struct Bad {
    const char* text;
    const char* says;
  };
  for (auto [text, says] : {Bad{"orders", "expected topic/partition"}, Bad{"orders/", "not a non-negative integer"},
                            Bad{"orders/-1", "not a non-negative integer"}, Bad{"orders/1x", "not a non-negative integer"},
                            Bad{"orders/2147483648", "is out of range (at most 2147483647)"},
                            Bad{"/3", "not a valid Kafka topic name"}, Bad{"a b/3", "not a valid Kafka topic name"},
                            Bad{"a/b/3", "not a valid Kafka topic name"}, Bad{"orders/+3", "not a non-negative integer"}, Bad{"orders/99999999999", "is out of range (at most 2147483647)"},
                            Bad{"orders/ 3", "not a non-negative integer"}}) {
    INFO(text);
    auto r = parse_channel(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::usage);
    CHECK_THAT(r.error().message, Catch::Contains(says));
    CHECK_THAT(r.error().message, Catch::Contains(text));
  }
}

TEST_CASE("a copied or moved Names finds its names after the original is gone", "[names]") {
  // The lookup cache points into the interned strings; a copy must not keep pointers into
  // the original (ASan reports a use after free if it does).
  auto make = [] {
    Names n;
    n.topic("orders");
    n.sender("billing-7f3a");
    CHECK(n.find_topic("orders") == TopicId{0});  // now cached
    CHECK(n.find_sender("billing-7f3a") == SenderId{0});
    return n;
  };
  std::optional<Names> original = make();
  Names copy = *original;
  Names assigned;
  assigned.topic("other");
  assigned = *original;
  Names moved = std::move(*original);
  original.reset();
  for (Names* n : {&copy, &assigned, &moved}) {
    CHECK(n->find_topic("orders") == TopicId{0});
    CHECK(n->find_sender("billing-7f3a") == SenderId{0});
    CHECK_FALSE(n->find_topic("payments"));
  }
  // Many names: the cache's slots collide and the deque grows; every lookup still agrees.
  Names many;
  for (int i = 0; i < 500; ++i) many.topic("t" + std::to_string(i));
  for (int i = 499; i >= 0; --i) CHECK(many.find_topic("t" + std::to_string(i)) == static_cast<TopicId>(i));
}

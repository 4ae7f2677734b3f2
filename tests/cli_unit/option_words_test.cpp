// Tests of option_words.cpp: the libraries name fields in backquotes; the tool prints its
// options in their place, and leaves everything else as it is.
#include "option_words.hpp"

#include <catch2/catch.hpp>

using causal::cli::with_option_words;

TEST_CASE("fields in backquotes become the tool's options; anything else stays", "[option_words]") {
  CHECK(with_option_words("Give `group` (the node's consumer group)") == "Give --group (the node's consumer group)");
  CHECK(with_option_words("include it (`topic` z) and `lookups=false`") ==
        "include it (--topic z) and causal tail --no-lookup");
  CHECK(with_option_words("`causal baseline T --group g` and `group`") == "`causal baseline T --group g` and --group");
  CHECK(with_option_words("one ` alone") == "one ` alone");
  CHECK(with_option_words("") == "");
}

TEST_CASE("the connection and consumer fields become the options the messages named", "[option_words]") {
  CHECK(with_option_words("no Kafka brokers given: use `brokers` HOST:PORT, set $CAUSAL_BROKERS, set bootstrap.servers "
                          "with `properties` or `property_files`, or use `cluster` NAME with a section of the "
                          "configuration file") ==
        "no Kafka brokers given: use -b HOST:PORT, set $CAUSAL_BROKERS, set bootstrap.servers with -X or -F, or use "
        "--cluster NAME with a section of the configuration file");
  CHECK(with_option_words("the 8.0 MiB budget (`max_held_bytes`)") == "the 8.0 MiB budget (--max-held-bytes)");
  CHECK(with_option_words("2000 ms (`timeout_ms`)") == "2000 ms (--timeout-ms)");
  CHECK(with_option_words("`start` says where") == "--from says where");
  // librdkafka quotes its properties in backquotes: not fields, left as they are.
  CHECK(with_option_words("`message.timeout.ms` must be greater than `linger.ms`") ==
        "`message.timeout.ms` must be greater than `linger.ms`");
}

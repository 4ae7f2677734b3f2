// Tests of excerpt.cpp: how input is quoted in an error message.
#include "causal/excerpt.hpp"

#include <string>

#include <catch2/catch.hpp>

namespace {

using causal::name_excerpt;
using causal::one_line;
using causal::quoted_excerpt;

TEST_CASE("quoted_excerpt quotes short printable input as it is", "[excerpt]") {
  CHECK(quoted_excerpt("orders/3") == "'orders/3'");
  CHECK(quoted_excerpt("") == "''");
}

TEST_CASE("quoted_excerpt escapes every byte outside printable ASCII, and the quote and backslash", "[excerpt]") {
  CHECK(quoted_excerpt(std::string("a\x01\x1b[31m\xff'\\\n", 11)) == "'a\\x01\\x1b[31m\\xff\\x27\\x5c\\x0a'");
  CHECK(quoted_excerpt(std::string("\0z", 2)) == "'\\x00z'");
}

TEST_CASE("quoted_excerpt cuts after max bytes and says how long the input was", "[excerpt]") {
  const std::string long_text(100000, 't');
  const std::string out = quoted_excerpt(long_text);
  CHECK(out == "'" + std::string(60, 't') + "...' (100000 bytes)");
  CHECK(quoted_excerpt("abcdef", 3) == "'abc...' (6 bytes)");
  CHECK(quoted_excerpt("abc", 3) == "'abc'");
}

TEST_CASE("one_line escapes control bytes only and keeps the rest", "[excerpt]") {
  CHECK(one_line("causal: plain text, caf\xc3\xa9") == "causal: plain text, caf\xc3\xa9");
  CHECK(one_line(std::string("a\nb\x1b[31m\x7f\0", 10)) == "a\\x0ab\\x1b[31m\\x7f\\x00");
}

TEST_CASE("name_excerpt leaves a plain name as it is and quotes anything else", "[excerpt]") {
  CHECK(name_excerpt("claims") == "claims");
  CHECK(name_excerpt("a.b-c_9") == "a.b-c_9");
  CHECK(name_excerpt("") == "''");
  CHECK(name_excerpt("claimz\x1b[31m") == "'claimz\\x1b[31m'");
  CHECK(name_excerpt(std::string(61, 'n')) == "'" + std::string(60, 'n') + "...' (61 bytes)");
}

}  // namespace

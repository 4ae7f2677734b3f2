// Tests of shell_word.cpp: a word of a printed command runs as printed.
#include "shell_word.hpp"

#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

namespace {

using causal::shell_word;

// What `shell` makes of `printf %s WORD`: the word after quote removal, byte for byte.
std::string through(const std::string& shell, const std::string& word) {
  // The command line is given to bash as one argument in single quotes, so the word's
  // quoting is what bash parses (a ' in the word's quoting ends that argument's quoting).
  std::string script = "printf %s " + word;
  std::string arg = "'";
  for (char c : script) arg += c == '\'' ? std::string("'\\''") : std::string(1, c);
  arg += "'";
  FILE* p = popen((shell + " -c " + arg).c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[256];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  REQUIRE(pclose(p) == 0);
  return out;
}

TEST_CASE("shell_word leaves a plain word as it is", "[shell_word]") {
  CHECK(shell_word("billing-7f3a") == "billing-7f3a");
  CHECK(shell_word("orders/3@1041") == "orders/3@1041");
  CHECK(shell_word("a.b_c:d=e,f+g%h") == "a.b_c:d=e,f+g%h");
}

TEST_CASE("shell_word quotes a word the shell would split or expand", "[shell_word]") {
  CHECK(shell_word("my group") == "'my group'");
  CHECK(shell_word("$HOME") == "'$HOME'");
  CHECK(shell_word("it's") == "'it'\\''s'");
  CHECK(shell_word("") == "''");
  CHECK(shell_word("a\tb") == "'a\tb'");
  CHECK(shell_word("a\x1b[31m") == "'a'\"$(printf '\\033')\"'[31m'");
}

TEST_CASE("shell_word round-trips through sh (dash) and bash byte for byte", "[shell_word]") {
  for (std::string w : {std::string("plain"), std::string("my group"), std::string("$(touch /tmp/x) `id` *"),
                        std::string("it's \"quoted\" \\ back"), std::string("tab\there"),
                        std::string("new\nline 'and' \\x41"), std::string("del\x7f!#;&|<>~"), std::string("esc\x1b[31m red\x01"), std::string("\x1b"),
                        std::string("caf\xc3\xa9")}) {
    INFO(w);
    CHECK(through("sh", shell_word(w)) == w);  // Debian's sh is dash: no $'...'
    CHECK(through("bash", shell_word(w)) == w);
  }
}

}  // namespace

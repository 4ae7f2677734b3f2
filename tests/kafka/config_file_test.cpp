// The configuration file (causal/kafka/config_file.hpp, causal-config(5)): the parser's
// edge cases and errors, and which file load_config_file reads or refuses. No broker.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "causal/kafka/config_file.hpp"

using namespace causal::kafka;

namespace {

// A scratch directory for one test case, removed with it; HOME and CAUSAL_CONFIG are
// restored too, so that no case sees another's environment.
struct Scratch {
  std::filesystem::path dir;
  std::string old_home, old_config;
  bool had_home = false, had_config = false;
  Scratch() {
    char templ[] = "/tmp/causal-config-test.XXXXXX";
    REQUIRE(::mkdtemp(templ) != nullptr);
    dir = templ;
    if (const char* h = std::getenv("HOME")) had_home = true, old_home = h;
    if (const char* c = std::getenv("CAUSAL_CONFIG")) had_config = true, old_config = c;
    ::setenv("HOME", dir.c_str(), 1);
    ::unsetenv("CAUSAL_CONFIG");
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    had_home ? ::setenv("HOME", old_home.c_str(), 1) : ::unsetenv("HOME");
    had_config ? ::setenv("CAUSAL_CONFIG", old_config.c_str(), 1) : ::unsetenv("CAUSAL_CONFIG");
  }
  std::string write(const std::string& name, const std::string& text, mode_t mode) const {
    const auto path = dir / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    return path.string();
  }
};

}  // namespace

TEST_CASE("the configuration file: an empty text, or one of comments and blanks, has no entries") {
  for (const char* text : {"", "\n\n", "# only a comment\n", "   \t\n  # indented comment\n\r\n"}) {
    auto f = parse_config_file("/c.conf", text);
    REQUIRE(f);
    CHECK(f->path == "/c.conf");
    CHECK(f->global.empty());
    CHECK(f->sections.empty());
  }
}

TEST_CASE("the configuration file: CRLF line ends and tabs are blanks around keys, values and headers") {
  auto f = parse_config_file("/c.conf", "client.id\t=\tx\r\n[prod]\r\n\tbootstrap.servers = a:1 \r\n");
  REQUIRE(f);
  REQUIRE(f->global.size() == 1);
  CHECK(f->global[0].key == "client.id");
  CHECK(f->global[0].value == "x");
  const auto* prod = f->section("prod");
  REQUIRE(prod);
  REQUIRE(prod->size() == 1);
  CHECK((*prod)[0].key == "bootstrap.servers");
  CHECK((*prod)[0].value == "a:1");
}

TEST_CASE("the configuration file: a value may be empty, and '#' after a value is part of it") {
  auto f = parse_config_file("/c.conf", "a =\nb = x # not a comment\n");
  REQUIRE(f);
  REQUIRE(f->global.size() == 2);
  CHECK(f->global[0].value.empty());
  CHECK(f->global[1].value == "x # not a comment");
}

TEST_CASE("the configuration file: line numbers count blank and comment lines") {
  auto f = parse_config_file("/c.conf", "\n# c\n\na=1\n[s]\n\nb=2\n");
  REQUIRE(f);
  REQUIRE(f->global.size() == 1);
  CHECK(f->global[0].line == 4);
  REQUIRE(f->section("s"));
  REQUIRE(f->section("s")->size() == 1);
  CHECK(f->section("s")->front().line == 7);
}

TEST_CASE("the configuration file: a key given twice keeps both lines, in order") {
  auto f = parse_config_file("/c.conf", "client.id=a\nclient.id=b\n");
  REQUIRE(f);
  REQUIRE(f->global.size() == 2);
  CHECK(f->global[0].value == "a");
  CHECK(f->global[1].value == "b");
}

TEST_CASE("the configuration file: sections keep file order, an empty one exists, and lines after a header are its own") {
  auto f = parse_config_file("/c.conf", "[b.2]\n[a_1-X]\nk=v\n[b.2]\nj=w\n");
  REQUIRE(f);
  CHECK(f->global.empty());
  REQUIRE(f->sections.size() == 2);
  CHECK(f->sections[0].first == "b.2");
  CHECK(f->sections[1].first == "a_1-X");
  REQUIRE(f->section("a_1-X"));
  REQUIRE(f->section("a_1-X")->size() == 1);
  CHECK(f->section("a_1-X")->front().key == "k");
  REQUIRE(f->section("b.2")->size() == 1);
  CHECK(f->section("b.2")->front().key == "j");
  CHECK(f->section("B.2") == nullptr);  // names are compared as written
}

TEST_CASE("the configuration file: a bad section header is refused with file, line and the rule") {
  const std::string rule =
      ": a line starting with '[' must be a section header [NAME] (NAME of [A-Za-z0-9._-], nothing else on the line)";
  for (const char* header : {"[prod", "[a/b]", "[ ]", "[pro d]", "[prod]]", "[[prod]"}) {
    auto f = parse_config_file("/etc/c.conf", std::string("a=1\n# c\n") + header + "\n");
    INFO(header);
    REQUIRE_FALSE(f);
    CHECK(f.error().code == causal::Errc::usage);
    CHECK(f.error().message == "/etc/c.conf:3" + rule);
  }
}

TEST_CASE("the configuration file: a line with no key is refused, and the first bad line is the one named") {
  for (const char* line : {"=v", " = v", "no equals sign", "\t=\t"}) {
    auto f = parse_config_file("/c.conf", std::string("ok=1\n") + line + "\nalso bad\n");
    INFO(line);
    REQUIRE_FALSE(f);
    CHECK(f.error().message == "/c.conf:2: expected key=value or [section]");
  }
}

TEST_CASE("trim_blanks drops spaces, tabs and carriage returns at both ends only") {
  CHECK(trim_blanks("") == "");
  CHECK(trim_blanks(" \t\r ") == "");
  CHECK(trim_blanks("\t a b \r") == "a b");
  CHECK(trim_blanks("x") == "x");
}

TEST_CASE("config_file_path: $CAUSAL_CONFIG when set and not empty, else under $HOME") {
  Scratch s;
  CHECK(config_file_path() == s.dir.string() + "/.config/causal/causal.conf");
  ::setenv("CAUSAL_CONFIG", "", 1);
  CHECK(config_file_path() == s.dir.string() + "/.config/causal/causal.conf");
  ::setenv("CAUSAL_CONFIG", "/elsewhere.conf", 1);
  CHECK(config_file_path() == "/elsewhere.conf");
  ::unsetenv("CAUSAL_CONFIG");
  ::unsetenv("HOME");
  CHECK(config_file_path().empty());
}

TEST_CASE("load_config_file: no file at the default path is no configuration, not an error") {
  Scratch s;
  auto f = load_config_file();
  REQUIRE(f);
  CHECK_FALSE(f->has_value());
}

TEST_CASE("load_config_file: the default path's file is read and parsed") {
  Scratch s;
  const auto path = s.write(".config/causal/causal.conf", "[prod]\nbootstrap.servers=a:1\n", 0600);
  auto f = load_config_file();
  REQUIRE(f);
  REQUIRE(f->has_value());
  CHECK((*f)->path == path);
  REQUIRE((*f)->section("prod"));
}

TEST_CASE("load_config_file: $CAUSAL_CONFIG naming no file, or a directory, is a usage error") {
  Scratch s;
  const auto missing = (s.dir / "missing.conf").string();
  ::setenv("CAUSAL_CONFIG", missing.c_str(), 1);
  auto f = load_config_file();
  REQUIRE_FALSE(f);
  CHECK(f.error().code == causal::Errc::usage);
  CHECK(f.error().message == "$CAUSAL_CONFIG names " + missing + ", which does not exist (unset it or create the file)");

  ::setenv("CAUSAL_CONFIG", s.dir.c_str(), 1);
  auto d = load_config_file();
  REQUIRE_FALSE(d);
  CHECK(d.error().message == "the configuration file " + s.dir.string() +
                                 " is a directory ($CAUSAL_CONFIG names a file, not a directory)");
}

TEST_CASE("load_config_file: a parse error names the file's path and line") {
  Scratch s;
  const auto path = s.write("bad.conf", "a=1\nnot a line\n", 0600);
  ::setenv("CAUSAL_CONFIG", path.c_str(), 1);
  auto f = load_config_file();
  REQUIRE_FALSE(f);
  CHECK(f.error().message == path + ":2: expected key=value or [section]");
}

TEST_CASE("load_config_file: a secret in a file group or others can read is refused with the chmod, never the secret") {
  Scratch s;
  for (mode_t mode : {0640, 0604, 0644}) {
    const auto path = s.write("secret.conf", "client.id=c\n[prod]\nsasl.password = hunter2\n", mode);
    ::setenv("CAUSAL_CONFIG", path.c_str(), 1);
    auto f = load_config_file();
    INFO("mode " << std::oct << mode);
    REQUIRE_FALSE(f);
    CHECK(f.error().code == causal::Errc::usage);
    CHECK(f.error().message ==
          path + " is readable by group or others and holds sasl.password (line 3); run: chmod 600 " + path);
    CHECK(f.error().message.find("hunter2") == std::string::npos);
  }
}

TEST_CASE("load_config_file: a readable file without secrets, or a private one with them, is read") {
  Scratch s;
  const auto open = s.write("open.conf", "bootstrap.servers=a:1\nssl.key.location=/k.pem\n", 0644);
  ::setenv("CAUSAL_CONFIG", open.c_str(), 1);
  auto a = load_config_file();
  REQUIRE(a);
  CHECK(a->has_value());
  const auto priv = s.write("private.conf", "sasl.password=hunter2\n", 0600);
  ::setenv("CAUSAL_CONFIG", priv.c_str(), 1);
  auto b = load_config_file();
  REQUIRE(b);
  REQUIRE(b->has_value());
  REQUIRE((*b)->global.size() == 1);
  CHECK((*b)->global[0].value == "hunter2");
}

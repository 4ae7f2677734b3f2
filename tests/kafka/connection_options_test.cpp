// Connection options (causal/kafka/config.hpp) as make_conf reads them, where that needs no
// broker: -X and -F parsing and their errors, owned properties refused with where they came
// from, the configuration file's sections, and which source's brokers win. make_conf fails
// on such an error before it would connect; brokers_in_effect reads back what it would use.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "causal/kafka/config.hpp"

using namespace causal::kafka;

namespace {

// A scratch directory and an environment of its own for one test case: HOME in it (no
// configuration file unless the case writes one), CAUSAL_CONFIG and CAUSAL_BROKERS unset.
struct Env {
  std::filesystem::path dir;
  std::string saved[3];
  bool had[3] = {};
  static constexpr const char* names[3] = {"HOME", "CAUSAL_CONFIG", "CAUSAL_BROKERS"};
  Env() {
    char templ[] = "/tmp/causal-connection-test.XXXXXX";
    REQUIRE(::mkdtemp(templ) != nullptr);
    dir = templ;
    for (int i = 0; i < 3; ++i) {
      if (const char* v = std::getenv(names[i])) had[i] = true, saved[i] = v;
      ::unsetenv(names[i]);
    }
    ::setenv("HOME", dir.c_str(), 1);
  }
  ~Env() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    for (int i = 0; i < 3; ++i) had[i] ? ::setenv(names[i], saved[i].c_str(), 1) : ::unsetenv(names[i]);
  }
  std::string write(const std::string& name, const std::string& text, mode_t mode = 0600) const {
    const auto path = dir / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    return path.string();
  }
};

// The usage error make_conf gives for `opts`; fails the test when it gives none.
std::string usage_error_of(const ConnectionOptions& opts,
                           const std::vector<std::pair<std::string, std::string>>& defaults = {}) {
  auto conf = make_conf(opts, defaults);
  REQUIRE_FALSE(conf);
  CHECK(conf.error().code == causal::Errc::usage);
  return conf.error().message;
}

}  // namespace

TEST_CASE("the -X option: a property without '=' or without a key is refused, quoting it") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.properties = {"client.id"};
  CHECK(usage_error_of(opts) == "`properties`: expected key=value, got 'client.id'");
  opts.properties = {"=causal"};
  CHECK(usage_error_of(opts) == "`properties`: expected key=value, got '=causal'");
}

TEST_CASE("the -X option: text naming a secret property without '=' is refused without being shown") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.properties = {"sasl.password:hunter2"};
  const auto message = usage_error_of(opts);
  CHECK(message == "`properties`: expected key=value, got text naming a secret property (not shown)");
  CHECK(message.find("hunter2") == std::string::npos);
}

TEST_CASE("the -X option: an unknown property is named, its value never shown (it may be a misspelt secret)") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.properties = {"sasl.pasword=hunter2"};
  const auto message = usage_error_of(opts);
  CHECK(message.starts_with("`properties`: cannot set property sasl.pasword (value not shown): "));
  CHECK(message.find("hunter2") == std::string::npos);
}

TEST_CASE("the -X option: a property causal owns is refused, naming the property, its value and why") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.properties = {"client.id=mine", "enable.auto.commit=true"};
  CHECK(usage_error_of(opts) ==
        "`properties`: cannot set property enable.auto.commit=true: a member commits itself, and only what it "
        "delivered (`ConsumerHost::commit`); librdkafka's automatic commits would pass records still held");
  // A value that is not a plain name is quoted, as all input is in an error.
  opts.properties = {"isolation.level=read uncommitted"};
  CHECK(usage_error_of(opts).starts_with("`properties`: cannot set property isolation.level='read uncommitted': "));
}

TEST_CASE("the -X option: causal's own value of an owned property is accepted over a handle's default") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.properties = {"isolation.level=READ_COMMITTED", "enable.idempotence=1"};
  // Accepted: make_conf goes on to connect, and fails only there (nothing listens on port 1).
  auto conf = make_conf(opts, {{"isolation.level", "read_uncommitted"}});
  REQUIRE_FALSE(conf);
  CHECK(conf.error().code != causal::Errc::usage);
}

TEST_CASE("the -F option: lines are trimmed, comments and blank lines skipped, and a bad line named by file and line") {
  Env env;
  const auto good = env.write("good.props", "# a comment\n\n  bootstrap.servers = 127.0.0.1:5 \r\n");
  ConnectionOptions opts;
  opts.property_files = {good};
  CHECK(brokers_in_effect(opts) == "127.0.0.1:5");

  // The line is not quoted: one that lost its '=' may hold a secret.
  const auto bad = env.write("bad.props", "bootstrap.servers=127.0.0.1:5\nsasl.password hunter2\n");
  opts.property_files = {bad};
  const auto message = usage_error_of(opts);
  CHECK(message == "`property_files` " + bad + ":2: expected key=value");
  CHECK(message.find("hunter2") == std::string::npos);
}

TEST_CASE("the -F option: a file that cannot be read, or a directory, is named with the reason") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  const auto missing = (env.dir / "missing.props").string();
  opts.property_files = {missing};
  CHECK(usage_error_of(opts) ==
        "`property_files` '" + missing + "': cannot read the property file: No such file or directory");
  opts.property_files = {env.dir.string()};
  CHECK(usage_error_of(opts) ==
        "`property_files` '" + env.dir.string() + "': cannot read the property file: it is a directory");
}

TEST_CASE("the -F option: a property causal owns is refused, naming the file and line") {
  Env env;
  const auto file = env.write("owned.props", "client.id=x\ngroup.id=mine\n");
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.property_files = {file};
  CHECK(usage_error_of(opts).starts_with("`property_files` " + file + ":2: cannot set property group.id=mine: "));
}

TEST_CASE("brokers: -b over -X over -F over $CAUSAL_BROKERS, and the environment over the file's global lines") {
  Env env;
  const auto conf = env.write(".config/causal/causal.conf", "bootstrap.servers=10.0.0.1:1\n[prod]\nbootstrap.servers=10.0.0.2:2\n");
  const auto props = env.write("p.props", "bootstrap.servers=10.0.0.3:3\n");
  ConnectionOptions opts;
  opts.config_file = true;
  CHECK(brokers_in_effect(opts) == "10.0.0.1:1");  // the file's global lines alone
  ::setenv("CAUSAL_BROKERS", "10.0.0.4:4", 1);
  CHECK(brokers_in_effect(opts) == "10.0.0.4:4");  // the environment beats them
  opts.cluster = "prod";
  CHECK(brokers_in_effect(opts) == "10.0.0.2:2");  // a --cluster section beats the environment
  opts.property_files = {props};
  CHECK(brokers_in_effect(opts) == "10.0.0.3:3");  // -F beats the section
  opts.properties = {"bootstrap.servers=10.0.0.5:5"};
  CHECK(brokers_in_effect(opts) == "10.0.0.5:5");  // -X beats -F
  opts.brokers = "10.0.0.6:6";
  CHECK(brokers_in_effect(opts) == "10.0.0.6:6");  // -b beats everything
}

TEST_CASE("brokers: the configuration file is read only when asked for, or when a --cluster is named") {
  Env env;
  env.write(".config/causal/causal.conf", "bootstrap.servers=10.0.0.1:1\n");
  ConnectionOptions opts;
  CHECK(brokers_in_effect(opts) == "(no brokers)");
  opts.config_file = true;
  CHECK(brokers_in_effect(opts) == "10.0.0.1:1");
}

TEST_CASE("brokers: none from any source, or only separators, is a usage error") {
  Env env;
  ConnectionOptions opts;
  CHECK(usage_error_of(opts) ==
        "no Kafka brokers given: use `brokers` HOST:PORT, set $CAUSAL_BROKERS, set bootstrap.servers with "
        "`properties` or `property_files`, or use `cluster` NAME with a section of the configuration file");
  opts.brokers = " , ";  // librdkafka keeps ", " of it
  CHECK(usage_error_of(opts) == "the brokers ', ' name no address: give HOST:PORT[,HOST:PORT...]");
}

TEST_CASE("the --cluster option: no configuration file, or no such section, is a usage error naming what there is") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.cluster = "prod";
  const auto path = (env.dir / ".config/causal/causal.conf").string();
  CHECK(usage_error_of(opts) == "`cluster` prod: there is no configuration file (" + path +
                                    " does not exist; create it, or name one with $CAUSAL_CONFIG)");
  env.write(".config/causal/causal.conf", "[staging]\na.b=c\n[dev]\n");
  CHECK(usage_error_of(opts) == "`cluster` prod: " + path + " has no section [prod] (it has: staging, dev)");
  env.write(".config/causal/causal.conf", "client.id=x\n");
  CHECK(usage_error_of(opts) == "`cluster` prod: " + path + " has no section [prod] (it has: no sections)");
}

TEST_CASE("the configuration file: a property causal owns is refused, naming the file and line") {
  Env env;
  const auto path = env.write(".config/causal/causal.conf", "client.id=x\n[prod]\n\nisolation.level=read_uncommitted\n");
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  opts.cluster = "prod";
  CHECK(usage_error_of(opts).starts_with(path + ":4: cannot set property isolation.level=read_uncommitted: "));
}

TEST_CASE("security_protocol_in_effect: lower case, plaintext when nothing sets it") {
  Env env;
  ConnectionOptions opts;
  opts.brokers = "127.0.0.1:1";
  CHECK(security_protocol_in_effect(opts) == "plaintext");
  opts.properties = {"security.protocol=SASL_PLAINTEXT"};
  CHECK(security_protocol_in_effect(opts) == "sasl_plaintext");
}

TEST_CASE("redacted: a secret property's value is never shown") {
  CHECK(redacted("sasl.password", "hunter2") == "[redacted]");
  CHECK(redacted("sasl.jaas.config", "x") == "[redacted]");
  CHECK(redacted("client.id", "hunter2") == "hunter2");
}

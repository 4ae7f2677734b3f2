#include "causal/kafka/config.hpp"
#include "causal/excerpt.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <mutex>
#include <set>

#include <fmt/core.h>

#include "causal/kafka/authentication.hpp"
#include "causal/kafka/config_file.hpp"
#include "causal/kafka/owned_properties.hpp"
#include "causal/kafka/reachability.hpp"

namespace causal::kafka {

namespace {

// Any case: librdkafka's property names are lower case, but a user's typo need not be, and
// the value must stay hidden either way.
bool is_secret(std::string_view key) {
  std::string lower(key);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view word : {"password", "passwd", "secret", "sasl.jaas", "key", "token", "credentials"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

// The secret values given to any configuration of this process, for scrub_secrets().
// Values shorter than 4 bytes are not kept: scrubbing them would mangle ordinary text.
struct SecretValues {
  std::mutex mu;
  std::set<std::string> values;
};
SecretValues& secret_values() {
  static SecretValues s;
  return s;
}

void remember_secret(const std::string& key, const std::string& value) {
  if (!holds_secret(key) || value.size() < 4) return;
  std::lock_guard lock(secret_values().mu);
  secret_values().values.insert(value);
}

// Replaces every occurrence of `value` in `text`.
void replace_all(std::string& text, std::string_view value, std::string_view by) {
  for (auto at = text.find(value); at != std::string::npos; at = text.find(value, at + by.size())) {
    text.replace(at, value.size(), by);
  }
}

// `where` names where the property came from, with `field` (the option field, in
// backquotes in `where`; error.hpp) when it came from one.
std::expected<void, Error> set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value,
                               std::string_view where, std::string_view field = {}) {
  char err[512];
  if (const auto res = rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err); res != RD_KAFKA_CONF_OK) {
    std::string why = err;
    if (is_secret(key) && !value.empty()) replace_all(why, value, "[redacted]");  // librdkafka may quote it
    // An unknown property may be a misspelt secret one ("sasl.pasword"): its value is never
    // shown, only its name is wrong.
    if (res == RD_KAFKA_CONF_UNKNOWN) {
      if (!value.empty()) replace_all(why, value, "[not shown]");
      return std::unexpected(
          usage_error(fmt::format("{}: cannot set property {} (value not shown): {}", where, key, why), std::string(field)));
    }
    // A long value is cut, here and where librdkafka quotes it, as all quoted input is (causal(1)).
    constexpr std::size_t kShown = 60;
    std::string shown = redacted(key, value);
    if (!is_secret(key) && value.size() > kShown) {
      shown = fmt::format("{}... ({} bytes)", value.substr(0, kShown), value.size());
      replace_all(why, value, value.substr(0, kShown) + "...");
    }
    return std::unexpected(
        usage_error(fmt::format("{}: cannot set property {}={}: {}", where, key, shown, why), std::string(field)));
  }
  remember_secret(key, value);
  return {};
}

// set() for a property a user gave (configuration file, the cluster's section, property
// files, properties): one that causal sets itself (owned_properties.hpp) is refused, naming
// where it came from.
std::expected<void, Error> set_user(rd_kafka_conf_t* conf, const std::string& key, const std::string& value,
                                    std::string_view where, std::string_view field = {}) {
  if (auto why = refuse_owned_property(key, value)) {
    return std::unexpected(usage_error(
        fmt::format("{}: cannot set property {}={}: {}", where, key, name_excerpt(value), *why), std::string(field)));
  }
  return set(conf, key, value, where, field);
}

// The text of a -F file. A file that can be read only once (a pipe, as `-F <(...)` and
// `-F /dev/stdin` give) is kept from its first read for every later client of this process;
// without that, the second client of a command read it empty and silently lost its
// properties. A regular file is read again each time, so that a rotated credential file
// reaches a client made later.
// The text of a -F file, or why it cannot be read (strerror, or "it is a directory": an
// ifstream opens a directory and reads nothing, which would pass for an empty file).
std::expected<std::string, std::string> property_file_text(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::string> once;
  std::lock_guard lock(mu);
  if (auto it = once.find(path); it != once.end()) return it->second;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::unexpected(std::string(std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return std::unexpected(std::string("it is a directory"));
  std::ifstream in(path);
  if (!in) return std::unexpected(std::string(errno ? std::strerror(errno) : "cannot open it"));
  std::ostringstream all;
  all << in.rdbuf();
  if (in.bad()) return std::unexpected(std::string("read error"));
  if (!S_ISREG(st.st_mode)) once[path] = all.str();
  return all.str();
}

bool sets_brokers(const std::string& key) { return key == "bootstrap.servers" || key == "metadata.broker.list"; }

std::expected<std::pair<std::string, std::string>, Error> split_property(std::string_view text,
                                                                         std::string_view where,
                                                                         std::string_view field = {}) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    if (is_secret(text)) {  // "sasl.password:hunter2" names a secret: not echoed
      return std::unexpected(usage_error(
          fmt::format("{}: expected key=value, got text naming a secret property (not shown)", where), std::string(field)));
    }
    return std::unexpected(usage_error(fmt::format("{}: expected key=value, got '{}'", where, text), std::string(field)));
  }
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

}  // namespace

std::string redacted(std::string_view key, std::string_view value) {
  return is_secret(key) ? std::string("[redacted]") : std::string(value);
}

std::string scrub_secrets(std::string_view text) {
  std::string out(text);
  std::lock_guard lock(secret_values().mu);
  for (const auto& v : secret_values().values) replace_all(out, v, "[redacted]");
  return out;
}

namespace {

// bootstrap.servers as `conf` has it ("" when unset).
std::string bootstrap_of(rd_kafka_conf_t* conf) {
  char value[4096];
  std::size_t size = sizeof value;
  return rd_kafka_conf_get(conf, "bootstrap.servers", value, &size) == RD_KAFKA_CONF_OK ? std::string(value)
                                                                                         : std::string();
}

// security.protocol as `conf` has it, in lower case (librdkafka's default is "plaintext").
std::string protocol_of(rd_kafka_conf_t* conf) {
  char value[64];
  std::size_t size = sizeof value;
  if (rd_kafka_conf_get(conf, "security.protocol", value, &size) != RD_KAFKA_CONF_OK) return "plaintext";
  std::string protocol = value;
  std::transform(protocol.begin(), protocol.end(), protocol.begin(), [](unsigned char c) { return std::tolower(c); });
  return protocol;
}

// The files an SSL client loads when librdkafka makes it. librdkafka 2.0.2 says only
// "ssl.ca.location failed: error:05880002:x509 certificate routines::system lib" for a
// missing CA file, without the path; checked here, the error names the property and the
// path (shown unless the property's name makes it a secret, as ssl.key.location's does).
// Only with an SSL security.protocol: otherwise librdkafka never opens them.
std::expected<void, Error> check_ssl_files(rd_kafka_conf_t* conf) {
  if (const std::string protocol = protocol_of(conf); protocol != "ssl" && protocol != "sasl_ssl") return {};
  char value[4096];
  std::size_t size = sizeof value;
  for (const char* key : {"ssl.ca.location", "ssl.certificate.location", "ssl.key.location", "ssl.keystore.location",
                          "ssl.crl.location"}) {
    size = sizeof value;
    if (rd_kafka_conf_get(conf, key, value, &size) != RD_KAFKA_CONF_OK || !*value) continue;
    const std::string path = value;
    if (std::string_view(key) == "ssl.ca.location" && path == "probe") continue;  // librdkafka's own search
    if (::access(path.c_str(), R_OK) != 0) {
      return std::unexpected(usage_error(
          fmt::format("{} {}: cannot read it: {}", key, is_secret(key) ? std::string("[redacted]") : quoted_excerpt(path),
                      std::strerror(errno))));
    }
  }
  return {};
}

// make_conf without the reachability probe.
std::expected<ConfPtr, Error> build_conf(const ConnectionOptions& opts,
                                         const std::vector<std::pair<std::string, std::string>>& defaults) {
  ConfPtr conf{rd_kafka_conf_new()};
  for (const auto& [k, v] : defaults) {
    if (auto r = set(conf.get(), k, v, "default"); !r) return std::unexpected(r.error());
  }
  // Whether a step that outranks $CAUSAL_BROKERS set the brokers (see config.hpp).
  bool brokers_set = false;
  auto config = opts.config_file || !opts.cluster.empty()
                    ? load_config_file()
                    : std::expected<std::optional<ConfigFile>, Error>(std::nullopt);
  if (!config) return std::unexpected(config.error());
  if (*config) {
    for (const auto& e : (*config)->global) {
      auto where = fmt::format("{}:{}", (*config)->path, e.line);
      if (auto r = set_user(conf.get(), e.key, e.value, where); !r) return std::unexpected(r.error());
    }
  }
  if (!opts.cluster.empty()) {
    if (!*config) {
      return std::unexpected(usage_error(
          fmt::format("`cluster` {}: there is no configuration file ({} does not exist; create it, or name one with "
                      "$CAUSAL_CONFIG)",
                      opts.cluster, config_file_path().empty() ? "~/.config/causal/causal.conf" : config_file_path()),
          "cluster"));
    }
    const auto* section = (*config)->section(opts.cluster);
    if (!section) {
      std::string names;
      for (const auto& [n, entries] : (*config)->sections) names += (names.empty() ? "" : ", ") + n;
      return std::unexpected(usage_error(fmt::format("`cluster` {}: {} has no section [{}] (it has: {})", opts.cluster,
                                                     (*config)->path, opts.cluster,
                                                     names.empty() ? "no sections" : names),
                                         "cluster"));
    }
    for (const auto& e : *section) {
      auto where = fmt::format("{}:{}", (*config)->path, e.line);
      if (auto r = set_user(conf.get(), e.key, e.value, where); !r) return std::unexpected(r.error());
      brokers_set = brokers_set || sets_brokers(e.key);
    }
  }
  for (const auto& file : opts.property_files) {
    auto text = property_file_text(file);
    if (!text) {
      return std::unexpected(
          usage_error(fmt::format("`property_files` {}: cannot read the property file: {}", quoted_excerpt(file),
                                  text.error()),
                      "property_files"));
    }
    std::istringstream in(*text);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
      auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      auto last = line.find_last_not_of(" \t\r");
      std::string where = fmt::format("`property_files` {}:{}", file, lineno);
      auto kv = split_property(std::string_view(line).substr(first, last - first + 1), where);
      // Not quoted: a line that lost its '=' may hold a secret.
      if (!kv) return std::unexpected(usage_error(fmt::format("{}: expected key=value", where), "property_files"));
      // Spaces around the key and the value are dropped, as in the configuration file
      // (causal-config(5)): a line copied from one works in the other.
      kv->first = std::string(trim_blanks(kv->first));
      kv->second = std::string(trim_blanks(kv->second));
      if (auto r = set_user(conf.get(), kv->first, kv->second, where, "property_files"); !r) {
        return std::unexpected(r.error());
      }
      brokers_set = brokers_set || sets_brokers(kv->first);
    }
  }
  for (const auto& p : opts.properties) {
    auto kv = split_property(p, "`properties`", "properties");
    if (!kv) return std::unexpected(kv.error());
    if (auto r = set_user(conf.get(), kv->first, kv->second, "`properties`", "properties"); !r) {
      return std::unexpected(r.error());
    }
    brokers_set = brokers_set || sets_brokers(kv->first);
  }
  // A handle's own value of a property causal owns is set last, over every source: a user's
  // isolation.level=read_committed (accepted, see owned_properties.hpp) must not turn a
  // handle that reads high watermarks (read_uncommitted) into one that reads the LSO.
  for (const auto& [k, v] : defaults) {
    if (!is_owned_property(k)) continue;
    if (auto r = set(conf.get(), k, v, "default"); !r) return std::unexpected(r.error());
  }
  // Brokers: -b; else bootstrap.servers from -X, -F or the --cluster section; else
  // $CAUSAL_BROKERS (a default from the environment loses to what the command line or its
  // files say, but beats the configuration file's lines for every cluster); else those
  // lines. There is no default broker beyond these: a client with none would wait out its
  // timeout and then name a broker nobody gave.
  std::string brokers = opts.brokers;
  if (brokers.empty() && !brokers_set) {
    if (const char* env = std::getenv("CAUSAL_BROKERS"); env && *env) brokers = env;
  }
  if (!brokers.empty()) {
    if (auto r = set(conf.get(), "bootstrap.servers", brokers, "`brokers`", "brokers"); !r) {
      return std::unexpected(r.error());
    }
  }
  const std::string boot = bootstrap_of(conf.get());
  if (boot.empty()) {
    return std::unexpected(usage_error(
        "no Kafka brokers given: use `brokers` HOST:PORT, set $CAUSAL_BROKERS, set bootstrap.servers with "
        "`properties` or `property_files`, or use `cluster` NAME with a section of the configuration file",
        "brokers"));
  }
  // Only separators (-b ' , '): librdkafka would wait out the timeout for no broker at all.
  if (boot.find_first_not_of(" ,\t") == std::string::npos) {
    return std::unexpected(usage_error(fmt::format(
        "the brokers {} name no address: give HOST:PORT[,HOST:PORT...]", quoted_excerpt(boot))));
  }
  if (auto r = check_ssl_files(conf.get()); !r) return std::unexpected(r.error());
  return conf;
}

}  // namespace

std::expected<void, Error> check_conf(const ConnectionOptions& opts) {
  if (auto conf = build_conf(opts, {}); !conf) return std::unexpected(conf.error());
  return {};
}

std::expected<ConfPtr, Error> make_conf(const ConnectionOptions& opts,
                                        const std::vector<std::pair<std::string, std::string>>& defaults) {
  auto conf = build_conf(opts, defaults);
  if (!conf) return conf;
  // Brokers that refuse every connection fail here, at once, not after a client's timeout;
  // so do credentials the brokers refuse.
  if (auto r = probe_bootstrap(bootstrap_of(conf->get())); !r) return std::unexpected(r.error());
  if (auto r = check_authentication(conf->get(), bootstrap_of(conf->get())); !r) return std::unexpected(r.error());
  return conf;
}

std::string brokers_in_effect(const ConnectionOptions& opts) {
  // What the handle was given, read back from the configuration make_conf builds, so that
  // -b, $CAUSAL_BROKERS, -X and -F files count in the order make_conf applies them.
  auto conf = build_conf(opts, {});
  if (!conf) return "(no brokers)";
  return bootstrap_of(conf->get());
}

std::string security_protocol_in_effect(const ConnectionOptions& opts) {
  auto conf = build_conf(opts, {});
  return conf ? protocol_of(conf->get()) : "plaintext";
}

}  // namespace causal::kafka

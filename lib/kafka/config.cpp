#include "causal/kafka/config.hpp"

#include <cstdlib>
#include <fstream>

#include <fmt/core.h>

#include "causal/kafka/reachability.hpp"

namespace causal::kafka {

namespace {

bool is_secret(std::string_view key) {
  for (std::string_view word : {"password", "secret", "sasl.jaas", "key", "token", "credentials"}) {
    if (key.find(word) != std::string_view::npos) return true;
  }
  return false;
}

std::expected<void, Error> set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value,
                               std::string_view where) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    return std::unexpected(usage_error(
        fmt::format("{}: cannot set property {}={}: {}", where, key, redacted(key, value), err)));
  }
  return {};
}

std::expected<std::pair<std::string, std::string>, Error> split_property(std::string_view text,
                                                                         std::string_view where) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return std::unexpected(usage_error(fmt::format("{}: expected key=value, got '{}'", where, text)));
  }
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

}  // namespace

std::string redacted(std::string_view key, std::string_view value) {
  return is_secret(key) ? std::string("[redacted]") : std::string(value);
}

namespace {

// bootstrap.servers as `conf` has it ("" when unset).
std::string bootstrap_of(rd_kafka_conf_t* conf) {
  char value[4096];
  std::size_t size = sizeof value;
  return rd_kafka_conf_get(conf, "bootstrap.servers", value, &size) == RD_KAFKA_CONF_OK ? std::string(value)
                                                                                         : std::string();
}

// make_conf without the reachability probe.
std::expected<ConfPtr, Error> build_conf(const ConnectionOptions& opts,
                                         const std::vector<std::pair<std::string, std::string>>& defaults) {
  ConfPtr conf{rd_kafka_conf_new()};
  for (const auto& [k, v] : defaults) {
    if (auto r = set(conf.get(), k, v, "default"); !r) return std::unexpected(r.error());
  }
  for (const auto& file : opts.property_files) {
    std::ifstream in(file);
    if (!in) return std::unexpected(usage_error(fmt::format("-F {}: cannot open the property file", file)));
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
      auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      auto last = line.find_last_not_of(" \t\r");
      std::string where = fmt::format("-F {}:{}", file, lineno);
      auto kv = split_property(std::string_view(line).substr(first, last - first + 1), where);
      if (!kv) return std::unexpected(kv.error());
      if (auto r = set(conf.get(), kv->first, kv->second, where); !r) return std::unexpected(r.error());
    }
  }
  for (const auto& p : opts.properties) {
    auto kv = split_property(p, "-X");
    if (!kv) return std::unexpected(kv.error());
    if (auto r = set(conf.get(), kv->first, kv->second, "-X"); !r) return std::unexpected(r.error());
  }
  // Brokers: -b; else bootstrap.servers from -X or -F; else $CAUSAL_BROKERS (a default from
  // the environment loses to what the command line or its files say). There is no default
  // broker beyond these: a client with none would wait out its timeout and then name a
  // broker nobody gave.
  std::string brokers = opts.brokers;
  if (brokers.empty() && bootstrap_of(conf.get()).empty()) {
    if (const char* env = std::getenv("CAUSAL_BROKERS"); env && *env) brokers = env;
  }
  if (!brokers.empty()) {
    if (auto r = set(conf.get(), "bootstrap.servers", brokers, "-b"); !r) return std::unexpected(r.error());
  }
  if (bootstrap_of(conf.get()).empty()) {
    return std::unexpected(usage_error(
        "no Kafka brokers given: use -b HOST:PORT, set $CAUSAL_BROKERS, or set bootstrap.servers with -X or -F"));
  }
  return conf;
}

}  // namespace

std::expected<ConfPtr, Error> make_conf(const ConnectionOptions& opts,
                                        const std::vector<std::pair<std::string, std::string>>& defaults) {
  auto conf = build_conf(opts, defaults);
  if (!conf) return conf;
  // Brokers that refuse every connection fail here, at once, not after a client's timeout.
  if (auto r = probe_bootstrap(bootstrap_of(conf->get())); !r) return std::unexpected(r.error());
  return conf;
}

std::string brokers_in_effect(const ConnectionOptions& opts) {
  // What the handle was given, read back from the configuration make_conf builds, so that
  // -b, $CAUSAL_BROKERS, -X and -F files count in the order make_conf applies them.
  auto conf = build_conf(opts, {});
  if (!conf) return "(no brokers)";
  return bootstrap_of(conf->get());
}

}  // namespace causal::kafka

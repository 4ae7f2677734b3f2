#include "causal/kafka/authentication.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include <fmt/core.h>

#include "causal/kafka/client.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/handles.hpp"

namespace causal::kafka {

namespace {

std::string get(const rd_kafka_conf_t* conf, const char* key) {
  char value[1024];
  std::size_t size = sizeof value;
  return rd_kafka_conf_get(conf, key, value, &size) == RD_KAFKA_CONF_OK ? std::string(value) : std::string();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The whole configuration as text: the key under which a passed check is remembered.
std::string fingerprint(const rd_kafka_conf_t* conf) {
  std::size_t n = 0;
  const char** kv = rd_kafka_conf_dump(const_cast<rd_kafka_conf_t*>(conf), &n);
  std::string out;
  for (std::size_t i = 0; i + 1 < n; i += 2) out += fmt::format("{}={}\n", kv[i], kv[i + 1]);
  rd_kafka_conf_dump_free(kv, n);
  return out;
}

struct Passed {
  std::mutex mu;
  std::set<std::string> confs;
};
Passed& passed() {
  static Passed p;
  return p;
}

// What the throwaway client's error callback saw: the first authentication or TLS failure.
struct Verdict {
  std::mutex mu;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string reason;
  ClientLog log;  // its warnings, dropped with it
};

void on_error(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* v = static_cast<Verdict*>(opaque);
  if (err != RD_KAFKA_RESP_ERR__AUTHENTICATION && err != RD_KAFKA_RESP_ERR__SSL) return;
  std::lock_guard lock(v->mu);
  if (v->err) return;
  v->err = static_cast<rd_kafka_resp_err_t>(err);
  v->reason = scrub_secrets(reason);
}

void on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  // Debug lines (-X debug=...) are printed as every client's are; the rest is dropped.
  if (auto* v = static_cast<Verdict*>(rd_kafka_opaque(rk))) handle_client_log(rk, level, fac, buf, v->log);
}

}  // namespace

std::expected<void, Error> check_authentication(const rd_kafka_conf_t* conf, const std::string& brokers,
                                                std::chrono::milliseconds wait) {
  const std::string protocol = lower(get(conf, "security.protocol"));
  if (protocol.empty() || protocol == "plaintext") return {};
  const std::string key = fingerprint(conf);
  {
    std::lock_guard lock(passed().mu);
    if (passed().confs.contains(key)) return {};
  }

  Verdict verdict;
  ConfPtr copy{rd_kafka_conf_dup(conf)};
  char err[512];
  // A plain consumer without a group: no coordinator, no transactions, nothing but metadata.
  rd_kafka_conf_set(copy.get(), "group.id", "", err, sizeof err);
  rd_kafka_conf_set_opaque(copy.get(), &verdict);
  rd_kafka_conf_set_error_cb(copy.get(), on_error);
  rd_kafka_conf_set_log_cb(copy.get(), on_log);
  HandlePtr rk{rd_kafka_new(RD_KAFKA_CONSUMER, copy.get(), err, sizeof err)};
  if (!rk) return {};  // the caller's own client will say what is wrong with the configuration
  (void)copy.release();

  const auto deadline = std::chrono::steady_clock::now() + wait;
  bool answered = false;
  while (!answered && std::chrono::steady_clock::now() < deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk.get(), 0, nullptr, &md, 200) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(md);
      answered = true;
    }
    rd_kafka_poll(rk.get(), 0);  // serves the error callback
    std::lock_guard lock(verdict.mu);
    if (verdict.err) break;
  }
  rk.reset();

  std::lock_guard lock(verdict.mu);
  if (verdict.err == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
    return std::unexpected(runtime_error(fmt::format(
        "cannot authenticate to Kafka at {}: {}; check sasl.mechanism, sasl.username and sasl.password", brokers,
        verdict.reason)));
  }
  if (verdict.err == RD_KAFKA_RESP_ERR__SSL) {
    return std::unexpected(runtime_error(fmt::format(
        "TLS handshake with Kafka at {} failed: {}; check ssl.ca.location and the brokers' certificates",
        brokers, verdict.reason)));
  }
  if (answered) {
    std::lock_guard plock(passed().mu);
    passed().confs.insert(key);
  }
  return {};
}

}  // namespace causal::kafka

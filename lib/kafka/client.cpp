#include "causal/kafka/client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <utility>

#include <fmt/core.h>

#include "causal/eprint.hpp"

namespace causal::kafka {

std::vector<std::string> ClientLog::take() {
  std::lock_guard lock(mu_);
  return std::exchange(lines_, {});
}

std::string ClientLog::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

std::string ClientLog::with_cause(std::string message) const {
  if (auto last = last_error(); !last.empty()) message += fmt::format(" ({})", last);
  return message;
}

void ClientLog::add(std::string line, bool is_error) {
  std::lock_guard lock(mu_);
  if (is_error) last_error_ = line;
  if (line == last_line_) return;  // librdkafka repeats connection failures every backoff
  last_line_ = line;
  if (lines_.size() < 1000) lines_.push_back(std::move(line));
}

void ClientLog::add_fail(std::string line, std::string_view reason, bool is_error) {
  {
    std::lock_guard lock(mu_);
    if (recent_fail_.size() == 32) recent_fail_.erase(recent_fail_.begin());  // the last 32 are enough
    recent_fail_.emplace_back(reason);
  }
  add(std::move(line), is_error);
}

void ClientLog::add_error(std::string line, std::string_view reason) {
  {
    std::lock_guard lock(mu_);
    if (auto it = std::find(recent_fail_.begin(), recent_fail_.end(), reason); it != recent_fail_.end()) {
      recent_fail_.erase(it);
      last_error_ = std::move(line);
      return;
    }
  }
  add(std::move(line), true);
}

std::string ClientLog::partition_gone() const {
  std::lock_guard lock(mu_);
  return partition_gone_;
}

void ClientLog::set_partition_gone(std::string line) {
  std::lock_guard lock(mu_);
  if (partition_gone_.empty()) partition_gone_ = std::move(line);
  any_gone_.store(true, std::memory_order_release);
}

bool ClientLog::take_debug(const char*, const char*) { return false; }

void handle_client_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf, ClientLog& log) {
  // Debug lines exist only when the user asked for them (-X debug=...), or a group member
  // asked for its own (join_state.hpp), which log.take_debug() takes unless the user asked
  // too: printed, they go to stderr as librdkafka itself prints them. Errors and warnings
  // go to the ClientLog, which the tool's error messages quote; notices and info are dropped.
  // Either way a line is scrubbed of every secret value first (config.hpp): librdkafka
  // redacts the properties it knows as sensitive, but not every line it writes.
  if (level >= 7) {
    if (log.take_debug(fac, buf)) return;
    const auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    eprint("%{}|{:.3f}|{}|{}| {}\n", level, now, fac, rd_kafka_name(rk), scrub_secrets(buf));
    return;
  }
  if (level > 4) return;
  const std::string text = scrub_secrets(buf);
  std::string line = fmt::format("librdkafka {}: {}", fac, text);
  // A broker failure: librdkafka also reports it to the error callback (add_error), whose
  // reason is this line's text after "[thrd:NAME]: ".
  if (const auto sep = text.find("]: "); std::string_view(fac) == "FAIL" && text.starts_with("[thrd:") &&
                                         sep != std::string::npos) {
    log.add_fail(std::move(line), std::string_view(text).substr(sep + 3), level <= 3);
    return;
  }
  log.add(std::move(line), level <= 3);
}

void handle_client_error(int err, const char* reason, ClientLog& log) {
  const std::string text = scrub_secrets(reason);
  if (err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION || err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
    log.set_partition_gone(text);
  }
  log.add_error(fmt::format("librdkafka: {} ({})", text, rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))),
                text);
}

namespace {

void log_cb(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  if (auto* log = static_cast<ClientLog*>(rd_kafka_opaque(rk))) handle_client_log(rk, level, fac, buf, *log);
}

void error_cb(rd_kafka_t*, int err, const char* reason, void* opaque) {
  if (auto* log = static_cast<ClientLog*>(opaque)) handle_client_error(err, reason, *log);
}

}  // namespace

void route_client_log(rd_kafka_conf_t* conf, ClientLog& log) {
  rd_kafka_conf_set_opaque(conf, &log);
  rd_kafka_conf_set_log_cb(conf, log_cb);
  rd_kafka_conf_set_error_cb(conf, error_cb);
}

Error client_refused(std::string_view kind, const char* err) {
  return usage_error(fmt::format("cannot create a Kafka {}: librdkafka refused the configuration: {}", kind,
                                 scrub_secrets(err)));
}

std::expected<HandlePtr, Error> make_client(rd_kafka_type_t type, const ConnectionOptions& conn,
                                            const std::vector<std::pair<std::string, std::string>>& defaults,
                                            ClientLog& log,
                                            const std::function<void(rd_kafka_conf_t*)>& tune) {
  auto conf = make_conf(conn, defaults);
  if (!conf) return std::unexpected(conf.error());
  route_client_log(conf->get(), log);
  if (tune) tune(conf->get());
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf->get(), err, sizeof err);
  if (!rk) return std::unexpected(client_refused("client", err));
  (void)conf->release();  // rd_kafka_new took ownership
  return HandlePtr(rk);
}

}  // namespace causal::kafka

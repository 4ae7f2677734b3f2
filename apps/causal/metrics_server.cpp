#include "metrics_server.hpp"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <httplib.h>

#include "causal/excerpt.hpp"
#include "causal/kafka/metrics_text.hpp"

namespace causal::cli {

namespace {

Error malformed(std::string_view text, std::string_view why, std::string_view field) {
  return usage_error(fmt::format("`{}` {}: {} (give ADDR:PORT: 127.0.0.1:9464, [::1]:9464, :9464)", field,
                                 quoted_excerpt(text), why),
                     std::string(field));
}

}  // namespace

std::expected<ListenAddress, Error> parse_listen_address(std::string_view text, std::string_view field) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::unexpected(malformed(text, "no port", field));
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']')) return std::unexpected(malformed(text, "an unclosed [IPv6 address]", field));
    if (host.size() < 3) return std::unexpected(malformed(text, "an empty [IPv6 address]", field));
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return std::unexpected(malformed(text, "an IPv6 address goes in brackets, [::1]:PORT", field));
  }
  int n = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || n < 0 || n > 65535)
    return std::unexpected(malformed(text, "the port is not a number 0..65535", field));
  return ListenAddress{std::string(host), n};
}

MetricsServer::MetricsServer() : server_(std::make_unique<httplib::Server>()) {}

MetricsServer::~MetricsServer() { stop(); }

std::expected<int, Error> MetricsServer::start(std::string_view addr_port, std::function<std::string()> render,
                                               std::string_view field) {
  auto address = parse_listen_address(addr_port, field);
  if (!address) return std::unexpected(address.error());
  // SO_REUSEADDR (a restart binds while the old socket is in TIME_WAIT), never SO_REUSEPORT
  // (the header comment says why).
  server_->set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Two workers: a scraper that keeps its connection open between scrapes holds one (up to
  // cpp-httplib's keep-alive timeout) and a second scraper is still answered; cpp-httplib's
  // default is a pool of eight or more.
  server_->new_task_queue = [] { return new httplib::ThreadPool(2); };
  server_->Get("/metrics", [render = std::move(render)](const httplib::Request&, httplib::Response& res) {
    res.set_content(render(), std::string(kafka::kMetricsContentType));
  });
  // Every address: IPv6's, which also takes IPv4 (cpp-httplib turns IPV6_V6ONLY off), or
  // IPv4's alone on a machine without IPv6.
  std::vector<std::string> hosts;
  if (address->host.empty()) {
    hosts = {"::", "0.0.0.0"};
  } else {
    hosts = {address->host};
  }
  int port = -1;
  int error = 0;
  std::string bound;
  for (const auto& host : hosts) {
    errno = 0;
    port = address->port == 0 ? server_->bind_to_any_port(host)
                              : (server_->bind_to_port(host, address->port) ? address->port : -1);
    error = errno;
    if (port > 0) {
      bound = host;
      break;
    }
  }
  if (port <= 0) {
    const std::string why = error == EADDRINUSE ? "the port is in use (by another process, or another causal)"
                            : error != 0        ? std::string(std::strerror(error))
                                                : "not an address of this machine";
    return std::unexpected(runtime_error(
        fmt::format("`{}` {}: cannot listen there: {}", field, quoted_excerpt(addr_port), why), std::string(field)));
  }
  authority_ = bound.find(':') != std::string::npos ? fmt::format("[{}]:{}", bound, port)
                                                    : fmt::format("{}:{}", bound, port);
  thread_ = std::thread([server = server_.get()] { server->listen_after_bind(); });
  return port;
}

void MetricsServer::stop() {
  if (!thread_.joinable()) return;
  // cpp-httplib's stop() does nothing until its loop runs, so a stop() right after start()
  // waits for the loop to begin first.
  while (!server_->is_running()) std::this_thread::yield();
  server_->stop();
  thread_.join();
}

}  // namespace causal::cli

// The tool's /metrics endpoint: serves what a render function returns as Prometheus text
// (causal/kafka/metrics_text.hpp) over HTTP, with cpp-httplib, in a thread of its own.
//
// The listen address, ADDR:PORT, read as node_exporter reads --web.listen-address:
//   127.0.0.1:9464   one IPv4 address;          [::1]:9464  one IPv6 address (brackets);
//   0.0.0.0:9464     every IPv4 address;        [::]:9464   every address (IPv6, and IPv4
//   :9464            every address, as [::]      mapped, where the kernel allows both);
//                    (every IPv4 address when this machine has no IPv6);
//   localhost:9464   a name, resolved; the first of its addresses that binds is served.
// PORT is 0..65535; 0 picks a free port, which start() returns.
//
// start() binds and listens before it returns, so a bad address or a port another process
// listens on is an error at start-up: a usage error (exit 2) for text that is not ADDR:PORT,
// a runtime error (exit 1) for an address that does not bind; both name the caller's field
// (tail's `metrics_listen`, watch's `listen`). The socket is not shared: unlike
// cpp-httplib's default it sets SO_REUSEADDR only, never SO_REUSEPORT, so a second process
// asking for the same port fails instead of taking half the scrapes.
//
// Requests: GET /metrics answers 200 with kMetricsContentType and render()'s text; any other
// path 404; other methods get cpp-httplib's own answer (400 for POST to /metrics). render()
// is called on the server's thread, once per scrape: it must be safe to call while the
// owner works (a health() snapshot is). stop() (and the destructor) stops listening and
// joins the thread.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "causal/error.hpp"

namespace httplib {
class Server;
}

namespace causal::cli {

// ADDR:PORT split: `host` without brackets ("" for every address), `port` 0..65535.
struct ListenAddress {
  std::string host;
  int port = 0;
};
// Usage error naming `field` (the option's field: tail's `metrics_listen`, watch's `listen`)
// when `text` is not ADDR:PORT.
std::expected<ListenAddress, Error> parse_listen_address(std::string_view text,
                                                         std::string_view field = "metrics_listen");

class MetricsServer {
 public:
  MetricsServer();
  ~MetricsServer();  // stop()
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Parses, binds, listens and starts serving; returns the port bound. Errors name `field`.
  // REQUIRES: not started.
  std::expected<int, Error> start(std::string_view addr_port, std::function<std::string()> render,
                                  std::string_view field = "metrics_listen");
  // The address as a URL's authority: "127.0.0.1:9464", "[::1]:9464", "[::]:9464".
  const std::string& authority() const { return authority_; }
  // Stops listening and joins the thread; idempotent.
  void stop();

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::string authority_;
};

}  // namespace causal::cli

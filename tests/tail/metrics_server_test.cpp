// The tool's /metrics endpoint (apps/causal/metrics_server.hpp), on the loopback interface:
// ADDR:PORT as read, a bound port before start() returns, 200 with the content type on
// /metrics, 404 elsewhere, and a port already served refused. No broker.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>

#include <httplib.h>

#include "causal/kafka/metrics_text.hpp"
#include "metrics_server.hpp"

using namespace causal;
using namespace causal::cli;

TEST_CASE("metrics server: ADDR:PORT as node_exporter reads it") {
  auto a = parse_listen_address("127.0.0.1:9464");
  REQUIRE(a);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 9464);
  a = parse_listen_address("[::1]:0");
  REQUIRE(a);
  CHECK(a->host == "::1");
  CHECK(a->port == 0);
  a = parse_listen_address(":9464");
  REQUIRE(a);
  CHECK(a->host.empty());
  a = parse_listen_address("localhost:80");
  REQUIRE(a);
  CHECK(a->host == "localhost");
  for (auto bad : {"", "9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:9x",
                   "::1:9464", "[::1:9464", "[]:9464"}) {
    INFO(bad);
    auto r = parse_listen_address(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::usage);
    CHECK(r.error().field == "metrics_listen");
    CHECK(r.error().message.find("`metrics_listen`") != std::string::npos);
  }
}

TEST_CASE("metrics server: serves /metrics with the content type, 404 elsewhere, and refuses a taken port") {
  std::atomic<int> renders = 0;
  MetricsServer server;
  auto port = server.start("127.0.0.1:0", [&] {
    ++renders;
    return std::string("x 1\n");
  });
  REQUIRE(port);
  CHECK(*port > 0);
  CHECK(server.authority() == "127.0.0.1:" + std::to_string(*port));

  httplib::Client client("127.0.0.1", *port);
  auto res = client.Get("/metrics");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "x 1\n");
  CHECK(res->get_header_value("Content-Type") == kafka::kMetricsContentType);
  CHECK(renders == 1);
  res = client.Get("/");
  REQUIRE(res);
  CHECK(res->status == 404);
  res = client.Get("/metrics/x");
  REQUIRE(res);
  CHECK(res->status == 404);
  CHECK(renders == 1);

  MetricsServer second;
  auto taken = second.start("127.0.0.1:" + std::to_string(*port), [] { return std::string(); });
  REQUIRE_FALSE(taken);
  CHECK(taken.error().code == Errc::runtime);
  CHECK(taken.error().message.find("in use") != std::string::npos);

  server.stop();
  server.stop();  // idempotent
  CHECK_FALSE(httplib::Client("127.0.0.1", *port).Get("/metrics"));
}

TEST_CASE("metrics server: stop right after start, and every address with :0") {
  MetricsServer server;
  auto port = server.start(":0", [] { return std::string("y 2\n"); });
  REQUIRE(port);
  auto res = httplib::Client("127.0.0.1", *port).Get("/metrics");
  REQUIRE(res);
  CHECK(res->body == "y 2\n");
  server.stop();

  MetricsServer quick;
  REQUIRE(quick.start("127.0.0.1:0", [] { return std::string(); }));
  quick.stop();
}

TEST_CASE("metrics server: an address not of this machine is a runtime error naming the field") {
  MetricsServer server;
  auto r = server.start("192.0.2.1:0", [] { return std::string(); });  // TEST-NET-1, never local
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::runtime);
  CHECK(r.error().message.find("`metrics_listen`") != std::string::npos);
}

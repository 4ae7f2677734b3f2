// The Prometheus text exposition writer (causal/kafka/metrics_text.hpp): HELP and TYPE once
// per family, escaping, exact integers, shortest doubles, NaN and infinities, and the
// preconditions. No broker.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "causal/kafka/metrics_text.hpp"

using namespace causal::kafka;

TEST_CASE("metrics text: HELP and TYPE once per family, its samples after it") {
  MetricsText m;
  m.family("causal_held_records", MetricType::gauge, "Records held.");
  m.sample({{"topic", "a"}, {"partition", "0"}}, std::int64_t{3});
  m.sample({{"topic", "a"}, {"partition", "1"}}, std::int64_t{0});
  m.family("causal_delivered_records_total", MetricType::counter, "Records delivered.");
  m.sample({}, std::uint64_t{7});
  CHECK(m.text() ==
        "# HELP causal_held_records Records held.\n"
        "# TYPE causal_held_records gauge\n"
        "causal_held_records{topic=\"a\",partition=\"0\"} 3\n"
        "causal_held_records{topic=\"a\",partition=\"1\"} 0\n"
        "# HELP causal_delivered_records_total Records delivered.\n"
        "# TYPE causal_delivered_records_total counter\n"
        "causal_delivered_records_total 7\n");
}

TEST_CASE("metrics text: label values escape backslash, quote and line feed; HELP backslash and line feed") {
  MetricsText m;
  m.family("x", MetricType::gauge, "a \\ b \"q\"\nnext");
  m.sample({{"l", "back\\slash \"quoted\"\nline"}}, std::int64_t{1});
  CHECK(m.text() ==
        "# HELP x a \\\\ b \"q\"\\nnext\n"
        "# TYPE x gauge\n"
        "x{l=\"back\\\\slash \\\"quoted\\\"\\nline\"} 1\n");
}

TEST_CASE("metrics text: integers exactly, doubles shortest round-trip, NaN and infinities as Prometheus") {
  MetricsText m;
  m.family("v", MetricType::gauge, "h");
  m.sample({}, std::numeric_limits<std::int64_t>::max());
  m.sample({}, std::numeric_limits<std::int64_t>::min());
  m.sample({}, std::numeric_limits<std::uint64_t>::max());
  CHECK(m.text().find("v 9223372036854775807\nv -9223372036854775808\nv 18446744073709551615\n") !=
        std::string::npos);
  CHECK(format_metric_value(0.1) == "0.1");
  CHECK(format_metric_value(1.5) == "1.5");
  CHECK(format_metric_value(0.0) == "0");
  CHECK(format_metric_value(1e300) == "1e+300");
  CHECK(std::stod(format_metric_value(2.0 / 3.0)) == 2.0 / 3.0);
  CHECK(format_metric_value(std::nan("")) == "NaN");
  CHECK(format_metric_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(format_metric_value(-std::numeric_limits<double>::infinity()) == "-Inf");
}

TEST_CASE("metrics text: the preconditions are enforced") {
  MetricsText m;
  CHECK_THROWS_AS(m.sample({}, 1.0), std::invalid_argument);  // no family yet
  CHECK_THROWS_AS(m.family("causal_delivered_records", MetricType::counter, "h"), std::invalid_argument);
  CHECK_THROWS_AS(m.family("1bad", MetricType::gauge, "h"), std::invalid_argument);
  CHECK_THROWS_AS(m.family("bad-name", MetricType::gauge, "h"), std::invalid_argument);
  m.family("ok:name_total", MetricType::counter, "h");
  CHECK_THROWS_AS(m.family("ok:name_total", MetricType::gauge, "h"), std::invalid_argument);
  CHECK_THROWS_AS(m.sample({{"__reserved", "v"}}, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(m.sample({{"a:b", "v"}}, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(m.sample({{"a", "1"}, {"a", "2"}}, 1.0), std::invalid_argument);
  CHECK(kMetricsContentType == "text/plain; version=0.0.4; charset=utf-8");
}

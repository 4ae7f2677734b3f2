// A writer of the Prometheus text exposition format, version 0.0.4: what every Prometheus
// scrapes and `promtool check metrics` lints.
//
// What it writes, in the order of the calls: family() starts a metric family with its
// `# HELP name text` and `# TYPE name gauge|counter` lines (once per family); each sample()
// after it writes one line `name{label="value",...} value` of that family. A reader (and
// promtool) expects a family's samples together, right after its HELP and TYPE: so give a
// family once and all its samples after it.
//
// Escaping, as the format says: in a label value a backslash, a double quote and a line feed
// are written \\, \" and \n; in HELP text a backslash and a line feed (not a quote). Values:
// an integer sample is printed exactly (every int64); a double in its shortest form that
// reads back to the same double (std::to_chars), and NaN, +Inf and -Inf as Prometheus writes
// them (`NaN`, `+Inf`, `-Inf`).
//
// Preconditions (std::invalid_argument when violated, these are programming errors): metric
// and label names match [a-zA-Z_:][a-zA-Z0-9_:]* and [a-zA-Z_][a-zA-Z0-9_]* and a label name
// does not start with "__"; a counter family's name ends in "_total"; a family is not given
// twice; sample() comes after a family().
//
// Cost: appends to one string; no I/O. Thread-safety: none; one MetricsText per rendering.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace causal::kafka {

// The Content-Type of a response carrying MetricsText::text().
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { gauge, counter };

class MetricsText {
 public:
  using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  // Starts the family `name`. REQUIRES: a valid metric name not given before; a counter's
  // name ends in "_total".
  void family(std::string_view name, MetricType type, std::string_view help);
  // One sample of the current family. REQUIRES: a family() before; valid, distinct label names.
  void sample(Labels labels, double value);
  void sample(Labels labels, std::int64_t value);
  void sample(Labels labels, std::uint64_t value);
  void sample(Labels labels, int value) { sample(labels, static_cast<std::int64_t>(value)); }

  const std::string& text() const { return text_; }

 private:
  void begin_sample(Labels labels);

  std::string text_;
  std::string current_;                // the family samples go to
  std::vector<std::string> families_;  // given so far
};

// Value text as the format writes it (exposed for tests and for other writers).
std::string format_metric_value(double value);

}  // namespace causal::kafka

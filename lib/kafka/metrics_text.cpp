// The Prometheus text exposition format 0.0.4 (metrics_text.hpp).
#include "causal/kafka/metrics_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <system_error>

namespace causal::kafka {
namespace {

bool valid_name(std::string_view name, bool colon) {
  if (name.empty()) return false;
  auto first = [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  };
  auto rest = [&](char c) { return first(c) || (c >= '0' && c <= '9'); };
  return first(name.front()) && std::all_of(name.begin() + 1, name.end(), rest);
}

template <class T>
void append_number(std::string& out, T value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  if (ec != std::errc{}) throw std::logic_error("MetricsText: a value that does not print");
  out.append(buf, end);
}

}  // namespace

std::string format_metric_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::string out;
  append_number(out, value);
  return out;
}

void MetricsText::family(std::string_view name, MetricType type, std::string_view help) {
  if (!valid_name(name, true))
    throw std::invalid_argument("MetricsText: invalid metric name " + std::string(name));
  if (type == MetricType::counter && !name.ends_with("_total"))
    throw std::invalid_argument("MetricsText: a counter's name must end in _total: " + std::string(name));
  if (std::find(families_.begin(), families_.end(), name) != families_.end())
    throw std::invalid_argument("MetricsText: family given twice: " + std::string(name));
  families_.emplace_back(name);
  current_ = name;
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  for (char c : help) {
    if (c == '\\')
      text_ += "\\\\";
    else if (c == '\n')
      text_ += "\\n";
    else
      text_ += c;
  }
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += type == MetricType::counter ? " counter\n" : " gauge\n";
}

void MetricsText::begin_sample(Labels labels) {
  if (current_.empty()) throw std::invalid_argument("MetricsText: sample() before family()");
  text_ += current_;
  if (labels.size() == 0) {
    text_ += ' ';
    return;
  }
  text_ += '{';
  bool first = true;
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    const auto& [name, value] = *it;
    if (!valid_name(name, false) || name.starts_with("__"))
      throw std::invalid_argument("MetricsText: invalid label name " + std::string(name));
    for (auto before = labels.begin(); before != it; ++before)
      if (before->first == name)
        throw std::invalid_argument("MetricsText: label given twice: " + std::string(name));
    if (!first) text_ += ',';
    first = false;
    text_ += name;
    text_ += "=\"";
    for (char c : value) {
      if (c == '\\')
        text_ += "\\\\";
      else if (c == '"')
        text_ += "\\\"";
      else if (c == '\n')
        text_ += "\\n";
      else
        text_ += c;
    }
    text_ += '"';
  }
  text_ += "} ";
}

void MetricsText::sample(Labels labels, double value) {
  begin_sample(labels);
  text_ += format_metric_value(value);
  text_ += '\n';
}

void MetricsText::sample(Labels labels, std::int64_t value) {
  begin_sample(labels);
  append_number(text_, value);
  text_ += '\n';
}

void MetricsText::sample(Labels labels, std::uint64_t value) {
  begin_sample(labels);
  append_number(text_, value);
  text_ += '\n';
}

}  // namespace causal::kafka

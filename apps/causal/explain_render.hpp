// The diagnosis (causal/diagnosis.hpp) as `causal explain` prints it: the JSON document
// of docs/explain-format.md and the text form. The diagnosis speaks in fields; these put
// the tool's words in: remedies as commands (remedy_command.hpp), fields as options
// (option_words.hpp).
//   explain_summary.cpp   the summary line and the advice, shared by both forms
//   explain_json.cpp      the JSON form
//   explain_text.cpp      the text form
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "causal/diagnosis.hpp"

namespace causal::cli {

struct ExplainWords {
  // The connection options every remedy carries, shell-quoted ("-b k1:9092"), or empty.
  std::string connection;
  // The tool's own advice (Kafka's commands for a hung transaction), after the diagnosis's.
  std::vector<std::string> extra_advice;
};

// The first line of the text form, and JSON's "summary".
std::string summary_line(const Diagnosis& d);
// Every advice: the diagnosis's, rendered, then words.extra_advice.
std::vector<std::string> advice_lines(const Diagnosis& d, const ExplainWords& words);

// {"version":1,"stuck":..,"summary":..,"roots":[..],"channels":[..],"advice":[..], ...}
nlohmann::json explain_json(const Diagnosis& d, const ExplainWords& words);
// The members as JSON: [{"member_id", "client_id", "host", "assignment": [{"topic", "partition"}]}]
// (what explain's roots list in stop_first and its source lists in group_members).
nlohmann::json members_json(const std::vector<MemberFact>& members);

// A short verdict first, then each root with its remedy, then per channel.
std::string explain_text(const Diagnosis& d, const ExplainWords& words);

}  // namespace causal::cli

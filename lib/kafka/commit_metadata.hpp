// What a causal member commits as a partition's offset metadata: the committed state in the
// core's text form ("causal1:..." or "causal2:...", resolution_state.hpp), then the topic ID
// of the log the offset belongs to:
//
//   <state>;topic_id=<ID>
//
// Why the ID: a topic deleted and re-created under the same name keeps its group's commits
// only if the group was not deleted with it, and an offset of the old log means nothing in
// the new one. A member or reader that starts from a commit whose ID is not the topic's
// now treats the commit as one of a log that is gone (start rules, no resolution state).
// Metadata without the suffix (written before it existed, or by another tool) carries no ID
// and is taken as it is.
//
// Internal to causal_kafka.
#pragma once

#include <string>
#include <string_view>

namespace causal::kafka {

struct CommitMetadata {
  std::string_view state;     // the core's text ("" when none)
  std::string_view topic_id;  // "" when the metadata names none
};

// Splits metadata as read back from Kafka.
CommitMetadata parse_commit_metadata(std::string_view text);
// The suffix appended to the state for a log of topic ID `id` ("" when `id` is "").
std::string topic_id_suffix(std::string_view id);

}  // namespace causal::kafka

// The offset metadata a causal member commits: see commit_metadata.hpp.
#include "commit_metadata.hpp"

namespace causal::kafka {

namespace {
constexpr std::string_view kMark = ";topic_id=";
}  // namespace

CommitMetadata parse_commit_metadata(std::string_view text) {
  const auto at = text.rfind(kMark);
  if (at == std::string_view::npos) return {text, {}};
  return {text.substr(0, at), text.substr(at + kMark.size())};
}

std::string topic_id_suffix(std::string_view id) {
  if (id.empty()) return {};
  return std::string(kMark) + std::string(id);
}

}  // namespace causal::kafka

#include "causal/kafka/explain.hpp"

#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/explain_steps.hpp"

namespace causal::kafka {

// The steps in order (explain_steps.hpp): the group, the replay's plan, the replay to the
// LSO, the lookups and the diagnosis.
std::expected<ExplainResult, Error> explain_group(const ExplainOptions& o, ExplainObserver* observer) {
  ExplainObserver quiet;
  ExplainObserver& obs = observer ? *observer : quiet;
  ExplainResult out;
  auto client = OffsetsClient::open(o.connection, o.timeout_ms);
  if (!client) return std::unexpected(client.error());
  auto group = read_group(*client, o.group, o.topics);
  if (!group) return std::unexpected(group.error());
  auto offsets = client->list_offsets(group->channels);
  if (!offsets) return std::unexpected(offsets.error());

  Names names;
  auto plan = plan_replay(*client, o, *group, *offsets, names);
  if (!plan) return std::unexpected(plan.error());
  for (const auto& n : plan->notes) obs.note(n);

  ReplayObserver progress(obs, names, group->left_out);
  obs.replay_starting();
  auto host = replay_to_lso(plan->options, names, &progress, std::chrono::milliseconds(o.replay_timeout_ms), o.stop);
  obs.replay_done();
  if (!host) return std::unexpected(host.error());
  if (o.stop && *o.stop) {
    return std::unexpected(runtime_error("interrupted before the replay reached the last stable offset"));
  }
  if (auto r = diagnose_replay(*client, o, *group, *offsets, (*host)->gate(), names, progress, obs, nullptr, out); !r) {
    return std::unexpected(r.error());
  }
  out.group_state = group->desc.state;
  out.group_protocol = group->desc.protocol;
  out.group_member_count = group->desc.members.size();
  out.committed = std::move(plan->committed);
  out.notes = std::move(plan->notes);
  out.delivered = progress.delivered_count();
  out.ignored_claims_total = progress.ignored_count();
  return out;
}

}  // namespace causal::kafka

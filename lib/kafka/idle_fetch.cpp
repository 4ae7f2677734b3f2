// A replay kept idle between a watch's rounds (ConsumerHost::pause_fetching and
// resume_fetching): its partitions are paused, so that it sends no fetch request while it
// waits (an assigned partition at its end is otherwise fetched every fetch.wait.max.ms),
// and resumed at the offset after the last record handed to the gate, as the hold budget
// resumes a partition (hold_budget.cpp): records librdkafka dropped from its queue at the
// pause are fetched again, none is skipped.
#include <fmt/core.h>

#include "consumer_host_impl.hpp"

namespace causal::kafka {

namespace {

// The channels the hold budget did not pause and that did not fail closed.
std::vector<ChannelId> idle_channels(const ConsumerHost::Impl& im, const std::vector<ChannelPlan>& plan) {
  std::vector<ChannelId> out;
  for (const auto& p : plan) {
    const auto& st = im.chans[p.channel];
    if (st.assigned && !st.failed && !st.budget_paused) out.push_back(p.channel);
  }
  return out;
}

}  // namespace

void ConsumerHost::pause_fetching() {
  if (impl_->member || impl_->idle_paused) return;
  auto chans = idle_channels(*impl_, plan_);
  if (!chans.empty()) {
    ListPtr l = list_of(names_, chans);
    rd_kafka_pause_partitions(impl_->rk.get(), l.get());
  }
  impl_->idle_paused = true;
}

std::expected<void, Error> ConsumerHost::resume_fetching() {
  if (!impl_->idle_paused) return {};
  impl_->idle_paused = false;
  auto chans = idle_channels(*impl_, plan_);
  if (chans.empty()) return {};
  ListPtr l = list_of(names_, chans);
  rd_kafka_resume_partitions(impl_->rk.get(), l.get());
  for (int i = 0; i < l->cnt; ++i) {
    const auto& st = impl_->chans[chans[static_cast<std::size_t>(i)]];
    l->elems[i].offset = st.returned >= 0 ? st.returned : st.baseline;
  }
  if (rd_kafka_error_t* e =
          rd_kafka_seek_partitions(impl_->rk.get(), l.get(), static_cast<int>(impl_->opts.connect_timeout.count()))) {
    std::string text = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return std::unexpected(runtime_error(fmt::format("resuming the replay's partitions on {}: seek failed: {}",
                                                     impl_->brokers, text)));
  }
  return {};
}

}  // namespace causal::kafka

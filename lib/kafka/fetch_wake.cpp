// The fetch wake: restarts librdkafka's fetcher as soon as the local queue runs dry, instead
// of letting it sleep out its fixed one-second backoff (consumer_host_impl.hpp, wake_fetcher;
// docs/library.md, "Memory").
//
// Why: librdkafka before 2.2 (Debian 12 ships 2.0.2) stops fetching a partition whose queue
// is over queued.min.messages or queued.max.messages.kbytes, and its broker thread then
// sleeps until its next one-second tick: nothing the application does by consuming wakes it
// (librdkafka issue #2879; 2.2 added fetch.queue.backoff.ms for this). A consumer that reads
// faster than the broker thread refills the queue therefore idles for up to a second per
// refill, unless the queue holds a second's worth of records, which is what made `causal
// tail`'s memory grow with its speed. The one public call that wakes the broker thread
// without side effects on what is delivered is a seek ("fetch start"): this file seeks each
// partition that is behind to the offset it would fetch next anyway.
//
// Contract. ConsumerHost::poll() calls it once its local queue has stayed empty for
// kFetchWakeAfter (consumer_host.cpp); it seeks:
//   - only channels assigned, not failed, not paused by the hold budget, that returned a
//     record since their last end-of-partition event (eof < returned: the fetcher has not
//     reached their end), and not already woken at this position (woken_at == returned):
//     after a wake, the channel must return a record before it is woken again, so a fetch
//     in flight is cancelled at most once per record received;
//   - the seek goes to Ch::returned, the offset after the last record handed to the gate:
//     nothing is skipped. A record fetched again is below Ch::returned and dropped before
//     the gate, as after a budget resume (hold_budget.cpp);
//   - the seek is asynchronous and its errors are ignored: a seek that does not happen
//     leaves the fetcher where it was, to resume at its own tick. It only costs time.
// A consumer at the end of its partitions gets an end-of-partition event there, so a live
// tail that waits for new records is not woken (no fetch is cancelled while it waits).
#include <vector>

#include "consumer_host_impl.hpp"

namespace causal::kafka {

void ConsumerHost::Impl::wake_fetcher() {
  std::vector<ChannelId>& woken = wake_cache;
  woken.clear();
  for (ChannelId c = 0; c < chans.size(); ++c) {
    Ch& st = chans[c];
    if (!st.assigned || st.failed || st.budget_paused || st.returned < 0) continue;
    if (st.eof >= st.returned || st.woken_at == st.returned) continue;
    st.woken_at = st.returned;
    woken.push_back(c);
  }
  if (woken.empty()) return;
  ListPtr l = list_at(host->names_, woken, [&](ChannelId c) { return chans[c].returned; });
  if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), l.get(), 0)) rd_kafka_error_destroy(e);
}

}  // namespace causal::kafka

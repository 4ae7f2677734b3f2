// The health of a consumer host and of a relay, as a snapshot a monitor reads at any time
// (ConsumerHost::health(), Relay::health()), and its Prometheus rendering (write_metrics).
//
// What it is: the owner thread publishes a copy of these structs once per round, at the end
// of ConsumerHost::poll() (also when the round fails) and of open() and join(), and once per
// Relay::poll() and commit(); never per record. health() copies the last one under a mutex.
// So a snapshot is at most one round old (one poll_timeout, plus the round's own work), and
// every field of it was true at the same moment. The one field computed at the call is a
// held head's age: the time since that record was received, taken from the steady clock.
//
// Cost: publishing walks the assigned partitions once (frontier, held count, head and its
// first unsatisfied claim, pending lookups) and copies the struct under the mutex: no I/O,
// no librdkafka call. health() takes the mutex for one copy.
//
// Thread-safety: health() may be called from any thread, at any time, while the owner
// thread polls (a /metrics server's thread, say); it never blocks the owner for more than
// that copy. write_metrics and the structs themselves are plain values, with no locking.
//
// Counters (`*_total` in the rendering) are monotone over the host's life: a member's new
// generation does not reset them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "causal/clock.hpp"
#include "causal/kafka/metrics_text.hpp"

namespace causal::kafka {

// What a held head waits on: its first unsatisfied claim, as the gate normalised it.
struct HeadWait {
  enum class On { channel, sequence };
  On on = On::channel;
  // On::channel: an offset claim, waiting until `channel`'s frontier reaches `offset`.
  std::string channel;  // "topic/partition"
  std::int64_t offset = -1;
  // On::sequence: a sequence claim, waiting for `sender`'s send `seq` on `channel`.
  std::string sender;
  std::uint64_t seq = 0;
};

struct PartitionHealth {
  std::string topic;
  std::int32_t partition = 0;
  // The next offset to deliver: the gate's frontier + 1, what a member commits.
  std::int64_t frontier = 0;
  std::uint64_t held_records = 0;
  // What the held records are charged against the hold budget: payload + key +
  // kHeldRecordOverhead each (consumer_host.hpp).
  std::uint64_t held_bytes = 0;
  // The head's receive time on the steady clock, when a record is held; health() turns it
  // into head_age.
  std::optional<std::chrono::steady_clock::time_point> head_received;
  std::chrono::duration<double> head_age{0};  // 0 when nothing is held
  std::optional<HeadWait> head_waits;         // set when a head is held
  std::uint64_t lookups = 0;                  // lookups asked of this partition (the claimed one)
  std::uint64_t lookups_pending = 0;          // lookups of it the gate wants and has no answer to
  bool failed_closed = false;                 // an undecodable header stopped it (fail closed)
  bool hold_budget_paused = false;            // paused by the hold budget
  std::uint64_t delivered = 0;                // records the gate delivered from it (a counter)
};

struct MemberHealth {
  std::string group;
  int generation = 0;                  // assignments received (ConsumerHost::generations())
  std::uint64_t rebalances = 0;        // assignments and revocations handled (a counter)
  std::uint64_t assignments_lost = 0;  // revocations librdkafka called lost, and members made again (a counter)
};

struct ConsumerHealth {
  // The group: joined (member set) or whose offsets a start read; "" otherwise.
  std::string group;
  std::vector<PartitionHealth> partitions;  // the assigned partitions, in assignment order
  std::optional<MemberHealth> member;       // set for a member (ConsumerHost::join)
};

struct RelayHealth {
  ConsumerHealth input;
  std::uint64_t transactions_committed = 0;
  std::uint64_t transactions_aborted = 0;
  std::uint64_t fencings = 0;  // output producers made again after Kafka fenced one
};

// The Prometheus rendering (docs/library.md, "Health and metrics", lists each family): one
// family per metric, labels group, topic and partition.
void write_metrics(MetricsText& out, const ConsumerHealth& health);
// The input's families, then the relay's three counters.
void write_metrics(MetricsText& out, const RelayHealth& health);

}  // namespace causal::kafka

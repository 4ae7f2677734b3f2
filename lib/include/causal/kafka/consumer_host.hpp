// The consumer host: drives a causal::Gate from a librdkafka read_committed consumer.
//
// What it does, per protocol.md and the seed pages:
//   - assignment without joining a group: rd_kafka_assign() with explicit offsets. librdkafka
//     2.0.2 refuses assign() without a group.id, so when no --group is given the handle gets a
//     private, never-joined id "causal-tail-<hex>": nothing subscribes, nothing is committed
//     (enable.auto.commit=false, enable.auto.offset.store=false), no group state is created.
//     With a group, its committed offsets are read (rd_kafka_committed) without joining.
//   - baselines: every channel's start offset is resolved to a number before assign and
//     handed to gate.add_channel (see StartPosition for each kind).
//   - position-advance bridging: enable.partition.eof=true; after every poll batch, for each
//     channel the signal max(rd_kafka_position, last PARTITION_EOF offset) goes to
//     gate.position_advance when it rose. A position is taken only after every record the
//     batch returned was handed to the gate, so p never runs ahead of what the gate saw.
//   - the causal.clock header is decoded with causal::decode into the shared Names; a
//     present but undecodable header fails the channel closed: gate.fail_closed, the
//     partition is paused, nothing at or after it there is handed to the gate, no position is
//     reported for it again, and a HeaderFailure naming topic/partition/offset/reason is kept.
//     Other channels go on.
//   - lookups (protocol.md, late joiners): after each poll, gate.pending_lookups() are
//     answered by scanning the claimed channel for the record whose origin is (S, q) with a
//     separate read_committed handle, from the offset for (claiming record's timestamp -
//     max transaction duration) up to the channel's baseline. Each is reported through
//     HostObserver::lookup and asked once.
//
// Payloads are not copied: the rd_kafka_message_t* rides in Received::tag while the gate
// holds the record and is destroyed right after HostObserver::delivered returns. A held
// record keeps librdkafka's fetch buffer it came from alive, so many held records spread
// over many fetches cost memory in proportion to those fetches.
//
// The hold budget (ConsumerOptions::max_held_bytes; hold_budget.cpp, docs/library.md
// "Memory"): every held record is charged its payload + key + kHeldRecordOverhead. A
// channel whose blocked head holds more than its share (budget / assigned channels), or
// any channel while the total passes the budget, is paused (rd_kafka_pause_partitions)
// unless a blocked head waits on a record of it not yet fetched: pausing that one could
// never release anything (deadlock). Records of a paused channel still in librdkafka's
// queue are dropped, not held. A paused channel is resumed, and sought to the offset
// after the last record handed to the gate (so nothing is skipped; what is fetched twice
// is dropped as already received), once a blocked head waits on it, or, with the total
// back within the budget, once it holds nothing or half its share. When the budget is
// spent and nothing is deliverable, only the channels blocked heads wait on are fetched,
// past the budget if need be; that is said through HostObserver::note, once per episode.
//
// "Caught up" (for --exit-at-end and for replays): every channel in scope has failed closed,
// or its position signal max(baseline, rd_kafka_position, last PARTITION_EOF offset) has
// reached the last stable offset captured when it was assigned; since the gate runs its
// cascade to a fixpoint on every call, nothing deliverable remains at that moment; and every
// lookup the held heads need has been asked and answered. poll() runs lookups to a fixpoint
// too: answering one can release a head whose successor, or a head the cascade reaches on
// another channel, then needs a lookup of its own, and that one is asked in the same poll.
// Records produced after assignment are delivered if they arrive before that, but are not
// waited for. A channel the hold budget paused counts as caught up once every channel still
// fetched is (and records are still held): nothing left below the LSO can release them.
//
// Thread-safety: none, but for health(). One ConsumerHost, its Gate and its Names are used
// from one thread. librdkafka's own threads only touch the log/error callbacks, which lock.
// health() may be called from any thread (causal/kafka/health.hpp).
#pragma once

#include <functional>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/codec.hpp"
#include "causal/error.hpp"
#include "causal/gate.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/health.hpp"
#include "causal/names.hpp"

namespace causal::kafka {

// Where a channel starts (its baseline). Text forms in parentheses.
struct StartPosition {
  enum class Kind {
    beginning,  // (beginning) the log start offset
    end,        // (end) the high watermark, from a read_uncommitted ListOffsets
    lso,        // (lso) the last stable offset: read_committed ListOffsets "high"
    committed,  // (committed) the group's committed offset, read without joining; the log
                //   start when the group has none (said through HostObserver::note)
    offset,     // (<n>) an absolute offset, clamped into [log start, high watermark]
    from_end,   // (-<n>) n before the high watermark, not below the log start
  };
  Kind kind = Kind::beginning;
  Offset value = 0;  // offset: the offset; from_end: n
  friend bool operator==(const StartPosition&, const StartPosition&) = default;
};
std::expected<StartPosition, Error> parse_start_position(std::string_view text);
std::string to_string(const StartPosition& p);

// A channel selector: "topic" (every partition) or "topic/partition".
struct Selector {
  std::string topic;
  std::optional<std::int32_t> partition;
};
std::expected<Selector, Error> parse_selector(std::string_view text);

// A --from rule: "POS" (every channel), "TOPIC=POS", "TOPIC/P=POS" (or '@' for '=').
// The most specific rule wins. ConsumerHost::open and join refuse (usage error) two rules of
// the same scope, and a scoped rule that matches no channel read (join checks the topic only:
// the group assigns the partitions later).
struct StartRule {
  std::optional<Selector> scope;
  StartPosition position;
};
std::expected<StartRule, Error> parse_start_rule(std::string_view text);
// A usage error when two rules have the same scope (which should win would be a guess), or a
// scoped rule matches no channel read: `reads(topic, partition)` says whether a channel is
// read, partition nullopt meaning any partition of the topic. open() and join() call it; a
// command line calls it first with what it knows before metadata, to fail without a broker.
std::expected<void, Error> check_start_rules(
    const std::vector<StartRule>& rules,
    const std::function<bool(const std::string& topic, std::optional<std::int32_t> partition)>& reads);

struct ConsumerOptions {
  ConnectionOptions connection;
  std::vector<Selector> channels;
  std::vector<StartRule> start;              // applied over default_start
  // Where a channel with no rule in `start` begins: the log start by default, whether or
  // not `group` is set (set it to committed to start at the group's committed offsets).
  StartPosition default_start{};
  // open(): the group whose committed offsets a committed start reads (never joined; an
  // error when a committed start is used without it). join(): the group joined.
  std::optional<std::string> group;
  bool lookups = true;                       // answer gate.pending_lookups()
  std::chrono::milliseconds max_transaction_duration{15 * 60 * 1000};  // transaction.max.timeout.ms
  std::chrono::milliseconds poll_timeout{100};
  std::chrono::milliseconds connect_timeout{10000};  // metadata and ListOffsets at start
  std::size_t batch_size = 4096;                     // records per rd_kafka_consume_batch_queue
  // Restored into the gate before any receive (protocol.md, sequence claims rule 3).
  // Channel/sender ids are those of the Names passed to open().
  std::vector<ResolutionEntry> resolution_state;
  // The hold budget in bytes (see the file comment); 0: none (held records are not
  // limited, nothing is paused for memory).
  std::size_t max_held_bytes = 64u << 20;
  // Extra librdkafka defaults for the main handle (before -F/-X), e.g. fetch sizes.
  std::vector<std::pair<std::string, std::string>> extra_defaults;

  // --- group membership: ConsumerHost::join only ---
  // Which group protocol the member speaks (librdkafka's group.protocol). classic: JoinGroup
  // and SyncGroup, the assignor (partition.assignment.strategy) runs in the members. consumer
  // (KIP-848, Kafka 4.0+ brokers): the coordinator assigns, heartbeats carry the member's
  // epoch, every rebalance is incremental; session.timeout.ms, heartbeat.interval.ms and
  // partition.assignment.strategy are the broker's then, and setting them (-X) is refused
  // by librdkafka. Both protocols may serve one group's members at once (Kafka upgrades a
  // classic group to a consumer group when a consumer-protocol member joins it).
  enum class GroupProtocol { classic, consumer };
  GroupProtocol group_protocol = GroupProtocol::classic;
  // poll() commits at its end, once commit_interval has passed since the last commit: after
  // the observer was called for every record that poll delivered, so what a synchronous
  // observer did is never committed before it was done. While a rebalance is in flight
  // (ConsumerHost::rebalancing()) it skips, and commits at the first poll() after it. 0:
  // poll() never commits; the user calls commit() once its output is safe (causal tail
  // does, after each flush). Commits also happen before every generation change and on
  // destruction.
  std::chrono::milliseconds commit_interval{5000};
  // Whether destruction commits (and the revocation that leaving the group brings). false:
  // what was delivered after the last commit() is delivered again by the next member, as
  // when the process dies; causal tail leaves this off so that a failed write commits nothing.
  bool commit_on_close = true;
  // Kafka's offset.metadata.max.bytes (broker default 4096): the longest resolution state
  // a commit may carry. See ConsumerHost::join.
  std::size_t metadata_max_bytes = 4096;
};

// One assigned channel and how its baseline was chosen.
struct ChannelPlan {
  ChannelId channel;
  StartPosition from;
  Offset baseline;     // handed to gate.add_channel
  Offset log_start;    // low watermark at assign
  Offset lso;          // last stable offset at assign: the caught-up target
};

// What one held record is charged beyond its payload and key: librdkafka's message (its
// rd_kafka_op_t, its parsed headers, its share of the fetch buffer it pins) and the gate's
// entry. Measured: a skewed backlog of 100-byte records held without a budget costs about
// 1.3 KiB of RSS per held record (bench/tail_memory_vs_kcat.sh, docs/library.md "Memory").
inline constexpr std::size_t kHeldRecordOverhead = 1024;

// The hold budget's account (ConsumerHost::hold_budget()).
struct HoldBudgetStats {
  std::size_t budget = 0;           // ConsumerOptions::max_held_bytes (0: none)
  std::size_t held_bytes = 0;       // charged now
  std::size_t peak_held_bytes = 0;  // the most charged at once
  std::uint64_t pauses = 0;         // channels paused for the budget
  std::uint64_t resumes = 0;        // and resumed
  std::uint64_t overruns = 0;       // episodes over the budget with nothing deliverable
  // Channels paused by the budget now with records below their LSO unread. caught_up()
  // counts them as caught up once nothing still fetched can release a held head, so a caller
  // that stops there must say they were not read.
  struct Unread {
    ChannelId channel;
    Offset position;  // where the next fetch would start
    Offset lso;
  };
  std::vector<Unread> paused_unread;
};

struct HeaderFailure {
  ChannelId channel;
  Offset offset;
  DecodeError error;
  std::string message;  // "topic/partition@offset: undecodable causal.clock header: reason"
};

struct LookupReport {
  LookupRequest request;
  // The offsets read, half-open [scanned_from, scanned_to) as explain's lookups are; both
  // kNoOffset when nothing was read.
  Offset scanned_from = kNoOffset;
  Offset scanned_to = kNoOffset;
  std::optional<Offset> located;
  Offset baseline = kNoOffset;
  std::string text;  // one line for people
};

// What the host tells its user. Called synchronously from inside poll().
class HostObserver {
 public:
  virtual ~HostObserver() = default;
  // A record was delivered by the gate. `msg` is valid only during the call.
  virtual void delivered(const Delivery&, const rd_kafka_message_t& /*msg*/) {}
  // A record became head and is blocked on `b` (once per record and blocker).
  virtual void held(ChannelId, Offset, const Blocker&) {}
  // Members: a rebalance (or a rewind) starts a new generation with a new gate, which
  // ConsumerHost::gate() returns from now on. Called while both exist, before any record of
  // the new generation is handed over; the old one is destroyed right after.
  virtual void gate_replaced(const Gate& /*old_gate*/, const Gate& /*new_gate*/) {}
  // Members: a commit went to the group coordinator: per channel, the offset committed.
  virtual void committed(std::span<const std::pair<ChannelId, Offset>>) {}
  virtual void lookup(const LookupReport&) {}
  virtual void failed_closed(const HeaderFailure&) {}
  // Something worth one line on stderr (fallbacks, clamps, librdkafka warnings).
  virtual void note(std::string_view) {}
};

class ConsumerHost {
 public:
  // Connects, resolves channels (unknown topic or partition: Errc::runtime naming it;
  // unreachable brokers: Errc::runtime within connect_timeout), resolves baselines, adds
  // the channels to a new Gate over `names` and assigns. `observer` may be null.
  static std::expected<std::unique_ptr<ConsumerHost>, Error> open(const ConsumerOptions& opts, Names& names,
                                                                  HostObserver* observer);
  ~ConsumerHost();  // rd_kafka_consumer_close, then destroy; held messages are freed
  ConsumerHost(const ConsumerHost&) = delete;
  ConsumerHost& operator=(const ConsumerHost&) = delete;

  // One round: consume a batch (waiting up to poll_timeout), decode, hand to the gate,
  // report positions, answer lookups. Errors: fatal librdkafka errors only.
  std::expected<void, Error> poll();
  // See the file comment. Cheap.
  bool caught_up() const;
  // Polls until caught_up(), `*stop` becomes non-zero, or `deadline` passes (then
  // Errc::runtime naming the channels not caught up).
  std::expected<void, Error> poll_until_caught_up(const volatile std::sig_atomic_t* stop,
                                                  std::chrono::milliseconds deadline);

  // A member of `opts.group` (docs/library.md, "Group members"): subscribes to the topics
  // of opts.channels (whole topics only; a TOPIC/PARTITION selector is a usage error) with
  // a rebalance callback that works with the eager and the cooperative assignors
  // (partition.assignment.strategy, -X). Each assignment starts a *generation*: the held
  // records are discarded, the new gate gets every assigned partition with its committed
  // offset as baseline (a partition without a commit, or whose commit is below the log
  // start: the start rules' position, which must not be `committed`), the resolution state
  // in the commits' metadata is restored before any receive, and every partition is read
  // from its baseline again. Before a revocation, and before each new generation, what was
  // delivered is committed synchronously; not when the assignment was lost (the session
  // expired, the partitions may have new owners), nor when the member closes while its
  // join is at the coordinator (the commit would be fenced, join_state.hpp): that is said
  // through note() and nothing is committed, so what was delivered since the last commit is
  // delivered again. A member of the consumer group protocol whose commit the coordinator
  // refuses as UNKNOWN_MEMBER_ID (the group dropped it, whatever librdkafka still has
  // assigned) takes its assignment as lost likewise, and its next poll() joins the group
  // again with a new librdkafka client (docs/library.md, "Under faults").
  //
  // Commits: per partition, frontier + 1 (never past an undelivered record: a held or
  // failed-closed record keeps the frontier below it) with the partition's resolution state
  // as metadata (docs/wire-format.md). A state longer than metadata_max_bytes keeps the
  // entries that fit of the senders first seen most recently, and drops the rest, said
  // through note() when that commit is sent:
  // a dropped entry costs a lookup when a claim on that sender's send arrives (lookups
  // resolve it from the log), so this is only allowed with lookups on; without them the
  // commit fails. `gate()` is a new object after each rebalance.
  static std::expected<std::unique_ptr<ConsumerHost>, Error> join(const ConsumerOptions& opts, Names& names,
                                                                  HostObserver* observer);
  // Members only: commits now (see join). While this member's JoinGroup or SyncGroup is at
  // the coordinator (rebalancing()), a commit would be fenced, and librdkafka before 2.10
  // would then give up the whole assignment (join_state.hpp): commit() first waits for the
  // rebalance to reach a committable point, up to connect_timeout. Errors: the commit failed,
  // or the wait ran out (nothing is lost: the next commit carries the same or a later
  // position).
  std::expected<void, Error> commit();
  // Members only: whether a rebalance is in flight, so that commit() would wait. A caller
  // committing on a timer can skip a round instead: what was delivered is committed by the
  // rebalance's own callback before any partition is given up or re-read.
  bool rebalancing() const;
  // Members only: the number of assignments received so far (0: not yet part of the group).
  int generations() const;

  Gate& gate() { return *gate_; }
  const Gate& gate() const { return *gate_; }
  Names& names() { return names_; }
  const Names& names() const { return names_; }
  const std::vector<ChannelPlan>& plan() const { return plan_; }
  const std::vector<HeaderFailure>& failures() const { return failures_; }
  std::uint64_t lookups_done() const { return lookups_done_; }
  // The hold budget's account so far.
  HoldBudgetStats hold_budget() const;
  // The position signal last reported for `ch` (kNoOffset: none yet).
  Offset position_signal(ChannelId ch) const;
  // The health published at the end of the last poll() (or of open()/join()): per partition
  // the frontier, what is held and on what it waits, lookups, fail-closed and budget state,
  // records delivered; a member's group, generation, rebalances and lost assignments.
  // Cheap (one copy under a mutex, no I/O) and, unlike everything else here, safe to call
  // from any thread while the owner polls (causal/kafka/health.hpp).
  ConsumerHealth health() const;
  // Not for members: raises the last stable offset `ch` catches up to (caught_up) to `lso`,
  // never lowering it, so that a replay goes on from where it stopped to a later LSO (a
  // watch continues its replay instead of starting it again from the committed offsets).
  void raise_lso(ChannelId ch, Offset lso);
  // Not for members: pause_fetching stops fetching every channel (none is fetched while a
  // replay waits between a watch's rounds: no fetch request); resume_fetching fetches again
  // from the offset after the last record handed to the gate. Channels the hold budget paused
  // or that failed closed are left as they are. Errors: the seek failed.
  void pause_fetching();
  std::expected<void, Error> resume_fetching();
  struct Impl;  // private to lib/kafka (consumer_host_impl.hpp)

 private:
  friend class Relay;  // relay.cpp drives the member's commits through its transactions
  ConsumerHost(Names& names, HostObserver* observer);
  std::expected<void, Error> poll_round();  // poll() but the health it publishes after

  Names& names_;
  HostObserver* observer_;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Gate> gate_;
  std::vector<ChannelPlan> plan_;
  std::vector<HeaderFailure> failures_;
  std::uint64_t lookups_done_ = 0;
};

// For `causal explain` and `causal baseline`: assign the channels at the baselines the
// options give (e.g. start rules "topic/p=<committed>", or group + committed), restore the
// resolution state, poll until caught up to the LSO, delivering to nobody but `observer`
// (may be null), and return the host so that its gate can be inspected (held heads,
// unsatisfied claims, take_snapshot). Nothing is committed. Lookups follow opts.lookups.
std::expected<std::unique_ptr<ConsumerHost>, Error> replay_to_lso(const ConsumerOptions& opts, Names& names,
                                                                   HostObserver* observer,
                                                                   std::chrono::milliseconds deadline,
                                                                   const volatile std::sig_atomic_t* stop = nullptr);

// Helpers shared with the producer host and tools.
// Topic metadata: partition count, or Errc::runtime naming the topic / the brokers.
std::expected<int, Error> partition_count(rd_kafka_t* rk, const std::string& topic,
                                          std::chrono::milliseconds timeout, std::string_view brokers);
// The causal.clock header of `msg`: nullopt when absent; an error when there are two.
struct ClockHeader {
  const void* data = nullptr;
  std::size_t size = 0;
  bool present = false;
  bool duplicated = false;
  bool null_value = false;  // present with a null value (Kafka's headers may have one)
};
ClockHeader find_clock_header(const rd_kafka_message_t* msg);

}  // namespace causal::kafka

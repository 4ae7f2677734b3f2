// Private to lib/kafka: the consumer host's state, shared by consumer_host.cpp (assigned
// channels: open, poll), start_rules.cpp, baselines.cpp, log_restarts.cpp, lookups.cpp,
// hold_budget.cpp and group_membership.cpp (join, rebalances, commits).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/core.h>
#include <librdkafka/rdkafka.h>

#include "causal/kafka/authorization.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/health.hpp"
#include "causal/kafka/partition_reader.hpp"
#include "topic_ids.hpp"
#include "causal/kafka/join_state.hpp"
#include "causal/resolution_state.hpp"

namespace causal::kafka {

// Microseconds on the steady clock: a record's receive time, a unique group id's digits.
inline std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The list of `chans` (topic, partition), offsets unset, in the order given.
ListPtr list_of(const Names& names, const std::vector<ChannelId>& chans);
// The same list, each element's offset at(c) (for a seek).
template <class At>
ListPtr list_at(const Names& names, const std::vector<ChannelId>& chans, At at) {
  ListPtr l = list_of(names, chans);
  for (int i = 0; i < l->cnt; ++i) l->elems[i].offset = at(chans[static_cast<std::size_t>(i)]);
  return l;
}

struct ConsumerHost::Impl : GateObserver {
  // The main handle's opaque: its log callbacks see a ClientLog, the rebalance callback the
  // Impl behind it.
  struct MemberLog : ClientLog {
    Impl* impl = nullptr;
    JoinState join;          // a member's join state (join_state.hpp)
    bool debug_ours = false;  // the debug lines are there only because join() asked for them
    bool take_debug(const char* fac, const char* buf) override {
      join.take(fac, buf);
      return debug_ours;
    }
  };

  ConsumerHost* host = nullptr;
  MemberLog log;
  HandlePtr rk;

  rd_kafka_queue_t* queue = nullptr;
  std::optional<PartitionReader> lookup_reader;  // lookups' consumer, opened at the first
  std::string brokers;
  ConsumerOptions opts;

  struct Ch {
    bool assigned = false;
    bool failed = false;
    Offset eof = kNoOffset;       // last PARTITION_EOF offset
    Offset returned = kNoOffset;  // last returned record's offset + 1
    Offset reported = kNoOffset;  // last position signal given to the gate
    Offset baseline = 0;
    Offset lso = 0;
    int list_index = -1;  // index in `positions`
    std::size_t held_bytes = 0;  // hold budget: what the gate holds of this channel
    bool budget_paused = false;  // paused by the hold budget (not by fail_closed)
    Offset refetch_until = kNoOffset;  // records below it were dropped while paused: no position signal until received
    // Its topic was deleted (check_partition_gone, check_topic_ids) or its log restarted
    // below `returned` (out_of_range): its frontier is a position in a log that is gone,
    // never committed.
    bool log_replaced = false;
  };
  std::vector<Ch> chans;  // by ChannelId
  // A read position out of range (librdkafka's RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET, the host
  // setting auto.offset.reset=error; librdkafka then stops fetching the partition). Below
  // the log start (retention, DeleteRecords): said, and the read goes on at the log start.
  // At or above it, the partition's log restarted below the position reached (its topic
  // deleted and re-created, its log truncated): the records now below that position would
  // be dropped as replays (records lost), so it is a runtime failure, kept in `log_restart`
  // and returned by every later poll(); the channel is never committed again, since its
  // frontier is a position in the old log.
  std::expected<void, Error> out_of_range(rd_kafka_message_t* m);
  // A partition read here that librdkafka reports removed from the cluster
  // (ClientLog::partition_gone: its topic deleted) fails poll(), member or not, before the
  // batch reaches the gate: records fetched later may be a re-created topic's, whose offsets
  // below the position reached the replay guard would drop. Every assigned partition of that
  // topic is never committed again.
  std::expected<void, Error> check_partition_gone();
  // The topics read, by ID (topic_ids.hpp): asked at open/join and again every second
  // without blocking. A topic deleted, or deleted and re-created, fails poll() as a log
  // that is gone does (log_restart): every channel of it is marked log_replaced and never
  // committed again. watch_topics starts the watch; with `wait`, it waits (up to
  // connect_timeout) for the first answer, which a start from committed offsets needs.
  std::expected<void, Error> watch_topics(const std::vector<std::string>& topics, bool wait);
  std::expected<void, Error> check_topic_ids();
  TopicIdWatch topic_ids;
  static constexpr std::chrono::seconds kTopicIdInterval{1};  // how often the watch asks
  // A partition read here is gone or its log restarted: every later poll() fails (a rewind
  // cannot get past it; the relay stops on it).
  bool log_lost() const { return log_restart.has_value() || log.any_partition_gone(); }
  // A reader without a group reads the partitions its whole topics had at open. Partitions
  // added later are not read: claims on them are ignored (rule 7), so records that claim
  // them are delivered without waiting. Said through the observer's note, once per such
  // partition, when a received clock first claims it (before the record reaches the gate).
  void note_unread_partitions(const Clock& clock);
  std::map<std::string, int, std::less<>> whole_topics;  // topic read whole -> its partitions at open
  std::vector<bool> unread_checked;                      // by ChannelId: not consumed, already looked at
  std::optional<Error> log_restart;
  rd_kafka_topic_partition_list_t* positions = nullptr;
  std::vector<ChannelId> position_channels;  // parallel to positions->elems

  // message -> channel cache: per rd_kafka_topic_t*, channel id by partition.
  struct TopicCache {
    const rd_kafka_topic_t* rkt;
    std::vector<ChannelId> by_partition;
  };
  std::vector<TopicCache> topic_cache;

  std::set<std::tuple<ChannelId, SenderId, SeqNo>> asked;
  std::vector<rd_kafka_message_t*> batch;

  ~Impl() override {
    if (positions) rd_kafka_topic_partition_list_destroy(positions);
    if (queue) rd_kafka_queue_destroy(queue);
  }

  Ch& ch(ChannelId c) {
    if (c >= chans.size()) chans.resize(c + 1);
    return chans[c];
  }

  ChannelId channel_of(const rd_kafka_message_t* m) {
    for (auto& tc : topic_cache) {
      if (tc.rkt == m->rkt && m->partition >= 0 && static_cast<std::size_t>(m->partition) < tc.by_partition.size() &&
          tc.by_partition[m->partition] != ~ChannelId{0}) {
        return tc.by_partition[m->partition];
      }
    }
    ChannelId c = host->names_.channel(std::string_view(rd_kafka_topic_name(m->rkt)), m->partition);
    TopicCache* tc = nullptr;
    for (auto& t : topic_cache) {
      if (t.rkt == m->rkt) tc = &t;
    }
    if (!tc) tc = &topic_cache.emplace_back(TopicCache{m->rkt, {}});
    if (tc->by_partition.size() <= static_cast<std::size_t>(m->partition)) {
      tc->by_partition.resize(m->partition + 1, ~ChannelId{0});
    }
    tc->by_partition[m->partition] = c;
    return c;
  }

  // --- the hold budget (hold_budget.cpp) ---------------------------------------------
  std::size_t held_total = 0;    // sum of chans[].held_bytes
  HoldBudgetStats budget_stats;  // budget, peak, pauses, resumes, overruns
  bool first_pause_said = false;
  bool over_budget = false;      // in an episode over the budget (said once per episode)
  std::vector<bool> awaited_cache;  // by ChannelId: awaited at the last apply_budget
  // Over the budget, a record of channel c (not awaited) arrived: pauses c and returns true
  // (the caller drops the record, to be fetched again after the resume).
  bool pause_mid_batch(ChannelId c);
  // Whether a fetch response for c has come (librdkafka's cached high watermark is set).
  bool fetched(ChannelId c) const;
  // Charged before gate.receive; discharged when delivered or dropped as a replay.
  void charge(ChannelId c, const rd_kafka_message_t* m);
  void discharge(ChannelId c, const rd_kafka_message_t* m);
  // After each poll batch and its lookups: pause and resume channels (file comment of
  // consumer_host.hpp). Errors: a seek after resume failed.
  std::expected<void, Error> apply_budget();
  // A new generation: every charge is dropped with the held records, budget pauses undone.
  void reset_budget();

  // --- health (health.cpp; causal/kafka/health.hpp) --------------------------------------
  // Counters by ChannelId, kept across generations (monotone): records delivered, and
  // lookups asked of the channel they scan.
  std::vector<std::uint64_t> delivered_count;
  std::vector<std::uint64_t> lookup_count;
  std::uint64_t rebalances = 0;        // rebalance callbacks that assigned or revoked
  std::uint64_t assignments_lost = 0;  // revocations librdkafka called lost, and join_afresh's
  // The snapshot health() copies; written by publish_health() on the owner thread.
  mutable std::mutex health_mu;
  ConsumerHealth published;  // guarded by health_mu
  // Builds the snapshot from the gate and the counters and publishes it: once per poll.
  void publish_health();
  static void count(std::vector<std::uint64_t>& v, ChannelId c) {
    if (c >= v.size()) v.resize(c + 1, 0);
    ++v[c];
  }

  // GateObserver
  void delivered(const Delivery& d) override {
    count(delivered_count, d.channel);
    auto* msg = reinterpret_cast<rd_kafka_message_t*>(d.tag);
    if (msg) discharge(d.channel, msg);
    if (host->observer_ && msg) host->observer_->delivered(d, *msg);
    if (msg) rd_kafka_message_destroy(msg);
  }
  void held(ChannelId c, Offset o, const Blocker& b) override {
    if (host->observer_) host->observer_->held(c, o, b);
  }

  void drain_log() {
    for (auto& line : log.take()) {
      if (host->observer_) host->observer_->note(line);
    }
  }

  void fail_closed(ChannelId c, rd_kafka_message_t* msg, DecodeError err) {
    auto& st = ch(c);
    host->gate_->fail_closed(c, msg->offset);
    st.failed = true;
    auto* l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, rd_kafka_topic_name(msg->rkt), msg->partition);
    rd_kafka_pause_partitions(rk.get(), l);
    rd_kafka_topic_partition_list_destroy(l);
    HeaderFailure f{c, msg->offset, std::move(err), {}};
    f.message = fmt::format("{}@{}: undecodable causal.clock header ({}{}{}); failing this partition closed: "
                            "nothing at or after this offset is delivered",
                            host->names_.channel_text(c), msg->offset, to_string(f.error.code),
                            f.error.detail.empty() ? "" : ": ", f.error.detail);
    host->failures_.push_back(f);
    if (host->observer_) host->observer_->failed_closed(host->failures_.back());
  }

  std::expected<void, Error> handle_error(rd_kafka_message_t* m) {
    std::string where = m->rkt ? fmt::format("{}/{}", rd_kafka_topic_name(m->rkt), m->partition) : brokers;
    std::string text = fmt::format("{}: {}", where, rd_kafka_message_errstr(m));
    rd_kafka_resp_err_t e = m->err;
    if (e == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET && m->rkt) return out_of_range(m);
    if (m->rkt) {  // a fetch refused: Read is what it needs
      if (auto no = denied(e, "Read", "topic", rd_kafka_topic_name(m->rkt))) return std::unexpected(runtime_error(*no));
    }
    // A member's subscribed topic that a metadata refresh (topic.metadata.refresh.interval.ms)
    // no longer finds: "Subscribed topic not available", its topic deleted.
    if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART && member) {
      return std::unexpected(runtime_error(fmt::format("{}: the topic is no longer on the brokers at {} (deleted?): {}",
                                                       where, brokers, rd_kafka_message_errstr(m))));
    }
    if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
        e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION || e == RD_KAFKA_RESP_ERR__FATAL ||
        e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
      return std::unexpected(runtime_error(fmt::format("{} (brokers {})", text, brokers)));
    }
    if (host->observer_) host->observer_->note(text);
    return {};
  }

  LookupReport lookup(const LookupRequest& req);
  // The partition's high watermark (a read_uncommitted ListOffsets).
  std::expected<Offset, Error> high_watermark(const std::string& topic, std::int32_t partition);
  // The baseline of topic/partition for start position `from`: `low` is its log start, `lso`
  // its last stable offset,
  // `committed` its element of a rd_kafka_committed answer (kind committed; may be null),
  // `high` its high watermark when already known, else asked when needed. A commit past the
  // high watermark starts at `low`.
  std::expected<Offset, Error> baseline_for(const std::string& topic, std::int32_t partition,
                                            const StartPosition& from, const rd_kafka_topic_partition_t* committed,
                                            Offset low, Offset lso, std::optional<Offset> high);

  // The resolution state and custody restatement a causal node committed as metadata with
  // `c` (its element of a rd_kafka_committed answer), restored by whoever starts the channel
  // at that offset. Empty when there is no metadata; metadata that is not ours (another
  // tool's) or damaged is said through the observer's note and gives nothing: claims it would
  // have resolved are left to lookups, and nothing is delivered out of order.
  CommittedState committed_state(const rd_kafka_topic_partition_t& c);
  // When `c` (an element of a rd_kafka_committed answer) names in its metadata a topic ID
  // other than its topic's now (commit_metadata.hpp): why the commit belongs to a log that
  // is gone, for the note; else "".
  std::string commit_of_other_log(const rd_kafka_topic_partition_t& c) const;

  // --- group membership (group_membership.cpp) ---------------------------------------
  bool member = false;                     // joined opts.group: rebalances and commits
  bool idle_paused = false;                // pause_fetching: every fetched partition paused (idle_fetch.cpp)
  int generations = 0;                     // assignments received so far
  std::vector<ChannelId> assignment;       // the current generation's channels
  std::vector<ChannelId> owned;            // what the group assigned (the next generation's, after a failure)
  std::vector<Offset> committed_at;        // by ChannelId: offset last committed, or kNoOffset
  std::vector<std::string> committed_meta; // by ChannelId: metadata last committed
  std::chrono::steady_clock::time_point next_commit{};
  std::optional<Error> rebalance_error;    // a failure inside the rebalance callback, for poll()
  bool closing = false;                    // in the destructor: commits only if commit_on_close
  bool generation_pending = false;         // a rebalance could not start its generation: poll() retries
  bool cooperative_protocol = false;       // the rebalance protocol librdkafka last named
  std::vector<std::string> subscribed;     // the member's topics, in the order joined

  // --- a member the group no longer knows (group_membership.cpp) -------------------------
  // The group coordinator refused this member's commit as UNKNOWN_MEMBER_ID: the group does
  // not know the member, so its partitions are another member's, whatever librdkafka still
  // has assigned. A member of the consumer group protocol (KIP-848) learns that only from its
  // own heartbeat's answer, and with librdkafka 2.14.2 those answers can stop coming after a
  // coordinator's failover (seen in the cluster bounce test; why, inside librdkafka, is not
  // known) while its fetches and a relay's transactions go on: the member keeps its
  // partitions, and a relay aborts every transaction on them. commit_refused(err) marks such
  // a member (the classic protocol's librdkafka rejoins by itself on its next heartbeat);
  // join_afresh() makes its client again and subscribes it, so that it joins the group as a
  // new member, as a restarted process would.
  bool member_unknown = false;
  void commit_refused(rd_kafka_resp_err_t err);
  std::expected<void, Error> join_afresh();
  // The member's librdkafka consumer (rk, with the rebalance callback and the join state's
  // debug lines), and its subscription to `subscribed` with the consumer queue: join() and
  // join_afresh().
  std::expected<void, Error> make_member_client();
  std::expected<void, Error> subscribe();

  // Ends the current generation: frees the held records' messages and starts an empty
  // gate (reassignment, protocol rule 12, for every channel at once).
  void reset_generation();
  // Starts a generation over `parts` (topic, partition): reads their committed offsets and
  // metadata, resolves baselines (the committed offset, else the start rules), restores the
  // resolution state before any receive, and sets each element's offset to its baseline.
  std::expected<void, Error> begin_generation(rd_kafka_topic_partition_list_t* parts);
  // What a commit does when the group's rebalance is in flight (JoinState::committable() is
  // false: a commit sent now would be fenced, join_state.hpp): `skip` sends nothing and
  // returns success (poll()'s periodic commit, and the rebalance callback, which says what
  // stays uncommitted); `wait` waits for the rebalance to reach a committable state, up to
  // opts.connect_timeout, and fails if it does not.
  enum class InFlight { skip, wait };
  // The member's commit: frontier + 1 of every channel with its resolution state as metadata.
  std::expected<void, Error> commit(InFlight in_flight);
  // Whether some assigned channel's frontier + 1 differs from its last commit: past it (also
  // when only transaction markers or aborted records moved the frontier, with nothing
  // delivered), or below a commit past the log end, which the next commit replaces.
  bool frontier_past_commit() const;
  void rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts);
  // Seeks the channels `which` (assigned, in the gate) back to their baselines.
  std::expected<void, Error> seek_to_baselines(const std::vector<ChannelId>& which);
  // A new generation over the same assignment, from the committed offsets (a relay after
  // an aborted transaction).
  std::expected<void, Error> rewind();
  // A relay's commit: given the offsets (with metadata) Impl::commit built, commits them in
  // the relay's transaction instead of with rd_kafka_commit. Called also when no offset
  // changed (the transaction may hold records all the same).
  std::function<std::expected<void, Error>(const rd_kafka_topic_partition_list_t*)> commit_hook;
};

// The main handle's librdkafka defaults (read_committed, no auto commit, partition EOF
// events), then opts.extra_defaults; -F and -X override those causal does not own
// (owned_properties.hpp).
std::vector<std::pair<std::string, std::string>> consumer_defaults(const ConsumerOptions& opts,
                                                                    const std::string& group);

// The error when a group's committed offsets cannot be read (rd_kafka_committed). A read_committed
// handle asks for stable offsets, and the coordinator answers UNSTABLE_OFFSET_COMMIT, which
// librdkafka retries until its timeout, for a partition whose commit is still pending in an
// open transaction (a relay's sendOffsetsToTransaction): a timeout names that cause beside an
// unanswering coordinator, and the command that tells them apart.
Error committed_unreadable(const std::string& group, const std::string& brokers, rd_kafka_resp_err_t err,
                           std::chrono::milliseconds waited);

// The start position the rules of `o` give topic/partition (the most specific rule wins).
StartPosition start_for(const ConsumerOptions& o, const std::string& topic, std::int32_t partition);


}  // namespace causal::kafka

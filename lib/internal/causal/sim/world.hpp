// The simulated world: logs, senders, nodes running the REAL causal::Gate and
// causal::Stamper, joiners, faults, and the scheduler that interleaves them from a seed.
//
// Contract:
//   - deterministic: a World built from the same WorldConfig runs the same steps and
//     writes the same trace, byte for byte (single-threaded; all randomness from Rng);
//   - the world reports ground truth to its Oracle (sends with their happens-before
//     ancestors, appends, transaction outcomes, deliveries, committed effects) and never
//     lets the oracle see a protocol clock;
//   - run() steps until no event is enabled (quiescence) or the step budget is spent, then
//     checks drain: completeness, stalls (through attribution.hpp), EOS effects.
//
// The world knows where every send sits (locate()), which is what lookups and the
// attribution of stalls use.
//
// Truth across restarts: a restarted node is a new process and a new sender; it starts
// with no knowledge (its processor is stateless; information flows only through records,
// and it re-reads everything above its committed positions). docs/verification.md
// discusses the stateful alternative.
//
// Thread-safety: none; one world per thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "causal/gate.hpp"
#include "causal/names.hpp"
#include "causal/stamper.hpp"
#include "causal/sim/bits.hpp"
#include "causal/sim/config.hpp"
#include "causal/sim/counters.hpp"
#include "causal/sim/log.hpp"
#include "causal/sim/oracle.hpp"
#include "causal/sim/rng.hpp"
#include "causal/sim/send_queues.hpp"

namespace causal::sim {

class World;

// A record as the world sees it (the oracle keeps the truth about it separately).
struct SimRecord {
  ChannelIndex channel;
  std::uint32_t sender;  // index into World::senders_
  SeqNo seq;
  TxnId txn = kNoTxn;
  Offset offset = kNoOffset;
  int hops = 0;
  Clock clock;
  std::vector<OffsetClaim> seed_claims;  // end-offset seed claims the stamp carried
};

// One sender identity: a source producer, or one node incarnation.
struct Sender {
  SenderId id;
  std::string name;
  bool transactional = false;
  bool alive = true;
  std::unique_ptr<Stamper> stamper;
  TxnId txn = kNoTxn;                    // open transaction
  std::vector<std::uint32_t> txn_sends;  // RecordIds of the open transaction
  std::vector<ChannelIndex> txn_channels;
  SendQueues unappended, unacked;        // RecordIds by channel: not yet appended / not yet acked
  std::size_t in_flight = 0;
  Bits knowledge;                        // happens-before truth: what its next send follows
  std::vector<std::uint32_t> sends;      // by send number - 1
  std::map<ChannelIndex, Offset> seeds;  // end-offset seed claims (sink, e - 1)
};

struct Source {
  SourceSpec spec;
  std::uint32_t sender = 0;
  bool started = false;
  int sent = 0;
  int txn_left = 0;  // sends left in the open transaction
  bool flushing = false;
  bool abort_pending = false;
};

class NodeObserver;

// A consumer position per channel, dense by ChannelIndex: the scheduler reads a node's
// position on every consumed channel at every step, so a tree lookup there was the sweep's
// largest single cost. Same contract as the std::map it replaces: operator[] inserts 0,
// at() throws std::out_of_range for a channel never set.
class ChannelPositions {
 public:
  Offset& operator[](ChannelIndex ch) {
    if (ch >= set_.size()) {
      set_.resize(ch + 1, 0);
      pos_.resize(ch + 1, 0);
    }
    set_[ch] = 1;
    return pos_[ch];
  }
  Offset at(ChannelIndex ch) const {
    if (ch >= set_.size() || !set_[ch]) throw std::out_of_range("no position on this channel");
    return pos_[ch];
  }
  // The positions by channel, for a channel known to have one (every channel of a node's
  // scope has: start_incarnation and grow set it as they put it there). The scheduler's
  // read, without at()'s check.
  const Offset* data() const { return pos_.data(); }
  // f(ch, position) for every channel with a position, ascending.
  template <class F>
  void for_each(F f) const {
    for (std::size_t ch = 0; ch < set_.size(); ++ch)
      if (set_[ch]) f(static_cast<ChannelIndex>(ch), pos_[ch]);
  }

 private:
  std::vector<Offset> pos_;
  std::vector<std::uint8_t> set_;  // bytes, not std::vector<bool>: read at every step
};

struct Node {
  NodeSpec spec;
  LogicalId index = 0;
  bool started = false;
  bool up = false;
  std::uint32_t incarnation = 0;
  std::uint32_t sender = 0;  // index into senders (current incarnation)
  ConsumerId consumer = 0;   // oracle consumer of the current incarnation
  std::unique_ptr<NodeObserver> observer;
  std::unique_ptr<Gate> gate;
  std::vector<ChannelIndex> scope;              // current configured scope
  ChannelPositions position;                    // consumer position per channel
  std::map<ChannelIndex, Offset> reported;      // last position reported to the gate
  std::map<ChannelIndex, Offset> committed;     // committed positions
  std::map<ChannelIndex, Offset> origin_baseline;  // first baseline of the logical node
  std::vector<ResolutionEntry> committed_resolution;
  std::map<ChannelIndex, Clock> committed_custody;  // Gate::custody_restatement per channel
  bool dirty = false;     // deliveries or sends since the last commit
  bool flushing = false;  // commit (or abort) requested: no fetches until in_flight == 0
  bool abort_pending = false;
  std::vector<RecordId> uncommitted_effects;
  Bits committed_knowledge;  // stateful_restarts: knowledge at the last commit
  int crashes_left = 0, aborts_left = 0, replays_left = 0;
  int rebalances_left = 0, rewinds_left = 0, fencings_left = 0, refetches_left = 0, handovers_left = 0;
  bool rebalance_pending = false;  // a rebalance's commit is flushing: a new generation follows it
  std::uint32_t generation = 0;    // generations of the current incarnation (transitions.cpp)
  std::uint32_t producers = 0;     // producers made again in the current incarnation (fencings)
  std::vector<ChannelIndex> growth_left;
  std::set<ChannelIndex> paused;  // by the hold budget (budget.cpp)
};

// The result of running one world.
struct WorldResult {
  std::uint64_t seed = 0;
  bool drained = false;
  std::uint64_t steps = 0;
  std::vector<Violation> violations;  // the first few, with details
  std::uint64_t violation_count = 0;
  std::vector<std::string> attributed;  // one line per attributed (frozen-claim) stall
  Counters counters;
  bool ok() const { return violation_count == 0; }
};

class World {
 public:
  // `trace`, when non-null, receives one readable line per event.
  explicit World(const WorldConfig& config, std::string* trace = nullptr);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs the scheduler to quiescence or the step budget, then the drain checks.
  WorldResult run();
  // One scheduled event; false when nothing is enabled (quiescent).
  bool step();
  // The drain checks; call once, at quiescence (run() does).
  WorldResult finish(bool quiescent);

  // --- explicit events, for scripted worlds (tests, fixed scenarios) -----------------
  // Each returns false (and does nothing) when the event is not enabled now.
  bool start_source(std::uint32_t source);
  bool source_send(std::uint32_t source, ChannelIndex ch);  // opens a transaction if needed
  bool source_end_txn(std::uint32_t source, bool commit);   // REQUIRES nothing in flight
  bool append(std::uint32_t sender, ChannelIndex ch);
  bool ack(std::uint32_t sender, ChannelIndex ch);
  bool start_node(std::uint32_t node);
  bool fetch(std::uint32_t node, ChannelIndex ch, std::size_t max_records = 64);
  bool commit(std::uint32_t node);  // begin a commit (flush, then complete_commit)
  bool complete_commit(std::uint32_t node);  // REQUIRES the node's sends all acknowledged
  bool crash(std::uint32_t node);
  bool restart(std::uint32_t node);

  // --- the explorer's seam (explore.hpp) -------------------------------------------
  // The events enabled now, in the scheduler's fixed enumeration order; step_event(i)
  // applies the i-th of them (REQUIRES i < enabled_count()) where step() would draw one by
  // weight. Deterministic choices come with WorldConfig::fixed_choices.
  std::size_t enabled_count();
  void step_event(std::size_t i);
  // A hash of everything that decides the world's future as far as the oracle's checks go
  // (state_hash.cpp says what is hashed and why that is enough).
  std::uint64_t state_hash() const;
  // The explorer's partial-order reduction (reduction.cpp): indices, ascending, into the
  // enabled events, of a persistent set of this state (every index when the world is not
  // one the reduction models). Expanding only these keeps every terminal state reachable
  // and every safety verdict (docs/verification.md, "Partial-order reduction").
  std::vector<std::size_t> persistent_set();

  // --- inspection ---------------------------------------------------------------
  const WorldConfig& config() const { return config_; }
  Names& names() { return names_; }
  const Names& names() const { return names_; }
  const Oracle& oracle() const { return oracle_; }
  const Log& log(ChannelIndex ch) const { return logs_[ch]; }
  const SimRecord& record(RecordId r) const { return records_[r]; }
  const Node& node(std::uint32_t i) const { return nodes_[i]; }
  std::size_t node_count() const { return nodes_.size(); }
  const Source& source(std::uint32_t i) const { return sources_[i]; }
  const Sender& sender(std::uint32_t i) const { return senders_[i]; }
  std::uint32_t sender_index(SenderId id) const;
  TxnState txn_state(TxnId t) const { return txns_[t]; }
  // Where send `q` of sender `s` sits: its record, if the sender and send exist.
  std::optional<RecordId> locate(SenderId s, SeqNo q) const;
  // True when `s` has a business record on `ch` at or above `from`.
  bool presence(ChannelIndex ch, SenderId s, Offset from) const;
  std::uint64_t steps() const { return step_; }
  const Counters& counters() const { return counters_; }
  std::string describe(RecordId r) const;
  std::string describe(const Clock& c) const;

  // The scheduler's events (internal.hpp); public so that reduction.cpp can name their kinds.
  struct Action;

 private:
  friend class NodeObserver;

  // sender.cpp
  std::uint32_t new_sender(std::string name, bool transactional, const Gate* gate);
  RecordId send(std::uint32_t sender, ChannelIndex ch, int hops, Node* node);
  void end_txn(std::uint32_t sender, bool commit);
  void kill_sender(std::uint32_t sender);

  // node.cpp
  void start_incarnation(Node& n, const std::map<ChannelIndex, Offset>& baselines);
  void end_incarnation(Node& n);
  void process_deliveries(Node& n);
  void answer_lookups(Node& n);
  void complete_flush(Node& n);
  void grow(Node& n, ChannelIndex ch);
  void replay(Node& n, ChannelIndex ch);
  void collect_gate_stats(const Gate& g);

  // transitions.cpp: the runtime's transitions, as lib/kafka does them
  void new_generation(Node& n);
  void rebalance(Node& n);
  void rewind(Node& n);
  void fence(Node& n);
  bool refetch(Node& n);
  // The (worker, scope channel of `from`) pairs a handover may move now; with `first_only`,
  // at most one (the scheduler only asks whether there is one).
  std::vector<std::pair<std::uint32_t, ChannelIndex>> handover_options(const Node& from, bool first_only = false) const;
  bool handover(Node& from);
  void abandon_sends(std::uint32_t sender);
  void roll_back_state(const Node& n, Sender& s);
  void check_node_at_drain(Node& n);

  // budget.cpp: pause and resume after each fetch; before one, the overrun check
  void apply_budget(Node& n);
  void check_budget(Node& n, ChannelIndex ch);

  // world.cpp
  void enabled_actions(std::vector<Action>& out);
  void apply(const Action& a);
  Offset baseline_for(NodeKind kind, ChannelIndex ch);
  template <class... Args>
  void trace(fmt::format_string<Args...> f, Args&&... args);

  WorldConfig config_;
  std::string* trace_;
  Rng rng_;
  Names names_;
  Oracle oracle_;
  std::vector<Log> logs_;
  std::vector<TxnState> txns_;
  std::vector<std::uint32_t> txn_owner_;  // TxnId -> index into senders_ (state_hash.cpp renames TxnIds)
  std::vector<SimRecord> records_;
  std::deque<Sender> senders_;
  // Indexes of the senders with in_flight > 0, ascending: the only ones the scheduler can
  // append or acknowledge for. Walking every sender at every step (each restart adds one)
  // was a tenth of enabled_actions().
  std::vector<std::uint32_t> busy_senders_;
  std::vector<std::uint32_t> sender_of_id_;  // SenderId -> index into senders_
  std::vector<Source> sources_;
  // Sized once, in the constructor, and never grown: a NodeObserver holds its Node&. A
  // vector rather than a deque because the scheduler walks it at every step, and a Node is
  // larger than a deque block, so every step of a deque iterator crossed a block.
  std::vector<Node> nodes_;
  Counters counters_;
  std::vector<std::string> attributed_;
  std::uint64_t step_ = 0;
  std::vector<Action> actions_;  // step()'s scratch list, kept to reuse its allocation
  // Scratch buffers kept to reuse their allocations: fetch()'s records, send()'s resolved
  // sequence claims.
  std::vector<Offset> fetched_;
  std::vector<SeqClaim> resolved_;
};

}  // namespace causal::sim

// What a simulated world is made of, and how a seed chooses it.
//
// A WorldConfig is plain data: channels (grouped into topics), source producers, nodes and
// joiners, the fault budget of each, and the step budget. generate_config(seed, knobs) is a
// pure function of its arguments (same seed and knobs => same config), so a sweep over seeds
// is a sweep over worlds, and `causal simulate --seed N` rebuilds world N exactly.
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace causal::sim {

using ChannelIndex = std::uint32_t;  // index into WorldConfig::channels (== the world's ChannelId)

struct ChannelSpec {
  std::string topic;
  std::int32_t partition = 0;
};

// A producer with no consumed channels: the roots of every causal chain.
struct SourceSpec {
  std::string name;
  bool transactional = false;
  std::vector<ChannelIndex> sinks;
  int sends = 0;             // total sends (committed or aborted)
  int max_txn = 1;           // transactional: sends per transaction, 1..max_txn
  int abort_per_mille = 0;   // transactional: chance that a transaction aborts
  bool seeded = true;        // take end-offset seeds of its sinks when it starts
  int start_delay = 0;       // scheduler weight against starting early (0 = eager)
};

enum class NodeKind : std::uint8_t {
  worker,            // from the start of every scope channel (baseline 0)
  joiner_start,      // joins mid-run, baseline 0
  joiner_committed,  // joins mid-run at another node's committed positions + resolution state
  joiner_end,        // joins mid-run at the log end (high watermark)
  joiner_lso,        // joins mid-run at the last stable offset
};
const char* to_string(NodeKind k);
bool is_joiner(NodeKind k);

struct NodeSpec {
  std::string name;
  NodeKind kind = NodeKind::worker;
  bool eos = true;        // transactional sender, positions committed inside its transactions
  bool lookups = true;    // answers gate.pending_lookups() by locating the send
  std::vector<ChannelIndex> scope;
  std::vector<ChannelIndex> sinks;
  std::vector<ChannelIndex> growth;  // channels added to the scope while running
  std::uint32_t copy_of = 0;         // joiner_committed: index of the node whose commits it takes
  int emit_per_mille = 500;          // chance that a delivery emits (1 or 2 records)
  int crashes = 0;                   // crash + restart from committed positions
  int aborts = 0;                    // EOS: abort the open transaction (then restart)
  int replays = 0;                   // reassign a channel and re-fetch a prefix
  // The runtime's transitions (lib/sim/transitions.cpp, as lib/kafka does them):
  int rebalances = 0;  // commit, then a new generation: the gate replaced, from the committed positions
  int rewinds = 0;     // EOS: abort the open transaction (unacknowledged sends dropped), then a new generation
  int fencings = 0;    // EOS: the producer fenced and made again (claims carried), then a rewind
  int refetches = 0;   // a held channel's fetch reset to the queue's tail, without reassignment
  int handovers = 0;   // a rebalance between nodes: one scope channel moves to another worker
};

struct WorldConfig {
  std::uint64_t seed = 0;
  std::vector<ChannelSpec> channels;
  std::vector<SourceSpec> sources;
  std::vector<NodeSpec> nodes;
  int max_hops = 3;                    // an emitted record's hop count bounds chains (and cycles)
  std::uint64_t step_budget = 200000;  // a world that has not drained by then fails
  // Test hook: the host hands every record to the gate without its clock, as if the
  // causal.clock header were dropped. The oracle must then report causal-order violations;
  // tests use it to show the oracle is not vacuous independently of the mutant builds.
  bool strip_clocks = false;
  // Truth mode, off by default: a restarted incarnation inherits the knowledge its
  // predecessor had at its last commit (a stateful processor whose committed state carries
  // the effects of earlier deliveries). protocol.md does not promise this; it is here to
  // measure the gap (docs/verification.md, "Truth across restarts").
  bool stateful_restarts = false;
  // The hold budget (budget.cpp; the Kafka host's --max-held-bytes, counted in records):
  // a node pauses fetching channels whose blocked heads hold more than their share.
  // 0: no budget.
  std::uint32_t held_budget = 0;
  // Explorer worlds (explore.hpp): every choice inside an event is fixed instead of drawn,
  // so that the schedule is the only thing that varies: a transaction has max_txn sends
  // (fewer if the source's sends run out); a source's k-th send goes to sinks[k mod n]; a
  // transactional source's last transaction aborts iff abort_per_mille > 0, earlier ones
  // commit; a fetch takes at most fixed_fetch records; a delivery at a node with sinks
  // emits exactly one record, to sinks[channel mod n]; growth takes the LSO as baseline;
  // a replay re-reads the first scope channel from its baseline. The world's Rng is then
  // never drawn.
  bool fixed_choices = false;
  std::size_t fixed_fetch = 1;
};

// The fault mix a sweep draws from. Each flag enables one kind of event in generated worlds.
struct FaultMix {
  bool crashes = true;
  bool aborts = true;
  bool replays = true;
  bool growth = true;
  bool joiners = true;
  bool no_lookups = true;  // some joiners run without lookups (the attributed wedge)
  bool rebalances = true;  // NodeSpec::rebalances
  bool rewinds = true;     // NodeSpec::rewinds
  bool fencings = true;    // NodeSpec::fencings
  bool refetches = true;   // NodeSpec::refetches
  bool handovers = true;   // NodeSpec::handovers
  // Every fault off.
  static FaultMix none() {
    FaultMix f;
    f.crashes = f.aborts = f.replays = f.growth = f.joiners = f.no_lookups = false;
    f.rebalances = f.rewinds = f.fencings = f.refetches = f.handovers = false;
    return f;
  }
};

// Overrides for generate_config; unset fields are drawn from the seed.
struct Knobs {
  std::optional<int> channels;  // 1..64
  std::optional<int> nodes;     // workers, 0..8
  std::optional<int> sources;   // 1..4
  std::optional<int> sends;     // per source
  FaultMix faults;
  bool lookups = true;          // false: every node and joiner runs without lookups
  std::optional<std::uint64_t> step_budget;
  bool stateful_restarts = false;  // see WorldConfig::stateful_restarts
  std::optional<std::uint32_t> held_budget;  // see WorldConfig::held_budget; unset: 0
};

WorldConfig generate_config(std::uint64_t seed, const Knobs& knobs);

// Parses a comma-separated fault list: "all", "none", or names among
// crash, abort, replay, growth, joiners, nolookup, rebalance, rewind, fence, refetch,
// handover (a leading '-' removes one).
// Returns nullopt and sets `error` on an unknown name.
std::optional<FaultMix> parse_faults(const std::string& text, std::string& error);
// The names parse_faults takes: all, none, then each fault (what `causal completions` offers).
std::vector<std::string> fault_names();
std::string to_string(const FaultMix& f);

}  // namespace causal::sim

// The explorer's partial-order reduction: persistent (stubborn) sets of a world's events.
//
// explore.cpp expands, from each state, only the events World::persistent_set returns, a
// subset T of the enabled events such that no schedule from this state that avoids T can
// make an event that interferes with T happen first (Godefroid's persistent sets, built as
// Valmari's stubborn sets). docs/verification.md ("Partial-order reduction") gives the
// argument that this keeps every verdict of the full search: every terminal state is still
// reached (so every drain verdict is still checked), and a schedule that violates a safety
// check has an equivalent explored schedule that violates one too.
//
// Events are named by their kind, their agent (a source, or a node with every incarnation of
// its sender) and their channel: one name stands for that event at every future state.
// Each name has a FOOTPRINT: the shared objects it may read or write at any state reachable
// from this one (an over-approximation; see objects below). Two names whose footprints do
// not conflict (one writes what the other reads or writes) are independent: at any state
// where both are enabled neither disables the other, and both orders reach the same state
// (same state_hash, hence the same future checks). Events that allocate identifiers whose
// values reach the state hash in the order they were allocated (sender and consumer ids,
// transaction ids) all write one object, so they never commute.
//
// The stubborn-set closure, from one enabled seed: for an enabled name in T, add every name
// dependent with it; for a disabled name in T, add a necessary enabling set (names one of
// which must happen before it can become enabled). The result's enabled names are a
// persistent set. Every enabled event is tried as the seed and the smallest set kept.
//
// Outside the worlds it models (random choices, the hold budget, scope growth, copying
// joiners, more than 8 channels or 16 agents) it returns every enabled event: no reduction.
#include <algorithm>
#include <bitset>

#include "internal.hpp"

namespace causal::sim {

namespace {

// Shared objects, one bit each.
//   L(ch)      the log ch with everything the oracle keeps per channel: its entries, HWM,
//              LSO and markers, the states of the records on it and of their transactions,
//              the consumers registered on it and their obligations (`need`) there.
//   NAMES      sender and consumer id allocation (start, restart, an abort's restart).
// (Transaction ids need no object: state_hash.cpp renames them by owner, so the order in
// which two senders open transactions does not reach the state.)
//   SX(k)      agent k's sender: stamper, open transaction, in-flight count, knowledge,
//              seeds, liveness; for a source, its progress (started, sent, flushing).
//   N(k)       node k: gate, positions, flags, commits, its consumers' deliveries, effects.
//   U(k, ch)   agent k's unappended queue on ch and the offsets its appends assign there.
//              A lookup reads them: it answers with the offset of a send appended on the
//              asked channel, and "not found" alike for a send not made and one not yet
//              appended, so what it reads is the appends. A send pushes at the back of the
//              queue, an append pops the front: when both are enabled they commute, so a send
//              does not write U.
// The unacknowledged queue is left out likewise: an append pushes at its back, an ack pops
// its front, and an ack's other effects (stamper, in-flight count, knowledge) are SX.
constexpr std::size_t kMaxChannels = 8, kMaxAgents = 16, kPerAgent = 2 + kMaxChannels;
constexpr std::size_t kNames = 32, kAgentBase = 40;
using Objects = std::bitset<kAgentBase + kMaxAgents * kPerAgent>;
std::size_t L(ChannelIndex ch) { return ch; }
std::size_t SX(std::uint32_t k) { return kAgentBase + k * kPerAgent; }
std::size_t N(std::uint32_t k) { return SX(k) + 1; }
std::size_t U(std::uint32_t k, ChannelIndex ch) { return SX(k) + 2 + ch; }

struct Footprint {
  Objects r, w;
};
bool conflict(const Footprint& a, const Footprint& b) { return (a.w & (b.r | b.w)).any() || (b.w & a.r).any(); }

using Kind = World::Action::Kind;

// An event's name: kind, agent (source i is agent i; node n is agent sources + n), channel.
struct Name {
  Kind kind;
  std::uint32_t agent;
  std::uint32_t ch;
  bool operator==(const Name&) const = default;
};

}  // namespace

std::vector<std::size_t> World::persistent_set() {
  std::vector<Action> enabled;
  enabled_actions(enabled);
  std::vector<std::size_t> all(enabled.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (enabled.size() <= 1) return all;

  // --- what the reduction models ---------------------------------------------------
  const auto S = static_cast<std::uint32_t>(sources_.size());
  if (!config_.fixed_choices || config_.held_budget != 0 || logs_.size() > kMaxChannels ||
      sources_.size() + nodes_.size() > kMaxAgents)
    return all;
  // Nor the runtime's transitions (transitions.cpp): each reads and replaces a node's whole
  // state, so a world with any of them is searched in full.
  for (const Node& n : nodes_)
    if (n.spec.kind == NodeKind::joiner_committed || !n.spec.growth.empty() || n.spec.rebalances > 0 ||
        n.spec.rewinds > 0 || n.spec.fencings > 0 || n.spec.refetches > 0 || n.spec.handovers > 0)
      return all;
  // The agent of each live sender (dead senders have no events).
  std::vector<std::uint32_t> agent_of(senders_.size(), UINT32_MAX);
  for (std::uint32_t i = 0; i < S; ++i) agent_of[sources_[i].sender] = i;
  for (std::uint32_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].started) agent_of[nodes_[i].sender] = S + i;

  auto name_of = [&](const Action& a) -> Name {
    switch (a.kind) {
      case Kind::source_step: return {a.kind, a.a, 0};
      case Kind::append:
      case Kind::ack: return {a.kind, agent_of[a.a], a.b};
      case Kind::fetch: return {a.kind, S + a.a, a.b};
      default: return {a.kind, S + a.a, 0};
    }
  };
  // The universe: every event name that can ever be enabled in this world.
  std::vector<Name> universe;
  for (std::uint32_t i = 0; i < S; ++i) {
    universe.push_back({Kind::source_step, i, 0});
    for (ChannelIndex ch : sources_[i].spec.sinks) {
      universe.push_back({Kind::append, i, ch});
      universe.push_back({Kind::ack, i, ch});
    }
  }
  auto scope_of = [&](const Node& n) {
    std::vector<ChannelIndex> sc = n.spec.scope;
    for (ChannelIndex ch : n.scope)
      if (std::find(sc.begin(), sc.end(), ch) == sc.end()) sc.push_back(ch);
    return sc;
  };
  for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    const std::uint32_t k = S + i;
    for (Kind kind : {Kind::start, Kind::restart, Kind::commit, Kind::complete_flush, Kind::crash, Kind::abort,
                      Kind::replay})
      universe.push_back({kind, k, 0});
    for (ChannelIndex ch : scope_of(n)) universe.push_back({Kind::fetch, k, ch});
    for (ChannelIndex ch : n.spec.sinks) {
      universe.push_back({Kind::append, k, ch});
      universe.push_back({Kind::ack, k, ch});
    }
  }
  for (std::uint32_t i = 0; i < universe.size(); ++i)
    for (std::uint32_t j = 0; j < i; ++j)
      if (universe[i] == universe[j]) return all;  // a sink listed twice: keep it simple
  auto index_of = [&](const Name& n) -> std::size_t {
    for (std::size_t i = 0; i < universe.size(); ++i)
      if (universe[i] == n) return i;
    return SIZE_MAX;
  };
  // Which names are enabled now, and at which index of `enabled`.
  std::vector<std::size_t> enabled_at(universe.size(), SIZE_MAX);
  for (std::size_t e = 0; e < enabled.size(); ++e) {
    const Action& a = enabled[e];
    if ((a.kind == Kind::append || a.kind == Kind::ack) && agent_of[a.a] == UINT32_MAX) return all;
    const std::size_t u = index_of(name_of(a));
    if (u == SIZE_MAX || enabled_at[u] != SIZE_MAX) return all;
    enabled_at[u] = e;
  }

  // --- footprints: everything a name may touch at any state reachable from here ----------
  auto footprint = [&](const Name& t) {
    Footprint f;
    if (t.agent < S) {
      const Source& src = sources_[t.agent];
      const Sender& s = senders_[src.sender];
      const std::uint32_t k = t.agent;
      switch (t.kind) {
        case Kind::source_step: {
          f.w.set(SX(k));
          if (!src.started && src.spec.seeded)
            for (ChannelIndex sink : src.spec.sinks) f.r.set(L(sink));  // end-offset seeds read the HWM
          if (src.spec.transactional && (src.sent < src.spec.sends || s.txn != kNoTxn))
            for (ChannelIndex sink : src.spec.sinks) f.w.set(L(sink));  // end_txn: markers, outcomes
          break;
        }
        case Kind::append: f.w.set(U(k, t.ch)).set(L(t.ch)); break;
        case Kind::ack: f.w.set(SX(k)); break;
        default: break;
      }
      return f;
    }
    const Node& n = nodes_[t.agent - S];
    const std::uint32_t k = t.agent;
    const std::vector<ChannelIndex> scope = scope_of(n);
    auto write_scope = [&] {
      for (ChannelIndex ch : scope) f.w.set(L(ch));
    };
    auto write_queues = [&] {
      for (ChannelIndex ch : n.spec.sinks) f.w.set(U(k, ch));
    };
    switch (t.kind) {
      case Kind::append: f.w.set(U(k, t.ch)).set(L(t.ch)); break;
      case Kind::ack: f.w.set(SX(k)); break;
      case Kind::start:
      case Kind::restart:
        // A new incarnation: ids, the oracle's consumer on the scope (reads and registers on
        // each log), seeds (read the sinks' HWMs); a restart also fences the previous
        // incarnation's open transaction (markers on the sinks) and drops its queues.
        f.w.set(N(k)).set(SX(k)).set(kNames);
        write_scope();
        for (ChannelIndex ch : n.spec.sinks) f.w.set(L(ch));
        write_queues();
        break;
      case Kind::fetch:
        // Reads the log; deliveries are checked against the consumer's obligations on every
        // channel it consumes and the states of records there; they teach the node's sender,
        // whose emissions stamp; lookups read every sender's appends on the channels the node
        // consumes (World::answer_lookups answers no other).
        f.w.set(N(k)).set(SX(k));
        for (ChannelIndex ch : scope) f.r.set(L(ch));
        if (n.spec.lookups) {
          for (std::uint32_t j = 0; j < S + nodes_.size(); ++j)
            for (ChannelIndex ch : scope) f.r.set(U(j, ch));
        }
        break;
      case Kind::commit: f.w.set(N(k)); break;
      case Kind::complete_flush:
        // Ends the transaction (markers, outcomes on the sinks), commits effects and positions;
        // an abort restarts the incarnation (as restart).
        f.w.set(N(k)).set(SX(k));
        for (ChannelIndex ch : n.spec.sinks) f.w.set(L(ch));
        if (n.aborts_left > 0 || n.abort_pending) {
          f.w.set(kNames);
          write_scope();
          write_queues();
        }
        break;
      case Kind::crash:
        // Retires the consumer (unregisters it on each log of its scope), loses the queues.
        f.w.set(N(k)).set(SX(k));
        write_scope();
        write_queues();
        break;
      case Kind::abort:
        f.w.set(N(k));
        f.r.set(SX(k));
        break;
      case Kind::replay: f.w.set(N(k)); break;
      default: f.w.set(); break;  // unknown: conflicts with everything
    }
    return f;
  };

  // --- necessary enabling sets of disabled names ------------------------------------------
  auto node_name = [&](Kind kind, std::uint32_t k) { return Name{kind, k, 0}; };
  auto nes = [&](const Name& t, std::vector<Name>& out) {
    if (t.agent < S) {
      const Source& src = sources_[t.agent];
      const Sender& s = senders_[src.sender];
      switch (t.kind) {
        case Kind::source_step:
          // Disabled while flushing with sends in flight (an ack must come first), or done.
          if (src.started && src.flushing && s.in_flight > 0)
            for (ChannelIndex ch : src.spec.sinks) out.push_back({Kind::ack, t.agent, ch});
          break;
        case Kind::append: out.push_back({Kind::source_step, t.agent, 0}); break;  // a send fills the queue
        case Kind::ack: out.push_back({Kind::append, t.agent, t.ch}); break;
        default: break;
      }
      return;
    }
    const Node& n = nodes_[t.agent - S];
    const std::uint32_t k = t.agent;
    // Disabled because the node is not running its normal loop: what gets it there first.
    auto not_running = [&]() -> bool {
      if (!n.started) {
        out.push_back(node_name(Kind::start, k));
        return true;
      }
      if (!n.up) {
        out.push_back(node_name(Kind::restart, k));
        return true;
      }
      if (n.flushing) {
        out.push_back(node_name(Kind::complete_flush, k));
        return true;
      }
      return false;
    };
    auto fetches = [&] {
      for (ChannelIndex ch : scope_of(n)) out.push_back({Kind::fetch, k, ch});
    };
    switch (t.kind) {
      case Kind::append: fetches(); break;  // only deliveries make the node send
      case Kind::ack: out.push_back({Kind::append, k, t.ch}); break;
      case Kind::start: break;  // started: never again
      case Kind::restart:
        out.push_back(node_name(Kind::start, k));
        out.push_back(node_name(Kind::crash, k));
        break;
      case Kind::fetch: {
        if (not_running()) break;
        // Position at or past the LSO: the LSO must rise (an append there, or a transaction
        // ending there) or the position fall (a restart, an abort's restart, a replay).
        for (std::uint32_t j = 0; j < S; ++j) {
          const SourceSpec& sp = sources_[j].spec;
          if (std::find(sp.sinks.begin(), sp.sinks.end(), t.ch) == sp.sinks.end()) continue;
          out.push_back({Kind::append, j, t.ch});
          if (sp.transactional) out.push_back({Kind::source_step, j, 0});
        }
        for (std::uint32_t j = 0; j < nodes_.size(); ++j) {
          const NodeSpec& sp = nodes_[j].spec;
          if (std::find(sp.sinks.begin(), sp.sinks.end(), t.ch) == sp.sinks.end()) continue;
          out.push_back({Kind::append, S + j, t.ch});
          out.push_back(node_name(Kind::complete_flush, S + j));
          out.push_back(node_name(Kind::restart, S + j));
        }
        out.push_back(node_name(Kind::restart, k));
        out.push_back(node_name(Kind::complete_flush, k));
        out.push_back(node_name(Kind::replay, k));
        break;
      }
      case Kind::commit:
        if (not_running()) break;
        fetches();  // not dirty: only deliveries make it dirty
        break;
      case Kind::complete_flush:
        if (!n.started) {
          out.push_back(node_name(Kind::start, k));
        } else if (!n.up) {
          out.push_back(node_name(Kind::restart, k));
        } else if (!n.flushing) {
          out.push_back(node_name(Kind::commit, k));
          out.push_back(node_name(Kind::abort, k));
        } else {
          for (ChannelIndex ch : n.spec.sinks) out.push_back({Kind::ack, k, ch});  // sends in flight
        }
        break;
      case Kind::crash:
        if (n.started && n.crashes_left <= 0) break;  // spent: never again
        not_running();
        break;
      case Kind::replay:
        if (n.started && n.replays_left <= 0) break;
        not_running();
        break;
      case Kind::abort:
        if (n.started && n.aborts_left <= 0) break;
        if (not_running()) break;
        fetches();  // not dirty, or no transaction open: deliveries make both
        break;
      default:
        for (const Name& u : universe) out.push_back(u);
        break;
    }
  };

  std::vector<Footprint> fps(universe.size());
  for (std::size_t i = 0; i < universe.size(); ++i) fps[i] = footprint(universe[i]);
  // What an enabled name does the next time it happens, where that is narrower than all it
  // may ever do. Only a source's step qualifies: which of start, send, flush or end of a
  // transaction it performs is decided by the source's own progress, which only that step
  // changes (acknowledgements only make an end of transaction enabled). Schedules that avoid
  // T never take it, so whenever it is taken after them it does this; the closure adds the
  // names dependent with this, not with everything the source will do later.
  std::vector<Footprint> next = fps;
  for (std::size_t i = 0; i < universe.size(); ++i) {
    if (enabled_at[i] == SIZE_MAX || universe[i].kind != Kind::source_step) continue;
    const std::uint32_t k = universe[i].agent;
    const Source& src = sources_[k];
    Footprint f;
    f.w.set(SX(k));
    if (!src.started) {
      if (src.spec.seeded)
        for (ChannelIndex sink : src.spec.sinks) f.r.set(L(sink));  // seeds read the HWM
    } else if (src.flushing) {
      for (ChannelIndex sink : src.spec.sinks) f.w.set(L(sink));  // end_txn: markers, outcomes
    }
    // Otherwise a send or the start of a flush: the source's own sender only.
    next[i] = f;
  }

  // A source whose append or ack is in T, enabled: schedules that avoid T never take it, so
  // the source keeps a send in flight and can never end a transaction; all its step can do
  // on them is send or begin a flush, which touch its own sender only (a send's push on the
  // queue commutes with the append).
  Footprint pinned_step;
  auto pinned = [&](std::size_t u) -> const Footprint& {
    pinned_step = Footprint{};
    pinned_step.w.set(SX(universe[u].agent));
    return pinned_step;
  };
  std::vector<char> pin(S);

  // --- the closure, from each enabled seed; the smallest result wins -------------------
  std::vector<std::size_t> best = all;
  std::vector<char> in(universe.size());
  std::vector<std::size_t> work;
  std::vector<Name> enablers;
  for (std::size_t seed = 0; seed < universe.size() && best.size() > 1; ++seed) {
    if (enabled_at[seed] == SIZE_MAX) continue;
    std::fill(in.begin(), in.end(), 0);
    std::fill(pin.begin(), pin.end(), 0);
    work.assign(1, seed);
    in[seed] = 1;
    std::size_t enabled_in = 1;
    auto note_pin = [&](std::size_t u) {
      const Name& n = universe[u];
      if (enabled_at[u] != SIZE_MAX && n.agent < S && (n.kind == Kind::append || n.kind == Kind::ack)) pin[n.agent] = 1;
    };
    note_pin(seed);
    while (!work.empty() && enabled_in < best.size()) {
      const std::size_t t = work.back();
      work.pop_back();
      auto add = [&](std::size_t u) {
        if (u == SIZE_MAX) {  // an enabler outside the universe: give up on this seed
          enabled_in = SIZE_MAX;
          return;
        }
        if (in[u]) return;
        in[u] = 1;
        note_pin(u);
        work.push_back(u);
        if (enabled_at[u] != SIZE_MAX) ++enabled_in;
      };
      if (enabled_at[t] != SIZE_MAX) {
        for (std::size_t u = 0; u < universe.size(); ++u) {
          if (in[u]) continue;
          const bool pinned_source = universe[u].kind == Kind::source_step && pin[universe[u].agent];
          if (conflict(next[t], pinned_source ? pinned(u) : fps[u])) add(u);
        }
      } else {
        enablers.clear();
        nes(universe[t], enablers);
        for (const Name& e : enablers) add(index_of(e));
      }
      if (enabled_in == SIZE_MAX) break;
    }
    if (enabled_in >= best.size()) continue;
    std::vector<std::size_t> chosen;
    for (std::size_t u = 0; u < universe.size(); ++u)
      if (in[u] && enabled_at[u] != SIZE_MAX) chosen.push_back(enabled_at[u]);
    std::sort(chosen.begin(), chosen.end());
    best = std::move(chosen);
  }
  return best;
}

}  // namespace causal::sim

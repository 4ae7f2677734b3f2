// Stall attribution (see causal/sim/attribution.hpp).
#include "attribution.hpp"

#include <algorithm>
#include <set>

#include <fmt/core.h>

namespace causal::sim {

const char* to_string(Root::Kind k) {
  switch (k) {
    case Root::Kind::frozen_claim: return "frozen_claim";
    case Root::Kind::lost_resolution: return "lost_resolution";
    case Root::Kind::deliverable_held: return "deliverable_held";
    case Root::Kind::missed_position: return "missed_position";
    case Root::Kind::unfetched: return "unfetched";
    case Root::Kind::unappended_send: return "unappended_send";
    case Root::Kind::cycle: return "cycle";
  }
  return "?";
}

bool Attribution::all_frozen() const {
  return !roots.empty() &&
         std::all_of(roots.begin(), roots.end(), [](const Root& r) { return r.kind == Root::Kind::frozen_claim; });
}
std::size_t Attribution::frozen() const {
  return static_cast<std::size_t>(
      std::count_if(roots.begin(), roots.end(), [](const Root& r) { return r.kind == Root::Kind::frozen_claim; }));
}
std::size_t Attribution::signature_caught() const {
  return static_cast<std::size_t>(std::count_if(roots.begin(), roots.end(), [](const Root& r) {
    return r.kind == Root::Kind::frozen_claim && r.signature;
  }));
}
std::string Attribution::summary() const {
  std::string s;
  for (const Root& r : roots) {
    if (!s.empty()) s += "; ";
    s += r.text;
  }
  return s;
}

namespace {

struct Walker {
  const World& w;
  const Node& n;
  const Gate& g;
  std::vector<Root> roots;
  std::set<std::string> seen_roots;
  std::set<ChannelIndex> done;  // channels whose head was fully walked

  void add(Root r) {
    if (seen_roots.insert(r.text).second) roots.push_back(std::move(r));
  }

  std::string ch_text(ChannelIndex ch) const { return w.config().channels[ch].topic + "/" + std::to_string(w.config().channels[ch].partition); }

  // Unsatisfied claims of the head of `ch`, by the protocol's rules (not the gate's).
  void walk(ChannelIndex ch, std::vector<ChannelIndex>& path) {
    const auto head = g.head(ch);
    if (!head || done.count(ch)) return;
    if (std::find(path.begin(), path.end(), ch) != path.end()) {
      add({Root::Kind::cycle, ch, head->offset, 0, 0, false, fmt::format("cycle through {}", ch_text(ch))});
      return;
    }
    path.push_back(ch);
    const Clock& d = *head->clock;
    const std::optional<SenderId> own = d.origin ? std::optional<SenderId>(d.origin->sender) : std::nullopt;
    bool blocked = false;
    for (const OffsetClaim& c : d.offsets()) {
      if (c.channel == ch || !g.consumes(c.channel) || g.frontier(c.channel) >= c.offset) continue;
      blocked = true;
      if (g.head(c.channel)) {
        walk(c.channel, path);
      } else {
        const Offset pos = n.position.at(c.channel);
        const Root::Kind k = pos > c.offset ? Root::Kind::missed_position : Root::Kind::unfetched;
        add({k, c.channel, c.offset, 0, 0, false,
             fmt::format("{}: {}@{} claimed by {}@{} (frontier {}, position {})", to_string(k), ch_text(c.channel),
                         c.offset, ch_text(ch), head->offset, g.frontier(c.channel), pos)});
      }
    }
    for (const SeqClaim& c : d.seqs()) {
      if (c.channel == ch || (own && c.sender == *own) || !g.consumes(c.channel) ||
          g.delivered_seq(c.channel, c.sender) >= c.seq)
        continue;
      blocked = true;
      const std::string claim = fmt::format("{}#{} on {}", w.names().sender_name(c.sender), c.seq, ch_text(c.channel));
      const auto loc = w.locate(c.sender, c.seq);
      if (!loc || w.record(*loc).offset == kNoOffset || w.record(*loc).channel != c.channel) {
        add({Root::Kind::unappended_send, c.channel, kNoOffset, c.sender, c.seq, false,
             fmt::format("unappended_send: {} claimed by {}@{}", claim, ch_text(ch), head->offset)});
        continue;
      }
      const Offset at = w.record(*loc).offset;
      const Offset origin = n.origin_baseline.at(c.channel);
      if (at < origin) {
        const bool sig = !w.presence(c.channel, c.sender, g.baseline(c.channel));
        add({Root::Kind::frozen_claim, c.channel, at, c.sender, c.seq, sig,
             fmt::format("frozen_claim: {} sits at {} below baseline {}{}", claim, at, origin,
                         sig ? " (no post-baseline presence)" : " (sender has post-baseline records)")});
      } else if (at < g.baseline(c.channel)) {
        add({Root::Kind::lost_resolution, c.channel, at, c.sender, c.seq, false,
             fmt::format("lost_resolution: {} at {} is below the committed position {} but was delivered here",
                         claim, at, g.baseline(c.channel))});
      } else if (g.head(c.channel)) {
        walk(c.channel, path);
      } else {
        add({Root::Kind::unfetched, c.channel, at, c.sender, c.seq, false,
             fmt::format("unfetched: {} at {} never delivered (position {})", claim, at, n.position.at(c.channel))});
      }
    }
    if (!blocked) {
      add({Root::Kind::deliverable_held, ch, head->offset, 0, 0, false,
           fmt::format("deliverable_held: {}@{} has every claim satisfied but is held", ch_text(ch), head->offset)});
    }
    path.pop_back();
    done.insert(ch);
  }
};

}  // namespace

Attribution attribute(const World& w, const Node& n) {
  Walker wk{w, n, *n.gate, {}, {}, {}};
  for (ChannelId ch : n.gate->scope()) {
    std::vector<ChannelIndex> path;
    wk.walk(ch, path);
  }
  return Attribution{std::move(wk.roots)};
}

}  // namespace causal::sim

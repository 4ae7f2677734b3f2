// The hold budget: keeps what the gate holds within ConsumerOptions::max_held_bytes by
// pausing the fetch of channels whose blocked heads hold too much (consumer_host.hpp, file
// comment; docs/library.md, "Memory").
//
// The rule, evaluated after every poll batch once the gate and the lookups are done:
//   awaited(c)  some blocked head (of any channel) has an unsatisfied claim on c that no
//               record handed to the gate can satisfy yet: a sequence claim on c, or an
//               offset claim on c at or past the next offset c returns. Fetching c is the
//               only way such a head can move, so c is never paused (and is resumed).
//   pause c     c is assigned, not failed, not awaited, and either its head is blocked
//               and its held bytes pass its share (budget / assigned channels), or the
//               total passes the budget (then whether it holds anything or not).
//   resume c    c is awaited, or, with the total back within the budget, it holds nothing
//               or its held bytes fell to half its share (hysteresis: a head released into
//               a queue still over its share would pause again at once).
// Within a poll batch, a record of a channel not awaited (as of the last evaluation)
// arriving while the total is over the budget pauses its channel at once (pause_mid_batch).
// A record of a paused channel is dropped, not handed to the gate, and no position signal
// is given for the channel until it has been received again after the resume.
// Resuming seeks c to the offset after the last record handed to the gate: librdkafka
// 2.0.2 keeps the pause position itself, but an explicit seek makes "nothing skipped"
// independent of what the pause did with records already queued; a record fetched twice
// is below Ch::returned and dropped before the gate (and the gate's replay guard drops
// anything at or below the frontier).
//
// When the total passes the budget, every channel that is not awaited is paused, so only
// the awaited channels are fetched: the held records can grow past the budget only by what
// those fetches bring, which is the least that can release anything. That episode is said
// once through note().
#include <algorithm>
#include <vector>

#include <fmt/core.h>

#include "consumer_host_impl.hpp"

namespace causal::kafka {

namespace {

std::size_t held_cost(const rd_kafka_message_t* m) { return m->len + m->key_len + kHeldRecordOverhead; }

// A size for people: MiB, or KiB or bytes below a MiB (a small --max-held-bytes read "0.0 MiB").
std::string mib(std::size_t bytes) {
  if (bytes >= (1u << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (1u << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1 << 10));
  return fmt::format("{} bytes", bytes);
}

}  // namespace

void ConsumerHost::Impl::charge(ChannelId c, const rd_kafka_message_t* m) {
  const std::size_t n = held_cost(m);
  ch(c).held_bytes += n;
  held_total += n;
  budget_stats.peak_held_bytes = std::max(budget_stats.peak_held_bytes, held_total);
}

void ConsumerHost::Impl::discharge(ChannelId c, const rd_kafka_message_t* m) {
  const std::size_t n = std::min(held_cost(m), ch(c).held_bytes);
  chans[c].held_bytes -= n;
  held_total -= std::min(n, held_total);
}

void ConsumerHost::Impl::reset_budget() {
  std::vector<ChannelId> paused;
  for (ChannelId c = 0; c < chans.size(); ++c) {
    Ch& st = chans[c];
    if (st.budget_paused) paused.push_back(c);
    st.budget_paused = false;
    st.held_bytes = 0;
  }
  if (!paused.empty()) {
    ListPtr l = list_of(host->names_, paused);
    rd_kafka_resume_partitions(rk.get(), l.get());  // an unassigned partition: a per-element error, ignored
    budget_stats.resumes += paused.size();
  }
  held_total = 0;
  over_budget = false;
}

std::expected<void, Error> ConsumerHost::Impl::apply_budget() {
  const std::size_t budget = opts.max_held_bytes;
  if (budget == 0) return {};
  Gate& gate = *host->gate_;
  Names& names = host->names_;
  if (held_total == 0 && std::none_of(chans.begin(), chans.end(), [](const Ch& s) { return s.budget_paused; })) {
    over_budget = false;
    return {};
  }

  std::size_t assigned = 0;
  for (const Ch& st : chans) assigned += st.assigned && !st.failed;
  const std::size_t share = std::max<std::size_t>(budget / std::max<std::size_t>(assigned, 1), 1);

  std::vector<bool>& awaited = awaited_cache;
  awaited.assign(chans.size(), false);
  for (ChannelId c : gate.scope()) {
    if (gate.held_count(c) == 0) continue;
    for (const Blocker& b : gate.unsatisfied(c)) {
      if (b.channel >= chans.size()) continue;  // a channel this host does not fetch
      const Ch& on = chans[b.channel];
      if (b.kind == Blocker::Kind::seq || b.offset >= on.returned) awaited[b.channel] = true;
    }
  }

  const bool over = held_total > budget;
  std::vector<ChannelId> paused_now, resumed_now;
  for (ChannelId c = 0; c < chans.size(); ++c) {
    const Ch& st = chans[c];
    if (!st.assigned || st.failed) continue;
    const bool holds = gate.held_count(c) > 0;
    if (!st.budget_paused) {
      if (!awaited[c] && ((holds && st.held_bytes > share) || over)) paused_now.push_back(c);
    } else if (awaited[c] || (!over && (!holds || st.held_bytes <= share / 2))) {
      resumed_now.push_back(c);
    }
  }

  if (!paused_now.empty()) {
    ListPtr l = list_of(names, paused_now);
    rd_kafka_pause_partitions(rk.get(), l.get());
    for (ChannelId c : paused_now) chans[c].budget_paused = true;
    budget_stats.pauses += paused_now.size();
  }
  if (!resumed_now.empty()) {
    ListPtr l = list_of(names, resumed_now);
    rd_kafka_resume_partitions(rk.get(), l.get());
    for (int i = 0; i < l->cnt; ++i) {
      const Ch& st = chans[resumed_now[i]];
      l->elems[i].offset = st.returned >= 0 ? st.returned : st.baseline;
    }
    if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk.get(), l.get(), static_cast<int>(opts.connect_timeout.count()))) {
      std::string text = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      return std::unexpected(runtime_error(fmt::format("resuming paused partitions on {}: seek failed: {}", brokers, text)));
    }
    for (ChannelId c : resumed_now) chans[c].budget_paused = false;
    budget_stats.resumes += resumed_now.size();
  }

  // What was done, for people: the first pause of the run, and each episode over budget.
  auto names_of = [&](auto pred) {
    std::string out;
    for (ChannelId c = 0; c < chans.size(); ++c) {
      if (chans[c].assigned && !chans[c].failed && pred(c)) out += (out.empty() ? "" : ", ") + names.channel_text(c);
    }
    return out.empty() ? std::string("none") : out;
  };
  // pause_mid_batch pauses too, without a word: its first pause is said here, after the batch.
  if ((!paused_now.empty() || budget_stats.pauses > 0) && !first_pause_said && host->observer_) {
    first_pause_said = true;
    host->observer_->note(fmt::format(
        "held records reached {} of the {} budget (`max_held_bytes`): pausing the fetch of {} until their blocked "
        "heads are released; still fetching what blocked heads wait on: {}",
        mib(held_total), mib(budget), names_of([&](ChannelId c) { return chans[c].budget_paused; }),
        names_of([&](ChannelId c) { return awaited[c]; })));
  }
  if (over && !over_budget) {
    over_budget = true;
    ++budget_stats.overruns;
    if (host->observer_) {
      host->observer_->note(fmt::format(
          "held records take {}, over the {} budget (`max_held_bytes`), and none is deliverable: fetching only "
          "what blocked heads wait on ({}), past the budget until those records arrive; the rest is paused",
          mib(held_total), mib(budget), names_of([&](ChannelId c) { return awaited[c]; })));
    }
  } else if (!over) {
    over_budget = false;
  }
  return {};
}

bool ConsumerHost::Impl::pause_mid_batch(ChannelId c) {
  const std::size_t budget = opts.max_held_bytes;
  if (budget == 0 || held_total <= budget || (c < awaited_cache.size() && awaited_cache[c])) return false;
  ListPtr l = list_of(host->names_, {c});
  rd_kafka_pause_partitions(rk.get(), l.get());
  chans[c].budget_paused = true;
  ++budget_stats.pauses;
  return true;
}

HoldBudgetStats ConsumerHost::hold_budget() const {
  HoldBudgetStats s = impl_->budget_stats;
  s.budget = impl_->opts.max_held_bytes;
  s.held_bytes = impl_->held_total;
  for (ChannelId c = 0; c < impl_->chans.size(); ++c) {
    const auto& st = impl_->chans[c];
    // Where the next fetch starts: past the last record handed to the gate (held or not),
    // or the last position signal, whichever is further (the last record returned counts even
    // when it is held, so a partition whose head is held is never "at 0").
    const Offset at = std::max({st.baseline, st.reported, st.returned});
    if (st.assigned && st.budget_paused && !st.failed && at < st.lso) s.paused_unread.push_back({c, at, st.lso});
  }
  return s;
}

}  // namespace causal::kafka

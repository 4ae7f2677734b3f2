// Senders: stamping with the real causal::Stamper, async appends and acknowledgements
// (FIFO per channel per sender, any order across channels), transactions.
//
// Happens-before truth kept here (oracle.hpp): a send's ancestors are its sender's
// `knowledge` at send time. Knowledge grows by
//   - an acknowledgement, for idempotent senders (a -> b when a was acked before b was sent);
//   - a commit, for transactional senders (every send of an earlier committed transaction
//     precedes every later send; sends of one transaction are concurrent);
//   - a delivery at the sender's node (node.cpp, Oracle::learn_from_delivery: the record,
//     its ancestors, and the sends of its transaction made before it).
#include <algorithm>

#include "internal.hpp"

namespace causal::sim {

std::uint32_t World::new_sender(std::string name, bool transactional, const Gate* gate) {
  senders_.emplace_back();
  Sender& s = senders_.back();
  const auto index = static_cast<std::uint32_t>(senders_.size() - 1);
  s.name = std::move(name);
  s.id = names_.sender(s.name);
  s.transactional = transactional;
  s.stamper = std::make_unique<Stamper>(s.id,
                                        transactional ? Stamper::Mode::transactional : Stamper::Mode::idempotent, gate);
  if (sender_of_id_.size() <= s.id) sender_of_id_.resize(s.id + 1, UINT32_MAX);
  sender_of_id_[s.id] = index;
  return index;
}

std::uint32_t World::sender_index(SenderId id) const {
  return id < sender_of_id_.size() ? sender_of_id_[id] : UINT32_MAX;
}

RecordId World::send(std::uint32_t si, ChannelIndex ch, int hops, Node* node) {
  Sender& s = senders_[si];
  if (s.transactional && s.txn == kNoTxn) {
    s.txn = static_cast<TxnId>(txns_.size());
    txns_.push_back(TxnState::open);
    txn_owner_.push_back(si);
  }

  // Sequence claims this node has resolved must not reach the stamp (protocol.md, "The
  // stamp"): collect the ones custody holds, to count those the stamper dropped.
  std::vector<SeqClaim>& resolved = resolved_;  // nothing below sends again
  resolved.clear();
  if (node && node->gate) {
    const Gate& g = *node->gate;
    for (ChannelId c : g.scope()) {
      for (const SeqClaim& q : g.custody(c).seqs()) {
        if (g.consumes(q.channel) && g.delivered_seq(q.channel, q.sender) >= q.seq) resolved.push_back(q);
      }
    }
    std::sort(resolved.begin(), resolved.end(), [](const SeqClaim& a, const SeqClaim& b) {
      return a.channel != b.channel ? a.channel < b.channel : a.sender < b.sender;
    });
    resolved.erase(std::unique(resolved.begin(), resolved.end(),
                               [](const SeqClaim& a, const SeqClaim& b) {
                                 return a.channel == b.channel && a.sender == b.sender;
                               }),
                   resolved.end());
  }

  Clock clock = s.stamper->stamp_send(ch);
  for (const SeqClaim& q : resolved) {
    const bool kept = std::any_of(clock.seqs().begin(), clock.seqs().end(), [&](const SeqClaim& c) {
      return c.channel == q.channel && c.sender == q.sender && c.seq <= q.seq;
    });
    if (!kept) ++counters_.seq_normalised;
  }

  const RecordId r =
      oracle_.sent(ch, s.knowledge, s.txn != kNoTxn && !s.txn_sends.empty() ? s.txn_sends.back() : kNoRecord);
  SimRecord rec;
  rec.channel = ch;
  rec.sender = si;
  rec.seq = clock.origin ? clock.origin->seq : 0;
  rec.txn = s.txn;
  rec.hops = hops;
  for (const auto& [sink, claimed] : s.seeds) {
    if (claimed >= 0 && clock.offset_of(sink) == claimed) rec.seed_claims.push_back({sink, claimed});
  }
  rec.clock = std::move(clock);
  records_.push_back(std::move(rec));
  s.sends.push_back(r);
  if (records_[r].seq != s.sends.size()) {
    oracle_.violate(ViolationKind::crash,
                    fmt::format("stamper of {} numbered send {} as {}", s.name, s.sends.size(), records_[r].seq));
  }
  s.unappended[ch].push_back(r);
  if (s.in_flight++ == 0) busy_senders_.insert(std::lower_bound(busy_senders_.begin(), busy_senders_.end(), si), si);
  if (s.txn != kNoTxn) {
    s.txn_sends.push_back(r);
    if (std::find(s.txn_channels.begin(), s.txn_channels.end(), ch) == s.txn_channels.end())
      s.txn_channels.push_back(ch);
  }
  CAUSAL_SIM_TRACE("send    {} #{} -> {} {}", s.name, records_[r].seq, names_.channel_text(ch),
                   describe(records_[r].clock));
  return r;
}

bool World::append(std::uint32_t si, ChannelIndex ch) {
  Sender& s = senders_[si];
  auto it = s.unappended.find(ch);
  if (!s.alive || it == s.unappended.end() || it->second.empty()) return false;
  const RecordId r = it->second.front();
  it->second.pop_front();
  SimRecord& rec = records_[r];
  rec.offset = logs_[ch].append({EntryKind::business, r, rec.txn});
  if (rec.txn != kNoTxn) logs_[ch].txn_opened(rec.txn, rec.offset);
  oracle_.appended(r, rec.offset, rec.txn != kNoTxn);
  s.unacked[ch].push_back(r);
  ++counters_.records;
  CAUSAL_SIM_TRACE("append  {} #{} at {}@{}{}", s.name, rec.seq, names_.channel_text(ch), rec.offset,
                   rec.txn != kNoTxn ? " (in transaction)" : "");
  return true;
}

bool World::ack(std::uint32_t si, ChannelIndex ch) {
  Sender& s = senders_[si];
  auto it = s.unacked.find(ch);
  if (!s.alive || it == s.unacked.end() || it->second.empty()) return false;
  const RecordId r = it->second.front();
  it->second.pop_front();
  if (--s.in_flight == 0) std::erase(busy_senders_, si);
  const SimRecord& rec = records_[r];
  s.stamper->acknowledged(ch, rec.seq, rec.offset);
  if (!s.transactional) s.knowledge.set(r);
  CAUSAL_SIM_TRACE("ack     {} #{} at {}@{}", s.name, rec.seq, names_.channel_text(ch), rec.offset);
  return true;
}

void World::end_txn(std::uint32_t si, bool commit) {
  Sender& s = senders_[si];
  if (s.txn == kNoTxn) return;
  const TxnId t = s.txn;
  for (ChannelIndex ch : s.txn_channels) {
    if (!logs_[ch].has_open(t)) continue;  // nothing of it was appended there
    logs_[ch].append({commit ? EntryKind::commit_marker : EntryKind::abort_marker, 0, t});
    logs_[ch].txn_closed(t);
  }
  txns_[t] = commit ? TxnState::committed : TxnState::aborted;
  for (RecordId r : s.txn_sends) {
    if (oracle_.state(r) == RecordState::pending) oracle_.resolved(r, commit);
    if (commit) s.knowledge.set(r);
  }
  CAUSAL_SIM_TRACE("{} {} ({} sends, markers on {} channels)", commit ? "commit " : "abort  ", s.name,
                   s.txn_sends.size(), s.txn_channels.size());
  if (commit) {
    ++counters_.commits;
  } else {
    ++counters_.aborts;
  }
  if (s.alive) s.stamper->transaction_ended();
  s.txn = kNoTxn;
  s.txn_sends.clear();
  s.txn_channels.clear();
}

// The sender's process died: sends not yet appended are lost; appended ones stay in the
// log (an open transaction stays open until the restarted incarnation fences it).
void World::kill_sender(std::uint32_t si) {
  Sender& s = senders_[si];
  for (auto& [ch, q] : s.unappended) {
    for (RecordId r : q) oracle_.lost(r);
    q.clear();
  }
  s.unacked.clear();
  if (s.in_flight != 0) std::erase(busy_senders_, si);
  s.in_flight = 0;
  s.alive = false;
  s.stamper.reset();
}

}  // namespace causal::sim

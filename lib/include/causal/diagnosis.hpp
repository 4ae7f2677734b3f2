// The diagnosis of a stuck gate: what each held head waits on, the chain of waits
// behind every unsatisfied claim, and a verdict (with a remedy where one exists) for
// every root the chains end at. The result is fields and values: a remedy is a Remedy
// (what to do, to which group and offsets), never a command line; `causal explain` renders
// it (apps/causal: explain_text.cpp, explain_json.cpp, remedy_command.cpp), and
// docs/explain-format.md documents the JSON the tool prints.
//
// Prose (Root::summary, Root::detail, Advice::text) names the tool's options nowhere: where
// it refers to something the caller sets, it names the field, in backquotes (`group`: the
// consumer group, DiagnosisFacts::group; `topic`: a topic of the scope; `lookups=false`:
// a consumer without lookups). The tool replaces each with its own option words.
//
// Input is a GateSnapshot (causal/snapshot.hpp) plus facts only a host can supply:
// per channel the log start, last stable offset (LSO), high watermark (the log end)
// and the start time of the open transaction that pins the LSO; and the results of
// lookups that located claimed sends (scan a channel for a sender's origin).
// Every fact is optional; a verdict that needs a missing fact says what is missing.
//
// How a chain is followed (protocol.md, "Late joiners and frozen claims"; liveness
// seed, "Why over-claims cannot deadlock"):
//   offset claim (ch, n)    if ch's head sits at or below n, the wait continues at that
//                           head (its first unsatisfied claim); otherwise the record at
//                           n was never received here and the log facts say why:
//                           n >= log end            -> not_appended
//                           LSO <= n < log end      -> open_transaction (pins the LSO)
//                           n < LSO, caught up      -> trailing_skip (a position
//                                                      advance closes it)
//                           n < LSO, not caught up  -> unfetched
//   sequence claim (ch,S,q) located below baseline[ch]        -> frozen_seq_claim
//                           located at or above it            -> as the offset claim
//                                                                (ch, located)
//                           looked up, not found, the scan
//                             covered log start .. baseline   -> open_transaction on ch
//                                                                when ch has one, else
//                                                                send_not_in_log when the
//                                                                log start is above 0 (the
//                                                                send may have been deleted),
//                                                                else not_appended
//                           looked up, not found, the scan
//                             stopped short of that range     -> send_not_located (the
//                             range scanned, and a remedy that searches further: the
//                             send was appended before the claim became visible, so
//                             "not found in the range scanned" is not "not appended")
//                           not looked up, S has no record on
//                             ch since the baseline           -> suspected_frozen_seq_claim
//                             (the seeds' first test: a lookup decides it); but when the
//                             baseline is the log start nothing lies below it: as a
//                             lookup that scanned nothing and found nothing
//                           not looked up, a later send of S
//                             is held on ch                   -> frozen_seq_claim (a sender's
//                             sends reach a channel in send-number order, so send q sits
//                             below it, undelivered: below the baseline; offset unknown)
// A claim on a channel outside the scope is reported (outside_scope) but never blocks:
// the gate's restrict step ignores it. The head's clock is read for such claims too (the
// gate's unsatisfied list omits them). When the host names topics the consumer group
// commits but the scope left out (DiagnosisFacts::left_out_topics), claims on them that
// the replay ignored make the answer undecided: a node that consumes them may hold.
//
// Remedies: every frozen_seq_claim with a located send gets the same one rewind, which
// rewinds each frozen channel to the lowest located send on it (one rewind unfreezes
// every root on the channel); Diagnosis::remedies lists each distinct remedy once.
// A remedy that writes committed offsets names the group's members to stop first. A channel that failed closed at or below the
// awaited offset is a root of its own (failed_closed). The wait graph is acyclic
// (every wait edge points to an earlier append); a cycle is reported as a bug.
//
// Thread-safety: pure functions over values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "causal/snapshot.hpp"

namespace causal {

// A record's place: topic/partition@offset.
struct ChannelOffset {
  std::string topic;
  std::int32_t partition = 0;
  Offset offset = kNoOffset;
  bool operator==(const ChannelOffset&) const = default;
};

// What resolves a root (or what advice ends with), as data. The tool renders it as a
// command that runs as printed (apps/causal/remedy_command.cpp: `causal baseline ...`,
// with the connection options it was given).
struct Remedy {
  enum class Kind : std::uint8_t {
    rewind,          // write `group`'s committed offsets back to `offsets` (one per channel,
                     // ascending by channel); refused while the group has members
    explain,         // diagnose `group` again over `scope`, with lookups
    search_further,  // as explain, with lookups that reach `lookup_max_offsets` offsets below
                     // the baseline, and, when a scan ran out of time, `replay_timeout_ms`
    decode,          // inspect the causal.clock header of the record at offsets[0]
    start_joiners,   // baseline a new group (named by the operator) at the last stable
                     // offset of every topic of `scope`
  };
  Kind kind = Kind::explain;
  std::string group;                  // rewind, explain, search_further
  std::vector<ChannelOffset> offsets; // rewind, decode
  // explain, search_further: the scope as named ("T", or "T/P" for one partition);
  // start_joiners: the topics.
  std::vector<std::string> scope;
  Offset lookup_max_offsets = 0;                  // search_further
  std::optional<std::int64_t> replay_timeout_ms;  // search_further, when a scan ran out of time
  bool operator==(const Remedy&) const = default;
};

// Per-channel facts from the log (all optional).
struct ChannelFacts {
  std::string topic;
  std::int32_t partition = 0;
  std::optional<Offset> log_start;
  std::optional<Offset> lso;        // last stable offset (read_committed end)
  std::optional<Offset> log_end;    // high watermark (read_uncommitted end)
  // When lso < log_end: the timestamp (ms since the epoch) of the first record at the
  // LSO, i.e. when the open transaction that pins it started writing this partition.
  std::optional<std::int64_t> open_txn_since_ms;
  // The host consumed this channel up to its LSO: nothing below the LSO is left to fetch.
  bool caught_up = false;
  // The topic's cleanup.policy includes compact: records anywhere below the active segment
  // may have been removed (a later record had their key). nullopt: not known (the topic's
  // configuration could not be read).
  std::optional<bool> compacted;
};

// A lookup result: where sender's send `seq` to topic/partition sits.
struct LocatedSend {
  std::string topic;
  std::int32_t partition = 0;
  std::string sender;
  SeqNo seq = 0;
  std::optional<Offset> offset;  // nullopt: scanned, not found in [scanned_from, scanned_to)
  Offset scanned_from = kNoOffset;
  Offset scanned_to = kNoOffset;  // exclusive: the range scanned is [scanned_from, scanned_to)
  // Not found: how to scan further (a Remedy::Kind::search_further, set by whoever
  // scanned), given when the scan did not cover the log start .. the baseline.
  std::optional<Remedy> search_further;
};

// A member of the consumer group, as DescribeConsumerGroups gives it (either protocol).
struct MemberFact {
  struct Partition {
    std::string topic;
    std::int32_t partition = 0;
  };
  std::string member_id;
  std::string client_id;
  std::string host;
  std::vector<Partition> assignment;  // the partitions it holds now
};

// A claim the replay ignored because its topic was left out of the scope although the
// group commits offsets on it: made by the record at topic/partition@offset.
struct IgnoredClaim {
  std::string topic;
  std::int32_t partition = 0;
  Offset offset = kNoOffset;
  bool delivered = false;  // the replay delivered the record (a node consuming the topic might hold it)
  ClaimView claim;
};

struct DiagnosisFacts {
  std::vector<ChannelFacts> channels;
  std::vector<LocatedSend> located;
  std::optional<std::int64_t> now;  // same unit as the snapshot's received_at (ms)
  // The node's group, named in remedies. Absent: remedies that need it are not given and
  // the roots' details say so (they name the field `group`).
  std::optional<std::string> group;
  // The scope as the caller named it ("a", "c/1"), for remedies that diagnose again; by
  // default every topic of the snapshot.
  std::optional<std::vector<std::string>> scope;
  // Active members of the group: a remedy that writes committed offsets must wait for them.
  std::vector<MemberFact> members;
  // Topics the group has committed offsets on that the scope leaves out ("T"; "T/P" for a
  // partition of a topic the scope names only some partitions of), and the claims on them
  // the replay ignored (delivered records); held heads' claims are found here.
  std::vector<std::string> left_out_topics;
  std::vector<IgnoredClaim> ignored_claims;
};

enum class Verdict : std::uint8_t {
  not_appended,               // the awaited offset is at or beyond the log end
  open_transaction,           // the awaited record sits in an open transaction (LSO pinned)
  trailing_skip,              // below the LSO, nothing left to fetch: a position advance closes it
  unfetched,                  // below the LSO, not fetched yet: keep consuming
  not_received,               // never received here; no log facts to say why
  frozen_seq_claim,           // the claimed send sits below the baseline (located, or inferred)
  send_not_located,           // a lookup did not find the send in the range it scanned, which
                              // stopped short of the log start: search further
  send_not_in_log,            // a lookup scanned from the log start (above 0) to the baseline
                              // without finding the send: not written yet, or deleted
  suspected_frozen_seq_claim, // no lookup; the sender has no post-baseline presence
  outside_scope,              // the claim's channel is not consumed (ignored by the gate)
  failed_closed,              // the awaited channel failed closed on an undecodable header
  cycle,                      // a wait cycle: a bug (the protocol says none can exist)
  inconsistent,               // the snapshot contradicts itself (e.g. a deliverable head held)
};
std::string_view to_string(Verdict v);
// True for verdicts that hold records (everything except outside_scope).
bool blocks(Verdict v);

// One hop of a chain: the head at topic/partition@offset waits on `claim`.
struct WaitStep {
  std::string topic;
  std::int32_t partition = 0;
  Offset head_offset = kNoOffset;
  ClaimView claim;
};

struct Root {
  Verdict verdict = Verdict::inconsistent;
  ClaimView claim;                // the claim the last head of the chain waits on
  std::string held_topic;         // that head
  std::int32_t held_partition = 0;
  Offset held_offset = kNoOffset;
  // The offset awaited on the claim's channel: the claimed offset, or where the claimed
  // send was located (seq claims).
  std::optional<Offset> awaited_offset;
  std::optional<Offset> located_offset;   // seq claims: where the send sits
  std::optional<Offset> baseline;         // of the claim's channel, when consumed
  std::optional<Offset> lso;
  std::optional<Offset> log_end;
  std::optional<std::int64_t> open_txn_since_ms;
  std::vector<std::string> cycle;         // verdict cycle: the channels on it, in order
  std::string summary;                    // one line
  std::string detail;                     // why, in a sentence or two (fields in backquotes)
  std::optional<Remedy> remedy;           // where one exists
  // The remedy rewinds committed offsets: these members must stop first (the rewind is
  // refused while the group has any).
  std::vector<MemberFact> stop_first;
  // What a consumer that performs lookups (causal tail, ConsumerHost with lookups on)
  // would do here: true it accounts for the claim and drains, false it holds too, nullopt
  // unknown. The diagnosis models a consumer without lookups.
  std::optional<bool> drains_with_lookups;
};

struct ClaimDiagnosis {
  ClaimView claim;
  std::vector<WaitStep> chain;  // from this head to the root's head (this head first)
  std::size_t root = 0;         // index into Diagnosis::roots
};

struct ChannelDiagnosis {
  std::string topic;
  std::int32_t partition = 0;
  Offset baseline = 0;
  Offset frontier = kNoOffset;
  std::optional<Offset> position;
  std::size_t queue_length = 0;
  std::optional<Offset> head_offset;
  std::optional<std::int64_t> head_age;  // now - received_at, when `now` is known
  std::optional<Offset> lso;
  std::optional<Offset> log_end;
  bool failed = false;
  std::optional<Offset> failed_offset;
  // Every unsatisfied claim of the head; with nothing held on a channel that failed closed,
  // one entry with no claim whose root is that failure.
  std::vector<ClaimDiagnosis> claims;
};

// A channel whose last stable offset a transaction still open pins below its high watermark:
// a read_committed consumer reads nothing of it at or past the LSO until that transaction
// commits or aborts, whether or not anything is held (the lag of a caught-up node grows).
struct OpenTransaction {
  std::string topic;
  std::int32_t partition = 0;
  Offset lso = 0;
  Offset log_end = 0;                          // the high watermark
  std::optional<std::int64_t> since_ms;        // the timestamp of the first record at the LSO
};

// General advice: prose (fields in backquotes), ending with a command where it gives one.
struct Advice {
  std::string text;
  std::optional<Remedy> command;  // rendered right after the text
};

struct Diagnosis {
  std::vector<ChannelDiagnosis> channels;
  // From the facts: every channel with lso < high watermark, in channel order.
  std::vector<OpenTransaction> open_transactions;
  std::vector<Root> roots;
  std::vector<Advice> advice;     // general advice (late joiners still to start, ...)
  std::vector<Remedy> remedies;   // every distinct root remedy, once, in root order
  std::vector<std::string> left_out_topics;  // from the facts
  std::vector<IgnoredClaim> ignored_claims;  // claims on left-out topics the replay ignored
  // Sends located below their channel's baseline that no root waits on: frozen claims of
  // records queued behind held heads, which hold once the records ahead are released. The
  // frozen roots' remedy rewinds for them too (else the advice gives the rewind).
  std::vector<LocatedSend> queued_frozen;
  // True when some channel holds records or failed closed (the gate would not drain).
  bool stuck() const;
  // Nothing is held here, but claims on topics the group consumes and the scope left out
  // were ignored: a node consuming them might hold (not "drains").
  bool undecided() const;
  std::size_t held_channels() const;
  // Channels that failed closed on an undecodable header: each delivers nothing more.
  std::size_t failed_channels() const;
};

Diagnosis diagnose(const GateSnapshot& snapshot, const DiagnosisFacts& facts = {});

// Whether topic/partition is left out: `left_out` (DiagnosisFacts::left_out_topics) names
// its topic, or the channel itself as "topic/partition".
bool is_left_out(const std::vector<std::string>& left_out, std::string_view topic, std::int32_t partition);

// The text of a channel offset, as the CLI writes it: "topic/partition@offset".
std::string offset_text(std::string_view topic, std::int32_t partition, Offset offset);

// The text of a claim: "topic/partition@offset", or "topic/partition sender 'S' send #q".
std::string claim_text(const ClaimView& c);

// "2026-11-30T04:58:19.123Z" for a timestamp in ms since the epoch (UTC), as the
// diagnosis's prose dates an open transaction.
std::string utc_text(std::int64_t ms);

}  // namespace causal

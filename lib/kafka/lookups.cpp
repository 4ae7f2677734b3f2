// The consumer host's lookups (protocol.md, "Resolution by lookup"): a claimed channel scanned
// below its baseline for the send a held record waits on (consumer_host.hpp, file comment).
#include <algorithm>
#include <chrono>

#include <fmt/core.h>

#include "causal/codec.hpp"
#include "causal/kafka/partition_reader.hpp"
#include "consumer_host_impl.hpp"
#include "held_message.hpp"
#include "list_offsets.hpp"

namespace causal::kafka {

LookupReport ConsumerHost::Impl::lookup(const LookupRequest& req) {
  Names& names = host->names_;
  Gate& gate = *host->gate_;
  LookupReport rep;
  rep.request = req;
  rep.baseline = gate.baseline(req.channel);
  const std::string& topic = names.channel_topic(req.channel);
  std::int32_t partition = names.channel_partition(req.channel);
  std::string what = fmt::format("lookup {} sender {} seq {}", names.channel_text(req.channel),
                                 names.sender_name(req.sender), req.seq);

  // The claiming record's timestamp: the earliest held head blocked on this claim.
  std::optional<std::int64_t> ts;
  for (ChannelId c : gate.scope()) {
    auto h = gate.head(c);
    if (!h || !h->tag) continue;
    for (const auto& b : gate.unsatisfied(c)) {
      if (b.kind == Blocker::Kind::seq && b.channel == req.channel && b.sender == req.sender && b.seq == req.seq) {
        rd_kafka_timestamp_type_t tt;
        std::int64_t t = rd_kafka_message_timestamp(message_of(h->tag), &tt);
        if (t >= 0) ts = ts ? std::min(*ts, t) : t;
      }
    }
  }
  if (!lookup_reader) {
    auto l = PartitionReader::open(opts.connection,
                                   {{"client.id", "causal-lookup"},
                                    {"group.id", fmt::format("causal-lookup-{:x}", now_us())},
                                    {"isolation.level", "read_committed"},
                                    {"enable.partition.eof", "true"},
                                    {"enable.auto.commit", "false"},
                                    {"enable.auto.offset.store", "false"},
                                    {"fetch.wait.max.ms", "100"}},
                                   log, std::chrono::milliseconds(100));
    if (!l) {
      rep.text = fmt::format("{}: cannot open a lookup consumer: {}", what, l.error().message);
      return rep;
    }
    lookup_reader.emplace(std::move(*l));
  }
  rd_kafka_t* lookup_rk = lookup_reader->handle();
  int tmo = static_cast<int>(opts.connect_timeout.count());
  Offset start = kNoOffset;
  ListPtr l{rd_kafka_topic_partition_list_new(1)};
  auto* e = rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), partition);
  std::string from_text;
  if (ts) {
    std::int64_t since = *ts - opts.max_transaction_duration.count();
    e->offset = std::max<std::int64_t>(since, 0);
    auto err = rd_kafka_offsets_for_times(lookup_rk, l.get(), tmo);
    if (!err && !e->err) start = e->offset;  // -1: no record at or after that time
    from_text = fmt::format("from timestamp {} (claiming record's {} minus {} ms)", since, *ts,
                            opts.max_transaction_duration.count());
  }
  Offset log_start = kNoOffset;
  if (start < 0) {
    int64_t lo = 0, hi = 0;
    if (!query_watermarks(lookup_rk, topic, partition, Isolation::read_committed, &lo, &hi, tmo)) {
      start = ts ? hi : lo;
      log_start = lo;
    } else {
      start = 0;
    }
    if (from_text.empty()) from_text = "from the log start (claiming record's timestamp unknown)";
  }
  if (start >= rep.baseline) {
    if (log_start == kNoOffset) {
      int64_t lo = 0, hi = 0;
      if (!query_watermarks(lookup_rk, topic, partition, Isolation::read_committed, &lo, &hi, tmo)) log_start = lo;
    }
    // A log start above 0 may have taken the send with it (retention, DeleteRecords): then
    // it never arrives, which causal explain tells apart ("send not in log").
    rep.text = fmt::format("{}: nothing below the baseline {} to scan {}; the send is at or above the baseline, "
                           "or not appended yet{}: waiting for it",
                           what, rep.baseline, from_text,
                           log_start > 0 ? fmt::format(", or it lay below the log start {} and was deleted (then it "
                                                       "never arrives: causal explain tells which)",
                                                       log_start)
                                         : std::string());
    return rep;
  }
  rep.scanned_from = start;
  // [start, baseline): errors are not this scan's to judge (librdkafka retries them); what
  // was not read by the deadline is said in the report's range.
  (void)lookup_reader->assign({PartitionRange{topic, partition, start, rep.baseline}});
  struct Scan : ReadHandler {
    LookupReport& rep;
    const LookupRequest& req;
    Names& names;
    Clock scratch;
    Step record(std::size_t, const ReadRecord& r) {
      rep.scanned_to = r.offset() + 1;
      ClockHeader h = find_clock_header(&r.message());
      if (h.present && !h.duplicated &&
          decode(std::span(static_cast<const std::byte*>(h.data), h.size), names, scratch) && scratch.origin &&
          scratch.origin->sender == req.sender) {
        if (scratch.origin->seq == req.seq) {
          rep.located = r.offset();
          return Step::stop;
        }
        if (scratch.origin->seq > req.seq) return Step::stop;  // a sender's sends to one partition are appended in send order
      }
      return Step::more;
    }
  } scan{{}, rep, req, names, {}};
  lookup_reader->read(std::chrono::steady_clock::now() + std::chrono::seconds(30), scan);
  lookup_reader->unassign();
  if (rep.scanned_to == kNoOffset) rep.scanned_from = kNoOffset;  // nothing read
  std::string range = rep.scanned_to == kNoOffset ? std::string("no records")
                                                  : fmt::format("offsets [{}, {})", rep.scanned_from, rep.scanned_to);
  if (rep.located) {
    rep.text = fmt::format("{}: found at offset {} below the baseline {} (scanned {} {}): claim accounted for", what,
                           *rep.located, rep.baseline, range, from_text);
  } else {
    rep.text = fmt::format("{}: not found below the baseline {} (scanned {} {}): waiting for it to arrive", what,
                           rep.baseline, range, from_text);
  }
  return rep;
}

}  // namespace causal::kafka

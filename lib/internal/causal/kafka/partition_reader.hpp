// The one way causal reads a stretch of some partitions outside a consumer host: a consumer
// that never joins its group and never commits, assigned ranges of partitions and read until
// each range is read, the log ends, the caller has what it looked for, or a deadline passes.
// explain's scans (explain_scan.hpp), the consumer host's lookups and `causal decode`'s
// Kafka sources read through it.
//
// A read hands every event of a range not yet finished to a handler, a type with
//   Step record(std::size_t range, const ReadRecord& r)   a record of [from, to)
//   Step end(std::size_t range, const RangeEnd& e)         the range is finished (RangeEnd)
//   Step error(const ReadError& e)                         an error of a range or the client
//   bool keep_going()                                      before each wait: false ends it
// (ReadHandler gives defaults: ends and errors go on, the read is never interrupted). A
// handler's Step::done finishes its range, Step::stop the whole read. The handler is a
// template parameter: no virtual call per record.
//
// Errors are the caller's to weigh (each tool has its own rule); the reader drops only one,
// which is never a failure of a read: a refused lookup of its group's coordinator (no
// Describe on the group), since the group is never joined.
// Thread-safety: none; one reader per thread. The ClientLog its handle was made with must
// outlive it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "causal/clock.hpp"
#include "causal/error.hpp"
#include "causal/kafka/client.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/handles.hpp"

namespace causal::kafka {

// Offsets [from, to) of one partition; `to` unset: to the log's end.
struct PartitionRange {
  std::string topic;
  std::int32_t partition = 0;
  Offset from = 0;
  std::optional<Offset> to;
};

// How a range finished without its handler saying so.
struct RangeEnd {
  enum class Kind {
    log_end,     // the log ends (end of partition: the LSO read_committed) at `at`
    past_range,  // the next record is at `at`, at or past `to` (a gap: markers, aborted records)
    range_read,  // the record at to - 1 was handed over; `at` is `to`
  };
  Kind kind;
  Offset at;
};

// An error event: of a range (`range` its index), or of the client (`range` == kClient).
struct ReadError {
  static constexpr std::size_t kClient = static_cast<std::size_t>(-1);
  std::size_t range = kClient;
  rd_kafka_resp_err_t code = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string text;  // librdkafka's words for it
};

// The causal.clock headers of a record.
struct ClockHeaders {
  int count = 0;
  const void* value = nullptr;  // the last one's; null for a null value
  std::size_t size = 0;
};

// One record, valid during the handler's call.
class ReadRecord {
 public:
  explicit ReadRecord(const rd_kafka_message_t* m) : m_(m) {}
  Offset offset() const { return m_->offset; }
  // The record's timestamp (ms since the epoch), or nullopt when it has none.
  std::optional<std::int64_t> timestamp() const;
  ClockHeaders clock_headers() const;
  const rd_kafka_message_t& message() const { return *m_; }

 private:
  const rd_kafka_message_t* m_;
};

enum class Step { more, done, stop };

// Why a read returned.
enum class ReadEnd {
  done,         // every range finished
  stopped,      // a handler said Step::stop
  timed_out,    // the deadline passed first
  interrupted,  // keep_going() said false
};

struct ReadHandler {
  Step end(std::size_t, const RangeEnd&) { return Step::more; }
  Step error(const ReadError&) { return Step::more; }
  bool keep_going() { return true; }
};

class PartitionReader {
 public:
  // A reader over `handle`: a consumer (enable.partition.eof=true, no auto commit) that is
  // never subscribed. `poll` is the longest one wait for an event lasts.
  PartitionReader(HandlePtr handle, std::chrono::milliseconds poll);
  // make_client(RD_KAFKA_CONSUMER, conn, defaults, log), then as above.
  static std::expected<PartitionReader, Error> open(const ConnectionOptions& conn,
                                                    const std::vector<std::pair<std::string, std::string>>& defaults,
                                                    ClientLog& log, std::chrono::milliseconds poll);
  PartitionReader(PartitionReader&&) noexcept = default;
  PartitionReader& operator=(PartitionReader&&) noexcept = default;
  // Unassigns and closes the consumer.
  ~PartitionReader();

  rd_kafka_t* handle() const { return rk_.get(); }

  // Assigns `ranges` (replacing what was assigned), each at its `from`; the error is
  // librdkafka's text.
  std::expected<void, std::string> assign(std::vector<PartitionRange> ranges);
  // Assigns nothing: fetching stops until the next assign.
  void unassign();

  // Reads until every range is finished, a handler stops it, `deadline` passes or
  // keep_going() says false.
  template <class Handler>
  ReadEnd read(std::chrono::steady_clock::time_point deadline, Handler& h);

 private:
  struct Event {
    enum class Kind { none, record, end, error } kind = Kind::none;
    std::size_t range = 0;
    bool last = false;  // a record: the range's last (at to - 1)
    RangeEnd end{RangeEnd::Kind::log_end, 0};
    ReadError error;
    MessagePtr message;
  };
  // Waits up to the poll time for the next event of a range not finished.
  Event next();
  // The index of the unfinished range `m` belongs to, or npos.
  std::size_t range_of(const rd_kafka_message_t* m) const;
  bool all_finished() const { return finished_ == ranges_.size(); }
  void finish(std::size_t range);

  HandlePtr rk_;
  int poll_ms_ = 100;
  std::vector<PartitionRange> ranges_;
  std::vector<bool> done_;
  std::size_t finished_ = 0;
};

template <class Handler>
ReadEnd PartitionReader::read(std::chrono::steady_clock::time_point deadline, Handler& h) {
  for (;;) {
    if (all_finished()) return ReadEnd::done;
    if (!h.keep_going()) return ReadEnd::interrupted;
    if (std::chrono::steady_clock::now() >= deadline) return ReadEnd::timed_out;
    Event e = next();
    Step s = Step::more;
    switch (e.kind) {
      case Event::Kind::none: continue;
      case Event::Kind::record:
        s = h.record(e.range, ReadRecord(e.message.get()));
        if (s == Step::more && e.last) s = h.end(e.range, RangeEnd{RangeEnd::Kind::range_read, e.message->offset + 1});
        if (s == Step::more && e.last) s = Step::done;
        break;
      case Event::Kind::end:
        s = h.end(e.range, e.end);
        if (s == Step::more) s = Step::done;
        break;
      case Event::Kind::error: s = h.error(e.error); break;
    }
    if (s == Step::stop) return ReadEnd::stopped;
    if (s == Step::done && e.range != ReadError::kClient) finish(e.range);
  }
}

}  // namespace causal::kafka

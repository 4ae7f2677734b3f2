// Creating librdkafka handles the same way everywhere: configuration from make_conf(), and
// librdkafka's log and error callbacks captured into a ClientLog instead of printed raw, so
// that hosts can report them as one-line notes and quote the last error in a failure. Also
// the one librdkafka call every host retries the same way: listing partitions' offsets.
//
// Thread-safety: ClientLog is written from librdkafka's threads and read from the owner's
// thread; it locks. A ClientLog must outlive every handle created with it.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "causal/error.hpp"
#include "causal/kafka/config.hpp"

namespace causal::kafka {

class ClientLog {
 public:
  virtual ~ClientLog() = default;
  // A debug line (level 7) before it is printed: true takes it (not printed). The default
  // takes none. Called on librdkafka's threads.
  virtual bool take_debug(const char* fac, const char* buf);
  // Lines not yet taken (deduplicated against the previous line), in order.
  std::vector<std::string> take();
  // The last error-level message seen (never cleared), or "".
  std::string last_error() const;
  // `message` with the last error appended as its cause, " (<line>)", when there is one.
  std::string with_cause(std::string message) const;
  void add(std::string line, bool is_error);
  // An error line from librdkafka's error callback, `reason` its text. librdkafka logs a
  // broker failure (facility FAIL, on its thread) and reports it to the error callback too
  // (on the application's, later): when one of the last FAIL lines said `reason`, this line
  // only becomes the last error, so the failure is said once.
  void add_error(std::string line, std::string_view reason);
  // The first error librdkafka reported for a partition that no longer exists in the cluster
  // (_UNKNOWN_PARTITION or _UNKNOWN_TOPIC: its topic was deleted, say), or "". librdkafka
  // reports it through the error callback only, never as a consumer event (and only once
  // topic.metadata.propagation.max.ms has passed; the host's topic IDs see it sooner).
  std::string partition_gone() const;
  // Whether partition_gone() is not "": a lock-free read, for a check made at every poll.
  bool any_partition_gone() const { return any_gone_.load(std::memory_order_acquire); }

 private:
  // Written by librdkafka's callbacks only (handle_client_log, handle_client_error).
  friend void handle_client_log(const rd_kafka_t*, int, const char*, const char*, ClientLog&);
  friend void handle_client_error(int, const char*, ClientLog&);
  void set_partition_gone(std::string line);
  // A log line of facility FAIL (a broker failure), `reason` its text after librdkafka's
  // "[thrd:NAME]: ": added, and remembered for add_error.
  void add_fail(std::string line, std::string_view reason, bool is_error);

  mutable std::mutex mu_;
  std::vector<std::string> lines_;
  std::string last_line_;
  std::string last_error_;
  std::string partition_gone_;
  std::atomic<bool> any_gone_{false};
  std::vector<std::string> recent_fail_;  // what the last FAIL lines said, for add_error
};

// Makes `log` the conf's opaque and sends librdkafka's log and error callbacks (warnings
// and errors) into it, rather than as raw lines on stderr; errors then quote
// log.last_error(). REQUIRES: `log` outlives the handle made from `conf`.
void route_client_log(rd_kafka_conf_t* conf, ClientLog& log);
// What route_client_log does with one log line, for a host whose opaque is taken: debug
// lines (only there with -X debug=..., or a member's own, see join_state.hpp) to stderr as
// librdkafka prints them unless log.take_debug() takes them, errors and warnings into
// `log`, the rest dropped.
void handle_client_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf, ClientLog& log);
// What route_client_log does with librdkafka's error callback: an error line into `log`.
void handle_client_error(int err, const char* reason, ClientLog& log);

// rd_kafka_new's refusal to make a client of `kind` ("client", "consumer", "producer"),
// with its reason `err`: a usage error (exit 2), since what librdkafka checks there is the
// configuration it was given (conflicting properties such as acks=1 with idempotence, an
// SSL certificate or key it cannot load).
Error client_refused(std::string_view kind, const char* err);

// make_conf(conn, defaults), route_client_log(conf, log), then rd_kafka_new.
// `tune`, when given, runs on the configuration last, before the handle is made (e.g. to
// set a rebalance callback).
std::expected<HandlePtr, Error> make_client(rd_kafka_type_t type, const ConnectionOptions& conn,
                                            const std::vector<std::pair<std::string, std::string>>& defaults,
                                            ClientLog& log,
                                            const std::function<void(rd_kafka_conf_t*)>& tune = {});

}  // namespace causal::kafka

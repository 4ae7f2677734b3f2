// The relay survives Kafka fencing its output producer for a transaction left open past
// transaction.timeout.ms (docs/library.md, the relay's *Errors*): a new producer takes the
// transactional id back, the input is read again from the committed offsets, and the output
// holds every input record exactly once. On 8205cba the relay stopped there with "fenced by a
// newer instance" (an audit saw a 75 s broker pause do it with the 60 s default).
//
// Here the transaction is held open on purpose: max_transaction 20 s against a transaction
// timeout of 3 s, so Kafka aborts it at its next scan (every 10 s by default) and the relay
// meets the fencing at its commit. About 25 s on the test broker.
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "broker_env.hpp"
#include "causal/kafka/relay.hpp"

namespace t = causal::test;
using namespace std::chrono_literals;

namespace {

struct Notes : causal::kafka::HostObserver {
  std::string text;
  void note(std::string_view line) override { text += std::string(line) + "\n"; }
};

}  // namespace

TEST_CASE("relay: a producer fenced for a transaction open past transaction.timeout.ms is made again, nothing lost "
          "or doubled",
          "[relay][broker]") {
  const std::string in = t::create_topic("reopen-in", 2);
  const std::string out = t::create_topic("reopen-out", 1);
  t::Producer p;
  p.send(in, {{"a", 0}, {"b", 1}, {"c", 0}, {"d", 1}});

  causal::kafka::RelayOptions opts;
  opts.input.connection.brokers = opts.output.connection.brokers = t::bootstrap();
  opts.input.group = t::unique_name("reopen");
  opts.input.channels.push_back({in, std::nullopt});
  opts.output.transactional_id = t::unique_name("reopen-txn");
  opts.output.sink_topics = {out};
  opts.output.timeout = 10s;
  opts.output.extra_defaults = {{"transaction.timeout.ms", "3000"}, {"message.timeout.ms", "3000"}};
  opts.max_transaction = 20s;  // longer than the transaction timeout and Kafka's abort scan
  auto copy = [&](const causal::kafka::RelayInput& r, std::vector<causal::kafka::RelayRecord>& emit) {
    emit.push_back({out, -1, r.key, r.value.value_or("")});
  };
  causal::Names names;
  Notes notes;
  auto relay = causal::kafka::Relay::open(opts, copy, names, &notes);
  REQUIRE(relay);

  // The four are delivered and sent in one transaction, which stays open until its commit
  // at 20 s meets the fencing; the relay re-makes its producer and reads the four again.
  const auto deadline = std::chrono::steady_clock::now() + 45s;
  while ((*relay)->counters().reopened == 0 && std::chrono::steady_clock::now() < deadline) {
    auto r = (*relay)->poll();
    INFO(notes.text);
    REQUIRE(r);
  }
  INFO(notes.text);
  REQUIRE((*relay)->counters().reopened == 1);
  CHECK(notes.text.find("a new producer took transactional id " + *opts.output.transactional_id + " back") !=
        std::string::npos);
  // Delivered again, then committed at once (a second 20 s transaction would be fenced again).
  while ((*relay)->counters().delivered < 8 && std::chrono::steady_clock::now() < deadline) REQUIRE((*relay)->poll());
  CHECK((*relay)->counters().delivered == 8);
  const auto committed = (*relay)->counters().committed;
  REQUIRE((*relay)->commit());
  CHECK((*relay)->counters().committed == committed + 1);
  CHECK((*relay)->counters().reopened == 1);
  relay->reset();

  // Exactly once: the four inputs, each once, in the committed output.
  t::Consumer c;
  c.assign(out, {0});
  std::map<std::string, int> seen;
  for (const auto& r : c.drain(15s)) ++seen[r.value];
  CHECK(seen == std::map<std::string, int>{{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}});
}

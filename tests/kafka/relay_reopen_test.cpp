// The relay survives Kafka fencing its output producer for a transaction left open past
// transaction.timeout.ms (docs/library.md, the relay's *Errors*): a new producer takes the
// transactional id back, the input is read again from the committed offsets, the output holds
// every input record exactly once, and a causal reader of the output delivers every one of
// them. Two ways to get this wrong are pinned: stopping with "fenced by a newer instance" (a
// broker pause longer than the transaction timeout would end every relay), and a new sender
// whose stamps claim the old sender's sends in flight at the fencing, never committed, so
// that a reader of the output holds every later record for good.
//
// Here a first transaction commits (the old sender's sends 1..4), then one is held open on
// purpose: max_transaction 20 s against a transaction timeout of 3 s, so Kafka aborts it at
// its next scan (every 10 s by default). Two more input records arrive after that: their
// sends (7, 8) fail with an old epoch and stay unacknowledged, and the commit at 20 s meets
// the fencing. About 25 s on the test broker.
#include <chrono>
#include <expected>
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

// A relay from every partition of `in` to `out` on the test broker, its group and
// transactional id named after `name`.
causal::kafka::RelayOptions relay_options(const std::string& in, const std::string& out, const std::string& name) {
  causal::kafka::RelayOptions opts;
  opts.input.connection.brokers = opts.output.connection.brokers = t::bootstrap();
  opts.input.group = t::unique_name(name);
  opts.input.channels.push_back({in, std::nullopt});
  opts.output.transactional_id = t::unique_name(name + "-txn");
  opts.output.sink_topics = {out};
  return opts;
}

}  // namespace

TEST_CASE("relay: a producer fenced for a transaction open past transaction.timeout.ms is made again, nothing lost "
          "or doubled",
          "[relay][broker]") {
  const std::string in = t::create_topic("reopen-in", 2);
  const std::string out = t::create_topic("reopen-out", 2);
  t::Producer p;
  p.send(in, {{"a", 0}, {"b", 1}, {"c", 0}, {"d", 1}});

  causal::kafka::RelayOptions opts = relay_options(in, out, "reopen");
  opts.output.timeout = 10s;
  opts.output.extra_defaults = {{"transaction.timeout.ms", "3000"}, {"message.timeout.ms", "3000"}};
  opts.max_transaction = 20s;  // longer than the transaction timeout and Kafka's abort scan
  // a, c, e, g to out/0 and b, d, f, h to out/1: a claim on the old sender's sends to one
  // partition, made by a record on the other, is one a reader enforces (claims on a record's
  // own partition carry nothing, docs/protocol.md rule 6).
  auto copy = [&](const causal::kafka::RelayInput& r, std::vector<causal::kafka::RelayRecord>& emit) {
    const std::string v = r.value.value_or("");
    emit.push_back({out, v.empty() ? 0 : (v[0] - 'a') % 2, r.key, v});
  };
  causal::Names names;
  Notes notes;
  auto relay = causal::kafka::Relay::open(opts, copy, names, &notes);
  REQUIRE(relay);

  // The four are delivered and committed: the old sender's sends 1..4 are in the output.
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + 55s;
  while ((*relay)->counters().delivered < 4 && std::chrono::steady_clock::now() < deadline) REQUIRE((*relay)->poll());
  REQUIRE((*relay)->commit());
  // Two more, sent in a transaction that stays open; Kafka aborts it after 3 s, at its next
  // scan (within 13 s).
  p.send(in, {{"e", 0}, {"f", 1}});
  while ((*relay)->counters().delivered < 6 && std::chrono::steady_clock::now() < deadline) REQUIRE((*relay)->poll());
  const auto opened = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < opened + 15s) REQUIRE((*relay)->poll());
  REQUIRE((*relay)->counters().reopened == 0);
  // Two more again: sent with the old epoch, refused, never acknowledged (sends 7 and 8).
  p.send(in, {{"g", 0}, {"h", 1}});
  while ((*relay)->counters().reopened == 0 && std::chrono::steady_clock::now() < deadline) {
    auto r = (*relay)->poll();
    INFO(notes.text);
    REQUIRE(r);
  }
  INFO(notes.text);
  REQUIRE((*relay)->counters().reopened == 1);
  CHECK(notes.text.find("a new producer took transactional id " + *opts.output.transactional_id + " back") !=
        std::string::npos);
  // e..h delivered again from the committed offsets, then committed at once (a second 20 s
  // transaction would be fenced again). Done when the group's commits reach the input's end:
  // a count of deliveries would not do, since a transaction aborted after the re-open (and
  // rewound) makes some of them twice and leaves others for later.
  const auto before = (*relay)->counters().delivered;
  const std::map<int32_t, int64_t> input_end{{0, 4}, {1, 4}};
  while (t::committed_offsets(*opts.input.group, in, {0, 1}) != input_end &&
         std::chrono::steady_clock::now() < deadline) {
    REQUIRE((*relay)->poll());
    if ((*relay)->counters().delivered > before) REQUIRE((*relay)->commit());
  }
  INFO(notes.text);
  REQUIRE(t::committed_offsets(*opts.input.group, in, {0, 1}) == input_end);
  CHECK((*relay)->counters().delivered >= before + 4);
  CHECK((*relay)->counters().reopened == 1);
  relay->reset();

  // Exactly once: the eight inputs, each once, in the committed output.
  t::Consumer c;
  c.assign(out, {0, 1});
  std::map<std::string, int> seen;
  for (const auto& r : c.drain(15s)) ++seen[r.value];
  CHECK(seen == std::map<std::string, int>{
                    {"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 1}, {"h", 1}});

  // And a causal reader of the output delivers all eight, holding nothing: no stamp claims a
  // send of the fenced producer that was never committed.
  causal::kafka::ConsumerOptions down;
  down.connection.brokers = t::bootstrap();
  down.channels.push_back({out, std::nullopt});
  causal::Names down_names;
  auto reader = causal::kafka::replay_to_lso(down, down_names, nullptr, 20s);
  REQUIRE(reader);
  CHECK((*reader)->gate().held_count() == 0);
  CHECK((*reader)->gate().stats().delivered == 8);
}

// Two live relays with one transactional id fence each other in turn: each takes the id
// back every time it is fenced, and the other is fenced at its next send or commit. The
// relay makes its producer again twice in a minute at most (independent faults can fence it
// that often); the third fencing within a minute ends it, with the reason said, rather than
// fence the other once more. Each relay has its own group, so both read every input
// record; input keeps arriving, so each has a transaction to be fenced in. About 10 s.
TEST_CASE("relay: two relays with one transactional id: one of them ends at its third fencing within a minute",
          "[relay][broker]") {
  const std::string in = t::create_topic("conflict-in", 2);
  const std::string out = t::create_topic("conflict-out", 2);
  causal::kafka::RelayOptions a_opts = relay_options(in, out, "conflict-a");
  causal::kafka::RelayOptions b_opts = relay_options(in, out, "conflict-b");
  b_opts.output.transactional_id = a_opts.output.transactional_id;
  auto copy = [&](const causal::kafka::RelayInput& r, std::vector<causal::kafka::RelayRecord>& emit) {
    emit.push_back({out, 0, r.key, r.value});
  };
  causal::Names a_names, b_names;
  Notes a_notes, b_notes;
  auto a = causal::kafka::Relay::open(a_opts, copy, a_names, &a_notes);
  REQUIRE(a);
  auto b = causal::kafka::Relay::open(b_opts, copy, b_names, &b_notes);  // fences a's first producer
  REQUIRE(b);

  t::Producer p;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  std::expected<void, causal::Error> ra, rb;
  int sent = 0;
  while ((ra = (*a)->poll()) && (rb = (*b)->poll()) && std::chrono::steady_clock::now() < deadline) {
    p.send(in, t::Record("v" + std::to_string(sent), sent % 2));
    ++sent;
  }
  INFO("relay a: " << a_notes.text << "relay b: " << b_notes.text << sent << " records sent");
  const bool a_ended = !ra;
  REQUIRE((a_ended || !rb));
  const causal::Error& why = a_ended ? ra.error() : rb.error();
  auto& ended = a_ended ? *a : *b;
  CHECK(why.message.find("fenced a third time within a minute of taking transactional id " +
                         *a_opts.output.transactional_id + " back: another process uses it") != std::string::npos);
  CHECK(ended->counters().reopened == 2);
}

// A record the transform got wrong fails the same way after every rewind: the relay stops
// with the usage error, its transaction aborted, nothing of it in the output, rather than
// abort and rewind for ever with poll() never failing.
TEST_CASE("relay: a transform writing to a partition its topic does not have ends the relay, nothing written",
          "[relay][broker]") {
  const std::string in = t::create_topic("badpart-in", 1);
  const std::string out = t::create_topic("badpart-out", 2);
  t::Producer p;
  p.send(in, {{"a", 0}, {"b", 0}});

  causal::kafka::RelayOptions opts = relay_options(in, out, "badpart");
  auto to_seven = [&](const causal::kafka::RelayInput& r, std::vector<causal::kafka::RelayRecord>& emit) {
    emit.push_back({out, 7, r.key, r.value});  // partition 7 of a 2-partition topic
  };
  causal::Names names;
  Notes notes;
  auto relay = causal::kafka::Relay::open(opts, to_seven, names, &notes);
  REQUIRE(relay);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  std::expected<void, causal::Error> r;
  int polls = 0;
  while ((r = (*relay)->poll()) && std::chrono::steady_clock::now() < deadline) ++polls;
  INFO(notes.text << " after " << polls << " polls");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == causal::Errc::usage);
  CHECK(r.error().message.starts_with("the transform's output: topic '" + out +
                                      "' has 2 partition(s); partition 7 does not exist"));
  CHECK((*relay)->counters().aborted == 1);
  relay->reset();
  CHECK(t::high_watermark(out, 0) == 0);
  CHECK(t::high_watermark(out, 1) == 0);
}

// An input topic deleted and re-created under a running relay: the member's log-restart
// failure (ConsumerHost::poll) ends the relay, its transaction aborted. A rewind would have
// started the partition at the old log's commit and failed again, for ever.
TEST_CASE("relay: an input topic re-created under the relay ends it, its transaction aborted", "[relay][broker]") {
  const std::string in = t::create_topic("recreated-in", 1);
  const std::string out = t::create_topic("recreated-out", 1);
  t::Producer p;
  p.send(in, {{"a", 0}, {"b", 0}, {"c", 0}});

  causal::kafka::RelayOptions opts = relay_options(in, out, "recreated");
  auto copy = [&](const causal::kafka::RelayInput& r, std::vector<causal::kafka::RelayRecord>& emit) {
    emit.push_back({out, 0, r.key, r.value});
  };
  causal::Names names;
  Notes notes;
  auto relay = causal::kafka::Relay::open(opts, copy, names, &notes);
  REQUIRE(relay);
  const auto deadline = std::chrono::steady_clock::now() + 40s;
  while ((*relay)->counters().delivered < 3 && std::chrono::steady_clock::now() < deadline) REQUIRE((*relay)->poll());
  REQUIRE((*relay)->commit());

  t::delete_topic(in);  // then create it again under the same name
  for (int attempt = 0;; ++attempt) {
    try {
      t::create_topic_named(in, 1);
      break;
    } catch (const std::exception& e) {  // the deletion may still be under way
      if (attempt == 20) FAIL("cannot re-create " << in << ": " << e.what());
      std::this_thread::sleep_for(500ms);
    }
  }
  p.send(in, {{"n1", 0}, {"n2", 0}});
  std::expected<void, causal::Error> r;
  while ((r = (*relay)->poll()) && std::chrono::steady_clock::now() < deadline) {
  }
  INFO(notes.text);
  REQUIRE_FALSE(r);
  // Whichever is seen first: the topic's new ID, the topic gone, or the old position out of
  // range in the new log.
  CHECK((r.error().message.find("topic '" + in + "' was deleted and re-created: its topic ID is ") !=
             std::string::npos ||
         r.error().message.find(in + "/0: its log restarted below the position this consumer had reached") !=
             std::string::npos ||
         r.error().message.find("(its topic deleted?): topic '" + in + "'") != std::string::npos));
  CHECK(r.error().message.find("the transaction is aborted and nothing of it committed") != std::string::npos);
}

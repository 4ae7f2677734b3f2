// causal demo: the gate holding and releasing records, with no broker to set up.
//
// Starts librdkafka's in-process mock cluster (one broker, topic "shop" with 3 partitions:
// 0 = orders, 1 = payments, 2 = shipments) and appends a small shop workload whose effects
// land before their causes: an order causes a payment causes a shipment, each effect stamped
// with a hand-built causal.clock claiming its cause's offset (known in advance: the mock
// starts empty). One record is appended at a time and the tail, the same ConsumerHost that
// `causal tail` uses, receives it before the next, so the holds are deterministic.
//
// The mock cluster writes no transaction markers and reports LSO = high watermark: this shows
// the gate, never Kafka's behaviour. tests/tail runs the real broker for that.
#include <chrono>
#include <thread>

#include <fmt/core.h>
#include <unistd.h>

#include "causal/codec.hpp"
#include "causal/kafka/consumer_host.hpp"
#include "causal/kafka/mock_cluster.hpp"
#include "causal/kafka/producer_host.hpp"
#include "output.hpp"
#include "subcommands.hpp"
#include "record_writer.hpp"

namespace causal::cli {

void print_tail_summary(const kafka::ConsumerHost& host, const RecordWriter& w, std::string_view prog, bool counters);

struct DemoOptions {
  Format format = Format::text;
  std::string format_text = "text";
  int pace_ms = 0;
};

Outcome run_demo(const DemoOptions& o);

void setup_demo(CLI::App& sub, Outcome& result) {
  auto o = std::make_shared<DemoOptions>();
  // A plain string option: with the shared add_format_option the parsed value did not reach
  // o->format before this subcommand's callback ran (CLI11 2.1.2); converted in the callback.
  one_of(sub.add_option("--format", o->format_text, "Output format: text|jsonl (default text)"), {"text", "jsonl"});
  sub.add_option("--pace-ms", o->pace_ms, "Pause this long between appends (to watch it happen)")
      ->check(whole_number(0));
  sub.footer(R"(Examples:
  causal demo
  causal demo --pace-ms 700
  causal demo --format jsonl | jq -c 'select(.event) // {offset, partition, value, released_by}'

Needs no broker: librdkafka's in-process mock cluster (no transaction markers, LSO = high
watermark) stands in for Kafka. Exit status: 0 when every record was delivered in causal order.)");
  sub.callback([o, &result] {
    o->format = o->format_text == "jsonl" ? Format::jsonl : o->format_text == "json" ? Format::json : Format::text;
    result = run_demo(*o);
  });
}

namespace {

constexpr const char* kTopic = "shop";

struct Step {
  const char* narration;
  std::int32_t partition;
  const char* key;
  const char* value;
  // The cause this record claims, as (partition, offset) on kTopic; -1: no causal.clock.
  std::int32_t cause_partition;
  Offset cause_offset;
};

// partition 0 = orders, 1 = payments, 2 = shipments. Offsets are those the mock assigns.
constexpr Step kSteps[] = {
    {"The shipment of order 1 is appended first; it claims payment shop/1@0, not there yet.", 2, "order-1",
     "shipment: order 1 handed to the courier", 1, 0},
    {"Then its payment, which claims the order shop/0@0, not there yet either.", 1, "order-1",
     "payment: order 1 paid, 42.00 EUR", 0, 0},
    {"Now the order itself: it claims nothing, is delivered, and the cascade releases the payment, "
     "then the shipment.",
     0, "order-1", "order: order 1 placed", -1, 0},
    {"Order 2 arrives in causal order and flows straight through.", 0, "order-2", "order: order 2 placed", -1, 0},
    {"Its shipment overtakes its payment: held on shop/1@1.", 2, "order-2", "shipment: order 2 handed to the courier",
     1, 1},
    {"The payment of order 2 claims shop/0@1, already delivered: it goes, and releases the shipment.", 1, "order-2",
     "payment: order 2 paid, 17.50 EUR", 0, 1},
    {"A record without a causal.clock header claims nothing and is never held.", 1, nullptr,
     "newsletter: spring sale (no clock)", -2, 0},
};

}  // namespace

Outcome run_demo(const DemoOptions& o) {
  auto mock = kafka::MockCluster::start(kTopic, 3);
  if (!mock) return std::unexpected(mock.error());
  kafka::ConnectionOptions conn;
  conn.brokers = (*mock)->bootstrap();

  bool text = o.format == Format::text;
  bool colour = text && use_colour(STDOUT_FILENO);
  // Narration goes through stdio, records through the RecordWriter's write(2); each is
  // flushed before the other writes. Not fmt::print, which throws on a failed write: the
  // run stops at the step after one instead (output.hpp).
  auto say = [&](std::string_view line) {
    if (!text || output::failed()) return;
    std::string s = fmt::format("{}# {}{}\n", colour ? "\x1b[1m" : "", line, colour ? "\x1b[0m" : "");
    std::fwrite(s.data(), 1, s.size(), stdout);
    output::flush();
  };
  say(fmt::format("causal demo: librdkafka's in-process mock cluster at {}, topic '{}' with partitions "
                  "0 orders, 1 payments, 2 shipments.",
                  conn.brokers, kTopic));
  say("Every line below the '#' lines is printed by the same consumer host as `causal tail --show-held`.");

  Names names;
  RecordWriter::Settings ws;
  ws.format = o.format;
  ws.colour = colour;
  ws.show_held = true;
  ws.prog = "causal demo";
  RecordWriter writer(ws, names);

  kafka::ConsumerOptions co;
  co.connection = conn;
  co.channels = {kafka::Selector{kTopic, std::nullopt}};
  co.poll_timeout = std::chrono::milliseconds(50);
  auto opened = kafka::ConsumerHost::open(co, names, &writer);
  if (!opened) return std::unexpected(opened.error());
  auto& tail = **opened;
  writer.set_gate(&tail.gate());
  writer.begin();

  kafka::ProducerOptions po;
  po.connection = conn;
  po.stamp = false;  // hand-built stamps below: effects claim causes not yet appended
  po.wait_acks = true;
  po.sink_topics = {kTopic};
  auto produced = kafka::ProducerHost::open(po, names);
  if (!produced) return std::unexpected(produced.error());
  auto& producer = **produced;

  SenderId shop = names.sender("demo-shop");
  SeqNo seq = 0;
  std::vector<std::byte> header;
  for (const Step& s : kSteps) {
    say(s.narration);
    kafka::OutRecord r;
    r.topic = kTopic;
    r.partition = s.partition;
    if (s.key) r.key = std::string_view(s.key);
    r.value = std::string_view(s.value);
    if (s.cause_partition >= -1) {
      Clock c;
      c.origin = Origin{shop, ++seq};
      if (s.cause_partition >= 0) c.claim(names.channel(kTopic, s.cause_partition), s.cause_offset);
      header.clear();
      encode(c, names, header);
      r.headers.push_back({kClockHeader, std::string_view(reinterpret_cast<const char*>(header.data()), header.size())});
    }
    if (auto sent = producer.send(r); !sent) return std::unexpected(sent.error());
    // Wait until the tail has received it, so that the next append comes after.
    auto before = tail.gate().stats().received;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (tail.gate().stats().received == before) {
      if (std::chrono::steady_clock::now() > until) {
        return std::unexpected(runtime_error("the demo's tail did not receive its record within 10 s"));
      }
      if (auto p = tail.poll(); !p) return std::unexpected(p.error());
      writer.flush();
    }
    writer.flush();
    if (output::failed()) return {};  // nobody reads on, or output is lost: main() says which
    if (o.pace_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.pace_ms));
  }
  if (auto r = tail.poll_until_caught_up(nullptr, std::chrono::seconds(10)); !r) return std::unexpected(r.error());
  writer.finish();
  output::flush();
  const GateStats& st = tail.gate().stats();
  say(fmt::format("Delivered {} of {} records in causal order; {} were held on arrival and released when "
                  "their causes were delivered.",
                  st.delivered, st.received, st.holds));
  say("Note: the mock cluster writes no transaction markers and its LSO equals the high watermark;");
  say("it shows the gate's holds and releases, not Kafka's behaviour. Try `causal tail` on a real cluster.");
  print_tail_summary(tail, writer, "causal demo", false);
  if (tail.gate().held_count() > 0) return std::unexpected(Error{Errc::held, ""});
  return {};
}

}  // namespace causal::cli

// A minimal gated consumer on the installed causal library: reads the named topics from the
// beginning through the delivery gate and prints each record, in delivery order, as
// "topic/partition@offset value"; exits 0 once every partition is caught up to its last
// stable offset with nothing held, 4 when records are still held then, 3 when a partition
// failed closed on an undecodable causal.clock header (named on stderr; nothing at or after
// it there is read), 1 on a failure.
//
//   gated_consumer BROKERS TOPIC...
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <causal/kafka/consumer_host.hpp>
#include <causal/version.hpp>

namespace {

// Prints every record the gate delivers (the message is valid only during the call).
struct Printer : causal::kafka::HostObserver {
  causal::Names* names = nullptr;
  void delivered(const causal::Delivery& d, const rd_kafka_message_t& msg) override {
    std::printf("%s@%lld %.*s\n", names->channel_text(d.channel).c_str(), static_cast<long long>(d.offset),
                static_cast<int>(msg.len), static_cast<const char*>(msg.payload));
  }
  // The partition stops at that record: say where and why.
  void failed_closed(const causal::kafka::HeaderFailure& f) override {
    std::fprintf(stderr, "gated_consumer: %s\n", f.message.c_str());
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gated_consumer BROKERS TOPIC... (causal %s)\n", causal::version.data());
    return 2;
  }
  causal::kafka::ConsumerOptions opts;
  opts.connection.brokers = argv[1];
  for (int i = 2; i < argc; ++i) opts.channels.push_back({argv[i], std::nullopt});

  causal::Names names;
  Printer printer;
  printer.names = &names;
  auto host = causal::kafka::ConsumerHost::open(opts, names, &printer);
  if (!host) {
    std::fprintf(stderr, "gated_consumer: %s\n", host.error().message.c_str());
    return 1;
  }
  if (auto done = (*host)->poll_until_caught_up(nullptr, std::chrono::seconds(30)); !done) {
    std::fprintf(stderr, "gated_consumer: %s\n", done.error().message.c_str());
    return 1;
  }
  if (!(*host)->failures().empty()) return 3;  // caught up there means stopped at the failure
  return (*host)->gate().held_count() == 0 ? 0 : 4;
}

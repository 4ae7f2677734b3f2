// relay [--group-protocol classic|consumer] [-X KEY=VALUE]... BROKERS GROUP TRANSACTIONAL_ID
//       OUTPUT_TOPIC INPUT_TOPIC...:
// an exactly-once relay that upper-cases values. Joins GROUP (with the classic group protocol,
// or KIP-848's consumer protocol), reads the input topics through the gate, writes each
// delivered record's value upper-cased to OUTPUT_TOPIC (same key), stamped, in transactions
// that also commit the input offsets. -X sets a librdkafka property on both its consumer and
// its producer (librdkafka ignores, with a warning, one that is the other client's). Runs
// until SIGINT or SIGTERM (exit 0; 1 on a failure, the last commit's included; 2 on bad
// arguments). With RELAY_METRICS_PORT=N it serves its health on http://127.0.0.1:N/metrics
// for Prometheus (0: a free port, named on stderr).
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <httplib.h>

#include <causal/kafka/health.hpp>
#include <causal/kafka/relay.hpp>

namespace {
volatile std::sig_atomic_t g_stop = 0;
struct Notes : causal::kafka::HostObserver {
  void note(std::string_view text) override { std::fprintf(stderr, "relay: %.*s\n", static_cast<int>(text.size()), text.data()); }
};
}  // namespace

int main(int argc, char** argv) {
  auto protocol = causal::kafka::ConsumerOptions::GroupProtocol::classic;
  std::vector<std::string> properties;  // -X KEY=VALUE, in order
  while (argc > 2) {
    const std::string_view flag = argv[1], value = argv[2];
    if (flag == "--group-protocol") {
      if (value != "classic" && value != "consumer") {
        return std::fprintf(stderr, "relay: --group-protocol: classic or consumer\n"), 2;
      }
      if (value == "consumer") protocol = causal::kafka::ConsumerOptions::GroupProtocol::consumer;
    } else if (flag == "-X") {
      if (value.find('=') == std::string_view::npos) return std::fprintf(stderr, "relay: -X: KEY=VALUE\n"), 2;
      properties.emplace_back(value);
    } else {
      break;
    }
    argv += 2;
    argc -= 2;
  }
  if (argc < 6) {
    return std::fprintf(stderr, "usage: relay [--group-protocol classic|consumer] [-X KEY=VALUE]... BROKERS GROUP "
                                "TRANSACTIONAL_ID OUTPUT_TOPIC INPUT_TOPIC...\n"),
           2;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  const std::string output = argv[4];
  causal::kafka::RelayOptions opts;
  opts.input.connection.brokers = opts.output.connection.brokers = argv[1];
  opts.input.connection.properties = opts.output.connection.properties = properties;
  opts.input.group = argv[2];
  opts.output.transactional_id = argv[3];
  opts.output.sender_prefix = std::string("relay-") + argv[3];
  opts.output.sink_topics = {output};
  for (int i = 5; i < argc; ++i) opts.input.channels.push_back({argv[i], std::nullopt});
  opts.input.group_protocol = protocol;
  // A relay killed without leaving the group hands its partitions over after 6 s, the
  // brokers' lowest session timeout, rather than librdkafka's default 45 s. A member of the
  // consumer protocol has the broker's (group.consumer.session.timeout.ms) and may not set it.
  if (protocol == causal::kafka::ConsumerOptions::GroupProtocol::classic) {
    opts.input.extra_defaults = {{"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "1500"}};
  }

  // The input's key and value are the transform's: moved into the output, not copied.
  auto upper = [&](causal::kafka::RelayInput& in, std::vector<causal::kafka::RelayRecord>& out) {
    causal::kafka::RelayRecord r{output, -1, std::move(in.key), in.value ? std::move(in.value) : std::string()};
    std::transform(r.value->begin(), r.value->end(), r.value->begin(), [](unsigned char c) { return std::toupper(c); });
    out.push_back(std::move(r));
  };
  causal::Names names;
  Notes notes;
  auto relay = causal::kafka::Relay::open(opts, upper, names, &notes);
  if (!relay) return std::fprintf(stderr, "relay: %s\n", relay.error().message.c_str()), 1;
  httplib::Server metrics;  // its thread calls health(), which is safe while this one polls
  metrics.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    causal::kafka::MetricsText text;
    causal::kafka::write_metrics(text, (*relay)->health());
    res.set_content(text.text(), std::string(causal::kafka::kMetricsContentType));
  });
  std::thread serving;
  if (const char* env = std::getenv("RELAY_METRICS_PORT")) {
    int port = std::atoi(env);
    port = port == 0 ? metrics.bind_to_any_port("127.0.0.1") : metrics.bind_to_port("127.0.0.1", port) ? port : -1;
    if (port <= 0) return std::fprintf(stderr, "relay: cannot listen on 127.0.0.1:%s\n", env), 1;
    std::fprintf(stderr, "relay: serving metrics on http://127.0.0.1:%d/metrics\n", port);
    serving = std::thread([&] { metrics.listen_after_bind(); });
  }
  int rc = 0;
  while (!g_stop && rc == 0) {
    if (auto r = (*relay)->poll(); !r) rc = (std::fprintf(stderr, "relay: %s\n", r.error().message.c_str()), 1);
  }
  if (serving.joinable()) {
    while (!metrics.is_running()) std::this_thread::yield();  // stop() is lost before the loop runs
    metrics.stop();
    serving.join();
  }
  if (rc != 0) return rc;
  // The last commit: a failure that aborts (the brokers away, say) loses nothing, since the
  // next run reads that input again, but it is said, and the exit status is 1.
  const auto aborted = (*relay)->counters().aborted;
  if (auto c = (*relay)->commit(); !c) return std::fprintf(stderr, "relay: %s\n", c.error().message.c_str()), 1;
  const auto& n = (*relay)->counters();
  std::fprintf(stderr, "relay: %llu delivered, %llu emitted, %llu transactions committed, %llu aborted, %llu producers "
               "made again after fencing\n",
               static_cast<unsigned long long>(n.delivered), static_cast<unsigned long long>(n.emitted),
               static_cast<unsigned long long>(n.committed), static_cast<unsigned long long>(n.aborted),
               static_cast<unsigned long long>(n.reopened));
  if (n.aborted != aborted) {
    std::fprintf(stderr, "relay: the last transaction was aborted, not committed: its input is read again by the "
                         "next run\n");
    return 1;
  }
  return 0;
}

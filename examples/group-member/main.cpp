// group_member BROKERS GROUP TOPIC...: joins GROUP, prints records in delivery order, commits
// as it goes; runs until SIGINT or SIGTERM (exit 0; 3 when a partition failed closed on an
// undecodable header, named on stderr at once; 1 on a failure; 2 on bad arguments).
// With GROUP_MEMBER_METRICS_PORT=N it serves its health on http://127.0.0.1:N/metrics for
// Prometheus (0: a free port, named on stderr).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <httplib.h>

#include <causal/kafka/consumer_host.hpp>
#include <causal/kafka/health.hpp>

namespace {
volatile std::sig_atomic_t g_stop = 0;
struct Printer : causal::kafka::HostObserver {
  causal::Names* names = nullptr;
  void delivered(const causal::Delivery& d, const rd_kafka_message_t& m) override {
    std::printf("%s@%lld %.*s\n", names->channel_text(d.channel).c_str(), static_cast<long long>(d.offset),
                static_cast<int>(m.len), static_cast<const char*>(m.payload));
    std::fflush(stdout);
  }
  bool failed = false;
  void failed_closed(const causal::kafka::HeaderFailure& f) override {  // the partition stops there
    std::fprintf(stderr, "group_member: %s\n", f.message.c_str());
    failed = true;
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return std::fprintf(stderr, "usage: group_member BROKERS GROUP TOPIC...\n"), 2;
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  causal::kafka::ConsumerOptions opts;
  opts.connection.brokers = argv[1];
  opts.group = argv[2];
  for (int i = 3; i < argc; ++i) opts.channels.push_back({argv[i], std::nullopt});
  causal::Names names;
  Printer printer;
  printer.names = &names;
  auto member = causal::kafka::ConsumerHost::join(opts, names, &printer);  // commits every 5 s
  if (!member) return std::fprintf(stderr, "group_member: %s\n", member.error().message.c_str()), 1;
  httplib::Server metrics;  // its thread calls health(), which is safe while this one polls
  metrics.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    causal::kafka::MetricsText text;
    causal::kafka::write_metrics(text, (*member)->health());
    res.set_content(text.text(), std::string(causal::kafka::kMetricsContentType));
  });
  std::thread serving;
  if (const char* env = std::getenv("GROUP_MEMBER_METRICS_PORT")) {
    int port = std::atoi(env);
    port = port == 0 ? metrics.bind_to_any_port("127.0.0.1") : metrics.bind_to_port("127.0.0.1", port) ? port : -1;
    if (port <= 0) return std::fprintf(stderr, "group_member: cannot listen on 127.0.0.1:%s\n", env), 1;
    std::fprintf(stderr, "group_member: serving metrics on http://127.0.0.1:%d/metrics\n", port);
    serving = std::thread([&] { metrics.listen_after_bind(); });
  }
  int rc = 0;
  while (!g_stop && rc == 0) {
    if (auto r = (*member)->poll(); !r) rc = (std::fprintf(stderr, "group_member: %s\n", r.error().message.c_str()), 1);
  }
  if (serving.joinable()) {
    while (!metrics.is_running()) std::this_thread::yield();  // stop() is lost before the loop runs
    metrics.stop();
    serving.join();
  }
  if (rc != 0) return rc;
  auto last = (*member)->commit();  // then leaving the group (the destructor) hands the partitions over
  if (!last) return std::fprintf(stderr, "group_member: %s\n", last.error().message.c_str()), 1;
  return printer.failed ? 3 : 0;
}

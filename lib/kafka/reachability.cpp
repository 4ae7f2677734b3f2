#include "causal/kafka/reachability.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/core.h>

namespace causal::kafka {

namespace {

enum class Outcome { accepted, refused, unknown };

// host and port of one bootstrap entry (port 9092 when it names none, as librdkafka does);
// nullopt for a form the probe does not read (a bare IPv6 address).
std::optional<std::pair<std::string, std::string>> split_entry(std::string entry) {
  if (auto scheme = entry.find("://"); scheme != std::string::npos) entry = entry.substr(scheme + 3);
  // Without a port librdkafka connects to 9092, and so does the probe.
  if (entry.starts_with("[")) {
    if (entry.ends_with("]")) return std::pair{entry.substr(1, entry.size() - 2), std::string("9092")};
    auto close = entry.find("]:");
    if (close == std::string::npos) return std::nullopt;
    return std::pair{entry.substr(1, close - 1), entry.substr(close + 2)};
  }
  auto colon = entry.rfind(':');
  if (colon == std::string::npos) return std::pair{entry, std::string("9092")};
  if (colon == 0 || entry.find(':') != colon) return std::nullopt;  // a bare IPv6 address: librdkafka judges
  return std::pair{entry.substr(0, colon), entry.substr(colon + 1)};
}

Outcome connect_once(const addrinfo& ai, std::chrono::milliseconds wait) {
  int fd = ::socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return Outcome::unknown;
  Outcome out = Outcome::unknown;
  if (::connect(fd, ai.ai_addr, ai.ai_addrlen) == 0) {
    out = Outcome::accepted;
  } else if (errno == ECONNREFUSED) {
    out = Outcome::refused;
  } else if (errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) == 1) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      out = err == 0 ? Outcome::accepted : err == ECONNREFUSED ? Outcome::refused : Outcome::unknown;
    }
  }
  ::close(fd);
  return out;
}

// "" when some address may be reachable; otherwise why none is, for the message. Each
// reason names its entry unless the list has one entry (the message names the list).
std::string probe(const std::string& list, std::chrono::milliseconds wait) {
  std::vector<std::string> why;
  std::vector<std::string> reasons;  // the same, without the entry's name
  std::size_t start = 0;
  while (start <= list.size()) {
    auto comma = list.find(',', start);
    std::string entry = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    if (entry.empty()) continue;
    auto hp = split_entry(entry);
    if (!hp) return "";  // not a form this probe reads: let librdkafka judge it
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(hp->first.c_str(), hp->second.c_str(), &hints, &res); rc != 0) {
      why.push_back(fmt::format("{}: {}", entry, ::gai_strerror(rc)));
      reasons.push_back(::gai_strerror(rc));
      continue;
    }
    const std::string port_note = entry.ends_with(":" + hp->second) ? "" : " (port 9092: none given)";
    bool all_refused = true;
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
      if (connect_once(*ai, wait) != Outcome::refused) {
        all_refused = false;
        break;
      }
    }
    ::freeaddrinfo(res);
    if (!all_refused) return "";
    why.push_back(fmt::format("{}: connection refused{}", entry, port_note));
    reasons.push_back("connection refused" + port_note);
  }
  if (why.empty()) return "";
  if (why.size() == 1) return reasons.front();
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
  return text;
}

}  // namespace

std::expected<void, Error> probe_bootstrap(const std::string& bootstrap_servers, std::chrono::milliseconds per_address) {
  static std::mutex mu;
  static std::map<std::string, std::string> known;  // list -> why unreachable ("" reachable)
  std::string why;
  {
    std::lock_guard lock(mu);
    if (auto it = known.find(bootstrap_servers); it != known.end()) {
      why = it->second;
    } else {
      why = known[bootstrap_servers] = probe(bootstrap_servers, per_address);
    }
  }
  if (why.empty()) return {};
  return std::unexpected(runtime_error(fmt::format(
      "cannot reach the Kafka brokers at {}: {}; {}", bootstrap_servers, why, kCheckBrokers), "brokers"));
}

std::string check_brokers_after(std::chrono::milliseconds waited) {
  return fmt::format(
      "check the broker list (`brokers`, $CAUSAL_BROKERS, or bootstrap.servers from `properties`, `property_files` or "
      "the configuration file), that the brokers are up, and that {} ms (`timeout_ms`) is long enough for them to "
      "answer",
      waited.count());
}

}  // namespace causal::kafka

// A TCP listener that accepts connections and never answers: a broker that is there but
// does not speak. Tests use it to show that --timeout-ms bounds the wait on such a
// cluster (a refusing address is reported at once instead, see lib/kafka/reachability).
// Prints its port on stdout, then holds every connection open until killed or until
// the lifetime (argv[1], seconds; default 60) ends.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  int lifetime_s = argc > 1 ? std::atoi(argv[1]) : 60;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("silent_listener");
    return 1;
  }
  std::printf("%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);
  std::vector<int> held;  // accepted and never read, never written
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(lifetime_s);
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) > 0) {
      int c = ::accept(fd, nullptr, nullptr);
      if (c >= 0) held.push_back(c);
    }
  }
  return 0;
}

#include "watch/metrics_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace cqlite::watch {
namespace {

// One HTTP/1.0 exchange with 127.0.0.1:port: the whole answer.
std::string Get(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return "<cannot connect>";
  }
  if (::send(fd, request.data(), request.size(), 0) < 0) return "<cannot send>";
  std::string answer;
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) answer.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return answer;
}

TEST(MetricsServerTest, ServesMetricsOnLoopbackAndNothingElse) {
  int calls = 0;
  auto server = MetricsServer::Start(0, [&calls] {
    ++calls;
    return std::string("# TYPE cqlite_watch_rows gauge\ncqlite_watch_rows{table=\"ks.t\"} 3\n");
  });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  int port = (*server)->port();
  ASSERT_GT(port, 0);
  std::string ok = Get(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << ok;
  EXPECT_NE(ok.find("\r\n\r\n# TYPE cqlite_watch_rows gauge\ncqlite_watch_rows{table=\"ks.t\"} 3\n"),
            std::string::npos)
      << ok;
  std::string missing = Get(port, "GET /other HTTP/1.0\r\n\r\n");
  EXPECT_EQ(missing.rfind("HTTP/1.0 404", 0), 0u) << missing;
  std::string garbage = Get(port, "\x01\x02\r\n\r\n");
  EXPECT_EQ(garbage.rfind("HTTP/1.0 404", 0), 0u) << garbage;
  EXPECT_EQ(calls, 1);
  // Taken: a second server on the same port is refused, naming the address.
  auto second = MetricsServer::Start(port, [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("127.0.0.1:" + std::to_string(port)), std::string::npos);
  server->reset();
  EXPECT_EQ(Get(port, "GET /metrics HTTP/1.0\r\n\r\n"), "<cannot connect>");
}

}  // namespace
}  // namespace cqlite::watch

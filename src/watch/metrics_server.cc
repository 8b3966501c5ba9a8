#include "watch/metrics_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

namespace cqlite::watch {

namespace {

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(int port, Render render) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IOError(StrCat("metrics socket: ", std::strerror(errno)));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || ::listen(fd, 16) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IOError(StrCat("127.0.0.1:", port, ": cannot serve /metrics: ", std::strerror(err)));
  }
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  std::unique_ptr<MetricsServer> server(new MetricsServer(fd, ntohs(address.sin_port), std::move(render)));
  if (::pipe2(server->stop_pipe_, O_CLOEXEC) != 0) return Status::IOError(StrCat("pipe: ", std::strerror(errno)));
  server->thread_ = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

MetricsServer::MetricsServer(int listen_fd, int port, Render render)
    : listen_fd_(listen_fd), port_(port), render_(std::move(render)) {}

MetricsServer::~MetricsServer() {
  if (thread_.joinable()) {
    char byte = 0;
    if (::write(stop_pipe_[1], &byte, 1) < 0) {
      // The thread then ends at its next poll timeout.
    }
    thread_.join();
  }
  for (int fd : stop_pipe_) {
    if (fd >= 0) ::close(fd);
  }
  ::close(listen_fd_);
}

void MetricsServer::Serve() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    int n = ::poll(fds, 2, 1000);
    if (n < 0 && errno != EINTR) return;
    if (fds[1].revents) return;
    if (n <= 0 || !(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Answer(fd);
    ::close(fd);
  }
}

void MetricsServer::Answer(int fd) {
  std::string request;
  char buffer[4096];
  while (request.find("\r\n\r\n") == std::string::npos && request.find("\n\n") == std::string::npos &&
         request.size() < 16384) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) return;
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    request.append(buffer, static_cast<size_t>(n));
  }
  size_t end = request.find_first_of("\r\n");
  std::vector<std::string> words = Split(request.substr(0, end), ' ');
  std::string status = "404 Not Found";
  std::string body = "not found; try /metrics\n";
  std::string type = "text/plain; charset=utf-8";
  if (words.size() >= 2 && (words[0] == "GET" || words[0] == "HEAD") &&
      (words[1] == "/metrics" || StartsWith(words[1], "/metrics?"))) {
    status = "200 OK";
    body = render_();
    type = "text/plain; version=0.0.4; charset=utf-8";
  }
  WriteAll(fd, StrCat("HTTP/1.0 ", status, "\r\nContent-Type: ", type, "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", words.size() >= 1 && words[0] == "HEAD" ? "" : body));
}

}  // namespace cqlite::watch

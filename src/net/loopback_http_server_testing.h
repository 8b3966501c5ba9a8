// A scripted HTTP/1.1 server for unit tests, on 127.0.0.1 only (a free port
// the kernel picks): each request is handed to a function that says what to
// answer, or to drop the connection without an answer, or to answer late.
// One connection at a time, each closed after one answer. Started by the
// test and stopped by its destructor. Test-only; not thread-safe beyond the
// handler being called on the server's own thread.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/strings.h"

namespace cqlite::net {

struct ReceivedRequest {
  std::string method;
  std::string target;  // path and query, as sent
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

struct ScriptedAnswer {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  bool drop = false;   // close the connection without answering
  int delay_ms = 0;    // wait before answering
  std::vector<std::pair<std::string, std::string>> headers = {};  // more header fields to send
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<ScriptedAnswer(const ReceivedRequest&)>;

  explicit LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listen_fd_, 16) != 0) {
      ::close(listen_fd_);
      listen_fd_ = -1;
      return;
    }
    socklen_t length = sizeof(address);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }

  ~LoopbackHttpServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  std::string Url(const std::string& path = "") const { return StrCat("http://127.0.0.1:", port_, path); }

  // Every request received so far, in order.
  std::vector<ReceivedRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      Answer(fd);
      ::close(fd);
    }
  }

  // Reads until `done` says the request is whole, the peer closes, or 5 s pass.
  bool ReadRequest(int fd, ReceivedRequest* request) {
    std::string data;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    size_t header_end = std::string::npos;
    size_t content_length = 0;
    while (std::chrono::steady_clock::now() < deadline && !stop_) {
      if (header_end != std::string::npos && data.size() >= header_end + 4 + content_length) break;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buffer[8192];
      ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) return false;
      data.append(buffer, static_cast<size_t>(n));
      if (header_end == std::string::npos && (header_end = data.find("\r\n\r\n")) != std::string::npos) {
        std::vector<std::string> lines = Split(data.substr(0, header_end), '\n');
        std::vector<std::string> first = Split(std::string(Trim(lines[0])), ' ');
        if (first.size() < 2) return false;
        request->method = first[0];
        request->target = first[1];
        for (size_t i = 1; i < lines.size(); ++i) {
          size_t colon = lines[i].find(':');
          if (colon == std::string::npos) continue;
          request->headers[ToLowerAscii(lines[i].substr(0, colon))] = std::string(Trim(lines[i].substr(colon + 1)));
        }
        auto length = request->headers.find("content-length");
        if (length != request->headers.end()) content_length = std::stoul(length->second);
      }
    }
    if (header_end == std::string::npos) return false;
    request->body = data.substr(header_end + 4, content_length);
    return true;
  }

  void Answer(int fd) {
    ReceivedRequest request;
    if (!ReadRequest(fd, &request)) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(request);
    }
    ScriptedAnswer answer = handler_(request);
    if (answer.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(answer.delay_ms));
    if (answer.drop) return;
    std::string out = StrCat("HTTP/1.1 ", answer.status, " Scripted\r\nContent-Length: ", answer.body.size(),
                             "\r\nConnection: close\r\n");
    if (!answer.content_type.empty()) out += StrCat("Content-Type: ", answer.content_type, "\r\n");
    for (const auto& [name, value] : answer.headers) out += StrCat(name, ": ", value, "\r\n");
    out += "\r\n";
    if (request.method != "HEAD") out += answer.body;
    size_t sent = 0;
    while (sent < out.size()) {
      ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<ReceivedRequest> requests_;
};

}  // namespace cqlite::net

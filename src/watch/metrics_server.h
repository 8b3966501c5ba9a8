// The watcher's /metrics endpoint: a tiny HTTP/1.0 server on 127.0.0.1 only,
// answering `GET /metrics` with the text `render` returns (Prometheus text
// exposition format 0.0.4) and anything else with 404. One thread of its
// own serves one connection at a time; a client that sends nothing for 2 s
// is dropped. Never listens on another address.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "util/status.h"

namespace cqlite::watch {

class MetricsServer {
 public:
  using Render = std::function<std::string()>;

  // Stops the thread and closes the socket.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Listens on 127.0.0.1:`port` (0: a free port the kernel picks). `render`
  // is called from the server's thread. IOError naming the address when the
  // port cannot be bound.
  static Result<std::unique_ptr<MetricsServer>> Start(int port, Render render);

  int port() const { return port_; }

 private:
  MetricsServer(int listen_fd, int port, Render render);
  void Serve();
  void Answer(int fd);

  int listen_fd_;
  int port_;
  int stop_pipe_[2] = {-1, -1};
  Render render_;
  std::thread thread_;
};

}  // namespace cqlite::watch

// For tests: a throwaway PostgreSQL server on 127.0.0.1, started with
// tests/postgres_server.sh (the one script the C++ and Python tests share) and
// stopped, its data removed, when the object is destroyed.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "test_paths.h"
#include "util/status.h"
#include "util/strings.h"

namespace cqlite::catalog {

class PostgresServerForTesting {
 public:
  // The running server, or why there is none: NotFound when PostgreSQL is
  // not installed (a test skips), IOError when it would not start.
  static Result<std::unique_ptr<PostgresServerForTesting>> Start() {
    static int count = 0;
    std::string state = StrCat("/tmp/cqlite-postgres-test-", getpid(), "-", count++);
    std::string script = StrCat(CQLITE_SOURCE_DIR, "/tests/postgres_server.sh");
    FILE* pipe = ::popen(StrCat("bash '", script, "' start '", state, "' 2>&1").c_str(), "r");
    if (pipe == nullptr) return Status::IOError("cannot run " + script);
    std::string output;
    char buffer[512];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    int status = ::pclose(pipe);
    while (!output.empty() && output.back() == '\n') output.pop_back();
    std::unique_ptr<PostgresServerForTesting> server(new PostgresServerForTesting(script, state));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return Status::NotFound(output);
    if (status != 0) return Status::IOError(StrCat(script, " start failed: ", output));
    server->uri_ = output.substr(output.rfind('\n') + 1);
    return server;
  }

  ~PostgresServerForTesting() {
    (void)std::system(StrCat("bash '", script_, "' stop '", state_, "' >/dev/null 2>&1").c_str());
  }
  PostgresServerForTesting(const PostgresServerForTesting&) = delete;
  PostgresServerForTesting& operator=(const PostgresServerForTesting&) = delete;

  // postgresql://user:password@127.0.0.1:port/database
  const std::string& uri() const { return uri_; }

 private:
  PostgresServerForTesting(std::string script, std::string state)
      : script_(std::move(script)), state_(std::move(state)) {}

  std::string script_;
  std::string state_;
  std::string uri_;
};

}  // namespace cqlite::catalog

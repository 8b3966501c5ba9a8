// One watcher per warehouse table: an exclusive flock(2) on a lock file in
// the warehouse (`<warehouse>/.cqlite-watch/locks/<namespace>.<table>.lock`),
// which holds the pid of the process that has it. The kernel releases the
// lock when that process ends, however it ends (SIGKILL included), so a
// stale lock file never blocks a restart; the file itself is never removed
// (removing it would let two processes lock two different files).
//
// A `cqlite materialize` run takes the same lock shared for as long as it
// runs on the table (AcquireShared): runs by hand may race one another, as
// the catalog's compare-and-swap allows, but not a watcher, whose start
// removes the data files no snapshot references, a running run's among them.
//
// Not for threads of one process: flock locks belong to the open file.
#pragma once

#include <memory>
#include <string>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::watch {

// The lock file of the Cassandra table `keyspace_table` ("ks.t") in `warehouse`.
std::string TableLockPath(const std::string& warehouse, const std::string& keyspace_table);
// The same in a watcher's directory `watch_dir` (WatchOptions::state_dir).
std::string TableLockPathIn(const std::string& watch_dir, const std::string& keyspace_table);

class TableLock {
 public:
  ~TableLock();
  TableLock(const TableLock&) = delete;
  TableLock& operator=(const TableLock&) = delete;

  // Takes the lock at `path` (the directory must exist) without waiting.
  // Busy, naming the file and the pid that holds it, when another process
  // has it; IOError when the file cannot be opened or written.
  static Result<std::unique_ptr<TableLock>> Acquire(const std::string& path);
  // Takes it shared without waiting, creating the directory: Busy, naming
  // the watcher's pid, when a watcher has it. Writes no pid.
  static Result<std::unique_ptr<TableLock>> AcquireShared(FileSystem& fs, const std::string& path);

  // The pid written in the lock file at `path`, and whether a process holds
  // the lock now (tried without taking it for long). For `watch --status`.
  struct Holder {
    bool held = false;
    long pid = 0;  // 0: unknown
  };
  static Holder Probe(const std::string& path);

  const std::string& path() const { return path_; }

 private:
  TableLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

}  // namespace cqlite::watch

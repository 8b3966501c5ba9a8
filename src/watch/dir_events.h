// Directory change notices for the watcher (Linux inotify): the watcher
// waits on fd() and rescans when a file is created, moved in, written or
// deleted in a watched directory, instead of waiting for its periodic
// rescan. Notices only shorten the wait; the rescan alone decides what is
// complete (generation_scan.h), so lost notices (queue overflow, a
// directory created between a scan and its Watch) cost at most one rescan
// period.
//
// Thread-compatible; one thread uses it.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "util/status.h"

namespace cqlite::watch {

class DirectoryEvents {
 public:
  ~DirectoryEvents();
  DirectoryEvents(const DirectoryEvents&) = delete;
  DirectoryEvents& operator=(const DirectoryEvents&) = delete;

  // NotSupported when the kernel offers no inotify (or no more instances).
  static Result<std::unique_ptr<DirectoryEvents>> Open();

  // Watches `dir` itself (not below it); again for the same directory is a
  // no-op. IOError when it cannot be watched (gone, or the watch limit).
  Status Watch(const std::string& dir);

  // Readable when notices are pending.
  int fd() const { return fd_; }

  // Reads the pending notices; true when there were any.
  bool Drain();

 private:
  explicit DirectoryEvents(int fd) : fd_(fd) {}
  int fd_;
  std::set<std::string> watched_;
};

}  // namespace cqlite::watch

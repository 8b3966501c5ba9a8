#include "watch/dir_events.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

namespace cqlite::watch {

DirectoryEvents::~DirectoryEvents() { ::close(fd_); }

Result<std::unique_ptr<DirectoryEvents>> DirectoryEvents::Open() {
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Status::NotSupported(StrCat("inotify: ", std::strerror(errno)));
  return std::unique_ptr<DirectoryEvents>(new DirectoryEvents(fd));
}

Status DirectoryEvents::Watch(const std::string& dir) {
  if (watched_.count(dir)) return Status::OK();
  uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF;
  if (::inotify_add_watch(fd_, dir.c_str(), mask) < 0) {
    return Status::IOError(StrCat(dir, ": cannot watch for changes: ", std::strerror(errno)));
  }
  watched_.insert(dir);
  return Status::OK();
}

bool DirectoryEvents::Drain() {
  bool any = false;
  alignas(struct inotify_event) char buffer[16384];
  while (true) {
    ssize_t n = ::read(fd_, buffer, sizeof(buffer));
    if (n <= 0) break;
    any = true;
  }
  // Directories deleted since are watched no more; the kernel dropped their
  // watches, and forgetting them all lets the next scan watch what exists.
  if (any) {
    std::set<std::string> still;
    for (const std::string& dir : watched_) {
      if (::access(dir.c_str(), F_OK) == 0) still.insert(dir);
    }
    watched_ = std::move(still);
  }
  return any;
}

}  // namespace cqlite::watch

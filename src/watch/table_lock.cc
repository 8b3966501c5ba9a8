#include "watch/table_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"
#include "watch/staging.h"

namespace cqlite::watch {

namespace {

long ReadPid(int fd) {
  char buffer[32] = {};
  ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return 0;
  return std::strtol(buffer, nullptr, 10);
}

}  // namespace

TableLock::~TableLock() {
  // Closing the file releases the lock; the pid stays as a record of the last holder.
  ::close(fd_);
}

Result<std::unique_ptr<TableLock>> TableLock::Acquire(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(StrCat(path, ": cannot open the lock file: ", std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    long pid = ReadPid(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(StrCat(path, ": held by process ", pid ? std::to_string(pid) : std::string("(unknown)"),
                                 " or by a cqlite materialize run under way; one watcher per table"));
    }
    return Status::IOError(StrCat(path, ": cannot lock: ", std::strerror(err)));
  }
  std::string pid = StrCat(static_cast<long>(::getpid()), "\n");
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    int err = errno;
    ::close(fd);
    return Status::IOError(StrCat(path, ": cannot write the pid: ", std::strerror(err)));
  }
  return std::unique_ptr<TableLock>(new TableLock(path, fd));
}

Result<std::unique_ptr<TableLock>> TableLock::AcquireShared(FileSystem& fs, const std::string& path) {
  RETURN_IF_ERROR(fs.CreateDirectories(DirName(path)));
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(StrCat(path, ": cannot open the lock file: ", std::strerror(errno)));
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    int err = errno;
    long pid = ReadPid(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(StrCat(path, ": cqlite watch (process ", pid ? std::to_string(pid) : std::string("unknown"),
                                 ") keeps this table; stop it, or let it publish, rather than run materialize "
                                 "on the table by hand"));
    }
    return Status::IOError(StrCat(path, ": cannot lock: ", std::strerror(err)));
  }
  return std::unique_ptr<TableLock>(new TableLock(path, fd));
}

std::string TableLockPath(const std::string& warehouse, const std::string& keyspace_table) {
  return TableLockPathIn(WatchDirectory(warehouse), keyspace_table);
}

std::string TableLockPathIn(const std::string& watch_dir, const std::string& keyspace_table) {
  return JoinPath(JoinPath(watch_dir, "locks"), keyspace_table + ".lock");
}

TableLock::Holder TableLock::Probe(const std::string& path) {
  Holder holder;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return holder;
  holder.pid = ReadPid(fd);
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    holder.held = errno == EWOULDBLOCK;
  } else {
    ::flock(fd, LOCK_UN);
  }
  ::close(fd);
  return holder;
}

}  // namespace cqlite::watch

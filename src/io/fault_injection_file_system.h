// FaultInjectionFileSystem wraps another FileSystem for crash and error
// tests: every call goes through to the wrapped file system, and on the way
// it can fail, as a disk or a dying process would make it fail, so that
// shipping code needs no test hooks of its own.
//
// Operations. The calls that change files are numbered in call order from 0,
// whether they succeed or not: OpenForWrite, WritableFile::Append,
// WritableFile::Sync, SyncFile, Rename, Remove and CreateDirectories. Reads,
// listings, Exists, IsDirectory and WritableFile::Close are not counted and
// never fail (Close releases the file; it makes nothing durable). A test runs
// its code once to count the operations, then again with a fault at each of
// them in turn.
//
// Faults. FailOperation(n) makes operation n fail with IOError without
// touching the wrapped file system; the operations after it succeed (a write
// error the caller must report). CrashAtOperation(n) makes operation n and
// every later one fail so: the process is taken to have died there, and
// whatever the caller goes on doing changes no file.
//
// Power cut. After a crash, DropUnsyncedData leaves in the wrapped file
// system what a machine that lost power at that moment would find, in this
// model:
//   - the contents of a file created through this file system are durable up
//     to its size at its last WritableFile::Sync or SyncFile; whatever was
//     appended since is dropped (the file is cut back to that size);
//   - a file created (or truncated) by OpenForWrite and not synced since is
//     removed, under whatever name Rename gave it: its directory entry is lost
//     with its data;
//   - Rename, Remove and CreateDirectories are durable as soon as they
//     return, in call order, and so is every file that existed before this
//     file system saw it.
// Not modelled: names lost for want of a directory sync (the FileSystem
// interface has none), torn or reordered writes inside a file's unsynced
// tail (it is lost whole), and read errors.
//
// Thread-safe: the counting and the bookkeeping are under one mutex, held
// through each counted call to the wrapped file system so that operations
// are numbered in the order they happen. The wrapped file system must
// outlive this one, and this one every file opened through it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite {

class FaultInjectionFileSystem final : public FileSystem {
 public:
  explicit FaultInjectionFileSystem(FileSystem& base);
  ~FaultInjectionFileSystem() override;
  FaultInjectionFileSystem(const FaultInjectionFileSystem&) = delete;
  FaultInjectionFileSystem& operator=(const FaultInjectionFileSystem&) = delete;

  // The number of operations so far, which is the next operation's number.
  int64_t operation_count() const;
  // What operation `n` was, e.g. "Append 120 bytes to /w/data/x.parquet".
  // REQUIRES: n < operation_count().
  std::string DescribeOperation(int64_t n) const;

  // Operation `n` fails with IOError and changes nothing; the others succeed
  // (unless a crash makes them fail). Replaces an earlier FailOperation.
  void FailOperation(int64_t n);
  // Operation `n` and every operation after it fail with IOError and change
  // nothing. Replaces an earlier CrashAtOperation.
  void CrashAtOperation(int64_t n);
  // True once an operation has failed because of the crash.
  bool crashed() const;
  // Operations succeed again, as after a restart; the numbering goes on.
  void ClearFaults();

  // The power cut described above, applied to the wrapped file system; every
  // file is durable afterwards. InvalidArgument, with nothing changed, while
  // a file written through this file system is still open.
  Status DropUnsyncedData();

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) override;
  bool Exists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Status CreateDirectories(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Status SyncFile(const std::string& path) override;
  // Reads only: never fails nor counts as an operation.
  Result<double> ModifiedTime(const std::string& path) override { return base_.ModifiedTime(path); }

 private:
  friend class FaultInjectionWritableFile;

  // A file created through this file system, shared with its writer so that
  // appends and syncs reach it under whatever name it has now.
  struct TrackedFile {
    std::string path;
    uint64_t size = 0;
    std::optional<uint64_t> synced_size;  // none: never synced since created
  };

  // Numbers the operation `description` and says whether it may go ahead.
  // REQUIRES: mu_ held.
  Status BeginOperation(std::string description);

  FileSystem& base_;
  mutable std::mutex mu_;
  std::vector<std::string> operations_;  // descriptions, by number
  std::optional<int64_t> fail_at_;
  std::optional<int64_t> crash_at_;
  bool crashed_ = false;
  int open_writers_ = 0;
  std::map<std::string, std::shared_ptr<TrackedFile>> tracked_;  // by current path
};

}  // namespace cqlite

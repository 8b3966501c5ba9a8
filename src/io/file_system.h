// The one interface through which CQLite touches files. LocalFileSystem is the
// real disk; MemoryFileSystem keeps files in memory so unit tests need no disk
// and crash tests can cut a write anywhere.
//
// Paths are plain strings with '/' separators. Implementations are
// thread-compatible; a RandomAccessFile may be read from several threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "util/status.h"

namespace cqlite {

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to out.size() bytes at offset; returns how many were read (fewer
  // only at the end of the file).
  virtual Result<size_t> ReadAt(uint64_t offset, std::span<uint8_t> out) const = 0;
  virtual uint64_t Size() const = 0;
  virtual const std::string& path() const = 0;

  // Reads exactly out.size() bytes at offset, or fails with Corruption naming
  // the file and the offset (a short file is bad input, not an IO fault).
  Status ReadExactly(uint64_t offset, std::span<uint8_t> out) const;
};

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::span<const uint8_t> data) = 0;
  Status Append(std::string_view data) {
    return Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
  }
  virtual Status Sync() = 0;
  virtual Status Close() = 0;
};

struct DirectoryEntry {
  std::string name;
  bool is_directory = false;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) = 0;
  // Creates or truncates the file.
  virtual Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) = 0;
  // Entries sorted by name, without "." and "..".
  virtual Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  virtual bool IsDirectory(const std::string& path) = 0;
  virtual Status CreateDirectories(const std::string& path) = 0;
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status Remove(const std::string& path) = 0;
  // Makes a file written earlier (and closed) durable. No-op where nothing
  // is durable anyway.
  virtual Status SyncFile(const std::string& path) { return Status::OK(); }
  // Makes `to` (which must not exist) a file with the contents of `from`, an
  // immutable file: a hard link where the file system can make one (no bytes
  // copied; a later change of `from`'s name, or its removal, leaves `to` as
  // it is), else a copy, synced. Keeping files that another program may
  // delete later, as `nodetool snapshot` keeps SSTables.
  virtual Status LinkOrCopy(const std::string& from, const std::string& to);
  // When the file's contents last changed, in seconds since the Unix epoch
  // (with the file system's sub-second part). NotSupported where files have
  // no such time (MemoryFileSystem).
  virtual Result<double> ModifiedTime(const std::string& path);

  Result<std::string> ReadFileToString(const std::string& path);
  // Writes `contents` to `path` (created or truncated), synced and closed.
  Status WriteStringToFile(const std::string& path, std::string_view contents);
  // Copies `from` to `to` (created or truncated) through this interface, synced.
  Status CopyFile(const std::string& from, const std::string& to);
};

// The machine's own file system. Shared, stateless.
FileSystem& LocalFileSystem();

// Files held in memory, for tests.
class MemoryFileSystem : public FileSystem {
 public:
  void AddFile(const std::string& path, std::string contents);

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) override;
  bool Exists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Status CreateDirectories(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  // When a file was created (opened for writing, added or renamed) or a
  // directory made, by the wall clock, unless set since.
  Result<double> ModifiedTime(const std::string& path) override;
  void SetModifiedTime(const std::string& path, double seconds);

 private:
  friend class MemoryWritableFile;
  void Touch(const std::string& path);  // REQUIRES: mu_ held
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::string>> files_;
  std::map<std::string, bool> directories_;
  std::map<std::string, double> modified_;
};

// "dir/name" with exactly one separator between them.
std::string JoinPath(const std::string& dir, const std::string& name);
// The path without the '/' it may end with ("a/b/" -> "a/b"; "/" stays).
std::string WithoutTrailingSlash(const std::string& path);
// The last component of a path ("a/b/c.db" -> "c.db").
std::string BaseName(const std::string& path);
// All but the last component ("a/b/c.db" -> "a/b"; "c.db" -> ".").
std::string DirName(const std::string& path);

}  // namespace cqlite

#include "io/file_system.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "util/strings.h"

namespace cqlite {

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  return Status::IOError(StrCat(path, ": ", what, ": ", std::strerror(err)));
}

class LocalRandomAccessFile final : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~LocalRandomAccessFile() override { ::close(fd_); }

  Result<size_t> ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(StrCat("read at byte offset ", offset + done), path_, errno);
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }
  uint64_t Size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
};

class LocalWritableFile final : public WritableFile {
 public:
  LocalWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status Append(std::span<const uint8_t> data) override {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("write", path_, errno);
      }
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  }
  Status Sync() override {
    if (::fsync(fd_) != 0) return ErrnoStatus("fsync", path_, errno);
    return Status::OK();
  }
  Status Close() override {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) return ErrnoStatus("close", path_, errno);
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_;
};

class LocalFileSystemImpl final : public FileSystem {
 public:
  Status SyncFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open", path, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return ErrnoStatus("fsync", path, err);
    return Status::OK();
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound(StrCat(path, ": no such file"));
      return ErrnoStatus("open", path, errno);
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("stat", path, err);
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::InvalidArgument(StrCat(path, ": is a directory, expected a file"));
    }
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<LocalRandomAccessFile>(path, fd, static_cast<uint64_t>(st.st_size)));
  }

  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("create", path, errno);
    return std::unique_ptr<WritableFile>(std::make_unique<LocalWritableFile>(path, fd));
  }

  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) override {
    std::error_code ec;
    std::vector<DirectoryEntry> entries;
    std::filesystem::directory_iterator it(path, ec);
    if (ec) return Status::IOError(StrCat(path, ": cannot list directory: ", ec.message()));
    for (const auto& entry : it) {
      entries.push_back({entry.path().filename().string(), entry.is_directory(ec)});
    }
    std::sort(entries.begin(), entries.end(),
              [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
    return entries;
  }

  bool Exists(const std::string& path) override {
    std::error_code ec;
    return std::filesystem::exists(path, ec);
  }
  bool IsDirectory(const std::string& path) override {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec);
  }
  Status CreateDirectories(const std::string& path) override {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return Status::IOError(StrCat(path, ": cannot create directory: ", ec.message()));
    return Status::OK();
  }
  Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return ErrnoStatus(StrCat("rename to ", to), from, errno);
    return Status::OK();
  }
  Status LinkOrCopy(const std::string& from, const std::string& to) override {
    if (::link(from.c_str(), to.c_str()) == 0) return Status::OK();
    // Another file system, or one without hard links: copy.
    if (errno == EXDEV || errno == EPERM || errno == EMLINK || errno == ENOTSUP) return CopyFile(from, to);
    return ErrnoStatus(StrCat("link to ", to), from, errno);
  }
  Result<double> ModifiedTime(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("stat", path, errno);
    return static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
  }
  Status Remove(const std::string& path) override {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    if (ec) return Status::IOError(StrCat(path, ": cannot remove: ", ec.message()));
    return Status::OK();
  }
};

class MemoryRandomAccessFile final : public RandomAccessFile {
 public:
  MemoryRandomAccessFile(std::string path, std::shared_ptr<std::string> contents)
      : path_(std::move(path)), contents_(std::move(contents)) {}
  Result<size_t> ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset >= contents_->size() || out.empty()) return size_t{0};
    size_t n = std::min<uint64_t>(out.size(), contents_->size() - offset);
    std::memcpy(out.data(), contents_->data() + offset, n);
    return n;
  }
  uint64_t Size() const override { return contents_->size(); }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  std::shared_ptr<std::string> contents_;
};

}  // namespace

class MemoryWritableFile final : public WritableFile {
 public:
  explicit MemoryWritableFile(std::shared_ptr<std::string> contents) : contents_(std::move(contents)) {}
  Status Append(std::span<const uint8_t> data) override {
    contents_->append(reinterpret_cast<const char*>(data.data()), data.size());
    return Status::OK();
  }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }

 private:
  std::shared_ptr<std::string> contents_;
};

Status RandomAccessFile::ReadExactly(uint64_t offset, std::span<uint8_t> out) const {
  ASSIGN_OR_RETURN(size_t n, ReadAt(offset, out));
  if (n != out.size()) {
    return Status::Corruption(StrCat(path(), ": file ends at byte offset ", Size(), ", expected ",
                                     out.size(), " bytes at byte offset ", offset));
  }
  return Status::OK();
}

Status FileSystem::WriteStringToFile(const std::string& path, std::string_view contents) {
  ASSIGN_OR_RETURN(auto file, OpenForWrite(path));
  RETURN_IF_ERROR(file->Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(contents.data()),
                                                        contents.size())));
  RETURN_IF_ERROR(file->Sync());
  return file->Close();
}

Status FileSystem::CopyFile(const std::string& from, const std::string& to) {
  ASSIGN_OR_RETURN(auto in, OpenForRead(from));
  ASSIGN_OR_RETURN(auto out, OpenForWrite(to));
  std::vector<uint8_t> buffer(std::min<uint64_t>(in->Size(), 4 << 20));
  for (uint64_t offset = 0; offset < in->Size();) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), in->Size() - offset));
    std::span<uint8_t> chunk(buffer.data(), n);
    RETURN_IF_ERROR(in->ReadExactly(offset, chunk));
    RETURN_IF_ERROR(out->Append(chunk));
    offset += n;
  }
  RETURN_IF_ERROR(out->Sync());
  return out->Close();
}

Status FileSystem::LinkOrCopy(const std::string& from, const std::string& to) {
  if (Exists(to)) return Status::InvalidArgument(StrCat(to, ": exists already; not replaced by ", from));
  return CopyFile(from, to);
}

Result<double> FileSystem::ModifiedTime(const std::string& path) {
  return Status::NotSupported(StrCat(path, ": this file system keeps no modification times"));
}

Result<std::string> FileSystem::ReadFileToString(const std::string& path) {
  ASSIGN_OR_RETURN(auto file, OpenForRead(path));
  std::string contents(file->Size(), '\0');
  RETURN_IF_ERROR(file->ReadExactly(
      0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(contents.data()), contents.size())));
  return contents;
}

FileSystem& LocalFileSystem() {
  static LocalFileSystemImpl instance;
  return instance;
}

void MemoryFileSystem::Touch(const std::string& path) {
  modified_[path] =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Result<double> MemoryFileSystem::ModifiedTime(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = modified_.find(path);
  if (it == modified_.end() || (!files_.count(path) && !directories_.count(path))) {
    return Status::NotFound(StrCat(path, ": no such file"));
  }
  return it->second;
}

void MemoryFileSystem::SetModifiedTime(const std::string& path, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  modified_[path] = seconds;
}

void MemoryFileSystem::AddFile(const std::string& path, std::string contents) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[path] = std::make_shared<std::string>(std::move(contents));
  Touch(path);
  for (std::string dir = DirName(path); dir != "." && dir != "/" && !dir.empty(); dir = DirName(dir)) {
    directories_[dir] = true;
  }
}

Result<std::unique_ptr<RandomAccessFile>> MemoryFileSystem::OpenForRead(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return Status::NotFound(StrCat(path, ": no such file"));
  return std::unique_ptr<RandomAccessFile>(std::make_unique<MemoryRandomAccessFile>(path, it->second));
}

Result<std::unique_ptr<WritableFile>> MemoryFileSystem::OpenForWrite(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto contents = std::make_shared<std::string>();
  files_[path] = contents;
  Touch(path);
  return std::unique_ptr<WritableFile>(std::make_unique<MemoryWritableFile>(contents));
}

Result<std::vector<DirectoryEntry>> MemoryFileSystem::ListDirectory(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, bool> found;
  std::string prefix = path.empty() || path.back() == '/' ? path : path + "/";
  auto collect = [&](const std::string& name, bool is_dir) {
    if (!StartsWith(name, prefix)) return;
    std::string rest = name.substr(prefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string::npos) {
      found.emplace(rest, is_dir);
    } else {
      found[rest.substr(0, slash)] = true;
    }
  };
  for (const auto& [name, _] : files_) collect(name, false);
  for (const auto& [name, _] : directories_) collect(name, true);
  if (found.empty() && !directories_.count(path)) {
    return Status::NotFound(StrCat(path, ": no such directory"));
  }
  std::vector<DirectoryEntry> entries;
  for (const auto& [name, is_dir] : found) entries.push_back({name, is_dir});
  return entries;
}

bool MemoryFileSystem::Exists(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  return files_.count(path) > 0 || directories_.count(path) > 0;
}

bool MemoryFileSystem::IsDirectory(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  return directories_.count(path) > 0;
}

Status MemoryFileSystem::CreateDirectories(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  for (std::string dir = path; dir != "." && dir != "/" && !dir.empty(); dir = DirName(dir)) {
    if (directories_.emplace(dir, true).second) Touch(dir);
  }
  return Status::OK();
}

Status MemoryFileSystem::Rename(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(from);
  if (it == files_.end()) return Status::NotFound(StrCat(from, ": no such file"));
  files_[to] = it->second;
  files_.erase(it);
  Touch(to);
  return Status::OK();
}

Status MemoryFileSystem::Remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  files_.erase(path);
  directories_.erase(path);
  modified_.erase(path);
  return Status::OK();
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::string WithoutTrailingSlash(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  return trimmed;
}

std::string BaseName(const std::string& path) {
  const std::string trimmed = WithoutTrailingSlash(path);
  size_t slash = trimmed.rfind('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

std::string DirName(const std::string& path) {
  const std::string trimmed = WithoutTrailingSlash(path);
  size_t slash = trimmed.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return trimmed.substr(0, slash);
}

}  // namespace cqlite

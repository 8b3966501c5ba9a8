#include "io/fault_injection_file_system.h"

#include <utility>

#include "util/strings.h"

namespace cqlite {

class FaultInjectionWritableFile final : public WritableFile {
 public:
  FaultInjectionWritableFile(FaultInjectionFileSystem& fs, std::unique_ptr<WritableFile> base,
                             std::shared_ptr<FaultInjectionFileSystem::TrackedFile> file)
      : fs_(fs), base_(std::move(base)), file_(std::move(file)) {}
  ~FaultInjectionWritableFile() override { (void)Close(); }

  Status Append(std::span<const uint8_t> data) override {
    std::lock_guard<std::mutex> lock(fs_.mu_);
    RETURN_IF_ERROR(fs_.BeginOperation(StrCat("Append ", data.size(), " bytes to ", file_->path)));
    if (!base_) return Status::IOError(StrCat(file_->path, ": append after close"));
    RETURN_IF_ERROR(base_->Append(data));
    file_->size += data.size();
    return Status::OK();
  }

  Status Sync() override {
    std::lock_guard<std::mutex> lock(fs_.mu_);
    RETURN_IF_ERROR(fs_.BeginOperation(StrCat("Sync ", file_->path)));
    if (!base_) return Status::IOError(StrCat(file_->path, ": sync after close"));
    RETURN_IF_ERROR(base_->Sync());
    file_->synced_size = file_->size;
    return Status::OK();
  }

  Status Close() override {
    if (!base_) return Status::OK();
    std::unique_ptr<WritableFile> base = std::move(base_);
    {
      std::lock_guard<std::mutex> lock(fs_.mu_);
      --fs_.open_writers_;
    }
    return base->Close();
  }

 private:
  FaultInjectionFileSystem& fs_;
  std::unique_ptr<WritableFile> base_;  // null once closed
  std::shared_ptr<FaultInjectionFileSystem::TrackedFile> file_;
};

FaultInjectionFileSystem::FaultInjectionFileSystem(FileSystem& base) : base_(base) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

int64_t FaultInjectionFileSystem::operation_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(operations_.size());
}

std::string FaultInjectionFileSystem::DescribeOperation(int64_t n) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (n < 0 || n >= static_cast<int64_t>(operations_.size())) return StrCat("(no operation ", n, " yet)");
  return operations_[static_cast<size_t>(n)];
}

void FaultInjectionFileSystem::FailOperation(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_at_ = n;
}

void FaultInjectionFileSystem::CrashAtOperation(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  crash_at_ = n;
}

bool FaultInjectionFileSystem::crashed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return crashed_;
}

void FaultInjectionFileSystem::ClearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  fail_at_.reset();
  crash_at_.reset();
  crashed_ = false;
}

Status FaultInjectionFileSystem::BeginOperation(std::string description) {
  const int64_t number = static_cast<int64_t>(operations_.size());
  operations_.push_back(std::move(description));
  const std::string& what = operations_.back();
  if (crash_at_ && number >= *crash_at_) {
    crashed_ = true;
    return Status::IOError(StrCat(what, ": injected crash at operation ", *crash_at_, " (this is operation ",
                                  number, ")"));
  }
  if (fail_at_ && number == *fail_at_) {
    return Status::IOError(StrCat(what, ": injected I/O error at operation ", number));
  }
  return Status::OK();
}

Status FaultInjectionFileSystem::DropUnsyncedData() {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_writers_ > 0) {
    return Status::InvalidArgument(StrCat("cannot drop unsynced data while ", open_writers_,
                                          " file(s) written through the file system are open"));
  }
  for (const auto& [path, file] : tracked_) {
    if (!file->synced_size) {
      if (base_.Exists(path)) RETURN_IF_ERROR(base_.Remove(path));
      continue;
    }
    if (file->size == *file->synced_size) continue;
    // Cut back to the synced size: the kept prefix is written anew.
    std::string kept(*file->synced_size, '\0');
    {
      ASSIGN_OR_RETURN(auto reader, base_.OpenForRead(path));
      RETURN_IF_ERROR(
          reader->ReadExactly(0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(kept.data()), kept.size())));
    }
    RETURN_IF_ERROR(base_.WriteStringToFile(path, kept));
  }
  tracked_.clear();
  return Status::OK();
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectionFileSystem::OpenForRead(const std::string& path) {
  return base_.OpenForRead(path);
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::OpenForWrite(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(BeginOperation(StrCat("OpenForWrite ", path)));
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> base, base_.OpenForWrite(path));
  auto file = std::make_shared<TrackedFile>();
  file->path = path;
  tracked_[path] = file;
  ++open_writers_;
  return std::unique_ptr<WritableFile>(
      std::make_unique<FaultInjectionWritableFile>(*this, std::move(base), std::move(file)));
}

Result<std::vector<DirectoryEntry>> FaultInjectionFileSystem::ListDirectory(const std::string& path) {
  return base_.ListDirectory(path);
}

bool FaultInjectionFileSystem::Exists(const std::string& path) { return base_.Exists(path); }

bool FaultInjectionFileSystem::IsDirectory(const std::string& path) { return base_.IsDirectory(path); }

Status FaultInjectionFileSystem::CreateDirectories(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(BeginOperation(StrCat("CreateDirectories ", path)));
  return base_.CreateDirectories(path);
}

Status FaultInjectionFileSystem::Rename(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(BeginOperation(StrCat("Rename ", from, " to ", to)));
  RETURN_IF_ERROR(base_.Rename(from, to));
  auto it = tracked_.find(from);
  if (it == tracked_.end()) {
    // A durable file replaces whatever `to` was.
    tracked_.erase(to);
    return Status::OK();
  }
  std::shared_ptr<TrackedFile> file = std::move(it->second);
  tracked_.erase(it);
  file->path = to;
  tracked_[to] = std::move(file);
  return Status::OK();
}

Status FaultInjectionFileSystem::Remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(BeginOperation(StrCat("Remove ", path)));
  RETURN_IF_ERROR(base_.Remove(path));
  tracked_.erase(path);
  return Status::OK();
}

Status FaultInjectionFileSystem::SyncFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(BeginOperation(StrCat("SyncFile ", path)));
  RETURN_IF_ERROR(base_.SyncFile(path));
  auto it = tracked_.find(path);
  if (it != tracked_.end()) it->second->synced_size = it->second->size;
  return Status::OK();
}

}  // namespace cqlite

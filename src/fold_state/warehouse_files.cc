#include "fold_state/warehouse_files.h"

#include <algorithm>

#include "iceberg/table_metadata.h"
#include "util/strings.h"

namespace cqlite::materialize {

std::string TableLocation(const std::string& warehouse, const std::string& namespace_name,
                          const std::string& table_name) {
  return JoinPath(JoinPath(warehouse, namespace_name), table_name);
}

Result<int64_t> RemoveFilesOfRun(FileSystem& fs, const std::string& location, const std::string& run_id) {
  if (run_id.empty()) return Status::InvalidArgument("RemoveFilesOfRun: no run id");
  int64_t removed = 0;
  const std::string state_dir = JoinPath(location, "cqlite");
  for (const std::string& dir : {JoinPath(location, "data"), JoinPath(location, "metadata"), state_dir,
                                 JoinPath(state_dir, "facts")}) {
    if (!fs.IsDirectory(dir)) continue;
    ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(dir));
    for (const DirectoryEntry& entry : entries) {
      if (entry.name.find(run_id) == std::string::npos) continue;
      const std::string path = JoinPath(dir, entry.name);
      if (entry.is_directory) {  // a kept generation: its component files, then itself
        ASSIGN_OR_RETURN(std::vector<DirectoryEntry> components, fs.ListDirectory(path));
        for (const DirectoryEntry& component : components) {
          if (fs.Remove(JoinPath(path, component.name)).ok()) ++removed;
        }
      }
      if (fs.Remove(path).ok()) ++removed;
    }
  }
  return removed;
}

RunFiles::RunFiles(FileSystem& fs, std::string location)
    : fs_(fs),
      location_(std::move(location)),
      run_id_(iceberg::RandomUuid()),
      data_dir_(JoinPath(location_, "data")),
      metadata_dir_(JoinPath(location_, "metadata")),
      state_dir_(JoinPath(location_, "cqlite")),
      facts_dir_(JoinPath(state_dir_, "facts")) {}

RunFiles::~RunFiles() {
  if (kept_) return;
  // Later names first: a kept generation's files before their directory.
  for (auto it = written_.rbegin(); it != written_.rend(); ++it) (void)fs_.Remove(*it);
}

std::string RunFiles::Remember(std::string path) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.push_back(path);
  return path;
}

std::string RunFiles::RememberForAttempt(std::string path) {
  std::lock_guard<std::mutex> lock(mu_);
  attempt_files_.push_back(path);
  written_.push_back(path);
  return path;
}

std::string RunFiles::AttemptId() const { return attempt_ == 0 ? run_id_ : StrCat(run_id_, "-", attempt_); }

void RunFiles::NextCommitAttempt() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& path : attempt_files_) {
    (void)fs_.Remove(path);
    written_.erase(std::find(written_.begin(), written_.end(), path));
  }
  attempt_files_.clear();
  ++attempt_;
}

std::vector<std::string> RunFiles::Directories() const { return {data_dir_, metadata_dir_, state_dir_, facts_dir_}; }

std::string RunFiles::DataFile(int range) {
  return Remember(JoinPath(data_dir_, StrCat(run_id_, "-", range, ".parquet")));
}

std::string RunFiles::DeleteFile(int range, int file) {
  return Remember(JoinPath(data_dir_, StrCat(run_id_, "-deletes-", range, "-", file, ".parquet")));
}

std::string RunFiles::DeletionVectors() {
  return RememberForAttempt(JoinPath(data_dir_, StrCat(AttemptId(), "-dv.puffin")));
}

std::string RunFiles::DataManifest() { return RememberForAttempt(JoinPath(metadata_dir_, StrCat(AttemptId(), "-m0.avro"))); }

std::string RunFiles::DeleteManifest() { return RememberForAttempt(JoinPath(metadata_dir_, StrCat(AttemptId(), "-m1.avro"))); }

std::string RunFiles::ManifestList(int64_t snapshot_id) {
  return RememberForAttempt(JoinPath(metadata_dir_, StrCat("snap-", snapshot_id, "-1-", AttemptId(), ".avro")));
}

std::string RunFiles::MetadataFile(int version) { return RememberForAttempt(iceberg::MetadataFilePath(location_, version)); }

std::string RunFiles::FoldState() { return RememberForAttempt(JoinPath(state_dir_, StrCat("state-", AttemptId(), ".json"))); }

std::string RunFiles::FoldStateParts() { return RememberForAttempt(JoinPath(state_dir_, StrCat("parts-", AttemptId(), ".json"))); }

std::string RunFiles::FoldStateOfPart(int part) {
  return RememberForAttempt(JoinPath(state_dir_, StrCat("state-", AttemptId(), "-p", part, ".json")));
}

std::string RunFiles::RowIndexFile(int range, int file) {
  return Remember(JoinPath(state_dir_, StrCat("rows-", run_id_, "-", range, "-", file, ".parquet")));
}

std::string RunFiles::RowIndexUpdateFile(int range, int file) {
  return Remember(JoinPath(state_dir_, StrCat("rows-", run_id_, "-updates-", range, "-", file, ".parquet")));
}

std::string RunFiles::KeptGenerationDirectory(size_t generation) {
  return Remember(JoinPath(facts_dir_, StrCat(run_id_, "-", generation)));
}

std::string RunFiles::KeptComponent(size_t generation, const std::string& file_name) {
  return Remember(JoinPath(JoinPath(facts_dir_, StrCat(run_id_, "-", generation)), file_name));
}

std::string RunFiles::MergedFactsFile(size_t merge, int file) {
  return Remember(JoinPath(facts_dir_, StrCat(run_id_, "-merge", merge, "-", file, ".parquet")));
}

}  // namespace cqlite::materialize

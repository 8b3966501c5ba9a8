#include "maintain/expire.h"

#include <algorithm>

#include "maintain/table_files.h"
#include "util/strings.h"

namespace cqlite::maintain {

namespace {

Status RemoveIfPresent(FileSystem& fs, const std::string& path) {
  if (!fs.Exists(path)) return Status::OK();
  return fs.Remove(path).WithContext("removing a file no kept snapshot references");
}

// Every file under `dir`, recursively; the directories met, deepest first.
Status ListFiles(FileSystem& fs, const std::string& dir, std::vector<std::string>* files,
                 std::vector<std::string>* dirs) {
  if (!fs.IsDirectory(dir)) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(dir));
  for (const DirectoryEntry& e : entries) {
    std::string path = JoinPath(dir, e.name);
    if (e.is_directory) {
      RETURN_IF_ERROR(ListFiles(fs, path, files, dirs));
      dirs->push_back(path);
    } else {
      files->push_back(path);
    }
  }
  return Status::OK();
}

}  // namespace

std::optional<ExpiryPlan> PlanExpiry(const catalog::LoadedTable& table, int64_t now_ms, int64_t retention_ms,
                                     int retain_last) {
  const iceberg::TableMetadata& metadata = table.metadata;
  std::set<int64_t> kept;
  if (metadata.current_snapshot_id) {
    // The newest of the current ancestry, the current snapshot first.
    std::optional<int64_t> id = metadata.current_snapshot_id;
    for (int n = 0; id && n < std::max(1, retain_last); ++n) {
      kept.insert(*id);
      auto it = std::find_if(metadata.snapshots.begin(), metadata.snapshots.end(),
                             [&](const iceberg::Snapshot& s) { return s.snapshot_id == *id; });
      id = it == metadata.snapshots.end() ? std::nullopt : it->parent_snapshot_id;
    }
  }
  ExpiryPlan plan;
  std::set<int64_t> expired_ids;
  for (const iceberg::Snapshot& s : metadata.snapshots) {
    if (kept.count(s.snapshot_id) || s.timestamp_ms >= now_ms - retention_ms) continue;
    plan.expired.push_back(s);
    expired_ids.insert(s.snapshot_id);
  }
  if (plan.expired.empty()) return std::nullopt;
  plan.metadata = metadata;
  iceberg::RemoveSnapshots(&plan.metadata, expired_ids, now_ms, table.metadata_location);
  return plan;
}

Result<int> RemoveExpiredFiles(FileSystem& fs, const std::vector<iceberg::Snapshot>& expired,
                               const std::vector<iceberg::Snapshot>& kept) {
  ASSIGN_OR_RETURN(std::set<std::string> keep, FilesReferencedBy(fs, kept));
  ASSIGN_OR_RETURN(std::set<std::string> candidates, FilesReferencedBy(fs, expired));
  int removed = 0;
  for (const std::string& path : candidates) {
    if (keep.count(path)) continue;
    RETURN_IF_ERROR(RemoveIfPresent(fs, path));
    ++removed;
  }
  return removed;
}

Result<int> RemoveOrphanFiles(FileSystem& fs, const catalog::LoadedTable& table, double older_than_seconds) {
  const iceberg::TableMetadata& metadata = table.metadata;
  ASSIGN_OR_RETURN(std::set<std::string> keep, FilesReferencedBy(fs, metadata.snapshots));
  keep.insert(iceberg::LocalFilePath(table.metadata_location));
  for (const auto& [when, file] : metadata.metadata_log) keep.insert(iceberg::LocalFilePath(file));
  const std::string location = iceberg::LocalFilePath(metadata.location);
  std::vector<std::string> files, dirs;
  for (const char* dir : {"data", "metadata", "cqlite"}) {
    RETURN_IF_ERROR(ListFiles(fs, JoinPath(location, dir), &files, &dirs));
  }
  int removed = 0;
  for (const std::string& path : files) {
    if (keep.count(path)) continue;
    ASSIGN_OR_RETURN(double modified, fs.ModifiedTime(path));
    if (modified >= older_than_seconds) continue;
    RETURN_IF_ERROR(RemoveIfPresent(fs, path));
    ++removed;
  }
  // A kept generation's directory, once its files are gone.
  const std::string facts_dir = JoinPath(JoinPath(location, "cqlite"), "facts");
  for (const std::string& dir : dirs) {
    if (!StartsWith(dir, facts_dir + "/")) continue;
    ASSIGN_OR_RETURN(std::vector<DirectoryEntry> left, fs.ListDirectory(dir));
    if (!left.empty()) continue;
    // An object store keeps no directories: an empty one is gone already.
    Result<double> modified = fs.ModifiedTime(dir);
    if (!modified.ok() && modified.status().kind() == StatusKind::kNotFound) continue;
    if (!modified.ok()) return modified.status();
    if (*modified < older_than_seconds) RETURN_IF_ERROR(fs.Remove(dir).WithContext("removing an empty directory of kept facts"));
  }
  return removed;
}

}  // namespace cqlite::maintain

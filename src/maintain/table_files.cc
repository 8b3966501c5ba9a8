#include "maintain/table_files.h"

#include "materialize/snapshot.h"

namespace cqlite::maintain {

namespace {

bool Live(const iceberg::ManifestEntry& entry) { return entry.status != iceberg::ManifestEntryStatus::kDeleted; }

Result<std::vector<iceberg::ManifestFile>> ManifestsOf(FileSystem& fs, const iceberg::Snapshot& snapshot) {
  ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                   iceberg::ReadManifestList(fs, iceberg::LocalFilePath(snapshot.manifest_list)));
  for (iceberg::ManifestFile& manifest : manifests) manifest.manifest_path = iceberg::LocalFilePath(manifest.manifest_path);
  return manifests;
}

}  // namespace

Result<LiveFiles> ReadLiveFiles(FileSystem& fs, const iceberg::Snapshot& snapshot) {
  LiveFiles live;
  ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests, ManifestsOf(fs, snapshot));
  for (const iceberg::ManifestFile& manifest : manifests) {
    ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries, iceberg::ReadManifest(fs, manifest));
    for (iceberg::ManifestEntry& entry : entries) {
      if (!Live(entry)) continue;
      entry.data_file.file_path = iceberg::LocalFilePath(entry.data_file.file_path);
      if (entry.data_file.referenced_data_file) {
        entry.data_file.referenced_data_file = iceberg::LocalFilePath(*entry.data_file.referenced_data_file);
      }
      (entry.data_file.content == iceberg::FileContent::kData ? live.data : live.deletes).push_back(std::move(entry));
    }
  }
  return live;
}

Result<std::set<std::string>> FilesReferencedBy(FileSystem& fs, const std::vector<iceberg::Snapshot>& snapshots) {
  std::set<std::string> files;
  std::set<std::string> manifests_read;
  for (const iceberg::Snapshot& snapshot : snapshots) {
    files.insert(iceberg::LocalFilePath(snapshot.manifest_list));
    ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests, ManifestsOf(fs, snapshot));
    for (const iceberg::ManifestFile& manifest : manifests) {
      if (!manifests_read.insert(manifest.manifest_path).second) continue;
      files.insert(manifest.manifest_path);
      ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries, iceberg::ReadManifest(fs, manifest));
      for (const iceberg::ManifestEntry& entry : entries) {
        if (Live(entry)) files.insert(iceberg::LocalFilePath(entry.data_file.file_path));
      }
    }
    ASSIGN_OR_RETURN(std::vector<std::string> state_files, materialize::FoldStateFilesOf(fs, snapshot));
    files.insert(state_files.begin(), state_files.end());
  }
  return files;
}

}  // namespace cqlite::maintain

#include "watch/orphans.h"

#include <set>

#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "util/strings.h"

namespace cqlite::watch {

Result<int> RemoveUnreferencedDataFiles(FileSystem& fs, catalog::Catalog& catalog,
                                        const std::string& namespace_name, const std::string& table_name) {
  ASSIGN_OR_RETURN(std::optional<catalog::LoadedTable> loaded,
                   catalog.LoadTableMetadata(fs, {namespace_name}, table_name));
  if (!loaded) return 0;
  const iceberg::TableMetadata& metadata = loaded->metadata;
  std::set<std::string> referenced;
  for (const iceberg::Snapshot& snapshot : metadata.snapshots) {
    ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                     iceberg::ReadManifestList(fs, iceberg::LocalFilePath(snapshot.manifest_list)));
    for (const iceberg::ManifestFile& manifest : manifests) {
      iceberg::ManifestFile local = manifest;
      local.manifest_path = iceberg::LocalFilePath(manifest.manifest_path);
      ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries, iceberg::ReadManifest(fs, local));
      for (const iceberg::ManifestEntry& entry : entries) referenced.insert(iceberg::LocalFilePath(entry.data_file.file_path));
    }
  }
  std::string data_dir = JoinPath(iceberg::LocalFilePath(metadata.location), "data");
  if (!fs.IsDirectory(data_dir)) return 0;
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(data_dir));
  int removed = 0;
  for (const DirectoryEntry& e : entries) {
    if (e.is_directory || !EndsWith(e.name, ".parquet")) continue;
    std::string path = JoinPath(data_dir, e.name);
    if (referenced.count(path)) continue;
    RETURN_IF_ERROR(fs.Remove(path).WithContext("removing a data file no snapshot references"));
    ++removed;
  }
  return removed;
}

}  // namespace cqlite::watch

#include "watch/staging.h"

#include "util/strings.h"

namespace cqlite::watch {

std::string WatchDirectory(const std::string& warehouse) { return JoinPath(warehouse, ".cqlite-watch"); }

Status StageGenerations(FileSystem& fs, const std::string& source_dir, const std::vector<GenerationFiles>& generations,
                        const std::string& staging_dir) {
  RETURN_IF_ERROR(fs.CreateDirectories(staging_dir));
  for (const GenerationFiles& g : generations) {
    for (const std::string& name : g.files) {
      std::string from = JoinPath(source_dir, name);
      std::string to = JoinPath(staging_dir, name);
      Status linked = fs.LinkOrCopy(from, to);
      if (linked.ok()) continue;
      if (!fs.Exists(from)) {
        return Status::NotFound(StrCat(from, ": removed (by compaction) before it could be staged"));
      }
      return linked.WithContext(StrCat("cannot stage ", from, " in ", staging_dir));
    }
  }
  return Status::OK();
}

Status RemoveTree(FileSystem& fs, const std::string& dir) {
  if (!fs.Exists(dir)) return Status::OK();
  if (!fs.IsDirectory(dir)) return fs.Remove(dir);
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(dir));
  for (const DirectoryEntry& entry : entries) {
    std::string path = JoinPath(dir, entry.name);
    RETURN_IF_ERROR(entry.is_directory ? RemoveTree(fs, path) : fs.Remove(path));
  }
  return fs.Remove(dir);
}

}  // namespace cqlite::watch

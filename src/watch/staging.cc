#include "watch/staging.h"

#include <optional>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
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

namespace {

// Links the complete generations of every system_schema table of `data_root`
// into `<stage_root>/system_schema/`.
Status StageSystemSchema(FileSystem& fs, const std::string& data_root, const std::string& stage_root) {
  std::string schema_dir = JoinPath(data_root, "system_schema");
  if (!fs.IsDirectory(schema_dir)) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(schema_dir));
  for (const DirectoryEntry& e : entries) {
    std::string dir = JoinPath(schema_dir, e.name);
    if (!e.is_directory || !TableDirectoryLocation(dir)) continue;
    ASSIGN_OR_RETURN(TableDirectoryScan scan, ScanTableDirectory(fs, dir));
    RETURN_IF_ERROR(
        StageGenerations(fs, dir, scan.complete, JoinPath(JoinPath(stage_root, "system_schema"), e.name)));
  }
  return Status::OK();
}

// `path` relative to the directory `root`, or nullopt when it is not below it.
std::optional<std::string> BelowRoot(const std::string& root, const std::string& path) {
  if (root == ".") return path.empty() || path[0] == '/' ? std::nullopt : std::optional<std::string>(path);
  std::string prefix = root == "/" ? root : root + "/";
  if (!StartsWith(path, prefix)) return std::nullopt;
  return path.substr(prefix.size());
}

}  // namespace

Status StageSchemaSources(FileSystem& fs, const std::string& table_dir, const std::string& stage_root) {
  std::optional<SSTableLocation> table = TableDirectoryLocation(table_dir);
  if (!table) return Status::InvalidArgument(StrCat(table_dir, ": not a table directory (<keyspace>/<table>-<id>)"));
  const std::string data_root = DirName(DirName(table->directory));
  for (const SchemaCandidate& candidate : SchemaCandidates(*table, "")) {
    if (candidate.origin == SchemaOrigin::kSystemSchema) {
      RETURN_IF_ERROR(StageSystemSchema(fs, candidate.path, stage_root));
      continue;
    }
    std::optional<std::string> relative = BelowRoot(data_root, candidate.path);
    if (!relative || !fs.Exists(candidate.path)) continue;
    std::string to = JoinPath(stage_root, *relative);
    RETURN_IF_ERROR(fs.CreateDirectories(DirName(to)));
    Status linked = fs.LinkOrCopy(candidate.path, to);
    if (linked.ok()) continue;
    if (!fs.Exists(candidate.path)) return Status::NotFound(StrCat(candidate.path, ": removed before it could be staged"));
    return linked.WithContext(StrCat("cannot stage ", candidate.path, " in ", stage_root));
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

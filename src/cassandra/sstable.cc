#include "cassandra/sstable.h"

#include <algorithm>
#include <map>

#include "cassandra/data_file.h"
#include "util/strings.h"

namespace cqlite {

namespace {

// "<table>-<32 hex digits>" -> table and id.
bool ParseTableDirectory(const std::string& name, std::string* table, std::string* id) {
  size_t dash = name.rfind('-');
  if (dash == std::string::npos || name.size() - dash - 1 != 32) return false;
  for (char c : name.substr(dash + 1)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  *table = name.substr(0, dash);
  *id = name.substr(dash + 1);
  return true;
}

// Fills keyspace/table from the directory the SSTable sits in:
// .../<keyspace>/<table>-<id>/[snapshots/<name>/|backups/]<files>
void NameFromDirectory(SSTableLocation* location) {
  std::vector<std::string> parts = Split(location->directory, '/');
  parts.erase(std::remove(parts.begin(), parts.end(), std::string()), parts.end());
  parts.erase(std::remove(parts.begin(), parts.end(), std::string(".")), parts.end());
  for (int i = static_cast<int>(parts.size()) - 1; i >= 1; --i) {
    std::string table, id;
    if (ParseTableDirectory(parts[i], &table, &id)) {
      location->table = table;
      location->table_id = id;
      location->keyspace = parts[i - 1];
      return;
    }
  }
  // Loose files: use the enclosing directory names as a best guess.
  if (!parts.empty()) location->table = parts.back();
  if (parts.size() >= 2) location->keyspace = parts[parts.size() - 2];
}

Status Walk(FileSystem& fs, const std::string& dir, int depth, std::vector<SSTableLocation>* out) {
  if (depth > 8) return Status::OK();
  ASSIGN_OR_RETURN(auto entries, fs.ListDirectory(dir));
  for (const auto& entry : entries) {
    std::string path = JoinPath(dir, entry.name);
    if (entry.is_directory) {
      RETURN_IF_ERROR(Walk(fs, path, depth + 1, out));
      continue;
    }
    if (!EndsWith(entry.name, "-Data.db")) continue;
    auto name = ParseSSTableFileName(entry.name);
    if (!name.ok()) {
      // Names that are not SSTables are someone else's files; a real SSTable of
      // an unknown version is an error the user must see.
      if (name.status().kind() == StatusKind::kNotSupported) return name.status().WithContext(path);
      continue;
    }
    SSTableLocation location;
    location.directory = dir;
    location.name = *name;
    NameFromDirectory(&location);
    out->push_back(std::move(location));
  }
  return Status::OK();
}

}  // namespace

bool GenerationLess(const std::string& a, const std::string& b) {
  bool a_num = !a.empty() && std::all_of(a.begin(), a.end(), ::isdigit);
  bool b_num = !b.empty() && std::all_of(b.begin(), b.end(), ::isdigit);
  if (a_num && b_num && a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

std::optional<SSTableLocation> TableDirectoryLocation(const std::string& directory) {
  const std::string trimmed = WithoutTrailingSlash(directory);
  std::string table, id;
  if (!ParseTableDirectory(BaseName(trimmed), &table, &id)) return std::nullopt;
  SSTableLocation location;
  location.directory = trimmed;
  NameFromDirectory(&location);
  if (location.table_id != id) return std::nullopt;
  return location;
}

std::string OwningTableDirectory(const std::string& directory) {
  std::string trimmed = directory;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::string table_dir = trimmed;
  if (BaseName(DirName(trimmed)) == "snapshots") {
    table_dir = DirName(DirName(trimmed));
  } else if (BaseName(trimmed) == "backups") {
    table_dir = DirName(trimmed);
  }
  return TableDirectoryLocation(table_dir) ? table_dir : std::string();
}

bool HoldsOwnSSTables(FileSystem& fs, const std::string& directory) {
  auto entries = fs.ListDirectory(directory);
  return entries.ok() && std::any_of(entries->begin(), entries->end(), [](const DirectoryEntry& e) {
           return !e.is_directory && EndsWith(e.name, "-Data.db");
         });
}

Result<std::vector<SSTableLocation>> FindSSTables(FileSystem& fs, const std::string& given) {
  // "dir/" is "dir": the locations' directories must equal the table directory's.
  const std::string path = WithoutTrailingSlash(given);
  std::vector<SSTableLocation> found;
  if (!fs.Exists(path)) return Status::NotFound(StrCat(path, ": no such file or directory"));
  if (fs.IsDirectory(path)) {
    RETURN_IF_ERROR(Walk(fs, path, 0, &found));
  } else {
    auto name = ParseSSTableFileName(BaseName(path));
    if (!name.ok()) return name.status().WithContext(path);
    SSTableLocation location;
    location.directory = DirName(path);
    location.name = *name;
    NameFromDirectory(&location);
    found.push_back(std::move(location));
  }
  if (found.empty()) return Status::NotFound(StrCat(path, ": no SSTable (no *-Data.db file) found"));
  std::sort(found.begin(), found.end(), [](const SSTableLocation& a, const SSTableLocation& b) {
    if (a.keyspace != b.keyspace) return a.keyspace < b.keyspace;
    if (a.table != b.table) return a.table < b.table;
    if (a.directory != b.directory) return a.directory < b.directory;
    return GenerationLess(a.name.generation, b.name.generation);
  });
  return found;
}

Result<std::unique_ptr<SSTable>> SSTable::Open(FileSystem& fs, const SSTableLocation& location) {
  std::unique_ptr<SSTable> sstable(new SSTable(fs, location));
  std::string toc_path = location.ComponentPath("TOC.txt");
  if (fs.Exists(toc_path)) {
    ASSIGN_OR_RETURN(std::string toc, fs.ReadFileToString(toc_path));
    for (const std::string& line : Split(toc, '\n')) {
      std::string_view component = Trim(line);
      if (!component.empty()) sstable->components_.emplace_back(component);
    }
  }
  for (const char* required : {"Data.db", "Statistics.db"}) {
    std::string path = location.ComponentPath(required);
    if (!fs.Exists(path)) {
      return Status::NotFound(StrCat(path, ": missing; an SSTable needs its ", required));
    }
  }
  // A component the TOC lists and a scan depends on must be there: without
  // CompressionInfo.db a compressed Data.db would be misread as raw bytes.
  for (const std::string& component : sstable->components_) {
    if ((component == "CompressionInfo.db" || component == "CRC.db") &&
        !fs.Exists(location.ComponentPath(component))) {
      return Status::NotFound(StrCat(location.ComponentPath(component), ": missing, but listed in ",
                                     location.ComponentPath("TOC.txt")));
    }
  }
  ASSIGN_OR_RETURN(sstable->statistics_,
                   ReadStatistics(fs, location.ComponentPath("Statistics.db"), location.name.version));
  if (!sstable->statistics_.header) {
    return Status::Corruption(
        StrCat(location.ComponentPath("Statistics.db"), ": has no serialization header section"));
  }
  sstable->layout_ = DataLayout::FromHeader(*sstable->statistics_.header, location.name.version);
  sstable->layout_.partitioner = sstable->Partitioner();
  ASSIGN_OR_RETURN(auto data, fs.OpenForRead(location.DataPath()));
  sstable->data_size_ = data->Size();
  return sstable;
}

void SSTable::UseSchema(const TableSchema& schema) {
  layout_ = DataLayout::FromHeader(*statistics_.header, location_.name.version, &schema);
  layout_.partitioner = Partitioner();
}

std::optional<cqlite::Partitioner> SSTable::Partitioner() const {
  if (!statistics_.validation) return std::nullopt;
  return PartitionerFromClassName(statistics_.validation->partitioner);
}

Status SSTable::Scan(EnvelopeConsumer& consumer) const {
  ASSIGN_OR_RETURN(auto source, OpenDataFile(fs_, JoinPath(location_.directory, location_.name.prefix),
                                             location_.name.version));
  DataInput in(std::move(source), location_.DataPath());
  return ReadPartitions(in, layout_, consumer);
}

Result<std::unique_ptr<SSTableScanner>> SSTable::OpenScanner() const {
  ASSIGN_OR_RETURN(auto source, OpenDataFile(fs_, JoinPath(location_.directory, location_.name.prefix),
                                             location_.name.version));
  auto in = std::make_unique<DataInput>(std::move(source), location_.DataPath());
  return std::unique_ptr<SSTableScanner>(new SSTableScanner(std::move(in), layout_));
}

}  // namespace cqlite

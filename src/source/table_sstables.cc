#include "source/table_sstables.h"

#include "util/strings.h"

namespace cqlite {

Result<TableSSTables> OpenTableSSTables(FileSystem& fs, const std::string& given, const std::string& schema_file) {
  const std::string path = WithoutTrailingSlash(given);
  auto found = FindSSTables(fs, path);
  // A table directory's own SSTables are the table; its snapshots/<tag>/ and
  // backups/ hold copies of earlier states, not more generations.
  if (found.ok() && fs.IsDirectory(path)) {
    if (auto table_dir = TableDirectoryLocation(path)) {
      std::vector<SSTableLocation> own;
      for (SSTableLocation& location : *found) {
        if (location.directory == table_dir->directory) own.push_back(std::move(location));
      }
      if (own.empty()) {
        found = Status::NotFound(StrCat(path, ": no SSTable of its own (only in snapshots or backups)"));
      } else {
        found = std::move(own);
      }
    }
  }
  if (!found.ok() && found.status().kind() == StatusKind::kNotFound && fs.IsDirectory(path)) {
    // Compaction can leave a table directory with no SSTable at all (every
    // fact purged): that is a table with no rows, not an error.
    if (auto location = TableDirectoryLocation(path)) {
      TableSSTables table;
      ASSIGN_OR_RETURN(table.schema, ResolveTableSchema(fs, *location, {}, schema_file));
      table.partitioner = Partitioner::kMurmur3;
      return table;
    }
  }
  ASSIGN_OR_RETURN(auto locations, std::move(found));
  const SSTableLocation& first = locations.front();
  for (const SSTableLocation& location : locations) {
    if (location.keyspace != first.keyspace || location.table != first.table ||
        location.directory != first.directory) {
      return Status::InvalidArgument(StrCat(path, ": holds SSTables of more than one table (", first.DataPath(),
                                            " and ", location.DataPath(), "); point at one table directory"));
    }
  }
  TableSSTables table;
  std::vector<const SSTable*> generations;
  for (const SSTableLocation& location : locations) {
    ASSIGN_OR_RETURN(auto sstable, SSTable::Open(fs, location));
    generations.push_back(sstable.get());
    table.sstables.push_back(std::move(sstable));
  }
  ASSIGN_OR_RETURN(table.schema, ResolveTableSchema(fs, first, generations, schema_file));
  const SSTable& front = *table.sstables.front();
  table.partitioner = front.Partitioner();
  for (auto& sstable : table.sstables) {
    if (sstable->Partitioner() != table.partitioner) {
      return Status::InvalidArgument(
          StrCat(sstable->location().DataPath(), ": written by another partitioner than ", first.DataPath()));
    }
    sstable->UseSchema(table.schema.table);
  }
  return table;
}

}  // namespace cqlite

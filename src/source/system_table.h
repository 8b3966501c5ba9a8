// The live rows of one of a node's own tables (system.local, system.peers,
// system_schema.columns, ...), read with the SSTable reader and folded by
// the fold every table goes through (fold/table_fold.h): last write wins per
// cell, partition, range and row deletions, TTLs. Their schemas are
// Cassandra's, not the data directory's, so each is taken from the SSTables'
// own serialization headers; key columns are known by position.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/table_schema.h"
#include "fold/fold_types.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite {

struct SystemRow {
  std::vector<std::string> key;  // the partition key's components, as text
  FoldRow row;                   // its clustering values are the stored bytes
};

struct SystemTable {
  std::string path;  // the directory read; empty when there was none
  TableSchema schema;
  std::vector<SystemRow> rows;  // in partition and clustering order

  // The value of regular column `name` in `row`, or nullopt when it is null
  // or the table has no such column.
  std::optional<std::string> Value(const SystemRow& row, const std::string& name) const;
  // The value as Cassandra's getString renders it (uuid and inet as text),
  // or empty when null.
  Result<std::string> Text(const SystemRow& row, const std::string& name) const;
  // The elements of a set<text> or list<text> (per_entry 1) or the keys and
  // values of a map<text, text> (per_entry 2) column.
  Result<std::vector<std::string>> Elements(const SystemRow& row, const std::string& name, size_t per_entry) const;
};

// Folds, at `now_seconds`, the SSTables directly in `dir` (not those of its
// snapshots or backups). A live node compacts its system tables at any
// moment: when an SSTable listed is gone before it is read, the directory is
// listed and read again.
Result<SystemTable> ReadSystemTableDirectory(FileSystem& fs, const std::string& dir, int64_t now_seconds);

}  // namespace cqlite

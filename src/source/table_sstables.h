// Opens every SSTable generation of one table found under a path, with one
// schema they all agree with: what `cqlite select` and `cqlite delta-export`
// start from. Refuses paths that hold several tables, generations written by
// different partitioners, and schemas that contradict any generation's header.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "cassandra/token.h"
#include "io/file_system.h"

namespace cqlite {

struct TableSSTables {
  std::vector<std::unique_ptr<SSTable>> sstables;  // in generation order, each using `schema`
  ResolvedSchema schema;
  // Murmur3, Random or ByteOrdered, as every generation says; nullopt for partitioners
  // whose key order CQLite does not know.
  std::optional<Partitioner> partitioner;
};

// `schema_file` may be empty. The schema is ResolveTableSchema's for these
// generations (schema_source.h). A table directory (`<table>-<id>/`) without
// SSTables is a table without generations, provided a schema for it is found;
// its partitioner is then taken to be Murmur3.
Result<TableSSTables> OpenTableSSTables(FileSystem& fs, const std::string& path, const std::string& schema_file);

}  // namespace cqlite

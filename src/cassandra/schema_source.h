// Finds the schema of the table an SSTable belongs to, from the best source
// there is (DESIGN D2), in this order:
//   1. an explicit CQL file (`--schema`: CREATE TYPE / CREATE TABLE, as
//      DESCRIBE prints them);
//   2. the schema.cql that `nodetool snapshot` writes beside the SSTables;
//   3. the system_schema tables (tables, columns, types, dropped_columns) of
//      the same data directory, read with our own SSTable reader;
//   4. the SSTable's serialization header alone (no key column names).
// It also checks that the schema agrees with the header, since a schema that
// contradicts the file would silently misread it.
#pragma once

#include <string>

#include "cassandra/sstable.h"
#include "cassandra/table_schema.h"
#include "io/file_system.h"

namespace cqlite {

enum class SchemaOrigin { kSchemaFile, kSnapshotSchema, kSystemSchema, kSerializationHeader };

struct ResolvedSchema {
  TableSchema table;
  SchemaOrigin origin = SchemaOrigin::kSerializationHeader;
  std::string origin_path;  // the file or directory the schema was read from

  std::string Describe() const;
};

// `schema_file` may be empty. NotFound if an explicit file lacks the table.
Result<ResolvedSchema> ResolveSchema(FileSystem& fs, const SSTableLocation& location,
                                     const SerializationHeader& header, const std::string& schema_file);

// The schema of a table that has no SSTable yet (or no more: compaction can
// leave a table directory empty), from sources 1 to 3. NotFound without one.
Result<ResolvedSchema> ResolveSchemaWithoutSSTables(FileSystem& fs, const SSTableLocation& location,
                                                    const std::string& schema_file);

// A schema derived from the header: partition key columns named key, key2...
// (or the components of a CompositeType), clustering columns column1,
// column2..., as Cassandra names them for tables without metadata.
TableSchema SchemaFromHeader(const SerializationHeader& header, const std::string& keyspace,
                             const std::string& table);

// A COMPACT STORAGE table declared without clustering columns, as Cassandra
// stores it: a hidden clustering column (named column1, typed as `header`
// says), its declared columns static, and the header's hidden compact value
// column. No change for other tables.
void AddStaticCompactColumns(const SerializationHeader& header, TableSchema* schema);

// Adds the static and regular columns `header` lists that `schema` lacks: a
// schema taken from one generation's header knows only the columns that
// generation wrote, and a table's generations may each have written others.
void AddColumnsFromHeader(const SerializationHeader& header, TableSchema* schema);

// InvalidArgument naming the column when `schema` contradicts `header`: a
// key of another type or arity, or a static/regular column the schema
// neither has nor dropped, or has with a different type.
Status CheckSchemaAgainstHeader(const TableSchema& schema, const SerializationHeader& header,
                                const std::string& statistics_path);

}  // namespace cqlite

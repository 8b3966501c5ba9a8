// Finds the schema of a table, from the best source there is (DESIGN D2),
// in this order:
//   1. an explicit CQL file (`--schema`: CREATE TYPE / CREATE TABLE, as
//      DESCRIBE prints them);
//   2. the schema.cql that `nodetool snapshot` writes beside the SSTables,
//      or one for the whole keyspace in the keyspace directory;
//   3. the system_schema tables (tables, columns, types, dropped_columns) of
//      the same data directory, folded as every table is (system_table.h);
//   4. the SSTables' serialization headers alone (no key column names).
// It also checks that the schema agrees with every header, since a schema
// that contradicts a file would silently misread it. ResolveTableSchema is
// the one function that decides; everything else here is its parts.
#pragma once

#include <string>
#include <vector>

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

// One place where a schema may be declared (sources 1 to 3): a CQL file, or
// (kSystemSchema) the data directory holding `system_schema/`.
struct SchemaCandidate {
  SchemaOrigin origin;
  std::string path;
};

// Where the schema of the table `table` locates (its SSTables' directory, or
// its table directory) may be declared, best first, whether or not the files
// exist: `schema_file` alone when given; else the schema.cql of that
// directory, of its table directory when it is a snapshot or backup in one,
// of the keyspace directory (as DESCRIBE KEYSPACE prints it), then the
// system_schema tables of the data directory. What ResolveTableSchema reads,
// and what a copy of a table directory must carry along to resolve the same
// schema (the watcher's staging folder, watch/staging.h).
std::vector<SchemaCandidate> SchemaCandidates(const SSTableLocation& table, const std::string& schema_file);

// The schema of one table: the one owner of that decision, which every
// command (select, dump, delta-export, plan, materialize, watch, a staged
// run) asks. `table` locates the table (an SSTable's location, or
// TableDirectoryLocation of a directory without SSTables); `sstables` are its
// generations, none when it has none (compaction can leave a table directory
// empty). The first candidate found declares it (InvalidArgument naming the
// file and column when it contradicts a generation's serialization header;
// NotFound if an explicit file lacks the table); without one, the
// serialization headers tell (source 4), each generation adding the columns
// it wrote; NotFound with neither.
Result<ResolvedSchema> ResolveTableSchema(FileSystem& fs, const SSTableLocation& table,
                                          const std::vector<const SSTable*>& sstables,
                                          const std::string& schema_file);

// ResolveTableSchema of a table without SSTables.
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

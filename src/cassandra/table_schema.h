// The schema of one Cassandra table as the rest of CQLite sees it: its name,
// its columns with their CQL types and roles, and the columns dropped from it
// (whose cells may still be in old SSTables and must be skipped or shadowed
// by the drop time). Built from a schema.cql file (cql_schema.h) or from an
// SSTable's serialization header. A plain value type; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/cql_type.h"

namespace cqlite {

// The role of a column in its table (ColumnMetadata.Kind).
enum class ColumnKind { kPartitionKey, kClustering, kStatic, kRegular };

const char* ColumnKindName(ColumnKind kind);

struct ColumnSchema {
  // As Cassandra stores it: unquoted identifiers folded to lower case,
  // quoted ones verbatim (without the quotes).
  std::string name;
  // The column's type. For a DESC clustering column this is the plain type;
  // `reversed` says the order is descending (ReversedType in the header).
  CqlTypePtr type;
  ColumnKind kind = ColumnKind::kRegular;
  // Index within the partition key or the clustering key; -1 for static and
  // regular columns (ColumnMetadata.NO_POSITION).
  int position = -1;
  // Clustering columns only: CLUSTERING ORDER BY (... DESC).
  bool reversed = false;
  // A column Cassandra adds to a COMPACT STORAGE table (its clustering
  // column1 and compact value), which SELECT * does not show.
  bool hidden = false;
};

// A column removed by ALTER TABLE ... DROP. Cells of this column written
// before `drop_time_micros` are dead; later ones belong to a re-added column.
struct DroppedColumnSchema {
  std::string name;
  CqlTypePtr type;
  bool is_static = false;
  // USING TIMESTAMP of the drop, in microseconds since the epoch.
  int64_t drop_time_micros = 0;
};

struct TableSchema {
  std::string keyspace;  // empty when the CREATE TABLE named no keyspace
  std::string table;
  // WITH ID = <uuid>, lower-case text, when given.
  std::optional<std::string> table_id;
  // WITH COMPACT STORAGE (3.x tables).
  bool compact_storage = false;
  // Partition key columns by position, then clustering columns by position,
  // then static and regular columns in declaration order.
  std::vector<ColumnSchema> columns;
  std::vector<DroppedColumnSchema> dropped_columns;

  // Null when there is no column of that name.
  const ColumnSchema* FindColumn(std::string_view name) const;
  // When a column of that name was last dropped (microseconds): its cells
  // written at or before then are dead. INT64_MIN when it never was.
  int64_t LastDropMicros(std::string_view name) const;
  std::vector<const ColumnSchema*> PartitionKeyColumns() const;
  std::vector<const ColumnSchema*> ClusteringColumns() const;
  // The partition key type as the SSTable stores keys: the single column's
  // type, or a CompositeType of all partition key column types.
  CqlTypePtr PartitionKeyType() const;
};

}  // namespace cqlite

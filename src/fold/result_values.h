// The values a folded row shows in a result set, serialized as the native
// protocol carries them: what both `SELECT JSON` rendering and the Iceberg
// rows are made from. Multi-cell collections and user types are packed from
// their live cells as their frozen forms serialize; counters become their
// 8-byte totals; the partition key is split into its column values. Pure
// functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/table_schema.h"
#include "fold/fold_types.h"
#include "util/status.h"

namespace cqlite {

// The columns a `SELECT *` returns, as schema column indexes, in Cassandra's
// wildcard order: partition key, clustering, static columns by name, regular
// columns by name. Hidden columns (of COMPACT STORAGE tables) are left out.
std::vector<int> WildcardColumnOrder(const TableSchema& schema);

// The partition key's column values, split from the stored key. Corruption
// when the key does not have the table's arity.
Result<std::vector<std::string>> SplitPartitionKey(const CqlType& key_type, std::string_view key);

// The value of `column` (a static or regular column index) in `row`, or
// nullopt when it is null there. `row` may be null (no such row).
std::optional<std::string> ColumnValue(const TableSchema& schema, int column, const FoldRow* row);

}  // namespace cqlite

// What changed between two schemas of one table, in words, for logs: the
// watcher says so when a table's schema differs from the one its previous
// run used (columns added, dropped, renamed or retyped; fields of user types
// added or renamed). Pure functions of plain values; thread-compatible.
#pragma once

#include <string>

#include "cassandra/table_schema.h"

namespace cqlite {

// The changes from `before` to `after`, joined by ", " (e.g. "column note
// (text) added, user type shop.address: field zone (text) added"); empty
// when their columns, dropped columns and user types are the same. A key
// column whose name changed at the same place is renamed (Cassandra renames
// only primary key columns; a serialization header's key0 and column1 become
// a schema's names); another column whose name is gone is dropped, and one
// new is added.
std::string DescribeSchemaChange(const TableSchema& before, const TableSchema& after);

}  // namespace cqlite

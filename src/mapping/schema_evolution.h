// How a published table's Iceberg schema follows its Cassandra schema
// (docs/materialize.md, "Schema changes"). MapTable numbers a table's fields
// afresh; EvolveMapping gives them the ids the Iceberg table already has, so
// that every change Cassandra allows becomes the Iceberg change that keeps
// old data files readable as they are:
//   - ALTER TABLE ADD: a new optional field with a new id (old files read it
//     as null, as Cassandra shows the column for rows written before);
//   - ALTER TABLE DROP: the field leaves the current schema (its id is never
//     used again); a later ADD of the same name is a new field, so values
//     written before the drop stay hidden, as Cassandra hides them;
//   - ALTER TABLE RENAME (primary key columns only): the same field id under
//     its new name;
//   - ALTER TYPE ADD / RENAME of a user type's field: a struct field added
//     with a new id, or renamed keeping its id.
// A change Iceberg cannot express (a column of the same name and
// incarnation whose type maps to another Iceberg type) is an error naming
// the table, the column and what to do.
//
// Drops are told from re-adds by the drop times the Cassandra schema
// records (TableSchema::dropped_columns): each snapshot's summary carries
// the drops the table has taken in (kColumnDropsKey), so a column whose
// latest drop is newer than those is a new incarnation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/table_schema.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"
#include "mapping/iceberg_rows.h"
#include "util/status.h"

namespace cqlite::materialize {

// The snapshot summary key: the drops (column name and drop time) a table's
// schema has taken in, as "name@micros" joined by ",".
inline constexpr char kColumnDropsKey[] = "cqlite.column-drops";

using ColumnDrops = std::map<std::string, int64_t>;  // name -> latest drop time, microseconds

// The drops of `table` (its latest per column name), and their summary text.
ColumnDrops DropsOf(const TableSchema& table);
std::string ColumnDropsToString(const ColumnDrops& drops);
// Corruption naming `where` when `text` is not what ColumnDropsToString writes.
Result<ColumnDrops> ColumnDropsFromString(const std::string& text, const std::string& where);

struct SchemaEvolution {
  // `fresh` with the Iceberg table's ids, and new ids for what is new.
  TableMapping mapping;
  // The table's last-column-id after the change.
  int32_t last_column_id = 0;
  // What changed, one phrase each ("column note (string) added").
  std::vector<std::string> changes;
  // Names of top-level fields of the current schema that are no more
  // (dropped columns, and the old incarnation of a column added again):
  // rows whose only live cells were in them are gone, so the run must fold
  // every row rather than those its generations touch.
  std::vector<std::string> dropped;
};

// `fresh` (MapTable of `table`) evolved from `current`, the Iceberg table's
// current schema, whose table's last-column-id is `last_column_id`. `seen`:
// the drops the table has taken in (none recorded: every drop `table` names
// is taken as seen). `table_name` names the table in errors.
Result<SchemaEvolution> EvolveMapping(const TableMapping& fresh, const TableSchema& table,
                                      const iceberg::Schema& current, int32_t last_column_id,
                                      const std::optional<ColumnDrops>& seen, const std::string& table_name);

// OK when `next` (a staged run's schema, evolved from the table as it was
// then) can become the current schema of `table` as it is now: each of its
// field ids is either a field of the current schema, of the same type, or
// after the table's last-column-id. InvalidArgument naming `name` (the
// table was altered again since the run was staged) otherwise.
Status CheckEvolvesFrom(const iceberg::TableMetadata& table, const iceberg::Schema& next, const std::string& name);

}  // namespace cqlite::materialize

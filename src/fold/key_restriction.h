// The partition key restrictions of `cqlite select --where column=value`:
// parsed against the table's schema, and checked against a partition's key
// by comparing each restricted column's CQL text (AbstractType.getString)
// with the value given.
#pragma once

#include <string>
#include <vector>

#include "cassandra/cql_type.h"
#include "cassandra/table_schema.h"
#include "util/status.h"

namespace cqlite {

// One restriction: the key column at `position` must print as `text`.
struct KeyRestriction {
  int position = 0;
  const CqlType* type = nullptr;
  std::string text;
};

// Parses `column=value` clauses: a column name as CQL gives it (quoted for
// case), a value with optional single quotes. InvalidArgument, naming the
// clause, for no `=` or a column that is not a partition key column.
Result<std::vector<KeyRestriction>> ParseKeyRestrictions(const std::vector<std::string>& where,
                                                         const TableSchema& schema);

// Whether a partition key (its components' bytes) meets every restriction.
bool MatchesKeyRestrictions(const std::vector<KeyRestriction>& restrictions, const std::vector<std::string>& key);

}  // namespace cqlite

// The Iceberg face of a Cassandra table (DESIGN "CQL -> Iceberg types"): the
// Iceberg schema a CQL schema maps to, with field ids and identifier fields,
// and the conversion of folded rows into Iceberg rows (Parquet values in the
// shape of ToParquetSchema). Static columns are denormalised onto each row
// of their partition; counters are their totals. Values the mapping cannot
// hold exactly (a decimal with more fractional digits than the table's
// scale, a time with sub-microsecond digits, a varint beyond 38 digits) are
// errors naming the column, never silently changed. An empty value (which
// Cassandra accepts for any type) is null, as result sets show it, except for
// text, ascii and blob, where it is the empty string.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/table_schema.h"
#include "fold/fold_types.h"
#include "iceberg/schema.h"
#include "parquet/value.h"
#include "util/status.h"

namespace cqlite::materialize {

struct MappingOptions {
  // Decimal columns become decimal(38, decimal_scale); varint decimal(38, 0).
  int32_t decimal_scale = 18;
  // Drop the sub-microsecond digits of CQL times instead of failing.
  bool truncate_time = false;
};

struct TableMapping {
  iceberg::Schema schema;
  // Per top-level Iceberg field, the index of its Cassandra column.
  std::vector<int> columns;
  // Set when the primary key cannot be the identifier fields (a float or
  // double or non-primitive key column, or a COMPACT STORAGE table's second
  // or later clustering column, which may be null): says why, for a warning.
  std::string identifier_warning;
};

// NotSupported naming the column and its type when a column's type has no
// Iceberg form (custom types, the empty type).
Result<TableMapping> MapTable(const TableSchema& table, const MappingOptions& options);

// Converts folded rows of one table into Iceberg rows.
class RowConverter {
 public:
  RowConverter(const TableSchema& table, const TableMapping& mapping, const MappingOptions& options);

  // The row `row` of the partition whose key is `key` (the stored key bytes),
  // with `static_row` (may be null) denormalised onto it. InvalidArgument
  // naming the column when a value does not fit its Iceberg type.
  Result<parquet::Value> Convert(std::string_view key, const FoldRow* static_row, const FoldRow& row) const;

  // The earliest time (seconds) at which a cell or the liveness of `row`
  // expires; INT64_MAX when nothing in it expires.
  static int64_t EarliestExpiry(const FoldRow& row);

 private:
  Result<parquet::Value> ColumnValue(int field, const std::string* key_value, const FoldRow* static_row,
                                     const FoldRow& row) const;

  const TableSchema& table_;
  const TableMapping& mapping_;
  MappingOptions options_;
  CqlTypePtr key_type_;
};

// The Iceberg value of `bytes` serialized as `cql`, for a field of type
// `type`. InvalidArgument (without a column name) when it does not fit.
Result<parquet::Value> ToIcebergValue(const CqlType& cql, const iceberg::Type& type, std::string_view bytes,
                                      const MappingOptions& options);

}  // namespace cqlite::materialize

// The Iceberg face of a Cassandra table (DESIGN "CQL -> Iceberg types"): the
// Iceberg schema a CQL schema maps to, with field ids and identifier fields,
// and the conversion of folded rows into Iceberg rows (Parquet values in the
// shape of ToParquetSchema). Static columns are denormalised onto each row
// of their partition; counters are their totals. Values the mapping cannot
// hold exactly (a decimal with more fractional digits than the table's
// scale, a time with sub-microsecond digits published as an Iceberg time, a
// varint beyond 38 digits) are
// errors naming the column, never silently changed. An empty value (which
// Cassandra accepts for any type) is null, as result sets show it, except for
// text, ascii and blob, where it is the empty string.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/table_schema.h"
#include "fold/fold_types.h"
#include "iceberg/schema.h"
#include "mapping/row_hash.h"
#include "parquet/row_batch.h"
#include "parquet/value.h"
#include "util/status.h"

namespace cqlite::materialize {

// What a CQL `time` (nanoseconds since midnight) becomes: an Iceberg `time`
// (microseconds), a `long` holding the nanoseconds, or a `string` as SELECT
// JSON prints it ("08:12:54.123456789"). The last two serve engines without
// Iceberg times (Spark refuses a table with a time field) and keep every
// nanosecond.
enum class TimeAs { kTime, kLong, kString };

// The table property recording a table's TimeAs when it is created, so that
// later runs map its times alike; a table without it (made by an earlier
// CQLite) maps them to `time`.
inline constexpr char kTimeAsProperty[] = "cqlite.time-as";

// "time", "long", "string": the names of --time-as and kTimeAsProperty.
std::string_view TimeAsName(TimeAs time_as);
std::optional<TimeAs> ParseTimeAs(std::string_view name);

struct MappingOptions {
  // Decimal columns become decimal(38, decimal_scale); varint decimal(38, 0).
  int32_t decimal_scale = 18;
  // Drop the sub-microsecond digits of CQL times mapped to Iceberg times
  // instead of failing.
  bool truncate_time = false;
  // How CQL times map, wherever they appear (nested ones too). When the user
  // chose it (`time_as_given`) a table's recorded choice must agree; when not,
  // it yields to that choice (ResolveTimeAs).
  TimeAs time_as = TimeAs::kTime;
  bool time_as_given = false;
  // Primary key columns mapped to optional fields, their empty values to
  // null: Cassandra accepts a zero-byte value for a key column of any type
  // (`blobAsInt(0x)`), which no value of a required int, uuid, timestamp...
  // field can stand for. A table has them once such a value was seen
  // (materializer.h); it then has no identifier fields, since Iceberg
  // requires identifier fields to be required.
  std::vector<std::string> nullable_keys;
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

// Sets options->time_as for a run on the table `table_name` (for messages)
// whose Iceberg table properties are `properties` (null: there is no table
// yet, which the run creates with options->time_as): the table's recorded
// choice, or InvalidArgument naming the table when the user's choice differs
// from it or the recorded value is unknown.
Status ResolveTimeAs(const std::map<std::string, std::string>* properties, const std::string& table_name,
                     MappingOptions* options);

// NotSupported naming the column and its type when a column's type has no
// Iceberg form (custom types, the empty type).
Result<TableMapping> MapTable(const TableSchema& table, const MappingOptions& options);

// The error RowBatchConverter::Append returns for an empty value in a
// primary key column whose field is required, and the column it names when
// `status` (with any context added) is one.
Status EmptyKeyValueError(const std::string& column);
std::optional<std::string> EmptyKeyColumn(const Status& status);

// Converts folded rows of one table into Iceberg rows.
class RowConverter {
 public:
  RowConverter(const TableSchema& table, const TableMapping& mapping, const MappingOptions& options);

  // The row `row` of the partition whose key is `key` (the stored key bytes),
  // with `static_row` (may be null) denormalised onto it. InvalidArgument
  // naming the column when a value does not fit its Iceberg type.
  Result<parquet::Value> Convert(std::string_view key, const FoldRow* static_row, const FoldRow& row) const;

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

// A value of a primitive Iceberg type, as ToIcebergValue converts it, but
// without a value tree: what goes straight into a Parquet leaf column.
struct IcebergScalar {
  enum class Kind { kNull, kBool, kInt32, kInt64, kFloat, kDouble, kBytes };
  Kind kind = Kind::kNull;
  int64_t int_value = 0;  // kBool, kInt32, kInt64
  float float_value = 0;
  double double_value = 0;
  // kBytes (strings too): a view of the serialized value, or, for values
  // made anew (decimals, varints, inet), of `owned`.
  std::string_view view;
  std::string owned;
  bool is_owned = false;

  std::string_view bytes() const { return is_owned ? std::string_view(owned) : view; }
  parquet::Value ToValue() const;
  // Whether values of `kind` convert to an IcebergScalar (every CQL type but
  // collections, vectors, tuples, user types and duration).
  static bool IsScalarKind(CqlKind kind);
};

// ToIcebergValue for a scalar kind. The result may view `bytes`.
Result<IcebergScalar> ToIcebergScalar(const CqlType& cql, const iceberg::Type& type, std::string_view bytes,
                                      const MappingOptions& options);
// The same into `out`, reused from value to value by the converters of many
// rows. On error `out` holds nothing meaningful.
Status ToIcebergScalar(const CqlType& cql, const iceberg::Type& type, std::string_view bytes,
                       const MappingOptions& options, IcebergScalar* out);

// Converts folded rows into Iceberg rows appended to a parquet::RowBatch of
// iceberg::ToParquetSchema(mapping.schema), as DuckDB's column writers take
// vectors: where each field's value comes from (a partition key component, a
// clustering value, a static or regular column) and how it converts is
// decided once, when the converter is made; a scalar goes from its
// serialized bytes straight into its leaf column, and only nested values
// (collections, tuples, user types, durations) are built as value trees
// first. Each row's hash (row_hash.h) is the one HashRow gives the value
// tree RowConverter::Convert makes of it.
class RowBatchConverter {
 public:
  // `table` and `mapping` must outlive the converter.
  RowBatchConverter(const TableSchema& table, const TableMapping& mapping, const MappingOptions& options);

  // The row `row` of the partition whose key is `key` (the stored key bytes),
  // with `static_row` (may be null) denormalised onto it: appended to
  // `batch` and counted (RowBatch::EndRows), or only hashed when `batch` is
  // null. Returns the row's hash. InvalidArgument naming the column when a
  // value does not fit its Iceberg type; the batch then holds part of the
  // row and must not be written.
  Result<uint64_t> Append(std::string_view key, const FoldRow* static_row, const FoldRow& row,
                          parquet::RowBatch* batch);

 private:
  struct FieldPlan {
    const ColumnSchema* column = nullptr;
    int column_index = 0;  // into TableSchema::columns
    int32_t field_id = 0;  // its Iceberg field's, which the row hash names it by
    const iceberg::Type* type = nullptr;
    bool required = false;
    bool scalar = false;   // IcebergScalar::IsScalarKind
    bool cell_column = false;  // a static or regular column: its value comes from cells
    bool simple_cell = false;  // and, when not multi-cell, is its one cell's (not a counter)
    int leaf = 0;          // scalar: its leaf column
    int null_def_level = 0;  // the definition level of a null
    // A list, set or map of scalars: when its cells are the column's (not
    // frozen), its elements go from the cells straight to the leaf columns
    // of the elements (of a map: its keys) and of a map's values.
    bool scalar_collection = false;
    const CqlType* element_cql = nullptr;
    const iceberg::Type* element_type = nullptr;
    const CqlType* value_cql = nullptr;  // maps
    const iceberg::Type* value_type = nullptr;
    int element_leaf = 0, value_leaf = 0;
    int empty_def_level = 0;    // an empty collection's
    int element_def_level = 0;  // a present element's (a null one's is one less)
    int value_def_level = 0;
    int element_rep_level = 0;  // of every element after the first
  };

  // A scalar collection's cells: appended (when `batch` is not null) and hashed.
  Status AppendCells(const FieldPlan& field, const FoldColumn& data, parquet::RowBatch* batch, RowHasher* hasher);

  const TableSchema& table_;
  MappingOptions options_;
  CqlTypePtr key_type_;
  std::vector<FieldPlan> fields_;
  // The last partition key split, kept while its rows come.
  std::string split_key_;
  std::vector<std::string> key_values_;
  bool has_split_key_ = false;
  // Per schema column, its data in the row being appended (or its static
  // row): an entry stands only while its serial is the row's.
  struct PlacedColumn {
    const FoldColumn* data = nullptr;
    uint64_t row = 0;
  };
  std::vector<PlacedColumn> column_data_;
  uint64_t row_serial_ = 0;
};

}  // namespace cqlite::materialize

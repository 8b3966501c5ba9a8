// RowBatch holds rows already shredded into the writer's leaf columns, so
// that ParquetWriter::WriteBatch can write them column by column without a
// Value tree per row. Each leaf column (ColumnBatch) keeps its repetition and
// definition levels (Dremel) and its non-null values in a typed array:
//
//   // schema: id INT64 required, name STRING optional, tags LIST<STRING> optional
//   RowBatch batch(schema);
//   batch.column(0).AppendInt64(7);          // required: no levels
//   batch.column(1).AppendNull(0);           // name is null (def level 0)
//   batch.column(2).AppendBytes("a");        // tags = ["a", "b"]
//   batch.column(2).AppendBytes("b", 1);     //   second element: rep level 1
//   batch.EndRows(1);
//   RETURN_IF_ERROR(writer->WriteBatch(batch));
//
// Values passed to Append* have the leaf's maximum definition level; the
// repetition level defaults to 0 (a new row). AppendRow shreds a Value row
// into the batch for callers that have one. Levels per column are checked by
// WriteBatch (ranges, counts, one record per row); that sibling columns of a
// repeated group agree with each other is the caller's responsibility.
//
// The batch copies what it needs of the schema; it is a plain value type,
// thread-compatible, reusable after Clear().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"

namespace cqlite::parquet {

class ColumnBatch {
 public:
  ColumnBatch(PhysicalType type, int max_def_level, int max_rep_level)
      : type_(type), max_def_level_(max_def_level), max_rep_level_(max_rep_level) {}

  // An absent value: REQUIRES def_level < max_def_level().
  void AppendNull(int def_level, int rep_level = 0) { AppendLevels(def_level, rep_level); }
  // A present value (definition level max_def_level()). REQUIRES: the
  // method matches physical_type().
  void AppendBool(bool v, int rep_level = 0) {
    AppendLevels(max_def_level_, rep_level);
    bools_.push_back(v ? 1 : 0);
  }
  void AppendInt32(int32_t v, int rep_level = 0) {
    AppendLevels(max_def_level_, rep_level);
    int32s_.push_back(v);
  }
  void AppendInt64(int64_t v, int rep_level = 0) {
    AppendLevels(max_def_level_, rep_level);
    int64s_.push_back(v);
  }
  void AppendFloat(float v, int rep_level = 0) {
    AppendLevels(max_def_level_, rep_level);
    floats_.push_back(v);
  }
  void AppendDouble(double v, int rep_level = 0) {
    AppendLevels(max_def_level_, rep_level);
    doubles_.push_back(v);
  }
  // BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
  void AppendBytes(std::string_view v, int rep_level = 0) {
    AppendLevels(max_def_level_, rep_level);
    bytes_.append(v);
    offsets_.push_back(bytes_.size());
  }
  // Any non-null scalar Value of the kind the physical type takes.
  void AppendValue(const Value& v, int rep_level = 0);

  void Clear();

  // Where the column stands, to take back what is appended after it.
  struct Mark {
    size_t levels = 0, defs = 0, reps = 0, bools = 0, int32s = 0, int64s = 0, floats = 0, doubles = 0, bytes = 0,
           offsets = 0;
  };
  Mark mark() const;
  // REQUIRES: `mark` is this column's, and no Clear() came since.
  void Truncate(const Mark& mark);

  PhysicalType physical_type() const { return type_; }
  int max_def_level() const { return max_def_level_; }
  int max_rep_level() const { return max_rep_level_; }
  // Levels appended (values and nulls).
  size_t num_levels() const { return num_levels_; }
  // Empty when the maximum level is 0.
  std::span<const int16_t> def_levels() const { return def_levels_; }
  std::span<const int16_t> rep_levels() const { return rep_levels_; }
  // The non-null values of the column's type, in order.
  std::span<const uint8_t> bools() const { return bools_; }
  std::span<const int32_t> int32s() const { return int32s_; }
  std::span<const int64_t> int64s() const { return int64s_; }
  std::span<const float> floats() const { return floats_; }
  std::span<const double> doubles() const { return doubles_; }
  // Byte values: value i is bytes()[offsets()[i], offsets()[i + 1]).
  std::string_view bytes() const { return bytes_; }
  std::span<const uint64_t> offsets() const { return offsets_; }
  // Non-null values appended.
  size_t num_values() const;

 private:
  void AppendLevels(int def_level, int rep_level) {
    if (max_def_level_ > 0) def_levels_.push_back(static_cast<int16_t>(def_level));
    if (max_rep_level_ > 0) rep_levels_.push_back(static_cast<int16_t>(rep_level));
    ++num_levels_;
  }

  PhysicalType type_;
  int max_def_level_;
  int max_rep_level_;
  size_t num_levels_ = 0;
  std::vector<int16_t> def_levels_;
  std::vector<int16_t> rep_levels_;
  std::vector<uint8_t> bools_;
  std::vector<int32_t> int32s_;
  std::vector<int64_t> int64s_;
  std::vector<float> floats_;
  std::vector<double> doubles_;
  std::string bytes_;
  std::vector<uint64_t> offsets_{0};
};

class RowBatch {
 public:
  explicit RowBatch(const Schema& schema);

  // Leaf columns in schema order (depth first), as ParquetWriter numbers them.
  int num_columns() const { return static_cast<int>(columns_.size()); }
  ColumnBatch& column(int leaf) { return columns_[leaf]; }
  const ColumnBatch& column(int leaf) const { return columns_[leaf]; }

  // Declares that `n` more rows were appended to every column.
  void EndRows(int64_t n = 1) { num_rows_ += n; }
  int64_t num_rows() const { return num_rows_; }

  // Shreds a struct row (one value per top-level field, as
  // ParquetWriter::WriteRow takes) into the columns and counts it.
  // InvalidArgument, with nothing appended, if it does not fit the schema.
  Status AppendRow(const Value& row);

  // Column by column instead: the schema node of top-level field `field`
  // (its leaf columns and levels), so that a scalar field's value can be
  // appended to its leaf column directly, and AppendField, which shreds a
  // value into the leaf columns of `field` as AppendRow does. Once every
  // field of a row is appended, EndRows() counts it. InvalidArgument, with
  // nothing appended, if the value does not fit the field.
  const SchemaNode& field_node(int field) const { return plan_.roots[field]; }
  Status AppendField(int field, const Value& value);

  void Clear();

  // The batch as it stands, so that rows appended after it can be taken back
  // (a row converted, then found unchanged). `mark` is reused: no allocation
  // after the first.
  struct Mark {
    int64_t rows = 0;
    std::vector<ColumnBatch::Mark> columns;
  };
  void MarkTo(Mark* mark) const;
  // Takes back every row appended since `mark`. REQUIRES: no Clear() since.
  void TruncateTo(const Mark& mark);

 private:
  void Shred(int field, const Value& value);

  std::unique_ptr<Schema> schema_;  // stable address: plan_ points into it
  LevelPlan plan_;
  std::vector<ColumnBatch> columns_;
  int64_t num_rows_ = 0;
};

// Whether `value` fits the field of `node` (kinds, fixed lengths, nesting,
// null only where optional). Internal to the writer and RowBatch.
bool ValueFits(const SchemaNode& node, const Value& value);

}  // namespace cqlite::parquet

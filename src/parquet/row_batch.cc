#include "parquet/row_batch.h"


#include "parquet/shred.h"
#include "util/strings.h"

namespace cqlite::parquet {

namespace {

Value::Kind KindFor(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean:
      return Value::Kind::kBool;
    case PhysicalType::kInt32:
      return Value::Kind::kInt32;
    case PhysicalType::kInt64:
      return Value::Kind::kInt64;
    case PhysicalType::kFloat:
      return Value::Kind::kFloat;
    case PhysicalType::kDouble:
      return Value::Kind::kDouble;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return Value::Kind::kBytes;
    default:
      return Value::Kind::kNull;
  }
}

}  // namespace

bool ValueFits(const SchemaNode& node, const Value& value) {
  const Field& f = *node.field;
  if (value.is_null()) return f.optional();
  switch (f.kind) {
    case Field::Kind::kPrimitive:
      if (value.kind() != KindFor(f.physical_type)) return false;
      if (f.physical_type == PhysicalType::kFixedLenByteArray)
        return value.bytes().size() == static_cast<size_t>(f.type_length);
      if (f.physical_type == PhysicalType::kByteArray) return value.bytes().size() <= 0x7fffffffu;
      return true;
    case Field::Kind::kStruct:
      if (value.kind() != Value::Kind::kStruct || value.fields().size() != node.children.size()) return false;
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (!ValueFits(node.children[i], value.fields()[i])) return false;
      }
      return true;
    case Field::Kind::kList:
      if (value.kind() != Value::Kind::kList) return false;
      for (const Value& e : value.elements()) {
        if (!ValueFits(node.children[0], e)) return false;
      }
      return true;
    case Field::Kind::kMap:
      if (value.kind() != Value::Kind::kMap) return false;
      for (size_t i = 0; i < value.map_size(); ++i) {
        if (!ValueFits(node.children[0], value.map_key(i)) ||
            !ValueFits(node.children[1], value.map_value(i))) {
          return false;
        }
      }
      return true;
  }
  return false;
}

void ColumnBatch::AppendValue(const Value& v, int rep_level) {
  switch (type_) {
    case PhysicalType::kBoolean:
      AppendBool(v.bool_value(), rep_level);
      return;
    case PhysicalType::kInt32:
      AppendInt32(v.int32_value(), rep_level);
      return;
    case PhysicalType::kInt64:
      AppendInt64(v.int64_value(), rep_level);
      return;
    case PhysicalType::kFloat:
      AppendFloat(v.float_value(), rep_level);
      return;
    case PhysicalType::kDouble:
      AppendDouble(v.double_value(), rep_level);
      return;
    default:
      AppendBytes(v.bytes(), rep_level);
      return;
  }
}

size_t ColumnBatch::num_values() const {
  switch (type_) {
    case PhysicalType::kBoolean:
      return bools_.size();
    case PhysicalType::kInt32:
      return int32s_.size();
    case PhysicalType::kInt64:
      return int64s_.size();
    case PhysicalType::kFloat:
      return floats_.size();
    case PhysicalType::kDouble:
      return doubles_.size();
    default:
      return offsets_.size() - 1;
  }
}

void ColumnBatch::Clear() {
  num_levels_ = 0;
  def_levels_.clear();
  rep_levels_.clear();
  bools_.clear();
  int32s_.clear();
  int64s_.clear();
  floats_.clear();
  doubles_.clear();
  bytes_.clear();
  offsets_.assign(1, 0);
}

ColumnBatch::Mark ColumnBatch::mark() const {
  return {num_levels_,    def_levels_.size(), rep_levels_.size(), bools_.size(), int32s_.size(),
          int64s_.size(), floats_.size(),     doubles_.size(),    bytes_.size(), offsets_.size()};
}

void ColumnBatch::Truncate(const Mark& mark) {
  num_levels_ = mark.levels;
  def_levels_.resize(mark.defs);
  rep_levels_.resize(mark.reps);
  bools_.resize(mark.bools);
  int32s_.resize(mark.int32s);
  int64s_.resize(mark.int64s);
  floats_.resize(mark.floats);
  doubles_.resize(mark.doubles);
  bytes_.resize(mark.bytes);
  offsets_.resize(mark.offsets);
}

RowBatch::RowBatch(const Schema& schema) : schema_(std::make_unique<Schema>(schema)) {
  plan_ = BuildLevelPlan(*schema_);
  columns_.reserve(plan_.columns.size());
  for (const ColumnDescriptor& c : plan_.columns) {
    columns_.emplace_back(c.field->physical_type, c.max_def_level, c.max_rep_level);
  }
}

void RowBatch::Clear() {
  for (ColumnBatch& c : columns_) c.Clear();
  num_rows_ = 0;
}

void RowBatch::MarkTo(Mark* mark) const {
  mark->rows = num_rows_;
  mark->columns.resize(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) mark->columns[i] = columns_[i].mark();
}

void RowBatch::TruncateTo(const Mark& mark) {
  num_rows_ = mark.rows;
  for (size_t i = 0; i < columns_.size(); ++i) columns_[i].Truncate(mark.columns[i]);
}

void RowBatch::Shred(int field, const Value& value) {
  auto emit = [this](int leaf, int rep_level, int def_level, const Value* value) {
    if (value) {
      columns_[leaf].AppendValue(*value, rep_level);
    } else {
      columns_[leaf].AppendNull(def_level, rep_level);
    }
  };
  ShredValue(plan_.roots[field], value, 0, emit);
}

Status RowBatch::AppendRow(const Value& row) {
  bool fits = row.kind() == Value::Kind::kStruct && row.fields().size() == plan_.roots.size();
  for (size_t i = 0; fits && i < plan_.roots.size(); ++i) fits = ValueFits(plan_.roots[i], row.fields()[i]);
  if (!fits) return Status::InvalidArgument(StrCat("row does not fit the Parquet schema: ", row.ToString()));
  for (size_t i = 0; i < plan_.roots.size(); ++i) Shred(static_cast<int>(i), row.fields()[i]);
  ++num_rows_;
  return Status::OK();
}

Status RowBatch::AppendField(int field, const Value& value) {
  if (field < 0 || static_cast<size_t>(field) >= plan_.roots.size() || !ValueFits(plan_.roots[field], value)) {
    return Status::InvalidArgument(StrCat("value does not fit field ", field, " of the Parquet schema: ",
                                          value.ToString()));
  }
  Shred(field, value);
  return Status::OK();
}


}  // namespace cqlite::parquet

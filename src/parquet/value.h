// A row value for ParquetWriter and ParquetReader: a small tree of null,
// bool, int32, int64, float, double, bytes (strings are bytes holding UTF-8),
// list, map and struct values. A row is a struct with one value per top-level
// field of the schema, in schema order.
//
// Which kind a column takes follows its physical type: BOOLEAN bool, INT32
// int32 (also DATE, INTEGER(8/16/32), DECIMAL(<=9)), INT64 int64 (TIME and
// TIMESTAMP micros, DECIMAL(<=18)), FLOAT float, DOUBLE double, BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY bytes (UUID: 16 bytes; DECIMAL: big-endian two's
// complement of the unscaled value). Plain value type, thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cqlite::parquet {

class Value {
 public:
  enum class Kind { kNull, kBool, kInt32, kInt64, kFloat, kDouble, kBytes, kList, kMap, kStruct };

  Value() = default;  // null
  static Value Null() { return Value(); }
  static Value Bool(bool v);
  static Value Int32(int32_t v);
  static Value Int64(int64_t v);
  static Value Float(float v);
  static Value Double(double v);
  static Value Bytes(std::string v);
  static Value String(std::string v) { return Bytes(std::move(v)); }
  static Value List(std::vector<Value> elements);
  static Value Map(std::vector<std::pair<Value, Value>> entries);
  static Value Struct(std::vector<Value> fields);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }

  // REQUIRES: the matching kind.
  bool bool_value() const { return scalar_.b; }
  int32_t int32_value() const { return scalar_.i32; }
  int64_t int64_value() const { return scalar_.i64; }
  float float_value() const { return scalar_.f; }
  double double_value() const { return scalar_.d; }
  const std::string& bytes() const { return bytes_; }
  // List elements or struct fields.
  const std::vector<Value>& elements() const { return children_; }
  const std::vector<Value>& fields() const { return children_; }
  // Map entries.
  size_t map_size() const { return children_.size() / 2; }
  const Value& map_key(size_t i) const { return children_[2 * i]; }
  const Value& map_value(size_t i) const { return children_[2 * i + 1]; }

  // Floats compare by bit pattern, so NaN == NaN and -0.0 != 0.0: equality
  // here means "the same value was stored".
  bool operator==(const Value& other) const;

  // A debugging rendering: null, true, 1, 1L, 1.5f, 1.5, "text" or 0x..,
  // [a, b], {k: v}, (a, b).
  std::string ToString() const;

 private:
  Kind kind_ = Kind::kNull;
  union {
    bool b;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
  } scalar_{};
  std::string bytes_;
  std::vector<Value> children_;  // list elements, struct fields, map keys and values interleaved
};

}  // namespace cqlite::parquet

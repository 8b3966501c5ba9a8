// A generic Avro value (datum): one node per schema node, so a record holds
// its field values in schema order, a union holds the branch index and the
// branch's value, and bytes, string and fixed all hold their bytes. A datum
// does not know its schema; the encoder checks one against the other.
// A plain value type (deep copies), thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "avro/schema.h"

namespace cqlite::avro {

class Datum {
 public:
  using MapEntries = std::vector<std::pair<std::string, Datum>>;

  Datum() = default;  // null

  static Datum Null() { return Datum(); }
  static Datum Boolean(bool value) { return Datum(Type::kBoolean, value); }
  static Datum Int(int32_t value) { return Datum(Type::kInt, value); }
  static Datum Long(int64_t value) { return Datum(Type::kLong, value); }
  static Datum Float(float value) { return Datum(Type::kFloat, value); }
  static Datum Double(double value) { return Datum(Type::kDouble, value); }
  static Datum Bytes(std::string value) { return Datum(Type::kBytes, std::move(value)); }
  static Datum String(std::string value) { return Datum(Type::kString, std::move(value)); }
  static Datum Fixed(std::string value) { return Datum(Type::kFixed, std::move(value)); }
  static Datum Enum(int32_t index) { return Datum(Type::kEnum, index); }
  static Datum Array(std::vector<Datum> items) { return Datum(Type::kArray, std::move(items)); }
  static Datum Map(MapEntries entries) { return Datum(Type::kMap, std::move(entries)); }
  // Field values in the record schema's field order.
  static Datum Record(std::vector<Datum> fields) { return Datum(Type::kRecord, std::move(fields)); }
  static Datum Union(int32_t branch, Datum value);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }

  // Accessors. REQUIRES: the datum has the matching type.
  bool boolean_value() const { return std::get<bool>(value_); }
  int32_t int_value() const { return std::get<int32_t>(value_); }  // int and enum
  int64_t long_value() const { return std::get<int64_t>(value_); }
  float float_value() const { return std::get<float>(value_); }
  double double_value() const { return std::get<double>(value_); }
  const std::string& bytes() const { return std::get<std::string>(value_); }  // bytes, string, fixed
  const std::vector<Datum>& items() const { return std::get<std::vector<Datum>>(value_); }  // array
  std::vector<Datum>& mutable_items() { return std::get<std::vector<Datum>>(value_); }
  const std::vector<Datum>& fields() const { return items(); }  // record
  const MapEntries& map_entries() const { return std::get<MapEntries>(value_); }
  int32_t union_branch() const { return union_branch_; }
  const Datum& union_value() const { return items().front(); }

  // For a union, the value of the chosen branch; otherwise *this.
  const Datum& Unwrapped() const { return type_ == Type::kUnion ? union_value() : *this; }

  // Same type and equal values (NaN equals NaN bit for bit; tests use this).
  bool operator==(const Datum& other) const;

 private:
  using Value = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                             std::vector<Datum>, MapEntries>;
  template <typename T>
  Datum(Type type, T value) : type_(type), value_(std::move(value)) {}

  Type type_ = Type::kNull;
  int32_t union_branch_ = 0;
  Value value_;
};

// A record field of `record` (REQUIRES: record datum of `schema`) by name, or
// nullptr when the schema has no such field. Reading by name lets a reader
// accept writers that add, drop or reorder fields.
const Datum* FindField(const Schema& schema, const Datum& record, std::string_view name);

// A debugging view as JSON: records and maps as objects, unions as their
// branch's value, bytes and fixed as lower-case hex strings, enums as their
// symbol. Not Avro's JSON encoding. REQUIRES: the datum matches the schema.
Json DatumToJson(const Schema& schema, const Datum& datum);

}  // namespace cqlite::avro

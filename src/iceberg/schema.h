// Iceberg table schemas (https://iceberg.apache.org/spec/#schemas-and-data-types):
// a tree of fields, each with a field id unique in the table, the spec's
// primitive types and struct, list and map. SchemaToJson / SchemaFromJson
// give the JSON form table metadata and manifests carry; ToParquetSchema
// gives the Parquet schema of the table's data files, with the field ids on
// every node (spec Appendix A, Parquet). No I/O; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parquet/schema.h"
#include "util/status.h"

namespace cqlite::iceberg {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  TypePtr type;
};

struct Type {
  enum class Kind {
    kBoolean, kInt, kLong, kFloat, kDouble, kDecimal, kDate, kTime, kTimestamp, kTimestamptz,
    kString, kUuid, kFixed, kBinary, kStruct, kList, kMap,
  };
  Kind kind = Kind::kString;
  int32_t precision = 0;  // kDecimal
  int32_t scale = 0;      // kDecimal
  int32_t length = 0;     // kFixed: its bytes
  // kStruct: its fields. kList: {element}. kMap: {key, value}. The names of
  // list elements and map keys and values are "element", "key", "value".
  std::vector<NestedField> fields;

  bool is_primitive() const { return kind != Kind::kStruct && kind != Kind::kList && kind != Kind::kMap; }
  // The spec's name for a primitive type: "long", "decimal(38, 18)", ...
  std::string ToString() const;

  static TypePtr Primitive(Kind kind);
  static TypePtr Decimal(int32_t precision, int32_t scale);
  static TypePtr Fixed(int32_t length);
  static TypePtr Struct(std::vector<NestedField> fields);
  static TypePtr List(int32_t element_id, bool element_required, TypePtr element);
  static TypePtr Map(int32_t key_id, TypePtr key, int32_t value_id, bool value_required, TypePtr value);
};

struct Schema {
  int32_t schema_id = 0;
  std::vector<NestedField> fields;
  std::vector<int32_t> identifier_field_ids;

  // The largest field id anywhere in the schema (0 for none).
  int32_t HighestFieldId() const;
};

nlohmann::json SchemaToJson(const Schema& schema);
// Corruption (the caller adds the file) when the JSON is not a schema.
Result<Schema> SchemaFromJson(const nlohmann::json& json);

// True when both have the same fields, types, ids and identifier fields
// (schema ids aside).
bool SameStructure(const Schema& a, const Schema& b);

// The Parquet schema of data files of `schema`: Iceberg's own mapping
// (decimal as 16-byte FIXED, time and timestamptz in microseconds, uuid as
// FIXED(16) UUID, 3-level lists, key_value maps).
inline constexpr int32_t kDecimalBytes = 16;  // FIXED width of decimal(38, s) values
parquet::Schema ToParquetSchema(const Schema& schema);

}  // namespace cqlite::iceberg

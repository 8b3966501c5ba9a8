// The Avro schema model: a tree of Schema nodes (primitive, record, enum,
// array, map, union, fixed) as the Avro 1.12 specification defines them
// (https://avro.apache.org/docs/1.12.0/specification/#schema-declaration),
// with the extra JSON attributes Iceberg hangs on them: `field-id` on record
// fields, `element-id` on arrays, `key-id`/`value-id` on maps, `logicalType`.
//
// ToJson renders the schema JSON an object container file stores under
// `avro.schema`; ParseSchema reads it back (named types referenced by name are
// expanded in place; recursive types are NotSupported). Schema is a plain
// value type: copies are deep, and it is thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace cqlite::avro {

// JSON that keeps its keys in insertion order, so attributes render in the
// order they were added.
using Json = nlohmann::ordered_json;

enum class Type {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// "null", "boolean", ..., "record", "union" (for messages and primitive names).
const char* TypeName(Type type);

struct Field;

struct Schema {
  Type type = Type::kNull;
  // Record, enum and fixed: the (simple) name and optional namespace.
  std::string name;
  std::string name_space;
  std::vector<Field> fields;         // record
  std::vector<std::string> symbols;  // enum
  // Array: {items}; map: {values}; union: the branches in order.
  std::vector<Schema> children;
  int32_t fixed_size = 0;  // fixed
  // Other attributes, in order: "logicalType", "element-id", "doc", ...
  Json attributes = Json::object();

  // Primitive types.
  static Schema Null();
  static Schema Boolean();
  static Schema Int();
  static Schema Long();
  static Schema Float();
  static Schema Double();
  static Schema Bytes();
  static Schema String();
  static Schema Record(std::string name, std::vector<Field> fields);
  static Schema Enum(std::string name, std::vector<std::string> symbols);
  static Schema Array(Schema items);
  static Schema Map(Schema values);
  static Schema Union(std::vector<Schema> branches);
  static Schema Fixed(std::string name, int32_t size);
  // ["null", schema]: an optional value the way Iceberg writes it.
  static Schema Optional(Schema schema);

  // Adds (or replaces) an attribute and returns *this, for chaining:
  // Schema::Array(Schema::Long()).With("element-id", 133).
  Schema& With(const std::string& key, Json value);
  Schema&& WithAttr(const std::string& key, Json value) && {
    With(key, std::move(value));
    return std::move(*this);
  }

  // REQUIRES: type is kArray (items) or kMap (values).
  const Schema& items() const { return children.front(); }
  const Schema& values() const { return children.front(); }

  // The "logicalType" attribute, or "".
  std::string logical_type() const;
  // The record field called `name`, or -1.
  int FieldIndex(std::string_view field_name) const;
  // For a union: the index of the first "null" branch, or -1.
  int NullBranch() const;
  // "ns.name", or the name alone without a namespace.
  std::string FullName() const;

  // Checks the rules the binary encoding relies on: unique field names,
  // union branches neither unions nor duplicate unnamed types, fixed sizes
  // not negative, ids of fields. InvalidArgument on the first violation.
  Status Validate() const;
};

struct Field {
  std::string name;
  Schema schema;
  // The field's "default", rendered as given (null for an optional field).
  std::optional<Json> default_value;
  // Other attributes in order, e.g. {"field-id": 100, "doc": "..."}.
  Json attributes = Json::object();

  Field() = default;
  Field(std::string field_name, Schema field_schema) : name(std::move(field_name)), schema(std::move(field_schema)) {}

  // A field with a "field-id" attribute; `optional` wraps the schema in
  // ["null", schema] with default null, as Iceberg writes optional fields.
  static Field WithId(std::string name, Schema schema, int32_t field_id, bool optional = false);
  // The "field-id" attribute, if present and an integer.
  std::optional<int32_t> field_id() const;
};

// The schema JSON, compact (no whitespace), for `avro.schema`.
std::string ToJson(const Schema& schema);
Json ToJsonValue(const Schema& schema);

// Parses schema JSON text. `context` (e.g. the file path) prefixes errors,
// which are Corruption: a container file's schema is data.
Result<Schema> ParseSchema(std::string_view json_text, const std::string& context);

}  // namespace cqlite::avro

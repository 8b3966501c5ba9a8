// The schema of a Parquet file as CQLite builds it: a tree of fields, each
// required or optional and carrying an Iceberg field id. Leaves are primitive
// columns; groups are structs, LISTs and MAPs, written in the spec's standard
// shapes (https://github.com/apache/parquet-format/blob/master/LogicalTypes.md):
//
//   <list-repetition> group <name> (LIST) {
//     repeated group list { <element-repetition> <element-type> element; } }
//   <map-repetition> group <name> (MAP) {
//     repeated group key_value { required <key-type> key; <value-repetition> <value-type> value; } }
//
// ToSchemaElements flattens the tree into the footer's depth-first element
// list; FromSchemaElements rebuilds it from a file CQLite wrote. The level
// plan (SchemaNode) says, for each node, the definition and repetition levels
// that record shredding and assembly use (Dremel).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parquet/parquet_format.h"
#include "util/status.h"

namespace cqlite::parquet {

struct Field {
  enum class Kind { kPrimitive, kStruct, kList, kMap };

  Kind kind = Kind::kPrimitive;
  std::string name;
  Repetition repetition = Repetition::kOptional;  // kRequired or kOptional
  std::optional<int32_t> field_id;
  // Primitive fields only.
  PhysicalType physical_type = PhysicalType::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY only
  LogicalType logical_type;
  // Struct: its fields. List: {element}. Map: {key, value}.
  std::vector<Field> children;

  bool optional() const { return repetition == Repetition::kOptional; }

  static Field Primitive(std::string name, PhysicalType type, Repetition repetition,
                         std::optional<int32_t> field_id, LogicalType logical = {}, int32_t type_length = 0);
  static Field Struct(std::string name, Repetition repetition, std::optional<int32_t> field_id,
                      std::vector<Field> fields);
  // The element is renamed "element".
  static Field List(std::string name, Repetition repetition, std::optional<int32_t> field_id, Field element);
  // The key is renamed "key" and must be required; the value is renamed "value".
  static Field Map(std::string name, Repetition repetition, std::optional<int32_t> field_id, Field key,
                   Field value);

  // Shorthands for the common primitives.
  static Field Boolean(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kBoolean, r, id);
  }
  static Field Int32(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kInt32, r, id);
  }
  static Field Int64(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kInt64, r, id);
  }
  static Field Float(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kFloat, r, id);
  }
  static Field Double(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kDouble, r, id);
  }
  static Field String(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kByteArray, r, id, LogicalType::String());
  }
  static Field Binary(std::string name, Repetition r, std::optional<int32_t> id) {
    return Primitive(std::move(name), PhysicalType::kByteArray, r, id);
  }

  bool operator==(const Field&) const = default;
};

struct Schema {
  std::vector<Field> fields;
  std::string root_name = "schema";
  bool operator==(const Schema&) const = default;
};

// Checks names, types and shapes; InvalidArgument naming the field otherwise.
Status ValidateSchema(const Schema& schema);

std::vector<SchemaElement> ToSchemaElements(const Schema& schema);
// NotSupported for shapes CQLite does not write (e.g. 2-level lists).
Result<Schema> FromSchemaElements(const std::vector<SchemaElement>& elements, const std::string& what);

// One node of the level plan. Lifetime: points into the Schema it was built
// from, which must outlive it.
struct SchemaNode {
  const Field* field = nullptr;
  // Definition level when this node is present (not null).
  int def_level = 0;
  // Lists and maps: repetition level of their repeated group; others: of the
  // nearest enclosing repeated group.
  int rep_level = 0;
  // Leaf column indices [leaf_begin, leaf_end) under this node.
  int leaf_begin = 0;
  int leaf_end = 0;
  std::vector<SchemaNode> children;
};

// A leaf column: what a column chunk holds.
struct ColumnDescriptor {
  const Field* field = nullptr;
  std::vector<std::string> path;  // path_in_schema, e.g. {"tags", "list", "element"}
  int max_def_level = 0;
  int max_rep_level = 0;
};

struct LevelPlan {
  std::vector<SchemaNode> roots;  // one per top-level field
  std::vector<ColumnDescriptor> columns;
};

LevelPlan BuildLevelPlan(const Schema& schema);

}  // namespace cqlite::parquet

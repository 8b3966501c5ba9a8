#include "iceberg/schema.h"

#include <algorithm>

#include "util/strings.h"
#include "util/json_integer.h"

namespace cqlite::iceberg {

namespace {

using Kind = Type::Kind;
using nlohmann::json;

struct PrimitiveName {
  Kind kind;
  const char* name;
};
constexpr PrimitiveName kPrimitiveNames[] = {
    {Kind::kBoolean, "boolean"}, {Kind::kInt, "int"},       {Kind::kLong, "long"},
    {Kind::kFloat, "float"},     {Kind::kDouble, "double"}, {Kind::kDate, "date"},
    {Kind::kTime, "time"},       {Kind::kTimestamp, "timestamp"}, {Kind::kTimestamptz, "timestamptz"},
    {Kind::kString, "string"},
    {Kind::kUuid, "uuid"},       {Kind::kBinary, "binary"},
};

json TypeToJson(const Type& type);

json FieldToJson(const NestedField& field) {
  return json{{"id", field.id}, {"name", field.name}, {"required", field.required}, {"type", TypeToJson(*field.type)}};
}

json TypeToJson(const Type& type) {
  switch (type.kind) {
    case Kind::kStruct: {
      json fields = json::array();
      for (const NestedField& f : type.fields) fields.push_back(FieldToJson(f));
      return json{{"type", "struct"}, {"fields", fields}};
    }
    case Kind::kList: {
      const NestedField& e = type.fields[0];
      return json{{"type", "list"}, {"element-id", e.id}, {"element", TypeToJson(*e.type)},
                  {"element-required", e.required}};
    }
    case Kind::kMap: {
      const NestedField& k = type.fields[0];
      const NestedField& v = type.fields[1];
      return json{{"type", "map"},           {"key-id", k.id},
                  {"key", TypeToJson(*k.type)}, {"value-id", v.id},
                  {"value", TypeToJson(*v.type)}, {"value-required", v.required}};
    }
    default:
      return type.ToString();
  }
}

Result<TypePtr> TypeFromJson(const json& j);

Result<NestedField> FieldFromJson(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j.contains("name") || !j.contains("type")) {
    return Status::Corruption(StrCat("schema field without id, name or type: ", j.dump()));
  }
  NestedField field;
  field.id = JsonInteger<int32_t>(j["id"]);
  field.name = j["name"].get<std::string>();
  field.required = j.value("required", false);
  ASSIGN_OR_RETURN(field.type, TypeFromJson(j["type"]));
  return field;
}

Result<TypePtr> TypeFromJson(const json& j) {
  if (j.is_string()) {
    std::string name = j.get<std::string>();
    for (const auto& p : kPrimitiveNames) {
      if (name == p.name) return Type::Primitive(p.kind);
    }
    int precision = 0, scale = 0;
    if (std::sscanf(name.c_str(), "decimal(%d, %d)", &precision, &scale) == 2 ||
        std::sscanf(name.c_str(), "decimal(%d,%d)", &precision, &scale) == 2) {
      return Type::Decimal(precision, scale);
    }
    int length = 0;
    char end = 0;
    if (std::sscanf(name.c_str(), "fixed[%d%c", &length, &end) == 2 && end == ']' &&
        name == StrCat("fixed[", length, "]")) {
      if (length <= 0) return Status::Corruption(StrCat("Iceberg type ", name, ": a fixed type has at least 1 byte"));
      return Type::Fixed(length);
    }
    return Status::NotSupported(StrCat("Iceberg type ", name));
  }
  if (!j.is_object() || !j.contains("type")) return Status::Corruption(StrCat("not an Iceberg type: ", j.dump()));
  std::string kind = j["type"].get<std::string>();
  try {
    if (kind == "struct") {
      std::vector<NestedField> fields;
      for (const json& f : j.at("fields")) {
        ASSIGN_OR_RETURN(NestedField field, FieldFromJson(f));
        fields.push_back(std::move(field));
      }
      return Type::Struct(std::move(fields));
    }
    if (kind == "list") {
      ASSIGN_OR_RETURN(TypePtr element, TypeFromJson(j.at("element")));
      return Type::List(JsonInteger<int32_t>(j.at("element-id")), j.at("element-required").get<bool>(), element);
    }
    if (kind == "map") {
      ASSIGN_OR_RETURN(TypePtr key, TypeFromJson(j.at("key")));
      ASSIGN_OR_RETURN(TypePtr value, TypeFromJson(j.at("value")));
      return Type::Map(JsonInteger<int32_t>(j.at("key-id")), key, JsonInteger<int32_t>(j.at("value-id")),
                       j.at("value-required").get<bool>(), value);
    }
  } catch (const json::exception& e) {
    return Status::Corruption(StrCat("malformed Iceberg ", kind, " type: ", e.what()));
  }
  return Status::NotSupported(StrCat("Iceberg type ", kind));
}

int32_t HighestId(const std::vector<NestedField>& fields) {
  int32_t highest = 0;
  for (const NestedField& f : fields) {
    highest = std::max(highest, f.id);
    highest = std::max(highest, HighestId(f.type->fields));
  }
  return highest;
}

bool SameType(const Type& a, const Type& b);

bool SameFields(const std::vector<NestedField>& a, const std::vector<NestedField>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].name != b[i].name || a[i].required != b[i].required ||
        !SameType(*a[i].type, *b[i].type)) {
      return false;
    }
  }
  return true;
}

bool SameType(const Type& a, const Type& b) {
  return a.kind == b.kind && a.precision == b.precision && a.scale == b.scale && a.length == b.length && SameFields(a.fields, b.fields);
}

using parquet::Field;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::Repetition;

Field ToParquetField(const std::string& name, bool required, int32_t id, const Type& type) {
  Repetition r = required ? Repetition::kRequired : Repetition::kOptional;
  switch (type.kind) {
    case Kind::kBoolean: return Field::Boolean(name, r, id);
    case Kind::kInt: return Field::Int32(name, r, id);
    case Kind::kLong: return Field::Int64(name, r, id);
    case Kind::kFloat: return Field::Float(name, r, id);
    case Kind::kDouble: return Field::Double(name, r, id);
    case Kind::kDecimal:
      return Field::Primitive(name, PhysicalType::kFixedLenByteArray, r, id,
                              LogicalType::Decimal(type.precision, type.scale), kDecimalBytes);
    case Kind::kDate: return Field::Primitive(name, PhysicalType::kInt32, r, id, LogicalType::Date());
    case Kind::kTime: return Field::Primitive(name, PhysicalType::kInt64, r, id, LogicalType::TimeMicros());
    case Kind::kTimestamp:
      return Field::Primitive(name, PhysicalType::kInt64, r, id, LogicalType::TimestampMicros(false));
    case Kind::kTimestamptz:
      return Field::Primitive(name, PhysicalType::kInt64, r, id, LogicalType::TimestampMicros(true));
    case Kind::kString: return Field::String(name, r, id);
    case Kind::kUuid:
      return Field::Primitive(name, PhysicalType::kFixedLenByteArray, r, id, LogicalType{LogicalType::kUuid}, 16);
    case Kind::kFixed:
      return Field::Primitive(name, PhysicalType::kFixedLenByteArray, r, id, LogicalType{}, type.length);
    case Kind::kBinary: return Field::Binary(name, r, id);
    case Kind::kStruct: {
      std::vector<Field> children;
      for (const NestedField& f : type.fields) children.push_back(ToParquetField(f.name, f.required, f.id, *f.type));
      return Field::Struct(name, r, id, std::move(children));
    }
    case Kind::kList: {
      const NestedField& e = type.fields[0];
      return Field::List(name, r, id, ToParquetField("element", e.required, e.id, *e.type));
    }
    case Kind::kMap: {
      const NestedField& k = type.fields[0];
      const NestedField& v = type.fields[1];
      return Field::Map(name, r, id, ToParquetField("key", true, k.id, *k.type),
                        ToParquetField("value", v.required, v.id, *v.type));
    }
  }
  return Field::Binary(name, r, id);
}

}  // namespace

std::string Type::ToString() const {
  for (const auto& p : kPrimitiveNames) {
    if (kind == p.kind) return p.name;
  }
  switch (kind) {
    case Kind::kDecimal: return StrCat("decimal(", precision, ", ", scale, ")");
    case Kind::kFixed: return StrCat("fixed[", length, "]");
    case Kind::kStruct: return "struct";
    case Kind::kList: return "list";
    case Kind::kMap: return "map";
    default: return "?";
  }
}

TypePtr Type::Primitive(Kind kind) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  return t;
}

TypePtr Type::Fixed(int32_t length) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::kFixed;
  t->length = length;
  return t;
}

TypePtr Type::Decimal(int32_t precision, int32_t scale) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::kDecimal;
  t->precision = precision;
  t->scale = scale;
  return t;
}

TypePtr Type::Struct(std::vector<NestedField> fields) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::kStruct;
  t->fields = std::move(fields);
  return t;
}

TypePtr Type::List(int32_t element_id, bool element_required, TypePtr element) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::kList;
  t->fields = {NestedField{element_id, "element", element_required, std::move(element)}};
  return t;
}

TypePtr Type::Map(int32_t key_id, TypePtr key, int32_t value_id, bool value_required, TypePtr value) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::kMap;
  t->fields = {NestedField{key_id, "key", true, std::move(key)},
               NestedField{value_id, "value", value_required, std::move(value)}};
  return t;
}

int32_t Schema::HighestFieldId() const { return HighestId(fields); }

json SchemaToJson(const Schema& schema) {
  json fields = json::array();
  for (const NestedField& f : schema.fields) fields.push_back(FieldToJson(f));
  json out{{"type", "struct"}, {"schema-id", schema.schema_id}, {"fields", fields}};
  if (!schema.identifier_field_ids.empty()) out["identifier-field-ids"] = schema.identifier_field_ids;
  return out;
}

Result<Schema> SchemaFromJson(const json& j) {
  if (!j.is_object() || !j.contains("fields") || !j["fields"].is_array()) {
    return Status::Corruption("an Iceberg schema without fields");
  }
  // Members of the wrong JSON type throw from nlohmann::json accessors.
  try {
    Schema schema;
    schema.schema_id = JsonIntegerOr<int32_t>(j, "schema-id", 0);
    for (const json& f : j["fields"]) {
      ASSIGN_OR_RETURN(NestedField field, FieldFromJson(f));
      schema.fields.push_back(std::move(field));
    }
    if (j.contains("identifier-field-ids")) {
      const json& ids = j["identifier-field-ids"];
      if (!ids.is_array()) throw json::type_error::create(302, "identifier-field-ids must be an array", &ids);
      for (const json& id : ids) schema.identifier_field_ids.push_back(JsonInteger<int32_t>(id));
    }
    return schema;
  } catch (const json::exception& e) {
    return Status::Corruption(StrCat("malformed Iceberg schema: ", e.what()));
  }
}

bool SameStructure(const Schema& a, const Schema& b) {
  return a.identifier_field_ids == b.identifier_field_ids && SameFields(a.fields, b.fields);
}

parquet::Schema ToParquetSchema(const Schema& schema) {
  parquet::Schema out;
  out.root_name = "table";
  for (const NestedField& f : schema.fields) out.fields.push_back(ToParquetField(f.name, f.required, f.id, *f.type));
  return out;
}

}  // namespace cqlite::iceberg

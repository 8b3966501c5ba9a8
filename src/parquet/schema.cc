#include "parquet/schema.h"

#include "util/strings.h"

namespace cqlite::parquet {

Field Field::Primitive(std::string name, PhysicalType type, Repetition repetition,
                       std::optional<int32_t> field_id, LogicalType logical, int32_t type_length) {
  Field f;
  f.kind = Kind::kPrimitive;
  f.name = std::move(name);
  f.repetition = repetition;
  f.field_id = field_id;
  f.physical_type = type;
  f.logical_type = logical;
  f.type_length = type_length;
  return f;
}

Field Field::Struct(std::string name, Repetition repetition, std::optional<int32_t> field_id,
                    std::vector<Field> fields) {
  Field f;
  f.kind = Kind::kStruct;
  f.name = std::move(name);
  f.repetition = repetition;
  f.field_id = field_id;
  f.children = std::move(fields);
  return f;
}

Field Field::List(std::string name, Repetition repetition, std::optional<int32_t> field_id, Field element) {
  Field f;
  f.kind = Kind::kList;
  f.name = std::move(name);
  f.repetition = repetition;
  f.field_id = field_id;
  f.logical_type.kind = LogicalType::kList;
  element.name = "element";
  f.children.push_back(std::move(element));
  return f;
}

Field Field::Map(std::string name, Repetition repetition, std::optional<int32_t> field_id, Field key,
                 Field value) {
  Field f;
  f.kind = Kind::kMap;
  f.name = std::move(name);
  f.repetition = repetition;
  f.field_id = field_id;
  f.logical_type.kind = LogicalType::kMap;
  key.name = "key";
  value.name = "value";
  f.children.push_back(std::move(key));
  f.children.push_back(std::move(value));
  return f;
}

namespace {

Status ValidateField(const Field& f, const std::string& path) {
  auto bad = [&](const std::string& msg) {
    return Status::InvalidArgument(StrCat("field ", path, ": ", msg));
  };
  if (f.name.empty()) return bad("empty name");
  if (f.repetition == Repetition::kRepeated) return bad("use a LIST instead of a repeated field");
  switch (f.kind) {
    case Field::Kind::kPrimitive: {
      const LogicalType& lt = f.logical_type;
      PhysicalType t = f.physical_type;
      if (t == PhysicalType::kInt96) return bad("INT96 is not supported");
      if (t == PhysicalType::kFixedLenByteArray && f.type_length <= 0)
        return bad("FIXED_LEN_BYTE_ARRAY needs a length");
      switch (lt.kind) {
        case LogicalType::kNone:
          break;
        case LogicalType::kString:
        case LogicalType::kEnum:
        case LogicalType::kJson:
        case LogicalType::kBson:
          if (t != PhysicalType::kByteArray) return bad("STRING/ENUM/JSON/BSON annotate BYTE_ARRAY");
          break;
        case LogicalType::kDate:
          if (t != PhysicalType::kInt32) return bad("DATE annotates INT32");
          break;
        case LogicalType::kTime:
        case LogicalType::kTimestamp: {
          bool int32_time = lt.kind == LogicalType::kTime && lt.unit == TimeUnit::kMillis;
          if (t != (int32_time ? PhysicalType::kInt32 : PhysicalType::kInt64)) {
            return bad("TIME/TIMESTAMP physical type does not match the unit");
          }
          break;
        }
        case LogicalType::kUuid:
          if (t != PhysicalType::kFixedLenByteArray || f.type_length != 16)
            return bad("UUID is FIXED_LEN_BYTE_ARRAY(16)");
          break;
        case LogicalType::kInteger:
          if (lt.bit_width != 8 && lt.bit_width != 16 && lt.bit_width != 32 && lt.bit_width != 64) {
            return bad("INTEGER bit width must be 8, 16, 32 or 64");
          }
          if ((lt.bit_width == 64) != (t == PhysicalType::kInt64) ||
              (t != PhysicalType::kInt32 && t != PhysicalType::kInt64)) {
            return bad("INTEGER physical type does not match its bit width");
          }
          break;
        case LogicalType::kDecimal:
          if (lt.precision <= 0 || lt.scale < 0 || lt.scale > lt.precision)
            return bad("bad DECIMAL precision/scale");
          if ((t == PhysicalType::kInt32 && lt.precision > 9) ||
              (t == PhysicalType::kInt64 && lt.precision > 18)) {
            return bad("DECIMAL precision too large for the physical type");
          }
          if (t != PhysicalType::kInt32 && t != PhysicalType::kInt64 &&
              t != PhysicalType::kFixedLenByteArray && t != PhysicalType::kByteArray) {
            return bad("DECIMAL annotates INT32, INT64 or byte arrays");
          }
          break;
        default:
          return bad("logical type not supported on a primitive");
      }
      return Status::OK();
    }
    case Field::Kind::kStruct:
      if (f.children.empty()) return bad("a struct needs at least one field");
      break;
    case Field::Kind::kList:
      if (f.children.size() != 1) return bad("a list has exactly one element field");
      break;
    case Field::Kind::kMap:
      if (f.children.size() != 2) return bad("a map has a key and a value field");
      if (f.children[0].repetition != Repetition::kRequired) return bad("map keys must be required");
      break;
  }
  for (const Field& c : f.children) RETURN_IF_ERROR(ValidateField(c, StrCat(path, ".", c.name)));
  return Status::OK();
}

std::optional<ConvertedType> ConvertedFor(const LogicalType& lt) {
  switch (lt.kind) {
    case LogicalType::kString:
      return ConvertedType::kUtf8;
    case LogicalType::kMap:
      return ConvertedType::kMap;
    case LogicalType::kList:
      return ConvertedType::kList;
    case LogicalType::kEnum:
      return ConvertedType::kEnum;
    case LogicalType::kDecimal:
      return ConvertedType::kDecimal;
    case LogicalType::kDate:
      return ConvertedType::kDate;
    case LogicalType::kJson:
      return ConvertedType::kJson;
    case LogicalType::kBson:
      return ConvertedType::kBson;
    case LogicalType::kTime:
      if (!lt.utc_adjusted) break;  // TIME_* converted types imply UTC adjustment
      if (lt.unit == TimeUnit::kMillis) return ConvertedType::kTimeMillis;
      if (lt.unit == TimeUnit::kMicros) return ConvertedType::kTimeMicros;
      break;
    case LogicalType::kTimestamp:
      if (!lt.utc_adjusted) break;
      if (lt.unit == TimeUnit::kMillis) return ConvertedType::kTimestampMillis;
      if (lt.unit == TimeUnit::kMicros) return ConvertedType::kTimestampMicros;
      break;
    case LogicalType::kInteger: {
      int base =
          lt.is_signed ? static_cast<int>(ConvertedType::kInt8) : static_cast<int>(ConvertedType::kUint8);
      int step = lt.bit_width == 8 ? 0 : lt.bit_width == 16 ? 1 : lt.bit_width == 32 ? 2 : 3;
      return static_cast<ConvertedType>(base + step);
    }
    default:
      break;
  }
  return std::nullopt;
}

void Flatten(const Field& f, std::vector<SchemaElement>* out) {
  SchemaElement e;
  e.name = f.name;
  e.repetition_type = f.repetition;
  e.field_id = f.field_id;
  if (f.logical_type.kind != LogicalType::kNone) {
    e.logical_type = f.logical_type;
    e.converted_type = ConvertedFor(f.logical_type);
    if (f.logical_type.kind == LogicalType::kDecimal) {
      e.scale = f.logical_type.scale;
      e.precision = f.logical_type.precision;
    }
  }
  switch (f.kind) {
    case Field::Kind::kPrimitive:
      e.type = f.physical_type;
      if (f.physical_type == PhysicalType::kFixedLenByteArray) e.type_length = f.type_length;
      out->push_back(std::move(e));
      return;
    case Field::Kind::kStruct:
      e.num_children = static_cast<int32_t>(f.children.size());
      out->push_back(std::move(e));
      for (const Field& c : f.children) Flatten(c, out);
      return;
    case Field::Kind::kList:
    case Field::Kind::kMap: {
      bool is_list = f.kind == Field::Kind::kList;
      e.num_children = 1;
      out->push_back(std::move(e));
      SchemaElement group;
      group.name = is_list ? "list" : "key_value";
      group.repetition_type = Repetition::kRepeated;
      group.num_children = static_cast<int32_t>(f.children.size());
      out->push_back(std::move(group));
      for (const Field& c : f.children) Flatten(c, out);
      return;
    }
  }
}

struct Unflattener {
  const std::vector<SchemaElement>& elements;
  const std::string& what;
  size_t pos = 1;

  Status Error(const std::string& msg) const {
    return Status::NotSupported(StrCat(what, ": schema element ", pos, ": ", msg));
  }

  Result<Field> Next(int depth) {
    if (depth > 64) return Status::Corruption(StrCat(what, ": schema nested too deeply"));
    if (pos >= elements.size()) return Status::Corruption(StrCat(what, ": schema ends early"));
    const SchemaElement& e = elements[pos++];
    Field f;
    f.name = e.name;
    f.field_id = e.field_id;
    if (!e.repetition_type) return Error("no repetition type");
    f.repetition = *e.repetition_type;
    if (f.repetition == Repetition::kRepeated)
      return Error(StrCat("repeated field ", e.name, " outside a LIST/MAP"));
    if (e.logical_type) f.logical_type = *e.logical_type;
    if (!e.num_children) {
      if (!e.type) return Status::Corruption(StrCat(what, ": leaf ", e.name, " has no type"));
      f.kind = Field::Kind::kPrimitive;
      f.physical_type = *e.type;
      f.type_length = e.type_length.value_or(0);
      return f;
    }
    int32_t n = *e.num_children;
    if (n < 0 || static_cast<size_t>(n) > elements.size() - pos) {
      return Status::Corruption(StrCat(what, ": group ", e.name, " has a bad child count"));
    }
    bool is_list = f.logical_type.kind == LogicalType::kList || e.converted_type == ConvertedType::kList;
    bool is_map = f.logical_type.kind == LogicalType::kMap || e.converted_type == ConvertedType::kMap;
    if (is_list || is_map) {
      f.kind = is_list ? Field::Kind::kList : Field::Kind::kMap;
      f.logical_type.kind = is_list ? LogicalType::kList : LogicalType::kMap;
      if (n != 1 || pos >= elements.size()) return Error("LIST/MAP must have one repeated group");
      const SchemaElement& g = elements[pos++];
      size_t want = is_list ? 1 : 2;
      if (g.repetition_type != Repetition::kRepeated || !g.num_children ||
          static_cast<size_t>(*g.num_children) != want) {
        return Error(StrCat(e.name, " is not a standard 3-level LIST/MAP"));
      }
      for (size_t i = 0; i < want; ++i) {
        ASSIGN_OR_RETURN(Field c, Next(depth + 1));
        f.children.push_back(std::move(c));
      }
      return f;
    }
    f.kind = Field::Kind::kStruct;
    for (int32_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(Field c, Next(depth + 1));
      f.children.push_back(std::move(c));
    }
    return f;
  }
};

void Plan(const Field& f, int parent_def, int parent_rep, std::vector<std::string> path, LevelPlan* plan,
          SchemaNode* node) {
  node->field = &f;
  node->def_level = parent_def + (f.optional() ? 1 : 0);
  node->rep_level = parent_rep;
  node->leaf_begin = static_cast<int>(plan->columns.size());
  path.push_back(f.name);
  switch (f.kind) {
    case Field::Kind::kPrimitive:
      plan->columns.push_back({&f, path, node->def_level, parent_rep});
      break;
    case Field::Kind::kStruct:
      node->children.resize(f.children.size());
      for (size_t i = 0; i < f.children.size(); ++i) {
        Plan(f.children[i], node->def_level, parent_rep, path, plan, &node->children[i]);
      }
      break;
    case Field::Kind::kList:
    case Field::Kind::kMap:
      node->rep_level = parent_rep + 1;
      path.push_back(f.kind == Field::Kind::kList ? "list" : "key_value");
      node->children.resize(f.children.size());
      for (size_t i = 0; i < f.children.size(); ++i) {
        Plan(f.children[i], node->def_level + 1, node->rep_level, path, plan, &node->children[i]);
      }
      break;
  }
  node->leaf_end = static_cast<int>(plan->columns.size());
}

}  // namespace

Status ValidateSchema(const Schema& schema) {
  if (schema.fields.empty()) return Status::InvalidArgument("a Parquet schema needs at least one field");
  for (const Field& f : schema.fields) RETURN_IF_ERROR(ValidateField(f, f.name));
  return Status::OK();
}

std::vector<SchemaElement> ToSchemaElements(const Schema& schema) {
  std::vector<SchemaElement> out;
  SchemaElement root;
  root.name = schema.root_name;
  root.num_children = static_cast<int32_t>(schema.fields.size());
  out.push_back(std::move(root));
  for (const Field& f : schema.fields) Flatten(f, &out);
  return out;
}

Result<Schema> FromSchemaElements(const std::vector<SchemaElement>& elements, const std::string& what) {
  if (elements.empty() || !elements[0].num_children) {
    return Status::Corruption(StrCat(what, ": schema has no root group"));
  }
  Schema schema;
  schema.root_name = elements[0].name;
  Unflattener u{elements, what};
  for (int32_t i = 0; i < *elements[0].num_children; ++i) {
    ASSIGN_OR_RETURN(Field f, u.Next(0));
    schema.fields.push_back(std::move(f));
  }
  if (u.pos != elements.size()) return Status::Corruption(StrCat(what, ": schema has trailing elements"));
  RETURN_IF_ERROR(ValidateSchema(schema).WithContext(what));
  return schema;
}

LevelPlan BuildLevelPlan(const Schema& schema) {
  LevelPlan plan;
  plan.roots.resize(schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) Plan(schema.fields[i], 0, 0, {}, &plan, &plan.roots[i]);
  return plan;
}

}  // namespace cqlite::parquet

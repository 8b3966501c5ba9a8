#include "avro/schema.h"

#include <map>
#include <set>

#include "util/strings.h"

namespace cqlite::avro {
namespace {

// Deeper schemas are rejected when parsed, so bad input cannot exhaust the
// stack of the recursive parser, encoder or decoder.
constexpr int kMaxSchemaDepth = 64;

struct PrimitiveName {
  const char* name;
  Type type;
};
constexpr PrimitiveName kPrimitives[] = {
    {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},       {"long", Type::kLong},
    {"float", Type::kFloat}, {"double", Type::kDouble},   {"bytes", Type::kBytes},   {"string", Type::kString},
};

std::optional<Type> PrimitiveType(std::string_view name) {
  for (const PrimitiveName& p : kPrimitives) {
    if (name == p.name) return p.type;
  }
  return std::nullopt;
}

bool IsNamed(Type type) { return type == Type::kRecord || type == Type::kEnum || type == Type::kFixed; }

void AppendAttributes(const Json& attributes, Json* out) {
  for (auto it = attributes.begin(); it != attributes.end(); ++it) (*out)[it.key()] = it.value();
}

// Renders `schema`; a named type already rendered is referenced by name.
Json Render(const Schema& schema, const std::string& enclosing_namespace, std::set<std::string>* defined) {
  switch (schema.type) {
    case Type::kNull:
    case Type::kBoolean:
    case Type::kInt:
    case Type::kLong:
    case Type::kFloat:
    case Type::kDouble:
    case Type::kBytes:
    case Type::kString: {
      if (schema.attributes.empty()) return Json(TypeName(schema.type));
      Json out = Json::object();
      out["type"] = TypeName(schema.type);
      AppendAttributes(schema.attributes, &out);
      return out;
    }
    case Type::kUnion: {
      Json out = Json::array();
      for (const Schema& branch : schema.children) out.push_back(Render(branch, enclosing_namespace, defined));
      return out;
    }
    case Type::kArray:
    case Type::kMap: {
      Json out = Json::object();
      out["type"] = TypeName(schema.type);
      out[schema.type == Type::kArray ? "items" : "values"] = Render(schema.children.front(), enclosing_namespace, defined);
      AppendAttributes(schema.attributes, &out);
      return out;
    }
    case Type::kRecord:
    case Type::kEnum:
    case Type::kFixed: {
      std::string full_name = schema.FullName();
      if (!defined->insert(full_name).second) return Json(full_name);
      Json out = Json::object();
      out["type"] = TypeName(schema.type);
      out["name"] = schema.name;
      // Nested named types inherit the namespace; say it only where it changes.
      if (schema.name_space != enclosing_namespace) out["namespace"] = schema.name_space;
      if (schema.type == Type::kRecord) {
        Json fields = Json::array();
        for (const Field& field : schema.fields) {
          Json f = Json::object();
          f["name"] = field.name;
          f["type"] = Render(field.schema, schema.name_space, defined);
          if (field.default_value) f["default"] = *field.default_value;
          AppendAttributes(field.attributes, &f);
          fields.push_back(std::move(f));
        }
        out["fields"] = std::move(fields);
      } else if (schema.type == Type::kEnum) {
        out["symbols"] = schema.symbols;
      } else {
        out["size"] = schema.fixed_size;
      }
      AppendAttributes(schema.attributes, &out);
      return out;
    }
  }
  return Json();
}

class SchemaParser {
 public:
  explicit SchemaParser(const std::string& context) : context_(context) {}

  Result<Schema> Parse(const Json& json, const std::string& enclosing_namespace, int depth) {
    if (depth > kMaxSchemaDepth) return Error(StrCat("nested deeper than ", kMaxSchemaDepth, " levels"));
    if (json.is_string()) return ParseName(json.get<std::string>(), enclosing_namespace);
    if (json.is_array()) {
      Schema schema;
      schema.type = Type::kUnion;
      for (const Json& branch : json) {
        ASSIGN_OR_RETURN(Schema child, Parse(branch, enclosing_namespace, depth + 1));
        schema.children.push_back(std::move(child));
      }
      return schema;
    }
    if (!json.is_object()) return Error(StrCat("a schema must be a string, array or object, not ", json.dump(-1, ' ', false, Json::error_handler_t::replace)));
    auto type_it = json.find("type");
    if (type_it == json.end()) return Error(StrCat("object without \"type\": ", Abbreviate(json)));
    if (!type_it->is_string()) {
      // {"type": {...}} nests a whole schema; Avro's own parsers accept it.
      if (json.size() == 1) return Parse(*type_it, enclosing_namespace, depth + 1);
      return Error(StrCat("\"type\" must be a string: ", Abbreviate(json)));
    }
    const std::string type_name = type_it->get<std::string>();
    if (std::optional<Type> primitive = PrimitiveType(type_name)) {
      Schema schema;
      schema.type = *primitive;
      CopyAttributes(json, {"type"}, &schema.attributes);
      return schema;
    }
    if (type_name == "array" || type_name == "map") {
      const char* child_key = type_name == "array" ? "items" : "values";
      auto child_it = json.find(child_key);
      if (child_it == json.end()) return Error(StrCat(type_name, " without \"", child_key, "\""));
      Schema schema;
      schema.type = type_name == "array" ? Type::kArray : Type::kMap;
      ASSIGN_OR_RETURN(Schema child, Parse(*child_it, enclosing_namespace, depth + 1));
      schema.children.push_back(std::move(child));
      CopyAttributes(json, {"type", child_key}, &schema.attributes);
      return schema;
    }
    if (type_name == "record" || type_name == "error" || type_name == "enum" || type_name == "fixed") {
      return ParseNamed(json, type_name, enclosing_namespace, depth);
    }
    // A named type referenced as {"type": "Name"}.
    if (json.size() == 1) return ParseName(type_name, enclosing_namespace);
    return Error(StrCat("unknown type \"", type_name, "\""));
  }

 private:
  Status Error(const std::string& what) const { return Status::Corruption(StrCat(context_, ": Avro schema: ", what)); }

  static std::string Abbreviate(const Json& json) {
    std::string text = json.dump(-1, ' ', false, Json::error_handler_t::replace);
    return text.size() > 200 ? text.substr(0, 200) + "..." : text;
  }

  static void CopyAttributes(const Json& json, std::initializer_list<std::string_view> skip, Json* out) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      bool skipped = false;
      for (std::string_view key : skip) skipped = skipped || it.key() == key;
      if (!skipped) (*out)[it.key()] = it.value();
    }
  }

  Result<Schema> ParseName(const std::string& name, const std::string& enclosing_namespace) {
    if (std::optional<Type> primitive = PrimitiveType(name)) {
      Schema schema;
      schema.type = *primitive;
      return schema;
    }
    if (name.find('.') == std::string::npos && !enclosing_namespace.empty()) {
      auto it = named_.find(enclosing_namespace + "." + name);
      if (it != named_.end()) return it->second;
    }
    auto it = named_.find(name);
    if (it != named_.end()) return it->second;
    if (in_progress_.count(name) || in_progress_.count(enclosing_namespace + "." + name)) {
      return Status::NotSupported(StrCat(context_, ": Avro schema: recursive type \"", name, "\""));
    }
    return Error(StrCat("unknown type \"", name, "\""));
  }

  Result<std::string> StringMember(const Json& json, const char* key, bool required) {
    auto it = json.find(key);
    if (it == json.end()) {
      if (required) return Error(StrCat("missing \"", key, "\" in ", Abbreviate(json)));
      return std::string();
    }
    if (!it->is_string()) return Error(StrCat("\"", key, "\" must be a string in ", Abbreviate(json)));
    return it->get<std::string>();
  }

  Result<Schema> ParseNamed(const Json& json, const std::string& type_name, const std::string& enclosing_namespace,
                            int depth) {
    Schema schema;
    schema.type = type_name == "enum" ? Type::kEnum : type_name == "fixed" ? Type::kFixed : Type::kRecord;
    ASSIGN_OR_RETURN(std::string name, StringMember(json, "name", true));
    ASSIGN_OR_RETURN(std::string name_space, StringMember(json, "namespace", false));
    if (json.find("namespace") == json.end()) name_space = enclosing_namespace;
    size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
      name_space = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    if (name.empty()) return Error("empty type name");
    schema.name = name;
    schema.name_space = name_space;
    std::string full_name = schema.FullName();
    if (named_.count(full_name) || in_progress_.count(full_name)) {
      return Error(StrCat("type \"", full_name, "\" is defined twice"));
    }
    if (schema.type == Type::kRecord) {
      auto fields_it = json.find("fields");
      if (fields_it == json.end() || !fields_it->is_array()) return Error(StrCat("record ", full_name, " without fields"));
      in_progress_.insert(full_name);
      for (const Json& field_json : *fields_it) {
        if (!field_json.is_object()) return Error(StrCat("field of ", full_name, " is not an object"));
        Field field;
        ASSIGN_OR_RETURN(field.name, StringMember(field_json, "name", true));
        auto field_type = field_json.find("type");
        if (field_type == field_json.end()) return Error(StrCat("field ", field.name, " without \"type\""));
        ASSIGN_OR_RETURN(field.schema, Parse(*field_type, name_space, depth + 1));
        auto default_it = field_json.find("default");
        if (default_it != field_json.end()) field.default_value = *default_it;
        CopyAttributes(field_json, {"name", "type", "default"}, &field.attributes);
        schema.fields.push_back(std::move(field));
      }
      in_progress_.erase(full_name);
      CopyAttributes(json, {"type", "name", "namespace", "fields"}, &schema.attributes);
    } else if (schema.type == Type::kEnum) {
      auto symbols_it = json.find("symbols");
      if (symbols_it == json.end() || !symbols_it->is_array()) return Error(StrCat("enum ", full_name, " without symbols"));
      for (const Json& symbol : *symbols_it) {
        if (!symbol.is_string()) return Error(StrCat("enum ", full_name, " has a symbol that is not a string"));
        schema.symbols.push_back(symbol.get<std::string>());
      }
      CopyAttributes(json, {"type", "name", "namespace", "symbols"}, &schema.attributes);
    } else {
      auto size_it = json.find("size");
      if (size_it == json.end() || !size_it->is_number_integer() || size_it->get<int64_t>() < 0 ||
          size_it->get<int64_t>() > INT32_MAX) {
        return Error(StrCat("fixed ", full_name, " without a valid size"));
      }
      schema.fixed_size = static_cast<int32_t>(size_it->get<int64_t>());
      CopyAttributes(json, {"type", "name", "namespace", "size"}, &schema.attributes);
    }
    named_[full_name] = schema;
    return schema;
  }

  const std::string& context_;
  std::map<std::string, Schema> named_;
  std::set<std::string> in_progress_;
};

Status ValidateNode(const Schema& schema, int depth) {
  if (depth > kMaxSchemaDepth) return Status::InvalidArgument("Avro schema nested too deeply");
  switch (schema.type) {
    case Type::kRecord: {
      std::set<std::string> names;
      for (const Field& field : schema.fields) {
        if (!names.insert(field.name).second) {
          return Status::InvalidArgument(StrCat("Avro record ", schema.FullName(), " has two fields named ", field.name));
        }
        RETURN_IF_ERROR(ValidateNode(field.schema, depth + 1));
      }
      return Status::OK();
    }
    case Type::kEnum:
      if (schema.symbols.empty()) return Status::InvalidArgument(StrCat("Avro enum ", schema.FullName(), " has no symbols"));
      return Status::OK();
    case Type::kFixed:
      if (schema.fixed_size < 0) return Status::InvalidArgument("Avro fixed with a negative size");
      return Status::OK();
    case Type::kArray:
    case Type::kMap:
      if (schema.children.size() != 1) return Status::InvalidArgument("Avro array or map needs exactly one child");
      return ValidateNode(schema.children.front(), depth + 1);
    case Type::kUnion: {
      std::set<std::string> seen;
      for (const Schema& branch : schema.children) {
        if (branch.type == Type::kUnion) return Status::InvalidArgument("Avro union directly inside a union");
        std::string key = IsNamed(branch.type) ? branch.FullName() : TypeName(branch.type);
        if (!seen.insert(key).second) return Status::InvalidArgument(StrCat("Avro union has two branches of ", key));
        RETURN_IF_ERROR(ValidateNode(branch, depth + 1));
      }
      return Status::OK();
    }
    default:
      return Status::OK();
  }
}

}  // namespace

const char* TypeName(Type type) {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBoolean: return "boolean";
    case Type::kInt: return "int";
    case Type::kLong: return "long";
    case Type::kFloat: return "float";
    case Type::kDouble: return "double";
    case Type::kBytes: return "bytes";
    case Type::kString: return "string";
    case Type::kRecord: return "record";
    case Type::kEnum: return "enum";
    case Type::kArray: return "array";
    case Type::kMap: return "map";
    case Type::kUnion: return "union";
    case Type::kFixed: return "fixed";
  }
  return "?";
}

namespace {
Schema OfType(Type type) {
  Schema schema;
  schema.type = type;
  return schema;
}
}  // namespace

Schema Schema::Null() { return OfType(Type::kNull); }
Schema Schema::Boolean() { return OfType(Type::kBoolean); }
Schema Schema::Int() { return OfType(Type::kInt); }
Schema Schema::Long() { return OfType(Type::kLong); }
Schema Schema::Float() { return OfType(Type::kFloat); }
Schema Schema::Double() { return OfType(Type::kDouble); }
Schema Schema::Bytes() { return OfType(Type::kBytes); }
Schema Schema::String() { return OfType(Type::kString); }

Schema Schema::Record(std::string name, std::vector<Field> fields) {
  Schema schema = OfType(Type::kRecord);
  schema.name = std::move(name);
  schema.fields = std::move(fields);
  return schema;
}

Schema Schema::Enum(std::string name, std::vector<std::string> symbols) {
  Schema schema = OfType(Type::kEnum);
  schema.name = std::move(name);
  schema.symbols = std::move(symbols);
  return schema;
}

Schema Schema::Array(Schema items) {
  Schema schema = OfType(Type::kArray);
  schema.children.push_back(std::move(items));
  return schema;
}

Schema Schema::Map(Schema values) {
  Schema schema = OfType(Type::kMap);
  schema.children.push_back(std::move(values));
  return schema;
}

Schema Schema::Union(std::vector<Schema> branches) {
  Schema schema = OfType(Type::kUnion);
  schema.children = std::move(branches);
  return schema;
}

Schema Schema::Fixed(std::string name, int32_t size) {
  Schema schema = OfType(Type::kFixed);
  schema.name = std::move(name);
  schema.fixed_size = size;
  return schema;
}

Schema Schema::Optional(Schema schema) { return Union({Null(), std::move(schema)}); }

Schema& Schema::With(const std::string& key, Json value) {
  attributes[key] = std::move(value);
  return *this;
}

std::string Schema::logical_type() const {
  auto it = attributes.find("logicalType");
  if (it == attributes.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

int Schema::FieldIndex(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field_name) return static_cast<int>(i);
  }
  return -1;
}

int Schema::NullBranch() const {
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].type == Type::kNull) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::FullName() const { return name_space.empty() ? name : name_space + "." + name; }

Status Schema::Validate() const { return ValidateNode(*this, 0); }

Field Field::WithId(std::string name, Schema schema, int32_t field_id, bool optional) {
  Field field(std::move(name), optional ? Schema::Optional(std::move(schema)) : std::move(schema));
  if (optional) field.default_value = Json(nullptr);
  field.attributes["field-id"] = field_id;
  return field;
}

std::optional<int32_t> Field::field_id() const {
  auto it = attributes.find("field-id");
  if (it == attributes.end() || !it->is_number_integer()) return std::nullopt;
  int64_t id = it->get<int64_t>();
  if (id < INT32_MIN || id > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(id);
}

Json ToJsonValue(const Schema& schema) {
  std::set<std::string> defined;
  return Render(schema, "", &defined);
}

std::string ToJson(const Schema& schema) { return ToJsonValue(schema).dump(-1, ' ', false, Json::error_handler_t::replace); }

Result<Schema> ParseSchema(std::string_view json_text, const std::string& context) {
  // Parse without exceptions: a discarded value marks invalid JSON.
  Json json = Json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::Corruption(StrCat(context, ": Avro schema is not valid JSON"));
  SchemaParser parser(context);
  ASSIGN_OR_RETURN(Schema schema, parser.Parse(json, "", 0));
  Status valid = schema.Validate();
  if (!valid.ok()) return Status::Corruption(StrCat(context, ": ", valid.message()));
  return schema;
}

}  // namespace cqlite::avro

#include "cassandra/cql_type.h"

#include <map>

#include "util/strings.h"

namespace cqlite {

namespace {

constexpr std::string_view kMarshalPackage = "org.apache.cassandra.db.marshal.";

struct SimpleTypeName {
  const char* marshal;
  CqlKind kind;
  const char* cql;
};

// AbstractType subclasses without parameters and their CQL names.
constexpr SimpleTypeName kSimpleTypes[] = {
    {"AsciiType", CqlKind::kAscii, "ascii"},
    {"LongType", CqlKind::kBigint, "bigint"},
    {"BytesType", CqlKind::kBlob, "blob"},
    {"BooleanType", CqlKind::kBoolean, "boolean"},
    {"CounterColumnType", CqlKind::kCounter, "counter"},
    {"SimpleDateType", CqlKind::kDate, "date"},
    {"DecimalType", CqlKind::kDecimal, "decimal"},
    {"DoubleType", CqlKind::kDouble, "double"},
    {"DurationType", CqlKind::kDuration, "duration"},
    {"FloatType", CqlKind::kFloat, "float"},
    {"InetAddressType", CqlKind::kInet, "inet"},
    {"Int32Type", CqlKind::kInt, "int"},
    {"ShortType", CqlKind::kSmallint, "smallint"},
    {"UTF8Type", CqlKind::kText, "text"},
    {"TimeType", CqlKind::kTime, "time"},
    {"TimestampType", CqlKind::kTimestamp, "timestamp"},
    {"DateType", CqlKind::kTimestamp, "timestamp"},  // the pre-2.0 name, same encoding
    {"TimeUUIDType", CqlKind::kTimeuuid, "timeuuid"},
    {"ByteType", CqlKind::kTinyint, "tinyint"},
    {"UUIDType", CqlKind::kUuid, "uuid"},
    {"LexicalUUIDType", CqlKind::kUuid, "uuid"},
    {"IntegerType", CqlKind::kVarint, "varint"},
    {"EmptyType", CqlKind::kEmpty, "empty"},
};

class MarshalParser {
 public:
  explicit MarshalParser(std::string_view text) : text_(text) {}

  Result<CqlTypePtr> ParseAll() {
    ASSIGN_OR_RETURN(CqlTypePtr type, ParseType());
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the type");
    return type;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Corruption(StrCat("bad type '", text_, "' at character ", pos_, ": ", what));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }

  // A class name or bare token: up to '(' ',' ')' ':' or the end.
  std::string_view Token() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '(' && text_[pos_] != ',' && text_[pos_] != ')' &&
           text_[pos_] != ':') {
      ++pos_;
    }
    return Trim(text_.substr(start, pos_ - start));
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  // A type nested in another is stored frozen whatever its header says:
  // Cassandra 3.0 wrote UDTs inside collections without FrozenType
  // (CASSANDRA-15035), and CQL allows nothing else.
  static CqlTypePtr Nested(CqlTypePtr type) {
    if (!type->IsMultiCell()) return type;
    auto frozen = std::make_shared<CqlType>(*type);
    frozen->frozen = true;
    return frozen;
  }

  Result<std::vector<CqlTypePtr>> ParseTypeList() {
    std::vector<CqlTypePtr> types;
    if (!Consume('(')) return Error("expected '('");
    if (Consume(')')) return types;
    do {
      ASSIGN_OR_RETURN(CqlTypePtr t, ParseType());
      types.push_back(Nested(std::move(t)));
    } while (Consume(','));
    if (!Consume(')')) return Error("expected ')'");
    return types;
  }

  Result<CqlTypePtr> ParseType() {
    std::string_view name = Token();
    if (name.empty()) return Error("expected a type name");
    if (StartsWith(name, kMarshalPackage)) name.remove_prefix(kMarshalPackage.size());

    for (const auto& simple : kSimpleTypes) {
      if (name == simple.marshal) {
        auto t = std::make_shared<CqlType>();
        t->kind = simple.kind;
        return CqlTypePtr(t);
      }
    }
    if (name == "ReversedType" || name == "FrozenType") {
      ASSIGN_OR_RETURN(auto inner, ParseTypeList());
      if (inner.size() != 1) return Error(StrCat(name, " takes one type"));
      auto t = std::make_shared<CqlType>(*inner[0]);
      if (name == "ReversedType") {
        t->reversed = true;
      } else {
        t->frozen = true;
      }
      return CqlTypePtr(t);
    }
    if (name == "ListType" || name == "SetType" || name == "MapType" || name == "TupleType" ||
        name == "CompositeType") {
      ASSIGN_OR_RETURN(auto params, ParseTypeList());
      auto t = std::make_shared<CqlType>();
      t->kind = name == "ListType"    ? CqlKind::kList
                : name == "SetType"   ? CqlKind::kSet
                : name == "MapType"   ? CqlKind::kMap
                : name == "TupleType" ? CqlKind::kTuple
                                      : CqlKind::kComposite;
      size_t want = t->kind == CqlKind::kMap ? 2 : 1;
      if ((t->IsCollection() && params.size() != want) || params.empty()) {
        return Error(StrCat(name, " has ", params.size(), " parameters"));
      }
      // Tuples are always frozen in CQL.
      t->frozen = t->kind == CqlKind::kTuple;
      t->params = std::move(params);
      return CqlTypePtr(t);
    }
    if (name == "UserType") return ParseUserType();
    if (name == "VectorType") {
      if (!Consume('(')) return Error("expected '('");
      ASSIGN_OR_RETURN(CqlTypePtr element, ParseType());
      element = Nested(std::move(element));
      if (!Consume(',')) return Error("expected ',' before the vector dimension");
      std::string_view dim = Token();
      if (!Consume(')')) return Error("expected ')'");
      auto t = std::make_shared<CqlType>();
      t->kind = CqlKind::kVector;
      t->frozen = true;
      t->params = {element};
      try {
        t->vector_dimension = std::stoi(std::string(dim));
      } catch (...) {
        return Error("bad vector dimension");
      }
      if (t->vector_dimension <= 0) return Error("bad vector dimension");
      return CqlTypePtr(t);
    }
    // Unknown classes are kept opaque, with their parameters skipped.
    auto t = std::make_shared<CqlType>();
    t->kind = CqlKind::kCustom;
    t->custom_class = std::string(name);
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      int depth = 0;
      do {
        if (text_[pos_] == '(') ++depth;
        if (text_[pos_] == ')') --depth;
        ++pos_;
      } while (pos_ < text_.size() && depth > 0);
      if (depth != 0) return Error("unbalanced parentheses");
    }
    return CqlTypePtr(t);
  }

  // UserType(keyspace,hex(name),hex(field1):type1,...)
  Result<CqlTypePtr> ParseUserType() {
    if (!Consume('(')) return Error("expected '('");
    auto t = std::make_shared<CqlType>();
    t->kind = CqlKind::kUdt;
    t->udt_keyspace = std::string(Token());
    if (!Consume(',')) return Error("expected ',' after the user type keyspace");
    ASSIGN_OR_RETURN(t->udt_name, FromHex(Token()));
    while (Consume(',')) {
      ASSIGN_OR_RETURN(std::string field, FromHex(Token()));
      if (!Consume(':')) return Error("expected ':' after a user type field name");
      ASSIGN_OR_RETURN(CqlTypePtr field_type, ParseType());
      t->field_names.push_back(std::move(field));
      t->params.push_back(Nested(std::move(field_type)));
    }
    if (!Consume(')')) return Error("expected ')'");
    return CqlTypePtr(t);
  }

  Result<std::string> FromHex(std::string_view hex) {
    if (hex.size() % 2 != 0) return Error("odd-length hex name");
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
      if (hi < 0 || lo < 0) return Error("bad hex digit in a name");
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

bool CqlType::IsMultiCell() const {
  return !frozen && (IsCollection() || kind == CqlKind::kUdt);
}

std::optional<int> CqlType::FixedValueLength() const {
  switch (kind) {
    case CqlKind::kBoolean: return 1;
    case CqlKind::kFloat:
    case CqlKind::kInt: return 4;
    case CqlKind::kBigint:
    case CqlKind::kDouble:
    case CqlKind::kTimestamp: return 8;
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid: return 16;
    case CqlKind::kEmpty: return 0;
    case CqlKind::kVector: {
      auto element = params[0]->FixedValueLength();
      if (!element) return std::nullopt;
      return *element * vector_dimension;
    }
    default: return std::nullopt;
  }
}

std::string CqlType::ToCql() const {
  std::string base;
  auto join = [&](const char* open, const char* close) {
    std::string s = open;
    for (size_t i = 0; i < params.size(); ++i) {
      if (i) s += ", ";
      s += params[i]->ToCql();
    }
    return s + close;
  };
  switch (kind) {
    case CqlKind::kList: base = join("list<", ">"); break;
    case CqlKind::kSet: base = join("set<", ">"); break;
    case CqlKind::kMap: base = join("map<", ">"); break;
    case CqlKind::kTuple: base = join("tuple<", ">"); break;
    case CqlKind::kComposite: base = join("composite<", ">"); break;
    case CqlKind::kUdt: base = udt_name; break;
    case CqlKind::kVector: base = StrCat("vector<", params[0]->ToCql(), ", ", vector_dimension, ">"); break;
    case CqlKind::kCustom: base = StrCat("'", custom_class, "'"); break;
    default:
      for (const auto& simple : kSimpleTypes) {
        if (simple.kind == kind) {
          base = simple.cql;
          break;
        }
      }
  }
  bool show_frozen = frozen && (IsCollection() || kind == CqlKind::kUdt);
  return show_frozen ? "frozen<" + base + ">" : base;
}

Result<CqlTypePtr> ParseMarshalType(std::string_view text) { return MarshalParser(text).ParseAll(); }

}  // namespace cqlite

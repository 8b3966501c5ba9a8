#include "envelope/envelope_schema.h"

#include <set>

#include "envelope/value_convert.h"
#include "util/strings.h"

namespace cqlite::envelope {

namespace {

using parquet::Field;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::Repetition;

constexpr Repetition kRequired = Repetition::kRequired;
constexpr Repetition kOptional = Repetition::kOptional;

Field ColumnStruct(const ColumnSchema& column, Flavor flavor) {
  const CqlType& type = *column.type;
  std::vector<Field> fields;
  fields.push_back(TypedField(kValueField, type, kOptional));
  fields.push_back(Field::Int64(kWritetimeField, kRequired, std::nullopt));
  fields.push_back(Field::Int64(kExpiresAtField, kOptional, std::nullopt));
  if (HasReplacedField(column)) fields.push_back(Field::Boolean(kReplacedField, kRequired, std::nullopt));
  if (flavor == Flavor::kCqlite) {
    fields.push_back(Field::Int32(kTtlField, kOptional, std::nullopt));
    fields.push_back(Field::Int64(kLocalDeletionTimeField, kOptional, std::nullopt));
    if (type.IsMultiCell()) {
      fields.push_back(Field::Struct(kDeletionField, kOptional, std::nullopt,
                                     {Field::Int64(kMarkedForDeleteAtField, kRequired, std::nullopt),
                                      Field::Int64(kLocalDeletionTimeField, kRequired, std::nullopt)}));
      Field cell = Field::Struct("element", kRequired, std::nullopt,
                                 {Field::Binary(kPathField, kRequired, std::nullopt),
                                  Field::Binary(kValueField, kOptional, std::nullopt),
                                  Field::Int64(kWritetimeField, kRequired, std::nullopt),
                                  Field::Int32(kTtlField, kOptional, std::nullopt),
                                  Field::Int64(kLocalDeletionTimeField, kOptional, std::nullopt)});
      fields.push_back(Field::List(kCellsField, kOptional, std::nullopt, std::move(cell)));
    } else {
      fields.push_back(Field::Binary(kRawField, kOptional, std::nullopt));
      if (type.kind == CqlKind::kCounter) {
        Field shard = Field::Struct("element", kRequired, std::nullopt,
                                    {Field::String(kShardKindField, kRequired, std::nullopt),
                                     Field::Primitive(kCounterIdField, PhysicalType::kFixedLenByteArray,
                                                      kRequired, std::nullopt, {}, 16),
                                     Field::Int64(kClockField, kRequired, std::nullopt),
                                     Field::Int64(kCountField, kRequired, std::nullopt)});
        fields.push_back(Field::List(kShardsField, kOptional, std::nullopt, std::move(shard)));
      }
    }
  }
  return Field::Struct(column.name, kOptional, std::nullopt, std::move(fields));
}

Field RangeStruct(const std::string& name, const TableSchema& table) {
  std::vector<Field> fields;
  for (const ColumnSchema* column : table.ClusteringColumns()) {
    fields.push_back(TypedField(column->name, *column->type, kOptional));
  }
  fields.push_back(Field::Boolean(kInclusiveField, kRequired, std::nullopt));
  return Field::Struct(name, kOptional, std::nullopt, std::move(fields));
}

Field RawList(const std::string& name) {
  return Field::List(name, kOptional, std::nullopt, Field::Binary("element", kOptional, std::nullopt));
}

// Logical types that do not change how values read (Arrow writes plain int32
// and int64 columns with or without an INTEGER annotation).
LogicalType::Kind EffectiveLogical(const Field& f) {
  const LogicalType& t = f.logical_type;
  if (t.kind == LogicalType::kInteger && t.is_signed && (t.bit_width == 32 || t.bit_width == 64)) {
    return LogicalType::kNone;
  }
  if (t.kind == LogicalType::kUuid) return LogicalType::kNone;
  return t.kind;
}

std::string Describe(const Field& f) {
  switch (f.kind) {
    case Field::Kind::kStruct:
      return "a struct";
    case Field::Kind::kList:
      return "a list";
    case Field::Kind::kMap:
      return "a map";
    case Field::Kind::kPrimitive:
      break;
  }
  std::string text = PhysicalTypeName(f.physical_type);
  if (f.physical_type == PhysicalType::kFixedLenByteArray) text += StrCat("(", f.type_length, ")");
  const LogicalType& t = f.logical_type;
  switch (EffectiveLogical(f)) {
    case LogicalType::kString:
      text += " (STRING)";
      break;
    case LogicalType::kDate:
      text += " (DATE)";
      break;
    case LogicalType::kDecimal:
      text += StrCat(" (DECIMAL(", t.precision, ",", t.scale, "))");
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      text += StrCat(EffectiveLogical(f) == LogicalType::kTime ? " (TIME " : " (TIMESTAMP ",
                     t.unit == parquet::TimeUnit::kMillis   ? "MILLIS"
                     : t.unit == parquet::TimeUnit::kMicros ? "MICROS"
                                                            : "NANOS",
                     ")");
      break;
    case LogicalType::kInteger:
      text += StrCat(" (INT", static_cast<int>(t.bit_width), ")");
      break;
    case LogicalType::kNone:
      break;
    default:
      text += StrCat(" (logical type ", static_cast<int>(t.kind), ")");
  }
  return text;
}

bool SameType(const Field& a, const Field& b) {
  if (a.physical_type != b.physical_type) return false;
  if (a.physical_type == PhysicalType::kFixedLenByteArray && a.type_length != b.type_length) return false;
  if (EffectiveLogical(a) != EffectiveLogical(b)) return false;
  switch (EffectiveLogical(a)) {
    case LogicalType::kDecimal:
      return a.logical_type.scale == b.logical_type.scale &&
             a.logical_type.precision == b.logical_type.precision;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      return a.logical_type.unit == b.logical_type.unit;
    case LogicalType::kInteger:
      return a.logical_type.bit_width == b.logical_type.bit_width &&
             a.logical_type.is_signed == b.logical_type.is_signed;
    default:
      return true;
  }
}

Status CompareFields(const Field& expected, const Field& actual, const std::string& path) {
  auto mismatch = [&] {
    return Status::InvalidArgument(
        StrCat("column '", path, "' is ", Describe(actual), " where the table needs ", Describe(expected)));
  };
  if (expected.kind != actual.kind) return mismatch();
  switch (expected.kind) {
    case Field::Kind::kPrimitive:
      return SameType(expected, actual) ? Status::OK() : mismatch();
    case Field::Kind::kList:
      return CompareFields(expected.children[0], actual.children[0], path + "[]");
    case Field::Kind::kMap:
      RETURN_IF_ERROR(CompareFields(expected.children[0], actual.children[0], path + ".key"));
      return CompareFields(expected.children[1], actual.children[1], path + ".value");
    case Field::Kind::kStruct:
      for (const Field& want : expected.children) {
        const Field* found = nullptr;
        for (const Field& have : actual.children) {
          if (have.name == want.name) found = &have;
        }
        if (!found) return Status::InvalidArgument(StrCat("column '", path, ".", want.name, "' is missing"));
        RETURN_IF_ERROR(CompareFields(want, *found, path + "." + want.name));
      }
      for (const Field& have : actual.children) {
        bool known = false;
        for (const Field& want : expected.children) known = known || want.name == have.name;
        if (!known) {
          return Status::InvalidArgument(
              StrCat("column '", path, ".", have.name, "' is not in the envelope schema"));
        }
      }
      return Status::OK();
  }
  return Status::OK();
}

std::string Quote(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string TypeCql(const CqlType& type) {
  std::string base;
  auto join = [&](const char* open) {
    std::string s = open;
    for (size_t i = 0; i < type.params.size(); ++i) s += (i ? ", " : "") + TypeCql(*type.params[i]);
    return s + ">";
  };
  switch (type.kind) {
    case CqlKind::kList:
      base = join("list<");
      break;
    case CqlKind::kSet:
      base = join("set<");
      break;
    case CqlKind::kMap:
      base = join("map<");
      break;
    case CqlKind::kTuple:
      base = join("tuple<");
      break;
    case CqlKind::kUdt:
      base = Quote(type.udt_name);
      break;
    case CqlKind::kVector:
      base = StrCat("vector<", TypeCql(*type.params[0]), ", ", type.vector_dimension, ">");
      break;
    default:
      return type.ToCql();
  }
  bool show_frozen = type.frozen && (type.IsCollection() || type.kind == CqlKind::kUdt);
  return show_frozen ? "frozen<" + base + ">" : base;
}

void CollectUserTypes(const CqlType& type, std::set<std::string>* seen, std::vector<const CqlType*>* out) {
  for (const CqlTypePtr& param : type.params) CollectUserTypes(*param, seen, out);
  if (type.kind == CqlKind::kUdt && seen->insert(type.udt_name).second) out->push_back(&type);
}

}  // namespace

EnvelopeNames::EnvelopeNames(std::string_view prefix) {
  std::string p(prefix);
  op = p + "op";
  ts = p + "ts";
  range_start = p + "range_start";
  range_end = p + "range_end";
  partition_key = p + "partition_key";
  clustering = p + "clustering";
  range_start_clustering = p + "range_start_clustering";
  range_end_clustering = p + "range_end_clustering";
  ttl = p + "ttl";
  local_deletion_time = p + "local_deletion_time";
  shadowable = p + "shadowable";
  generation = p + "generation";
}

Status CheckPrefix(const TableSchema& table, std::string_view prefix) {
  if (prefix.empty()) return Status::InvalidArgument("the envelope prefix must not be empty");
  for (const ColumnSchema& column : table.columns) {
    if (StartsWith(column.name, prefix)) {
      return Status::InvalidArgument(StrCat("column '", column.name, "' of ", table.keyspace, ".",
                                            table.table, " collides with the envelope prefix '", prefix,
                                            "'; choose another with --envelope-prefix"));
    }
  }
  return Status::OK();
}

bool HasReplacedField(const ColumnSchema& column) {
  return column.type->IsMultiCell() && column.type->IsCollection();
}

parquet::Schema BuildEnvelopeSchema(const TableSchema& table, std::string_view prefix, Flavor flavor,
                                    EnvelopeLayout* layout, bool merged) {
  EnvelopeNames names(prefix);
  parquet::Schema schema;
  for (const ColumnSchema& column : table.columns) {
    if (column.kind == ColumnKind::kPartitionKey) {
      // Our files cannot fail on a key decimal(38, s) does not hold: such
      // columns are nullable there, the exact key is in partition_key.
      bool lossy = column.type->kind == CqlKind::kDecimal || column.type->kind == CqlKind::kVarint;
      Repetition r = flavor == Flavor::kCqlite && lossy ? kOptional : kRequired;
      schema.fields.push_back(TypedField(column.name, *column.type, r));
    } else if (column.kind == ColumnKind::kClustering) {
      schema.fields.push_back(TypedField(column.name, *column.type, kOptional));
    } else {
      schema.fields.push_back(ColumnStruct(column, flavor));
    }
  }
  EnvelopeLayout positions;
  auto add = [&](Field field) {
    schema.fields.push_back(std::move(field));
    return static_cast<int>(schema.fields.size()) - 1;
  };
  positions.op = add(Field::String(names.op, kRequired, std::nullopt));
  positions.ts = add(Field::Int64(names.ts, kOptional, std::nullopt));
  positions.range_start = add(RangeStruct(names.range_start, table));
  positions.range_end = add(RangeStruct(names.range_end, table));
  if (flavor == Flavor::kCqlite) {
    positions.partition_key = add(Field::Binary(names.partition_key, kRequired, std::nullopt));
    positions.clustering = add(RawList(names.clustering));
    positions.range_start_clustering = add(RawList(names.range_start_clustering));
    positions.range_end_clustering = add(RawList(names.range_end_clustering));
    positions.ttl = add(Field::Int32(names.ttl, kOptional, std::nullopt));
    positions.local_deletion_time = add(Field::Int64(names.local_deletion_time, kOptional, std::nullopt));
    positions.shadowable = add(Field::Boolean(names.shadowable, kOptional, std::nullopt));
    if (merged) positions.generation = add(Field::Int32(names.generation, kRequired, std::nullopt));
  }
  if (layout) *layout = positions;
  return schema;
}

Status CheckSchemaMatches(const parquet::Schema& expected, const parquet::Schema& actual) {
  for (const Field& want : expected.fields) {
    const Field* found = nullptr;
    for (const Field& have : actual.fields) {
      if (have.name == want.name) found = &have;
    }
    if (!found) return Status::InvalidArgument(StrCat("column '", want.name, "' is missing"));
    RETURN_IF_ERROR(CompareFields(want, *found, want.name));
  }
  for (const Field& have : actual.fields) {
    bool known = false;
    for (const Field& want : expected.fields) known = known || want.name == have.name;
    if (!known)
      return Status::InvalidArgument(StrCat("column '", have.name, "' is not in the table or the envelope"));
  }
  return Status::OK();
}

std::string TableSchemaToCql(const TableSchema& table) {
  std::string out;
  std::set<std::string> seen;
  std::vector<const CqlType*> user_types;
  for (const ColumnSchema& column : table.columns) CollectUserTypes(*column.type, &seen, &user_types);
  std::string keyspace = table.keyspace.empty() ? "" : Quote(table.keyspace) + ".";
  for (const CqlType* udt : user_types) {
    out += StrCat("CREATE TYPE ", keyspace, Quote(udt->udt_name), " (");
    for (size_t i = 0; i < udt->params.size(); ++i) {
      out += StrCat(i ? ", " : "", Quote(udt->field_names[i]), " ", TypeCql(*udt->params[i]));
    }
    out += ");\n";
  }
  out += StrCat("CREATE TABLE ", keyspace, Quote(table.table), " (\n");
  for (const ColumnSchema& column : table.columns) {
    out += StrCat("    ", Quote(column.name), " ", TypeCql(*column.type),
                  column.kind == ColumnKind::kStatic ? " static" : "", ",\n");
  }
  std::string partition, clustering, order;
  for (const ColumnSchema* column : table.PartitionKeyColumns()) {
    partition += (partition.empty() ? "" : ", ") + Quote(column->name);
  }
  for (const ColumnSchema* column : table.ClusteringColumns()) {
    clustering += ", " + Quote(column->name);
    order += StrCat(order.empty() ? "" : ", ", Quote(column->name), column->reversed ? " DESC" : " ASC");
  }
  out += StrCat("    PRIMARY KEY ((", partition, ")", clustering, ")\n)");
  std::vector<std::string> options;
  // With the hidden columns it was stored with (see cql_schema.h).
  if (table.compact_storage) options.push_back("COMPACT STORAGE");
  if (!order.empty()) options.push_back(StrCat("CLUSTERING ORDER BY (", order, ")"));
  if (table.table_id) options.push_back(StrCat("ID = ", *table.table_id));
  for (size_t i = 0; i < options.size(); ++i) out += (i ? " AND " : " WITH ") + options[i];
  return out + ";\n";
}

std::string SchemaHash(const TableSchema& table) {
  uint64_t hash = 14695981039346656037ull;
  auto feed = [&hash](std::string_view text) {
    for (char c : text) {
      hash ^= static_cast<uint8_t>(c);
      hash *= 1099511628211ull;
    }
  };
  feed(table.keyspace);
  feed(".");
  feed(table.table);
  feed(":");
  for (const ColumnSchema* column : table.PartitionKeyColumns())
    feed(StrCat(column->name, " ", TypeCql(*column->type), ","));
  feed(";");
  for (const ColumnSchema* column : table.ClusteringColumns())
    feed(StrCat(column->name, " ", TypeCql(*column->type), ","));
  feed(";");
  for (const ColumnSchema& column : table.columns) {
    feed(StrCat(column.name, " ", TypeCql(*column.type),
                column.kind == ColumnKind::kStatic ? " static," : ","));
  }
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[i] = kDigits[hash & 0xf];
    hash >>= 4;
  }
  return out;
}

}  // namespace cqlite::envelope

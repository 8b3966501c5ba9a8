#include "mapping/iceberg_rows.h"

#include <algorithm>
#include <bit>
#include <climits>

#include "cassandra/value_bytes.h"
#include "cassandra/value_format.h"
#include "fold/result_values.h"
#include "mapping/row_hash.h"
#include "util/strings.h"

namespace cqlite::materialize {

namespace {

using iceberg::NestedField;
using iceberg::Type;
using iceberg::TypePtr;
using parquet::Value;
using Int128 = __int128;

constexpr int32_t kDecimalPrecision = 38;
constexpr int64_t kDateEpochOffset = int64_t{1} << 31;  // SimpleDateSerializer: day 0 of 1970
constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;  // TimeSerializer's values are below it

// Assigns ids to nested fields after the top-level ones, depth first.
class IdAllocator {
 public:
  explicit IdAllocator(int32_t next) : next_(next) {}
  int32_t Next() { return next_++; }

 private:
  int32_t next_;
};

Result<TypePtr> MapType(const CqlType& cql, const MappingOptions& options, IdAllocator* ids) {
  switch (cql.kind) {
    case CqlKind::kAscii:
    case CqlKind::kText:
    case CqlKind::kInet:
      return Type::Primitive(Type::Kind::kString);
    case CqlKind::kTinyint:
    case CqlKind::kSmallint:
    case CqlKind::kInt:
      return Type::Primitive(Type::Kind::kInt);
    case CqlKind::kBigint:
    case CqlKind::kCounter:
      return Type::Primitive(Type::Kind::kLong);
    case CqlKind::kBoolean: return Type::Primitive(Type::Kind::kBoolean);
    case CqlKind::kFloat: return Type::Primitive(Type::Kind::kFloat);
    case CqlKind::kDouble: return Type::Primitive(Type::Kind::kDouble);
    case CqlKind::kDecimal: return Type::Decimal(kDecimalPrecision, options.decimal_scale);
    case CqlKind::kVarint: return Type::Decimal(kDecimalPrecision, 0);
    case CqlKind::kTimestamp: return Type::Primitive(Type::Kind::kTimestamptz);
    case CqlKind::kDate: return Type::Primitive(Type::Kind::kDate);
    case CqlKind::kTime:
      return Type::Primitive(options.time_as == TimeAs::kLong     ? Type::Kind::kLong
                             : options.time_as == TimeAs::kString ? Type::Kind::kString
                                                                  : Type::Kind::kTime);
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
      return Type::Primitive(Type::Kind::kUuid);
    case CqlKind::kBlob: return Type::Primitive(Type::Kind::kBinary);
    case CqlKind::kDuration: {
      std::vector<NestedField> fields;
      fields.push_back({ids->Next(), "months", false, Type::Primitive(Type::Kind::kInt)});
      fields.push_back({ids->Next(), "days", false, Type::Primitive(Type::Kind::kInt)});
      fields.push_back({ids->Next(), "nanoseconds", false, Type::Primitive(Type::Kind::kLong)});
      return Type::Struct(std::move(fields));
    }
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kVector: {
      int32_t element_id = ids->Next();
      ASSIGN_OR_RETURN(TypePtr element, MapType(*cql.params[0], options, ids));
      return Type::List(element_id, false, element);
    }
    case CqlKind::kMap: {
      int32_t key_id = ids->Next();
      int32_t value_id = ids->Next();
      ASSIGN_OR_RETURN(TypePtr key, MapType(*cql.params[0], options, ids));
      ASSIGN_OR_RETURN(TypePtr value, MapType(*cql.params[1], options, ids));
      return Type::Map(key_id, key, value_id, false, value);
    }
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      std::vector<int32_t> field_ids;
      for (size_t i = 0; i < cql.params.size(); ++i) field_ids.push_back(ids->Next());
      std::vector<NestedField> fields;
      for (size_t i = 0; i < cql.params.size(); ++i) {
        ASSIGN_OR_RETURN(TypePtr type, MapType(*cql.params[i], options, ids));
        std::string name = cql.kind == CqlKind::kUdt ? cql.field_names[i] : StrCat("f", i);
        fields.push_back({field_ids[i], std::move(name), false, type});
      }
      return Type::Struct(std::move(fields));
    }
    default:
      return Status::NotSupported(StrCat("type ", cql.ToCql(), " has no Iceberg form"));
  }
}

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

std::optional<Int128> ReadTwosComplement(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) return std::nullopt;
  Int128 v = (static_cast<uint8_t>(bytes[0]) & 0x80) ? -1 : 0;
  for (char c : bytes) v = static_cast<Int128>((static_cast<unsigned __int128>(v) << 8) | static_cast<uint8_t>(c));
  return v;
}

std::string FixedTwosComplement(Int128 v) {
  std::string out(iceberg::kDecimalBytes, '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = iceberg::kDecimalBytes - 1; i >= 0; --i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(u & 0xff));
    u >>= 8;
  }
  return out;
}

// A decimal's unscaled value at `target_scale`, when exact and within 38 digits.
Result<Int128> Rescale(std::string_view unscaled_bytes, int32_t scale, int32_t target_scale) {
  // Up to 16 bytes hold every 38-digit value; longer forms only with leading sign bytes.
  while (unscaled_bytes.size() > 16 &&
         (static_cast<uint8_t>(unscaled_bytes[0]) == 0 || static_cast<uint8_t>(unscaled_bytes[0]) == 0xff) &&
         ((static_cast<uint8_t>(unscaled_bytes[0]) & 0x80) == (static_cast<uint8_t>(unscaled_bytes[1]) & 0x80))) {
    unscaled_bytes.remove_prefix(1);
  }
  std::optional<Int128> unscaled = ReadTwosComplement(unscaled_bytes);
  Int128 limit = Pow10(kDecimalPrecision);
  if (!unscaled || *unscaled >= limit || *unscaled <= -limit) {
    return Status::InvalidArgument(StrCat("has more than ", kDecimalPrecision, " digits"));
  }
  Int128 v = *unscaled;
  if (scale > target_scale) {
    if (scale - target_scale > kDecimalPrecision) {
      if (v != 0) return Status::InvalidArgument(StrCat("has more than ", target_scale, " fractional digits"));
      return Int128{0};
    }
    Int128 divisor = Pow10(scale - target_scale);
    if (v % divisor != 0) {
      return Status::InvalidArgument(StrCat("has more than ", target_scale, " fractional digits"));
    }
    return v / divisor;
  }
  for (int32_t s = scale; s < target_scale; ++s) {
    if (v >= Pow10(kDecimalPrecision - 1) || v <= -Pow10(kDecimalPrecision - 1)) {
      return Status::InvalidArgument(StrCat("does not fit decimal(38, ", target_scale, ")"));
    }
    v *= 10;
  }
  return v;
}

// The data of schema column `column` in `row` (which may be null), if any.
const FoldColumn* FindColumn(const FoldRow* row, int column) {
  if (!row) return nullptr;
  auto it = std::lower_bound(row->columns.begin(), row->columns.end(), column,
                             [](const FoldColumn& data, int c) { return data.column < c; });
  return it != row->columns.end() && it->column == column ? &*it : nullptr;
}

// Appends `scalar` to `leaf` (when not null) with `rep_level`, or a null at
// `null_def_level`, and hashes it.
void AppendScalar(const IcebergScalar& scalar, parquet::ColumnBatch* leaf, int null_def_level, int rep_level,
                  RowHasher* hasher) {
  using Kind = IcebergScalar::Kind;
  switch (scalar.kind) {
    case Kind::kNull:
      hasher->Null();
      if (leaf) leaf->AppendNull(null_def_level, rep_level);
      break;
    case Kind::kBool:
      hasher->Bool(scalar.int_value != 0);
      if (leaf) leaf->AppendBool(scalar.int_value != 0, rep_level);
      break;
    case Kind::kInt32:
      hasher->Int32(static_cast<int32_t>(scalar.int_value));
      if (leaf) leaf->AppendInt32(static_cast<int32_t>(scalar.int_value), rep_level);
      break;
    case Kind::kInt64:
      hasher->Int64(scalar.int_value);
      if (leaf) leaf->AppendInt64(scalar.int_value, rep_level);
      break;
    case Kind::kFloat:
      hasher->Float(scalar.float_value);
      if (leaf) leaf->AppendFloat(scalar.float_value, rep_level);
      break;
    case Kind::kDouble:
      hasher->Double(scalar.double_value);
      if (leaf) leaf->AppendDouble(scalar.double_value, rep_level);
      break;
    case Kind::kBytes:
      hasher->Bytes(scalar.bytes());
      if (leaf) leaf->AppendBytes(scalar.bytes(), rep_level);
      break;
  }
}

// The serialized value schema column `index` shows in `row` of a partition
// (nullopt: null): `key_value` for a partition key column, the clustering
// value, or the cell of `static_row` or `row`. Multi-cell collections and
// counters are packed into `packed`, which the result then views.
std::optional<std::string_view> SourceBytes(const TableSchema& table, int index, const std::string* key_value,
                                            const FoldRow* static_row, const FoldRow& row, std::string* packed) {
  const ColumnSchema& column = table.columns[index];
  switch (column.kind) {
    case ColumnKind::kPartitionKey:
      return *key_value;
    case ColumnKind::kClustering:
      if (static_cast<size_t>(column.position) < row.clustering.values.size() &&
          (row.clustering.present.empty() || row.clustering.present[column.position])) {
        return row.clustering.values[column.position];
      }
      return std::nullopt;
    case ColumnKind::kStatic:
    case ColumnKind::kRegular: {
      const FoldRow* from = column.kind == ColumnKind::kStatic ? static_row : &row;
      const FoldColumn* data = FindColumn(from, index);
      if (!data || data->cells.empty()) return std::nullopt;
      if (!data->is_complex && column.type->kind != CqlKind::kCounter) return data->cells.front().value;
      std::optional<std::string> value = cqlite::ColumnValue(table, index, from);
      if (!value) return std::nullopt;
      *packed = std::move(*value);
      return *packed;
    }
  }
  return std::nullopt;
}

Result<Value> ElementValue(const CqlType& cql, const Type& type, const ValuePart& part,
                           const MappingOptions& options) {
  if (!part.present) return Value::Null();
  return ToIcebergValue(cql, type, part.bytes, options);
}

}  // namespace

bool IcebergScalar::IsScalarKind(CqlKind kind) {
  switch (kind) {
    case CqlKind::kAscii:
    case CqlKind::kText:
    case CqlKind::kInet:
    case CqlKind::kTinyint:
    case CqlKind::kSmallint:
    case CqlKind::kInt:
    case CqlKind::kBigint:
    case CqlKind::kCounter:
    case CqlKind::kBoolean:
    case CqlKind::kFloat:
    case CqlKind::kDouble:
    case CqlKind::kDecimal:
    case CqlKind::kVarint:
    case CqlKind::kTimestamp:
    case CqlKind::kDate:
    case CqlKind::kTime:
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
    case CqlKind::kBlob:
      return true;
    default:
      return false;
  }
}

Value IcebergScalar::ToValue() const {
  switch (kind) {
    case Kind::kNull: return Value::Null();
    case Kind::kBool: return Value::Bool(int_value != 0);
    case Kind::kInt32: return Value::Int32(static_cast<int32_t>(int_value));
    case Kind::kInt64: return Value::Int64(int_value);
    case Kind::kFloat: return Value::Float(float_value);
    case Kind::kDouble: return Value::Double(double_value);
    case Kind::kBytes: return Value::Bytes(std::string(bytes()));
  }
  return Value::Null();
}

namespace {

// The error of a fixed-width value of the wrong width; out of line, as the
// conversion of every value checks its width.
[[gnu::cold]] [[gnu::noinline]] Status WrongWidth(const CqlType& cql, size_t size, size_t width) {
  return Status::InvalidArgument(StrCat("has ", size, " bytes, not the ", width, " of a ", cql.ToCql()));
}

// The kinds whose values are made anew (inet, decimal, varint) or checked at
// length (time): ToIcebergScalar's rarer part, out of line.
[[gnu::noinline]] Status ConvertRareScalar(const CqlType& cql, const Type& type, std::string_view bytes,
                                           const MappingOptions& options, IcebergScalar* out) {
  using Kind = IcebergScalar::Kind;
  auto owned = [out](std::string v) {
    out->kind = Kind::kBytes;
    out->owned = std::move(v);
    out->is_owned = true;
    return Status::OK();
  };
  switch (cql.kind) {
    case CqlKind::kInet: {
      ASSIGN_OR_RETURN(std::string text, ValueToString(cql, bytes));
      return owned(std::move(text));
    }
    case CqlKind::kDecimal: {
      if (bytes.size() < 5) return Status::InvalidArgument("is a truncated decimal");
      auto scale = static_cast<int32_t>(ReadBigEndian32(bytes.substr(0, 4)));
      auto v = Rescale(bytes.substr(4), scale, type.scale);
      if (!v.ok()) return Status::InvalidArgument(StrCat("decimal ", VarintToDecimal(bytes.substr(4)), "E-", scale, " ",
                                                         v.status().message()));
      return owned(FixedTwosComplement(*v));
    }
    case CqlKind::kVarint: {
      auto v = Rescale(bytes, 0, 0);
      if (!v.ok()) return Status::InvalidArgument(StrCat("varint ", VarintToDecimal(bytes), " ", v.status().message()));
      return owned(FixedTwosComplement(*v));
    }
    case CqlKind::kTime: {
      if (bytes.size() != 8) return WrongWidth(cql, bytes.size(), 8);
      auto nanos = static_cast<int64_t>(ReadBigEndian64(bytes));
      if (nanos < 0 || nanos >= kNanosPerDay) {
        return Status::InvalidArgument(StrCat("is a time of ", nanos, " ns, outside one day"));
      }
      // The field's type says how the table maps times (MappingOptions::time_as).
      if (type.kind == Type::Kind::kLong) {
        out->kind = Kind::kInt64;
        out->int_value = nanos;
        return Status::OK();
      }
      if (type.kind == Type::Kind::kString) {
        ASSIGN_OR_RETURN(std::string text, ValueToString(cql, bytes));
        return owned(std::move(text));
      }
      if (nanos % 1000 != 0 && !options.truncate_time) {
        return Status::InvalidArgument(StrCat("is a time with sub-microsecond digits (", nanos,
                                              " ns); Iceberg times are in microseconds (pass "
                                              "--truncate-time to drop them)"));
      }
      out->kind = Kind::kInt64;
      out->int_value = nanos / 1000;
      return Status::OK();
    }
    default:
      return Status::NotSupported(StrCat("type ", cql.ToCql(), " is not a primitive Iceberg type"));
  }
}

// ToIcebergScalar, inlined into the converters' loops over values: the
// commonest kinds are a width check and a load.
[[gnu::always_inline]] inline Status ConvertScalar(const CqlType& cql, const Type& type, std::string_view bytes,
                                                   const MappingOptions& options, IcebergScalar* out) {
  using Kind = IcebergScalar::Kind;
  auto of = [out](Kind kind, int64_t v) {
    out->kind = kind;
    out->int_value = v;
    return Status::OK();
  };
  auto view = [out](std::string_view v) {
    out->kind = Kind::kBytes;
    out->view = v;
    out->is_owned = false;
    return Status::OK();
  };
  // Text and blobs first: the commonest kinds, and the only ones whose empty
  // value is a value.
  switch (cql.kind) {
    case CqlKind::kAscii:
    case CqlKind::kText:
      if (!IsValidUtf8(bytes)) return Status::InvalidArgument("is not valid UTF-8");
      return view(bytes);
    case CqlKind::kBlob:
      return view(bytes);
    default:
      break;
  }
  // Cassandra stores an empty value for any type (`blobAsInt(0x)`); result
  // sets show it as null.
  if (bytes.empty()) {
    out->kind = Kind::kNull;
    return Status::OK();
  }
  switch (cql.kind) {
    case CqlKind::kTinyint:
      if (bytes.size() != 1) return WrongWidth(cql, bytes.size(), 1);
      return of(Kind::kInt32, static_cast<int8_t>(bytes[0]));
    case CqlKind::kSmallint:
      if (bytes.size() != 2) return WrongWidth(cql, bytes.size(), 2);
      return of(Kind::kInt32, static_cast<int16_t>(ReadBigEndian(bytes)));
    case CqlKind::kInt:
      if (bytes.size() != 4) return WrongWidth(cql, bytes.size(), 4);
      return of(Kind::kInt32, static_cast<int32_t>(ReadBigEndian32(bytes)));
    case CqlKind::kBigint:
    case CqlKind::kCounter:
      if (bytes.size() != 8) return WrongWidth(cql, bytes.size(), 8);
      return of(Kind::kInt64, static_cast<int64_t>(ReadBigEndian64(bytes)));
    case CqlKind::kBoolean:
      if (bytes.size() != 1) return WrongWidth(cql, bytes.size(), 1);
      return of(Kind::kBool, bytes[0] != 0);
    case CqlKind::kFloat:
      if (bytes.size() != 4) return WrongWidth(cql, bytes.size(), 4);
      out->kind = Kind::kFloat;
      out->float_value = std::bit_cast<float>(ReadBigEndian32(bytes));
      return Status::OK();
    case CqlKind::kDouble:
      if (bytes.size() != 8) return WrongWidth(cql, bytes.size(), 8);
      out->kind = Kind::kDouble;
      out->double_value = std::bit_cast<double>(ReadBigEndian64(bytes));
      return Status::OK();
    case CqlKind::kTimestamp: {
      if (bytes.size() != 8) return WrongWidth(cql, bytes.size(), 8);
      auto millis = static_cast<int64_t>(ReadBigEndian64(bytes));
      if (millis > INT64_MAX / 1000 || millis < INT64_MIN / 1000) {
        return Status::InvalidArgument("is a timestamp beyond the microsecond range");
      }
      return of(Kind::kInt64, millis * 1000);
    }
    case CqlKind::kDate:
      if (bytes.size() != 4) return WrongWidth(cql, bytes.size(), 4);
      return of(Kind::kInt32, static_cast<int32_t>(static_cast<int64_t>(ReadBigEndian32(bytes)) - kDateEpochOffset));
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
      if (bytes.size() != 16) return WrongWidth(cql, bytes.size(), 16);
      return view(bytes);
    default:
      return ConvertRareScalar(cql, type, bytes, options, out);
  }
}

}  // namespace

Status ToIcebergScalar(const CqlType& cql, const Type& type, std::string_view bytes, const MappingOptions& options,
                       IcebergScalar* out) {
  return ConvertScalar(cql, type, bytes, options, out);
}

Result<IcebergScalar> ToIcebergScalar(const CqlType& cql, const Type& type, std::string_view bytes,
                                      const MappingOptions& options) {
  IcebergScalar scalar;
  RETURN_IF_ERROR(ToIcebergScalar(cql, type, bytes, options, &scalar));
  return scalar;
}

Result<Value> ToIcebergValue(const CqlType& cql, const Type& type, std::string_view bytes,
                             const MappingOptions& options) {
  if (IcebergScalar::IsScalarKind(cql.kind)) {
    ASSIGN_OR_RETURN(IcebergScalar scalar, ToIcebergScalar(cql, type, bytes, options));
    return scalar.ToValue();
  }
  if (bytes.empty()) return Value::Null();
  switch (cql.kind) {
    case CqlKind::kDuration: {
      size_t pos = 0;
      int64_t months, days, nanos;
      if (!ReadSignedVInt(bytes, &pos, &months) || !ReadSignedVInt(bytes, &pos, &days) ||
          !ReadSignedVInt(bytes, &pos, &nanos) || pos != bytes.size()) {
        return Status::InvalidArgument("is a malformed duration");
      }
      return Value::Struct({Value::Int32(static_cast<int32_t>(months)), Value::Int32(static_cast<int32_t>(days)),
                            Value::Int64(nanos)});
    }
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kMap: {
      bool is_map = cql.kind == CqlKind::kMap;
      size_t end = 0;
      auto split = SplitCollection(bytes, is_map ? 2 : 1, &end);
      if (!split.ok()) return Status::InvalidArgument(StrCat("is malformed: ", split.status().message()));
      if (end != bytes.size()) return Status::InvalidArgument("is a collection with trailing bytes");
      const std::vector<ValuePart>& parts = *split;
      if (is_map) {
        std::vector<std::pair<Value, Value>> entries;
        for (size_t i = 0; i < parts.size(); i += 2) {
          if (!parts[i].present) return Status::InvalidArgument("is a map with a null key");
          ASSIGN_OR_RETURN(Value key, ToIcebergValue(*cql.params[0], *type.fields[0].type, parts[i].bytes, options));
          ASSIGN_OR_RETURN(Value value, ElementValue(*cql.params[1], *type.fields[1].type, parts[i + 1], options));
          entries.emplace_back(std::move(key), std::move(value));
        }
        return Value::Map(std::move(entries));
      }
      std::vector<Value> elements;
      for (const auto& part : parts) {
        ASSIGN_OR_RETURN(Value element, ElementValue(*cql.params[0], *type.fields[0].type, part, options));
        elements.push_back(std::move(element));
      }
      return Value::List(std::move(elements));
    }
    case CqlKind::kVector: {
      auto split = SplitVector(cql, bytes);
      if (!split.ok()) return Status::InvalidArgument(StrCat("is malformed: ", split.status().message()));
      std::vector<Value> elements;
      for (std::string_view element : *split) {
        ASSIGN_OR_RETURN(Value value, ToIcebergValue(*cql.params[0], *type.fields[0].type, element, options));
        elements.push_back(std::move(value));
      }
      return Value::List(std::move(elements));
    }
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      auto split = SplitTuple(cql, bytes);
      if (!split.ok()) return Status::InvalidArgument(StrCat("is malformed: ", split.status().message()));
      const std::vector<ValuePart>& parts = *split;
      std::vector<Value> fields;
      for (size_t i = 0; i < cql.params.size(); ++i) {
        ValuePart part = i < parts.size() ? parts[i] : ValuePart{};
        ASSIGN_OR_RETURN(Value field, ElementValue(*cql.params[i], *type.fields[i].type, part, options));
        fields.push_back(std::move(field));
      }
      return Value::Struct(std::move(fields));
    }
    default:
      return Status::NotSupported(StrCat("type ", cql.ToCql(), " has no Iceberg form"));
  }
}

std::string_view TimeAsName(TimeAs time_as) {
  switch (time_as) {
    case TimeAs::kTime: return "time";
    case TimeAs::kLong: return "long";
    case TimeAs::kString: return "string";
  }
  return "time";
}

std::optional<TimeAs> ParseTimeAs(std::string_view name) {
  for (TimeAs time_as : {TimeAs::kTime, TimeAs::kLong, TimeAs::kString}) {
    if (name == TimeAsName(time_as)) return time_as;
  }
  return std::nullopt;
}

Status ResolveTimeAs(const std::map<std::string, std::string>* properties, const std::string& table_name,
                     MappingOptions* options) {
  if (properties == nullptr) return Status::OK();
  TimeAs recorded = TimeAs::kTime;
  auto it = properties->find(kTimeAsProperty);
  if (it != properties->end()) {
    std::optional<TimeAs> parsed = ParseTimeAs(it->second);
    if (!parsed) {
      return Status::InvalidArgument(StrCat(table_name, ": table property ", kTimeAsProperty, " is '", it->second,
                                            "', which is none of time, long and string"));
    }
    recorded = *parsed;
  }
  if (options->time_as_given && options->time_as != recorded) {
    return Status::InvalidArgument(StrCat(
        table_name, ": its time columns are published as ", TimeAsName(recorded),
        it == properties->end() ? " (the table has no " : " (table property ", kTimeAsProperty,
        it == properties->end() ? " property: an earlier CQLite made it)" : ")", ", not as --time-as ",
        TimeAsName(options->time_as), " asks; run without --time-as (or with --time-as ", TimeAsName(recorded),
        "), or publish into a new table (--table) to map them otherwise"));
  }
  options->time_as = recorded;
  return Status::OK();
}

Result<TableMapping> MapTable(const TableSchema& table, const MappingOptions& options) {
  TableMapping mapping;
  mapping.columns = WildcardColumnOrder(table);
  IdAllocator ids(static_cast<int32_t>(mapping.columns.size()) + 1);
  std::vector<int32_t> key_ids;
  std::string unfit_key;
  for (size_t i = 0; i < mapping.columns.size(); ++i) {
    const ColumnSchema& column = table.columns[mapping.columns[i]];
    auto type = MapType(*column.type, options, &ids);
    if (!type.ok()) {
      return Status::NotSupported(StrCat("column ", column.name, " of ", table.keyspace, ".", table.table, ": ",
                                         type.status().message()));
    }
    bool key = column.kind == ColumnKind::kPartitionKey || column.kind == ColumnKind::kClustering;
    // A COMPACT STORAGE row may be written with a prefix of its clustering
    // columns: SELECT shows the rest as null.
    bool prefix_may_end = table.compact_storage && column.kind == ColumnKind::kClustering && column.position > 0;
    bool nullable = key && std::find(options.nullable_keys.begin(), options.nullable_keys.end(), column.name) !=
                               options.nullable_keys.end();
    int32_t id = static_cast<int32_t>(i) + 1;
    mapping.schema.fields.push_back({id, column.name, key && !prefix_may_end && !nullable, *type});
    if (prefix_may_end && unfit_key.empty()) {
      unfit_key = StrCat(column.name, " (a clustering column after the first of a COMPACT STORAGE table, which "
                                      "may be null)");
    }
    if (nullable && unfit_key.empty()) {
      unfit_key = StrCat(column.name, " (it holds an empty value, which Cassandra accepts for any type and the "
                                      "table shows as null)");
    }
    if (key) {
      key_ids.push_back(id);
      Type::Kind kind = (*type)->kind;
      if (unfit_key.empty() && (kind == Type::Kind::kFloat || kind == Type::Kind::kDouble || !(*type)->is_primitive())) {
        unfit_key = StrCat(column.name, " (", column.type->ToCql(), ")");
      }
    }
  }
  if (unfit_key.empty()) {
    mapping.schema.identifier_field_ids = std::move(key_ids);
  } else {
    mapping.identifier_warning =
        StrCat(table.keyspace, ".", table.table, ": the primary key column ", unfit_key,
               " cannot be an Iceberg identifier field, so the table has none");
  }
  return mapping;
}

namespace {
constexpr char kEmptyKeyMarker[] = ": an empty value in a primary key column";
}  // namespace

Status EmptyKeyValueError(const std::string& column) {
  return Status::InvalidArgument(StrCat("column ", column, kEmptyKeyMarker,
                                        " (Cassandra accepts a zero-byte value of any type), which its required "
                                        "Iceberg field cannot hold"));
}

std::optional<std::string> EmptyKeyColumn(const Status& status) {
  const std::string& message = status.message();
  size_t marker = message.find(kEmptyKeyMarker);
  if (status.kind() != StatusKind::kInvalidArgument || marker == std::string::npos) return std::nullopt;
  size_t start = message.rfind("column ", marker);
  if (start == std::string::npos) return std::nullopt;
  start += 7;
  return message.substr(start, marker - start);
}

RowConverter::RowConverter(const TableSchema& table, const TableMapping& mapping, const MappingOptions& options)
    : table_(table), mapping_(mapping), options_(options), key_type_(table.PartitionKeyType()) {}

Result<Value> RowConverter::Convert(std::string_view key, const FoldRow* static_row, const FoldRow& row) const {
  ASSIGN_OR_RETURN(std::vector<std::string> key_values, SplitPartitionKey(*key_type_, key));
  std::vector<Value> fields;
  fields.reserve(mapping_.columns.size());
  for (size_t i = 0; i < mapping_.columns.size(); ++i) {
    const ColumnSchema& column = table_.columns[mapping_.columns[i]];
    const std::string* key_value = nullptr;
    if (column.kind == ColumnKind::kPartitionKey) key_value = &key_values.at(column.position);
    auto value = ColumnValue(static_cast<int>(i), key_value, static_row, row);
    if (!value.ok()) {
      return Status::InvalidArgument(StrCat("column ", column.name, ": value ", value.status().message()));
    }
    fields.push_back(std::move(*value));
  }
  return Value::Struct(std::move(fields));
}

Result<Value> RowConverter::ColumnValue(int field, const std::string* key_value, const FoldRow* static_row,
                                        const FoldRow& row) const {
  int index = mapping_.columns[field];
  const ColumnSchema& column = table_.columns[index];
  std::string packed;
  std::optional<std::string_view> bytes = SourceBytes(table_, index, key_value, static_row, row, &packed);
  if (!bytes) return Value::Null();
  return ToIcebergValue(*column.type, *mapping_.schema.fields[field].type, *bytes, options_);
}

RowBatchConverter::RowBatchConverter(const TableSchema& table, const TableMapping& mapping,
                                     const MappingOptions& options)
    : table_(table), options_(options), key_type_(table.PartitionKeyType()), column_data_(table.columns.size()) {
  parquet::LevelPlan plan = parquet::BuildLevelPlan(iceberg::ToParquetSchema(mapping.schema));
  for (size_t i = 0; i < mapping.columns.size(); ++i) {
    FieldPlan field;
    field.column_index = mapping.columns[i];
    field.column = &table.columns[field.column_index];
    field.field_id = mapping.schema.fields[i].id;
    field.type = mapping.schema.fields[i].type.get();
    field.required = mapping.schema.fields[i].required;
    field.scalar = IcebergScalar::IsScalarKind(field.column->type->kind);
    field.cell_column = field.column->kind == ColumnKind::kStatic || field.column->kind == ColumnKind::kRegular;
    field.simple_cell = field.cell_column && field.column->type->kind != CqlKind::kCounter;
    const parquet::SchemaNode& node = plan.roots[i];
    field.leaf = node.leaf_begin;
    field.null_def_level = node.def_level - 1;
    const CqlType& cql = *field.column->type;
    bool is_map = cql.kind == CqlKind::kMap;
    if ((cql.kind == CqlKind::kList || cql.kind == CqlKind::kSet || is_map) &&
        (field.column->kind == ColumnKind::kStatic || field.column->kind == ColumnKind::kRegular) &&
        std::all_of(cql.params.begin(), cql.params.end(),
                    [](const CqlTypePtr& p) { return IcebergScalar::IsScalarKind(p->kind); })) {
      field.scalar_collection = true;
      field.element_cql = cql.params[0].get();
      field.element_type = field.type->fields[0].type.get();
      field.empty_def_level = node.def_level;
      field.element_rep_level = node.rep_level;
      // A list's repeated group holds the element; a map's, the key and the value.
      const parquet::SchemaNode& entries = is_map ? node : node.children[0];
      const parquet::SchemaNode& element = is_map ? node.children[0] : entries;
      field.element_leaf = element.leaf_begin;
      field.element_def_level = element.def_level;
      if (is_map) {
        field.value_cql = cql.params[1].get();
        field.value_type = field.type->fields[1].type.get();
        field.value_leaf = node.children[1].leaf_begin;
        field.value_def_level = node.children[1].def_level;
      }
    }
    fields_.push_back(field);
  }
}

Result<uint64_t> RowBatchConverter::Append(std::string_view key, const FoldRow* static_row, const FoldRow& row,
                                           parquet::RowBatch* batch) {
  if (!has_split_key_ || key != split_key_) {
    ASSIGN_OR_RETURN(key_values_, SplitPartitionKey(*key_type_, key));
    split_key_.assign(key.data(), key.size());
    has_split_key_ = true;
  }
  RowHasher hasher;
  RowHasher nulls;  // a null field adds nothing to the row's hash
  // Where each static or regular column's data is, looked up once per row
  // rather than once per field.
  ++row_serial_;
  for (const FoldRow* from : {static_row, &row}) {
    if (!from) continue;
    for (const FoldColumn& data : from->columns) column_data_[data.column] = {&data, row_serial_};
  }
  std::string packed;    // a multi-cell collection or counter, packed
  IcebergScalar scalar;  // a scalar field's value, field after field
  for (size_t i = 0; i < fields_.size(); ++i) {
    const FieldPlan& field = fields_[i];
    const ColumnSchema& column = *field.column;
    const FoldColumn* data = nullptr;
    if (field.cell_column && column_data_[field.column_index].row == row_serial_) {
      data = column_data_[field.column_index].data;
    }
    if (field.scalar_collection && data && data->is_complex && !data->cells.empty()) {
      hasher.Field(field.field_id);
      Status appended = AppendCells(field, *data, batch, &hasher);
      if (!appended.ok()) {
        return Status::InvalidArgument(StrCat("column ", column.name, ": value ", appended.message()));
      }
      continue;
    }
    std::optional<std::string_view> bytes;
    if (field.cell_column && (!data || data->cells.empty())) {
      // null
    } else if (field.simple_cell && !data->is_complex) {
      bytes = data->cells.front().value;
    } else {
      const std::string* key_value =
          column.kind == ColumnKind::kPartitionKey ? &key_values_.at(column.position) : nullptr;
      bytes = SourceBytes(table_, field.column_index, key_value, static_row, row, &packed);
    }
    auto fail = [&](const Status& status) {
      return Status::InvalidArgument(StrCat("column ", column.name, ": value ", status.message()));
    };
    if (!field.scalar) {
      parquet::Value value;
      if (bytes) {
        auto converted = ToIcebergValue(*column.type, *field.type, *bytes, options_);
        if (!converted.ok()) return fail(converted.status());
        value = std::move(*converted);
      }
      if (value.kind() != parquet::Value::Kind::kNull) {
        hasher.Field(field.field_id);
        hasher.Add(value);
      }
      if (batch) {
        Status appended = batch->AppendField(static_cast<int>(i), value);
        if (!appended.ok()) return fail(appended);
      }
      continue;
    }
    using Kind = IcebergScalar::Kind;
    if (bytes) {
      Status converted = ConvertScalar(*column.type, *field.type, *bytes, options_, &scalar);
      if (!converted.ok()) return fail(converted);
    } else {
      scalar.kind = Kind::kNull;
    }
    if (scalar.kind == Kind::kNull && field.required) {
      if (bytes && bytes->empty()) return EmptyKeyValueError(column.name);
      return Status::InvalidArgument(StrCat("column ", column.name, ": is null, but the Iceberg field is required"));
    }
    if (scalar.kind != Kind::kNull) hasher.Field(field.field_id);
    AppendScalar(scalar, batch ? &batch->column(field.leaf) : nullptr, field.null_def_level, 0,
                 scalar.kind == Kind::kNull ? &nulls : &hasher);
  }
  if (batch) batch->EndRows(1);
  return hasher.hash();
}

Status RowBatchConverter::AppendCells(const FieldPlan& field, const FoldColumn& data, parquet::RowBatch* batch,
                                      RowHasher* hasher) {
  // As ToIcebergValue converts the value PackCells makes of the cells.
  const bool is_map = field.value_cql != nullptr;
  const bool is_set = field.column->type->kind == CqlKind::kSet;
  is_map ? hasher->Map(data.cells.size()) : hasher->List(data.cells.size());
  parquet::ColumnBatch* elements = batch ? &batch->column(field.element_leaf) : nullptr;
  parquet::ColumnBatch* values = batch && is_map ? &batch->column(field.value_leaf) : nullptr;
  IcebergScalar element, value;
  for (size_t i = 0; i < data.cells.size(); ++i) {
    const FoldCell& cell = data.cells[i];
    int rep_level = i == 0 ? 0 : field.element_rep_level;
    std::string_view element_bytes = is_map || is_set ? std::string_view(cell.path) : std::string_view(cell.value);
    RETURN_IF_ERROR(ConvertScalar(*field.element_cql, *field.element_type, element_bytes, options_, &element));
    if (is_map && element.kind == IcebergScalar::Kind::kNull) return Status::InvalidArgument("is a map with a null key");
    AppendScalar(element, elements, field.element_def_level - 1, rep_level, hasher);
    if (is_map) {
      RETURN_IF_ERROR(ConvertScalar(*field.value_cql, *field.value_type, cell.value, options_, &value));
      AppendScalar(value, values, field.value_def_level - 1, rep_level, hasher);
    }
  }
  return Status::OK();
}

}  // namespace cqlite::materialize

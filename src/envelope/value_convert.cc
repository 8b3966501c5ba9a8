#include "envelope/value_convert.h"

#include <arpa/inet.h>

#include <bit>
#include <cstring>
#include <limits>

#include "cassandra/value_bytes.h"
#include "cassandra/value_format.h"
#include "util/strings.h"

namespace cqlite::envelope {

namespace {

using parquet::Field;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::Repetition;
using parquet::Value;

constexpr Repetition kRequired = Repetition::kRequired;
constexpr Repetition kOptional = Repetition::kOptional;

// The v1 mapping: decimal(38, 9) and varint as decimal(38, 0), both stored
// as 16-byte big-endian two's complement.
constexpr int kDecimalPrecision = 38;
constexpr int kDecimalScale = 9;
constexpr int kDecimalBytes = 16;
// java.time / Cassandra's SimpleDateSerializer: day 0 of 1970 is 2^31.
constexpr int64_t kDateEpochOffset = int64_t{1} << 31;

using Int128 = __int128;

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

void AppendBigEndian(uint64_t v, int width, std::string* out) {
  for (int i = width - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A two's-complement big-endian integer of at most 16 bytes.
std::optional<Int128> ReadTwosComplement(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) return std::nullopt;
  Int128 v = (static_cast<uint8_t>(bytes[0]) & 0x80) ? -1 : 0;
  for (char c : bytes)
    v = static_cast<Int128>((static_cast<unsigned __int128>(v) << 8) | static_cast<uint8_t>(c));
  return v;
}

std::string FixedTwosComplement(Int128 v, int width) {
  std::string out(width, '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(u & 0xff));
    u >>= 8;
  }
  return out;
}

// BigInteger.toByteArray: the shortest two's-complement form.
std::string MinimalTwosComplement(Int128 v) {
  std::string full = FixedTwosComplement(v, 16);
  size_t start = 0;
  while (start + 1 < full.size()) {
    uint8_t b = static_cast<uint8_t>(full[start]);
    uint8_t next = static_cast<uint8_t>(full[start + 1]);
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80))) {
      ++start;
    } else {
      break;
    }
  }
  return full.substr(start);
}

bool FitsPrecision(Int128 v) {
  Int128 limit = Pow10(kDecimalPrecision);
  return v < limit && v > -limit;
}

// Splits `count` length-prefixed (int32, -1 = null) values; false if malformed.
bool SplitValues(std::string_view bytes, size_t* pos, size_t count,
                 std::vector<std::optional<std::string_view>>* out) {
  for (size_t i = 0; i < count; ++i) {
    if (bytes.size() - *pos < 4) return false;
    auto len = static_cast<int32_t>(ReadBigEndian(bytes.substr(*pos, 4)));
    *pos += 4;
    if (len < 0) {
      out->push_back(std::nullopt);
      continue;
    }
    if (bytes.size() - *pos < static_cast<size_t>(len)) return false;
    out->push_back(bytes.substr(*pos, len));
    *pos += len;
  }
  return true;
}

std::optional<Value> ElementToTyped(const CqlType& type, const std::optional<std::string_view>& bytes) {
  if (!bytes) return Value::Null();
  return ToTyped(type, *bytes);
}

void AppendLengthPrefixed(const std::optional<std::string>& value, std::string* out) {
  if (!value) {
    AppendBigEndian(0xffffffffu, 4, out);
    return;
  }
  AppendBigEndian(value->size(), 4, out);
  out->append(*value);
}

Status Mismatch(const CqlType& type, const Value& value) {
  return Status::InvalidArgument(StrCat("value ", value.ToString(), " does not fit CQL type ", type.ToCql()));
}

Result<std::optional<std::string>> ElementFromTyped(const CqlType& type, const Value& value) {
  if (value.is_null()) return std::optional<std::string>();
  ASSIGN_OR_RETURN(std::string bytes, FromTyped(type, value));
  return std::optional<std::string>(std::move(bytes));
}

bool ParseHex(std::string_view text, std::string* out) {
  if (!StartsWith(text, "0x") || text.size() % 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out->clear();
  for (size_t i = 2; i < text.size(); i += 2) {
    int hi = nibble(text[i]), lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

std::string StructFieldName(const CqlType& type, size_t i) {
  return type.kind == CqlKind::kUdt ? type.field_names[i] : StrCat("field_", i);
}

}  // namespace

void AppendUnsignedVInt(uint64_t value, std::string* out) {
  int magnitude = std::countl_zero(value | 1);
  int size = (639 - magnitude * 9) >> 6;
  if (size == 1) {
    out->push_back(static_cast<char>(value));
    return;
  }
  std::string bytes;
  AppendBigEndian(value, size == 9 ? 8 : size, &bytes);
  if (size == 9) {
    out->push_back(static_cast<char>(0xff));
    out->append(bytes);
    return;
  }
  int extra = size - 1;
  bytes[0] = static_cast<char>(static_cast<uint8_t>(bytes[0]) | static_cast<uint8_t>(~(0xff >> extra)));
  out->append(bytes);
}

bool ParseDurationText(std::string_view text, int64_t* months, int64_t* days, int64_t* nanos) {
  *months = *days = *nanos = 0;
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 18) return false;
    int64_t n = 0;
    for (size_t i = 0; i < digits; ++i) n = n * 10 + (text[i] - '0');
    text.remove_prefix(digits);
    size_t unit_len = 0;
    while (unit_len < text.size() && !(text[unit_len] >= '0' && text[unit_len] <= '9')) ++unit_len;
    std::string_view unit = text.substr(0, unit_len);
    text.remove_prefix(unit_len);
    if (unit == "y") {
      *months += n * 12;
    } else if (unit == "mo") {
      *months += n;
    } else if (unit == "w") {
      *days += n * 7;
    } else if (unit == "d") {
      *days += n;
    } else if (unit == "h") {
      *nanos += n * 3600 * int64_t{1000000000};
    } else if (unit == "m") {
      *nanos += n * 60 * int64_t{1000000000};
    } else if (unit == "s") {
      *nanos += n * int64_t{1000000000};
    } else if (unit == "ms") {
      *nanos += n * 1000000;
    } else if (unit == "us" || unit == "\xc2\xb5s") {
      *nanos += n * 1000;
    } else if (unit == "ns") {
      *nanos += n;
    } else {
      return false;
    }
  }
  if (negative) {
    *months = -*months;
    *days = -*days;
    *nanos = -*nanos;
  }
  return true;
}

Field TypedField(const std::string& name, const CqlType& type, Repetition repetition) {
  switch (type.kind) {
    case CqlKind::kBigint:
    case CqlKind::kCounter:
      return Field::Int64(name, repetition, std::nullopt);
    case CqlKind::kBlob:
      return Field::Binary(name, repetition, std::nullopt);
    case CqlKind::kBoolean:
      return Field::Boolean(name, repetition, std::nullopt);
    case CqlKind::kDate:
      return Field::Primitive(name, PhysicalType::kInt32, repetition, std::nullopt, LogicalType::Date());
    case CqlKind::kDecimal:
      return Field::Primitive(name, PhysicalType::kFixedLenByteArray, repetition, std::nullopt,
                              LogicalType::Decimal(kDecimalPrecision, kDecimalScale), kDecimalBytes);
    case CqlKind::kVarint:
      return Field::Primitive(name, PhysicalType::kFixedLenByteArray, repetition, std::nullopt,
                              LogicalType::Decimal(kDecimalPrecision, 0), kDecimalBytes);
    case CqlKind::kDouble:
      return Field::Double(name, repetition, std::nullopt);
    case CqlKind::kFloat:
      return Field::Float(name, repetition, std::nullopt);
    case CqlKind::kInt:
      return Field::Int32(name, repetition, std::nullopt);
    case CqlKind::kSmallint:
      return Field::Primitive(name, PhysicalType::kInt32, repetition, std::nullopt,
                              LogicalType::Integer(16, true));
    case CqlKind::kTinyint:
      return Field::Primitive(name, PhysicalType::kInt32, repetition, std::nullopt,
                              LogicalType::Integer(8, true));
    case CqlKind::kTime: {
      LogicalType time = LogicalType::TimeMicros();
      time.unit = parquet::TimeUnit::kNanos;
      return Field::Primitive(name, PhysicalType::kInt64, repetition, std::nullopt, time);
    }
    case CqlKind::kTimestamp: {
      LogicalType ts = LogicalType::TimestampMicros(true);
      ts.unit = parquet::TimeUnit::kMillis;
      return Field::Primitive(name, PhysicalType::kInt64, repetition, std::nullopt, ts);
    }
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
      return Field::Primitive(name, PhysicalType::kFixedLenByteArray, repetition, std::nullopt, {}, 16);
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kVector:
      return Field::List(name, repetition, std::nullopt, TypedField("element", *type.params[0], kOptional));
    case CqlKind::kMap:
      return Field::Map(name, repetition, std::nullopt, TypedField("key", *type.params[0], kRequired),
                        TypedField("value", *type.params[1], kOptional));
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      if (type.params.empty()) return Field::String(name, repetition, std::nullopt);
      std::vector<Field> fields;
      for (size_t i = 0; i < type.params.size(); ++i) {
        fields.push_back(TypedField(StructFieldName(type, i), *type.params[i], kOptional));
      }
      return Field::Struct(name, repetition, std::nullopt, std::move(fields));
    }
    default:  // ascii, text, inet, duration, custom, empty, composite
      return Field::String(name, repetition, std::nullopt);
  }
}

std::optional<Value> ToTyped(const CqlType& type, std::string_view bytes) {
  auto fixed = [&](size_t width) { return bytes.size() == width; };
  switch (type.kind) {
    case CqlKind::kAscii:
    case CqlKind::kText:
      if (!IsValidUtf8(bytes)) return std::nullopt;
      return Value::String(std::string(bytes));
    case CqlKind::kBigint:
      if (!fixed(8)) return std::nullopt;
      return Value::Int64(static_cast<int64_t>(ReadBigEndian(bytes)));
    case CqlKind::kCounter:
      return Value::Int64(CounterTotal(bytes));
    case CqlKind::kBlob:
      return Value::Bytes(std::string(bytes));
    case CqlKind::kBoolean:
      if (!fixed(1)) return std::nullopt;
      return Value::Bool(bytes[0] != 0);
    case CqlKind::kDate:
      if (!fixed(4)) return std::nullopt;
      return Value::Int32(
          static_cast<int32_t>(static_cast<int64_t>(ReadBigEndian(bytes)) - kDateEpochOffset));
    case CqlKind::kDecimal: {
      if (bytes.size() < 5) return std::nullopt;
      auto scale = static_cast<int32_t>(ReadBigEndian(bytes.substr(0, 4)));
      std::optional<Int128> unscaled = ReadTwosComplement(bytes.substr(4));
      if (!unscaled || !FitsPrecision(*unscaled)) return std::nullopt;
      Int128 v = *unscaled;
      if (scale > kDecimalScale) {
        if (scale - kDecimalScale > 38) return std::nullopt;
        Int128 divisor = Pow10(scale - kDecimalScale);
        if (v % divisor != 0) return std::nullopt;
        v /= divisor;
      } else {
        for (int s = scale; s < kDecimalScale; ++s) {
          // |v| < 10^37 keeps v * 10 within the precision (and within 128 bits).
          if (v >= Pow10(kDecimalPrecision - 1) || v <= -Pow10(kDecimalPrecision - 1)) return std::nullopt;
          v *= 10;
        }
      }
      if (!FitsPrecision(v)) return std::nullopt;
      return Value::Bytes(FixedTwosComplement(v, kDecimalBytes));
    }
    case CqlKind::kVarint: {
      std::optional<Int128> v = ReadTwosComplement(bytes);
      if (!v || !FitsPrecision(*v)) return std::nullopt;
      return Value::Bytes(FixedTwosComplement(*v, kDecimalBytes));
    }
    case CqlKind::kDouble:
      if (!fixed(8)) return std::nullopt;
      return Value::Double(std::bit_cast<double>(ReadBigEndian(bytes)));
    case CqlKind::kFloat:
      if (!fixed(4)) return std::nullopt;
      return Value::Float(std::bit_cast<float>(static_cast<uint32_t>(ReadBigEndian(bytes))));
    case CqlKind::kInt:
      if (!fixed(4)) return std::nullopt;
      return Value::Int32(static_cast<int32_t>(ReadBigEndian(bytes)));
    case CqlKind::kSmallint:
      if (!fixed(2)) return std::nullopt;
      return Value::Int32(static_cast<int16_t>(ReadBigEndian(bytes)));
    case CqlKind::kTinyint:
      if (!fixed(1)) return std::nullopt;
      return Value::Int32(static_cast<int8_t>(bytes[0]));
    case CqlKind::kTime:
    case CqlKind::kTimestamp:
      if (!fixed(8)) return std::nullopt;
      return Value::Int64(static_cast<int64_t>(ReadBigEndian(bytes)));
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
      if (!fixed(16)) return std::nullopt;
      return Value::Bytes(std::string(bytes));
    case CqlKind::kInet:
    case CqlKind::kDuration: {
      if (bytes.empty()) return std::nullopt;
      auto text = ValueToString(type, bytes);
      if (!text.ok()) return std::nullopt;
      return Value::String(std::move(*text));
    }
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kMap: {
      if (bytes.size() < 4) return std::nullopt;
      auto count = static_cast<int32_t>(ReadBigEndian(bytes.substr(0, 4)));
      if (count < 0) return std::nullopt;
      bool is_map = type.kind == CqlKind::kMap;
      size_t pos = 4;
      std::vector<std::optional<std::string_view>> parts;
      if (static_cast<size_t>(count) > bytes.size()) return std::nullopt;
      if (!SplitValues(bytes, &pos, static_cast<size_t>(count) * (is_map ? 2 : 1), &parts) ||
          pos != bytes.size()) {
        return std::nullopt;
      }
      if (is_map) {
        std::vector<std::pair<Value, Value>> entries;
        for (size_t i = 0; i < parts.size(); i += 2) {
          if (!parts[i]) return std::nullopt;  // map keys are required
          auto key = ToTyped(*type.params[0], *parts[i]);
          auto value = ElementToTyped(*type.params[1], parts[i + 1]);
          if (!key || !value) return std::nullopt;
          entries.emplace_back(std::move(*key), std::move(*value));
        }
        return Value::Map(std::move(entries));
      }
      std::vector<Value> elements;
      for (const auto& part : parts) {
        auto element = ElementToTyped(*type.params[0], part);
        if (!element) return std::nullopt;
        elements.push_back(std::move(*element));
      }
      return Value::List(std::move(elements));
    }
    case CqlKind::kVector: {
      const CqlType& element_type = *type.params[0];
      std::optional<int> width = element_type.FixedValueLength();
      std::vector<Value> elements;
      size_t pos = 0;
      for (int i = 0; i < type.vector_dimension; ++i) {
        size_t len;
        if (width) {
          len = static_cast<size_t>(*width);
        } else {
          uint64_t n;
          if (!ReadUnsignedVInt(bytes, &pos, &n)) return std::nullopt;
          len = n;
        }
        if (bytes.size() - pos < len) return std::nullopt;
        auto element = ToTyped(element_type, bytes.substr(pos, len));
        if (!element) return std::nullopt;
        elements.push_back(std::move(*element));
        pos += len;
      }
      if (pos != bytes.size()) return std::nullopt;
      return Value::List(std::move(elements));
    }
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      if (type.params.empty()) return Value::String(StrCat("0x", ToHex(bytes)));
      std::vector<Value> fields;
      size_t pos = 0;
      for (size_t i = 0; i < type.params.size(); ++i) {
        if (pos == bytes.size()) {
          fields.push_back(Value::Null());  // trailing fields not serialized
          continue;
        }
        std::vector<std::optional<std::string_view>> part;
        if (!SplitValues(bytes, &pos, 1, &part)) return std::nullopt;
        auto field = ElementToTyped(*type.params[i], part[0]);
        if (!field) return std::nullopt;
        fields.push_back(std::move(*field));
      }
      if (pos != bytes.size()) return std::nullopt;
      return Value::Struct(std::move(fields));
    }
    default:  // custom, empty, composite: opaque bytes as hex text
      return Value::String(StrCat("0x", ToHex(bytes)));
  }
}

Result<std::string> FromTyped(const CqlType& type, const Value& value) {
  using Kind = Value::Kind;
  std::string out;
  auto expect = [&](Kind kind) -> Status {
    return value.kind() == kind ? Status::OK() : Mismatch(type, value);
  };
  switch (type.kind) {
    case CqlKind::kAscii:
    case CqlKind::kText:
    case CqlKind::kBlob:
      RETURN_IF_ERROR(expect(Kind::kBytes));
      return value.bytes();
    case CqlKind::kBigint:
    case CqlKind::kTime:
    case CqlKind::kTimestamp:
      RETURN_IF_ERROR(expect(Kind::kInt64));
      AppendBigEndian(static_cast<uint64_t>(value.int64_value()), 8, &out);
      return out;
    case CqlKind::kBoolean:
      RETURN_IF_ERROR(expect(Kind::kBool));
      out.push_back(value.bool_value() ? 1 : 0);
      return out;
    case CqlKind::kDate:
      RETURN_IF_ERROR(expect(Kind::kInt32));
      AppendBigEndian(static_cast<uint64_t>(value.int32_value() + kDateEpochOffset), 4, &out);
      return out;
    case CqlKind::kDecimal:
    case CqlKind::kVarint: {
      std::optional<Int128> v;
      if (value.kind() == Kind::kBytes) v = ReadTwosComplement(value.bytes());
      if (value.kind() == Kind::kInt64) v = value.int64_value();
      if (value.kind() == Kind::kInt32) v = value.int32_value();
      if (!v) return Mismatch(type, value);
      if (type.kind == CqlKind::kDecimal) AppendBigEndian(kDecimalScale, 4, &out);
      out += MinimalTwosComplement(*v);
      return out;
    }
    case CqlKind::kDouble:
      RETURN_IF_ERROR(expect(Kind::kDouble));
      AppendBigEndian(std::bit_cast<uint64_t>(value.double_value()), 8, &out);
      return out;
    case CqlKind::kFloat:
      RETURN_IF_ERROR(expect(Kind::kFloat));
      AppendBigEndian(std::bit_cast<uint32_t>(value.float_value()), 4, &out);
      return out;
    case CqlKind::kInt:
      RETURN_IF_ERROR(expect(Kind::kInt32));
      AppendBigEndian(static_cast<uint32_t>(value.int32_value()), 4, &out);
      return out;
    case CqlKind::kSmallint:
      RETURN_IF_ERROR(expect(Kind::kInt32));
      if (value.int32_value() < INT16_MIN || value.int32_value() > INT16_MAX) return Mismatch(type, value);
      AppendBigEndian(static_cast<uint16_t>(value.int32_value()), 2, &out);
      return out;
    case CqlKind::kTinyint:
      RETURN_IF_ERROR(expect(Kind::kInt32));
      if (value.int32_value() < INT8_MIN || value.int32_value() > INT8_MAX) return Mismatch(type, value);
      out.push_back(static_cast<char>(value.int32_value()));
      return out;
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
      RETURN_IF_ERROR(expect(Kind::kBytes));
      if (value.bytes().size() != 16) return Mismatch(type, value);
      return value.bytes();
    case CqlKind::kInet: {
      RETURN_IF_ERROR(expect(Kind::kBytes));
      unsigned char buffer[16];
      if (inet_pton(AF_INET, value.bytes().c_str(), buffer) == 1)
        return std::string(reinterpret_cast<char*>(buffer), 4);
      if (inet_pton(AF_INET6, value.bytes().c_str(), buffer) == 1) {
        return std::string(reinterpret_cast<char*>(buffer), 16);
      }
      return Mismatch(type, value);
    }
    case CqlKind::kDuration: {
      RETURN_IF_ERROR(expect(Kind::kBytes));
      int64_t months, days, nanos;
      if (!ParseDurationText(value.bytes(), &months, &days, &nanos)) return Mismatch(type, value);
      AppendUnsignedVInt(ZigZagEncode(months), &out);
      AppendUnsignedVInt(ZigZagEncode(days), &out);
      AppendUnsignedVInt(ZigZagEncode(nanos), &out);
      return out;
    }
    case CqlKind::kCounter:
      return Status::InvalidArgument("a counter's context cannot be rebuilt from its total");
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kVector: {
      RETURN_IF_ERROR(expect(Kind::kList));
      const CqlType& element_type = *type.params[0];
      if (type.kind == CqlKind::kVector) {
        if (value.elements().size() != static_cast<size_t>(type.vector_dimension))
          return Mismatch(type, value);
        bool fixed_width = element_type.FixedValueLength().has_value();
        for (const Value& element : value.elements()) {
          if (element.is_null()) return Mismatch(type, value);
          ASSIGN_OR_RETURN(std::string bytes, FromTyped(element_type, element));
          if (!fixed_width) AppendUnsignedVInt(bytes.size(), &out);
          out += bytes;
        }
        return out;
      }
      AppendBigEndian(value.elements().size(), 4, &out);
      for (const Value& element : value.elements()) {
        ASSIGN_OR_RETURN(auto bytes, ElementFromTyped(element_type, element));
        AppendLengthPrefixed(bytes, &out);
      }
      return out;
    }
    case CqlKind::kMap: {
      RETURN_IF_ERROR(expect(Kind::kMap));
      AppendBigEndian(value.map_size(), 4, &out);
      for (size_t i = 0; i < value.map_size(); ++i) {
        ASSIGN_OR_RETURN(auto key, ElementFromTyped(*type.params[0], value.map_key(i)));
        ASSIGN_OR_RETURN(auto item, ElementFromTyped(*type.params[1], value.map_value(i)));
        AppendLengthPrefixed(key, &out);
        AppendLengthPrefixed(item, &out);
      }
      return out;
    }
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      if (type.params.empty()) {
        RETURN_IF_ERROR(expect(Kind::kBytes));
        if (!ParseHex(value.bytes(), &out)) return Mismatch(type, value);
        return out;
      }
      RETURN_IF_ERROR(expect(Kind::kStruct));
      if (value.fields().size() != type.params.size()) return Mismatch(type, value);
      for (size_t i = 0; i < type.params.size(); ++i) {
        ASSIGN_OR_RETURN(auto bytes, ElementFromTyped(*type.params[i], value.fields()[i]));
        AppendLengthPrefixed(bytes, &out);
      }
      return out;
    }
    default:
      RETURN_IF_ERROR(expect(Kind::kBytes));
      if (!ParseHex(value.bytes(), &out)) return Mismatch(type, value);
      return out;
  }
}

std::string CounterContext(const std::vector<CounterShard>& shards) {
  std::string header, body;
  int16_t count = 0;
  auto put16 = [](std::string* out, uint16_t v) {
    out->push_back(static_cast<char>(v >> 8));
    out->push_back(static_cast<char>(v & 0xff));
  };
  auto put64 = [](std::string* out, int64_t v) {
    for (int i = 7; i >= 0; --i)
      out->push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  };
  for (size_t i = 0; i < shards.size(); ++i) {
    const CounterShard& shard = shards[i];
    if (shard.kind == CounterShard::Kind::kGlobal) {
      put16(&header, static_cast<uint16_t>(static_cast<int16_t>(i) + INT16_MIN));
      ++count;
    } else if (shard.kind == CounterShard::Kind::kLocal) {
      put16(&header, static_cast<uint16_t>(i));
      ++count;
    }
    body.append(reinterpret_cast<const char*>(shard.counter_id.data()), shard.counter_id.size());
    put64(&body, shard.clock);
    put64(&body, shard.count);
  }
  std::string out;
  put16(&out, static_cast<uint16_t>(count));
  return out + header + body;
}

bool Reproduces(const CqlType& type, std::string_view bytes, const Value& typed) {
  if (typed.is_null()) return false;
  auto back = FromTyped(type, typed);
  return back.ok() && *back == bytes;
}

}  // namespace cqlite::envelope

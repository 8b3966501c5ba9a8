#include "parquet/value.h"

#include <cstring>
#include <sstream>

#include "util/strings.h"

namespace cqlite::parquet {

Value Value::Bool(bool v) {
  Value out;
  out.kind_ = Kind::kBool;
  out.scalar_.b = v;
  return out;
}
Value Value::Int32(int32_t v) {
  Value out;
  out.kind_ = Kind::kInt32;
  out.scalar_.i32 = v;
  return out;
}
Value Value::Int64(int64_t v) {
  Value out;
  out.kind_ = Kind::kInt64;
  out.scalar_.i64 = v;
  return out;
}
Value Value::Float(float v) {
  Value out;
  out.kind_ = Kind::kFloat;
  out.scalar_.f = v;
  return out;
}
Value Value::Double(double v) {
  Value out;
  out.kind_ = Kind::kDouble;
  out.scalar_.d = v;
  return out;
}
Value Value::Bytes(std::string v) {
  Value out;
  out.kind_ = Kind::kBytes;
  out.bytes_ = std::move(v);
  return out;
}
Value Value::List(std::vector<Value> elements) {
  Value out;
  out.kind_ = Kind::kList;
  out.children_ = std::move(elements);
  return out;
}
Value Value::Map(std::vector<std::pair<Value, Value>> entries) {
  Value out;
  out.kind_ = Kind::kMap;
  out.children_.reserve(entries.size() * 2);
  for (auto& [k, v] : entries) {
    out.children_.push_back(std::move(k));
    out.children_.push_back(std::move(v));
  }
  return out;
}
Value Value::Struct(std::vector<Value> fields) {
  Value out;
  out.kind_ = Kind::kStruct;
  out.children_ = std::move(fields);
  return out;
}

bool Value::operator==(const Value& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return scalar_.b == other.scalar_.b;
    case Kind::kInt32:
      return scalar_.i32 == other.scalar_.i32;
    case Kind::kInt64:
      return scalar_.i64 == other.scalar_.i64;
    case Kind::kFloat:
      return std::memcmp(&scalar_.f, &other.scalar_.f, sizeof(float)) == 0;
    case Kind::kDouble:
      return std::memcmp(&scalar_.d, &other.scalar_.d, sizeof(double)) == 0;
    case Kind::kBytes:
      return bytes_ == other.bytes_;
    case Kind::kList:
    case Kind::kMap:
    case Kind::kStruct:
      return children_ == other.children_;
  }
  return false;
}

std::string Value::ToString() const {
  std::ostringstream out;
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return scalar_.b ? "true" : "false";
    case Kind::kInt32:
      return std::to_string(scalar_.i32);
    case Kind::kInt64:
      return StrCat(scalar_.i64, "L");
    case Kind::kFloat:
      out << scalar_.f << "f";
      return out.str();
    case Kind::kDouble:
      out << scalar_.d;
      return out.str();
    case Kind::kBytes: {
      bool printable = true;
      for (char c : bytes_) printable = printable && c >= 0x20 && c < 0x7f;
      return printable ? StrCat("\"", bytes_, "\"") : StrCat("0x", ToHex(bytes_));
    }
    case Kind::kList:
    case Kind::kStruct: {
      out << (kind_ == Kind::kList ? "[" : "(");
      for (size_t i = 0; i < children_.size(); ++i) out << (i ? ", " : "") << children_[i].ToString();
      out << (kind_ == Kind::kList ? "]" : ")");
      return out.str();
    }
    case Kind::kMap: {
      out << "{";
      for (size_t i = 0; i < map_size(); ++i) {
        out << (i ? ", " : "") << map_key(i).ToString() << ": " << map_value(i).ToString();
      }
      out << "}";
      return out.str();
    }
  }
  return "?";
}

}  // namespace cqlite::parquet

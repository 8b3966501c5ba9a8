#include "mapping/row_hash.h"

#include <bit>
#include <cstring>

namespace cqlite::materialize {

using Kind = parquet::Value::Kind;

void RowHasher::MixBytes(std::string_view bytes) {
  Mix(bytes.size());
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    Mix(word);
  }
  uint64_t tail = 0;
  if (i < bytes.size()) std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  Mix(tail);
}

void RowHasher::Bool(bool v) {
  Tag(Kind::kBool);
  Mix(v);
}

void RowHasher::Int32(int32_t v) {
  Tag(Kind::kInt32);
  Mix(static_cast<uint32_t>(v));
}

void RowHasher::Int64(int64_t v) {
  Tag(Kind::kInt64);
  Mix(static_cast<uint64_t>(v));
}

void RowHasher::Float(float v) {
  Tag(Kind::kFloat);
  Mix(std::bit_cast<uint32_t>(v));
}

void RowHasher::Double(double v) {
  Tag(Kind::kDouble);
  Mix(std::bit_cast<uint64_t>(v));
}

void RowHasher::Bytes(std::string_view v) {
  Tag(Kind::kBytes);
  MixBytes(v);
}

void RowHasher::Struct(size_t fields) {
  Tag(Kind::kStruct);
  Mix(fields);
}

void RowHasher::List(size_t elements) {
  Tag(Kind::kList);
  Mix(elements);
}

void RowHasher::Map(size_t entries) {
  Tag(Kind::kMap);
  Mix(entries);
}

void RowHasher::Add(const parquet::Value& value) {
  switch (value.kind()) {
    case Kind::kNull: Null(); break;
    case Kind::kBool: Bool(value.bool_value()); break;
    case Kind::kInt32: Int32(value.int32_value()); break;
    case Kind::kInt64: Int64(value.int64_value()); break;
    case Kind::kFloat: Float(value.float_value()); break;
    case Kind::kDouble: Double(value.double_value()); break;
    case Kind::kBytes: Bytes(value.bytes()); break;
    case Kind::kList:
    case Kind::kStruct:
      value.kind() == Kind::kList ? List(value.elements().size()) : Struct(value.elements().size());
      for (const parquet::Value& child : value.elements()) Add(child);
      break;
    case Kind::kMap:
      Map(value.map_size());
      for (size_t i = 0; i < value.map_size(); ++i) {
        Add(value.map_key(i));
        Add(value.map_value(i));
      }
      break;
  }
}

uint64_t HashValue(const parquet::Value& value) {
  RowHasher hasher;
  hasher.Add(value);
  return hasher.hash();
}

uint64_t HashRow(const parquet::Value& row, const std::vector<int32_t>& field_ids) {
  RowHasher hasher;
  for (size_t i = 0; i < row.elements().size() && i < field_ids.size(); ++i) {
    const parquet::Value& value = row.elements()[i];
    if (value.kind() == Kind::kNull) continue;
    hasher.Field(field_ids[i]);
    hasher.Add(value);
  }
  return hasher.hash();
}

}  // namespace cqlite::materialize

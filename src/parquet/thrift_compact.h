// The Thrift compact protocol, as far as Parquet metadata needs it: structs,
// lists, i16/i32/i64, bool, binary and double fields, and skipping of fields a
// reader does not know. Spec:
// https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
//
// This is the only place that knows the wire format; parquet_format.cc is its
// only user. CompactWriter appends to a string it owns. CompactReader reads a
// caller-owned buffer that must outlive it; bad input is a Corruption error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace cqlite::parquet {

// On-disk type nibbles of the compact protocol.
enum class CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class CompactWriter {
 public:
  // Every struct, the outermost one included, is bracketed by these.
  void BeginStruct();
  void EndStruct();  // writes the stop byte

  void FieldBool(int16_t id, bool value);
  void FieldByte(int16_t id, int8_t value);
  void FieldI32(int16_t id, int32_t value);
  void FieldI64(int16_t id, int64_t value);
  void FieldBinary(int16_t id, std::string_view value);
  // Followed by the struct's fields and EndStruct().
  void FieldStruct(int16_t id);
  // Followed by exactly `size` elements written with the element writers.
  void FieldList(int16_t id, CompactType element_type, size_t size);

  // List elements.
  void ElementI32(int32_t value) { WriteVarint(ZigZag(value)); }
  void ElementBinary(std::string_view value);
  // A struct element: BeginStruct() ... EndStruct().

  const std::string& data() const { return out_; }
  std::string Release() { return std::move(out_); }

 private:
  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  void FieldHeader(int16_t id, CompactType type);
  void WriteVarint(uint64_t v);

  std::string out_;
  std::vector<int16_t> last_ids_;
  int16_t last_id_ = 0;
};

class CompactReader {
 public:
  // `what` names the structure for error messages ("footer of x.parquet").
  CompactReader(std::span<const uint8_t> data, std::string what) : data_(data), what_(std::move(what)) {}

  Status BeginStruct();
  // Reads the next field header; *type == kStop at the end of the struct
  // (then the struct is closed and EndStruct must not be called).
  Status NextField(CompactType* type, int16_t* id);

  // Values of a field whose header was just read.
  Result<bool> ReadBool(CompactType field_type);
  Result<int8_t> ReadByte();
  Result<int32_t> ReadI32();
  Result<int64_t> ReadI64();
  Result<std::string> ReadBinary();
  Status ReadListHeader(CompactType* element_type, uint32_t* size);
  // Skips a value of the given type (a field the reader does not know).
  Status Skip(CompactType type);

  size_t position() const { return pos_; }

 private:
  Status Error(std::string_view msg) const;
  Result<uint64_t> ReadVarint();
  Status SkipDepth(CompactType type, int depth);

  std::span<const uint8_t> data_;
  std::string what_;
  size_t pos_ = 0;
  std::vector<int16_t> last_ids_;
  int16_t last_id_ = 0;
};

}  // namespace cqlite::parquet

#include "parquet/thrift_compact.h"

#include <cstring>

#include "util/strings.h"

namespace cqlite::parquet {

namespace {
constexpr int kMaxDepth = 64;
constexpr uint32_t kMaxListSize = 1u << 28;
}  // namespace

void CompactWriter::WriteVarint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void CompactWriter::BeginStruct() {
  last_ids_.push_back(last_id_);
  last_id_ = 0;
}

void CompactWriter::EndStruct() {
  out_.push_back(static_cast<char>(CompactType::kStop));
  last_id_ = last_ids_.back();
  last_ids_.pop_back();
}

void CompactWriter::FieldHeader(int16_t id, CompactType type) {
  int delta = id - last_id_;
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | static_cast<uint8_t>(type)));
  } else {
    out_.push_back(static_cast<char>(type));
    WriteVarint(ZigZag(id));
  }
  last_id_ = id;
}

void CompactWriter::FieldBool(int16_t id, bool value) {
  FieldHeader(id, value ? CompactType::kBoolTrue : CompactType::kBoolFalse);
}

void CompactWriter::FieldByte(int16_t id, int8_t value) {
  FieldHeader(id, CompactType::kByte);
  out_.push_back(static_cast<char>(value));
}

void CompactWriter::FieldI32(int16_t id, int32_t value) {
  FieldHeader(id, CompactType::kI32);
  WriteVarint(ZigZag(value));
}

void CompactWriter::FieldI64(int16_t id, int64_t value) {
  FieldHeader(id, CompactType::kI64);
  WriteVarint(ZigZag(value));
}

void CompactWriter::FieldBinary(int16_t id, std::string_view value) {
  FieldHeader(id, CompactType::kBinary);
  ElementBinary(value);
}

void CompactWriter::ElementBinary(std::string_view value) {
  WriteVarint(value.size());
  out_.append(value);
}

void CompactWriter::FieldStruct(int16_t id) {
  FieldHeader(id, CompactType::kStruct);
  BeginStruct();
}

void CompactWriter::FieldList(int16_t id, CompactType element_type, size_t size) {
  FieldHeader(id, CompactType::kList);
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | static_cast<uint8_t>(element_type)));
  } else {
    out_.push_back(static_cast<char>(0xf0 | static_cast<uint8_t>(element_type)));
    WriteVarint(size);
  }
}

Status CompactReader::Error(std::string_view msg) const {
  return Status::Corruption(StrCat(what_, ": ", msg, " at byte ", pos_));
}

Result<uint64_t> CompactReader::ReadVarint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return Error("truncated varint");
    uint8_t b = data_[pos_++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  return Error("varint longer than 10 bytes");
}

Status CompactReader::BeginStruct() {
  if (last_ids_.size() >= kMaxDepth) return Error("structs nested too deeply");
  last_ids_.push_back(last_id_);
  last_id_ = 0;
  return Status::OK();
}

Status CompactReader::NextField(CompactType* type, int16_t* id) {
  if (pos_ >= data_.size()) return Error("truncated struct");
  uint8_t b = data_[pos_++];
  *type = static_cast<CompactType>(b & 0x0f);
  if (*type == CompactType::kStop && b != 0) return Error("a field of type 0 (only a zero byte ends a struct)");
  if (*type == CompactType::kStop) {
    if (last_ids_.empty()) return Error("unbalanced struct end");
    last_id_ = last_ids_.back();
    last_ids_.pop_back();
    *id = 0;
    return Status::OK();
  }
  if (static_cast<uint8_t>(*type) > static_cast<uint8_t>(CompactType::kStruct)) {
    return Error(StrCat("unknown field type ", static_cast<int>(*type)));
  }
  int delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_id_ + delta);
  } else {
    ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
    *id = static_cast<int16_t>(static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1));
  }
  last_id_ = *id;
  return Status::OK();
}

Result<bool> CompactReader::ReadBool(CompactType field_type) {
  if (field_type == CompactType::kBoolTrue) return true;
  if (field_type == CompactType::kBoolFalse) return false;
  return Error("expected a bool field");
}

Result<int8_t> CompactReader::ReadByte() {
  if (pos_ >= data_.size()) return Error("truncated byte");
  return static_cast<int8_t>(data_[pos_++]);
}

Result<int64_t> CompactReader::ReadI64() {
  ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
  return static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
}

Result<int32_t> CompactReader::ReadI32() {
  ASSIGN_OR_RETURN(int64_t v, ReadI64());
  if (v < INT32_MIN || v > INT32_MAX) return Error("i32 out of range");
  return static_cast<int32_t>(v);
}

Result<std::string> CompactReader::ReadBinary() {
  ASSIGN_OR_RETURN(uint64_t size, ReadVarint());
  if (size > data_.size() - pos_) return Error(StrCat("binary of ", size, " bytes runs past the end"));
  std::string out(reinterpret_cast<const char*>(data_.data() + pos_), size);
  pos_ += size;
  return out;
}

Status CompactReader::ReadListHeader(CompactType* element_type, uint32_t* size) {
  if (pos_ >= data_.size()) return Error("truncated list header");
  uint8_t b = data_[pos_++];
  *element_type = static_cast<CompactType>(b & 0x0f);
  uint64_t n = b >> 4;
  if (n == 15) {
    ASSIGN_OR_RETURN(n, ReadVarint());
  }
  // Every element takes at least one byte, which bounds what we allocate.
  if (n > kMaxListSize || n > data_.size() - pos_)
    return Error(StrCat("list of ", n, " elements is too long"));
  *size = static_cast<uint32_t>(n);
  return Status::OK();
}

Status CompactReader::Skip(CompactType type) { return SkipDepth(type, 0); }

Status CompactReader::SkipDepth(CompactType type, int depth) {
  if (depth > kMaxDepth) return Error("values nested too deeply");
  switch (type) {
    case CompactType::kBoolTrue:
    case CompactType::kBoolFalse:
      return Status::OK();
    case CompactType::kByte:
      if (pos_ >= data_.size()) return Error("truncated byte");
      ++pos_;
      return Status::OK();
    case CompactType::kI16:
    case CompactType::kI32:
    case CompactType::kI64:
      return ReadVarint().status();
    case CompactType::kDouble:
      if (data_.size() - pos_ < 8) return Error("truncated double");
      pos_ += 8;
      return Status::OK();
    case CompactType::kBinary:
      return ReadBinary().status();
    case CompactType::kList:
    case CompactType::kSet: {
      CompactType element;
      uint32_t n;
      RETURN_IF_ERROR(ReadListHeader(&element, &n));
      for (uint32_t i = 0; i < n; ++i) {
        if (element == CompactType::kBoolTrue || element == CompactType::kBoolFalse) {
          RETURN_IF_ERROR(SkipDepth(CompactType::kByte, depth + 1));
        } else {
          RETURN_IF_ERROR(SkipDepth(element, depth + 1));
        }
      }
      return Status::OK();
    }
    case CompactType::kMap: {
      ASSIGN_OR_RETURN(uint64_t n, ReadVarint());
      if (n == 0) return Status::OK();
      if (n > data_.size() - pos_) return Error("map too long");
      if (pos_ >= data_.size()) return Error("truncated map");
      uint8_t types = data_[pos_++];
      for (uint64_t i = 0; i < n; ++i) {
        RETURN_IF_ERROR(SkipDepth(static_cast<CompactType>(types >> 4), depth + 1));
        RETURN_IF_ERROR(SkipDepth(static_cast<CompactType>(types & 0x0f), depth + 1));
      }
      return Status::OK();
    }
    case CompactType::kStruct: {
      RETURN_IF_ERROR(BeginStruct());
      while (true) {
        CompactType t;
        int16_t id;
        RETURN_IF_ERROR(NextField(&t, &id));
        if (t == CompactType::kStop) return Status::OK();
        RETURN_IF_ERROR(SkipDepth(t, depth + 1));
      }
    }
    default:
      return Error(StrCat("cannot skip type ", static_cast<int>(type)));
  }
}

}  // namespace cqlite::parquet

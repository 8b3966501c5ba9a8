#include "avro/binary.h"

#include <cstring>
#include <limits>

#include "util/strings.h"

namespace cqlite::avro {
namespace {

// A varint long takes at most 10 bytes (64 bits, 7 per byte).
constexpr int kMaxVarintBytes = 10;
// Arrays and maps of items that take no bytes (nulls, empty records) could
// claim any count at no cost; more such items than this in one decoder's
// input are taken as corruption.
constexpr int64_t kMaxZeroSizeItems = int64_t{1} << 16;
// Deeper than any schema ParseSchema accepts; guards hand-built schemas.
constexpr int kMaxDepth = 128;

uint64_t ZigZag(int64_t value) { return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63); }
int64_t UnZigZag(uint64_t value) { return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1); }

template <typename T>
void AppendLittleEndian(T value, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // the build targets little-endian machines
  out->append(bytes, sizeof(T));
}

Status Mismatch(const Schema& schema, const Datum& datum, const std::string& detail = "") {
  return Status::InvalidArgument(StrCat("Avro datum of type ", TypeName(datum.type()), " does not match schema type ",
                                        TypeName(schema.type), detail.empty() ? "" : ": ", detail));
}

Status Encode(const Schema& schema, const Datum& datum, std::string* out, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("Avro datum nested too deeply");
  if (schema.type != datum.type()) return Mismatch(schema, datum);
  switch (schema.type) {
    case Type::kNull:
      return Status::OK();
    case Type::kBoolean:
      out->push_back(datum.boolean_value() ? 1 : 0);
      return Status::OK();
    case Type::kInt:
      EncodeLong(datum.int_value(), out);
      return Status::OK();
    case Type::kLong:
      EncodeLong(datum.long_value(), out);
      return Status::OK();
    case Type::kFloat:
      AppendLittleEndian(datum.float_value(), out);
      return Status::OK();
    case Type::kDouble:
      AppendLittleEndian(datum.double_value(), out);
      return Status::OK();
    case Type::kBytes:
    case Type::kString:
      EncodeBytes(datum.bytes(), out);
      return Status::OK();
    case Type::kFixed:
      if (datum.bytes().size() != static_cast<size_t>(schema.fixed_size)) {
        return Mismatch(schema, datum, StrCat(datum.bytes().size(), " bytes for fixed(", schema.fixed_size, ")"));
      }
      out->append(datum.bytes());
      return Status::OK();
    case Type::kEnum:
      if (datum.int_value() < 0 || static_cast<size_t>(datum.int_value()) >= schema.symbols.size()) {
        return Mismatch(schema, datum, StrCat("enum index ", datum.int_value(), " out of range"));
      }
      EncodeLong(datum.int_value(), out);
      return Status::OK();
    case Type::kArray: {
      const std::vector<Datum>& items = datum.items();
      if (!items.empty()) {
        EncodeLong(static_cast<int64_t>(items.size()), out);
        for (const Datum& item : items) RETURN_IF_ERROR(Encode(schema.items(), item, out, depth + 1));
      }
      EncodeLong(0, out);
      return Status::OK();
    }
    case Type::kMap: {
      const Datum::MapEntries& entries = datum.map_entries();
      if (!entries.empty()) {
        EncodeLong(static_cast<int64_t>(entries.size()), out);
        for (const auto& [key, value] : entries) {
          EncodeBytes(key, out);
          RETURN_IF_ERROR(Encode(schema.values(), value, out, depth + 1));
        }
      }
      EncodeLong(0, out);
      return Status::OK();
    }
    case Type::kRecord: {
      const std::vector<Datum>& fields = datum.fields();
      if (fields.size() != schema.fields.size()) {
        return Mismatch(schema, datum,
                        StrCat(fields.size(), " values for the ", schema.fields.size(), " fields of ", schema.FullName()));
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        Status status = Encode(schema.fields[i].schema, fields[i], out, depth + 1);
        if (!status.ok()) return status.WithContext(StrCat("field ", schema.FullName(), ".", schema.fields[i].name));
      }
      return Status::OK();
    }
    case Type::kUnion: {
      int32_t branch = datum.union_branch();
      if (branch < 0 || static_cast<size_t>(branch) >= schema.children.size()) {
        return Mismatch(schema, datum, StrCat("union branch ", branch, " out of range"));
      }
      EncodeLong(branch, out);
      return Encode(schema.children[branch], datum.union_value(), out, depth + 1);
    }
  }
  return Mismatch(schema, datum);
}

}  // namespace

void EncodeLong(int64_t value, std::string* out) {
  uint64_t n = ZigZag(value);
  while (n >= 0x80) {
    out->push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out->push_back(static_cast<char>(n));
}

void EncodeBytes(std::string_view bytes, std::string* out) {
  EncodeLong(static_cast<int64_t>(bytes.size()), out);
  out->append(bytes);
}

Status EncodeDatum(const Schema& schema, const Datum& datum, std::string* out) {
  return Encode(schema, datum, out, 0);
}

size_t MinEncodedSize(const Schema& schema) {
  switch (schema.type) {
    case Type::kNull:
      return 0;
    case Type::kFloat:
      return 4;
    case Type::kDouble:
      return 8;
    case Type::kFixed:
      return static_cast<size_t>(schema.fixed_size);
    case Type::kRecord: {
      size_t total = 0;
      for (const Field& field : schema.fields) total += MinEncodedSize(field.schema);
      return total;
    }
    default:  // a varint, length, count or branch index: at least one byte
      return 1;
  }
}

Status BinaryDecoder::ErrorAt(size_t position, const std::string& what) const {
  return Status::Corruption(StrCat(file_, ": byte offset ", base_offset_ + position, ": Avro ", what));
}

Result<int64_t> BinaryDecoder::ReadLong() {
  size_t start = position_;
  uint64_t value = 0;
  for (int i = 0; i < kMaxVarintBytes; ++i) {
    if (position_ >= bytes_.size()) return ErrorAt(start, "varint runs past the end of the data");
    uint8_t byte = bytes_[position_++];
    if (i == kMaxVarintBytes - 1 && byte > 1) return ErrorAt(start, "varint is longer than 64 bits");
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) return UnZigZag(value);
  }
  return ErrorAt(start, "varint is longer than 10 bytes");
}

Result<int32_t> BinaryDecoder::ReadInt() {
  size_t start = position_;
  ASSIGN_OR_RETURN(int64_t value, ReadLong());
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return ErrorAt(start, StrCat("int ", value, " is out of the 32-bit range"));
  }
  return static_cast<int32_t>(value);
}

Result<std::string> BinaryDecoder::ReadFixed(size_t n) {
  if (n > remaining()) return Error(StrCat(n, " bytes needed, only ", remaining(), " left"));
  std::string out(reinterpret_cast<const char*>(bytes_.data() + position_), n);
  position_ += n;
  return out;
}

Result<std::string> BinaryDecoder::ReadBytes() {
  size_t start = position_;
  ASSIGN_OR_RETURN(int64_t length, ReadLong());
  if (length < 0) return ErrorAt(start, StrCat("negative length ", length));
  if (static_cast<uint64_t>(length) > remaining()) {
    return ErrorAt(start, StrCat("length ", length, " runs past the end of the data (", remaining(), " bytes left)"));
  }
  return ReadFixed(static_cast<size_t>(length));
}

Result<int64_t> BinaryDecoder::ReadBlockCount(size_t min_item_size) {
  size_t start = position_;
  ASSIGN_OR_RETURN(int64_t count, ReadLong());
  if (count < 0) {
    // A negative count is followed by the block's size in bytes.
    if (count == std::numeric_limits<int64_t>::min()) return ErrorAt(start, "block count out of range");
    count = -count;
    size_t size_start = position_;
    ASSIGN_OR_RETURN(int64_t block_bytes, ReadLong());
    if (block_bytes < 0 || static_cast<uint64_t>(block_bytes) > remaining()) {
      return ErrorAt(size_start, StrCat("block size ", block_bytes, " is invalid (", remaining(), " bytes left)"));
    }
  }
  if (min_item_size > 0) {
    if (static_cast<uint64_t>(count) > remaining() / min_item_size) {
      return ErrorAt(start, StrCat("block count ", count, " exceeds the ", remaining(), " bytes left"));
    }
  } else {
    if (count > kMaxZeroSizeItems - zero_size_items_) {
      return ErrorAt(start, StrCat("block count ", count, " of empty items is implausible"));
    }
    zero_size_items_ += count;
  }
  return count;
}

Result<Datum> BinaryDecoder::Read(const Schema& schema) { return ReadNode(schema, 0); }

Result<Datum> BinaryDecoder::ReadNode(const Schema& schema, int depth) {
  if (depth > kMaxDepth) return Error("schema nested too deeply");
  switch (schema.type) {
    case Type::kNull:
      return Datum::Null();
    case Type::kBoolean: {
      if (remaining() < 1) return Error("boolean runs past the end of the data");
      uint8_t byte = bytes_[position_];
      if (byte > 1) return Error(StrCat("boolean byte ", static_cast<int>(byte), " is neither 0 nor 1"));
      ++position_;
      return Datum::Boolean(byte == 1);
    }
    case Type::kInt: {
      ASSIGN_OR_RETURN(int32_t value, ReadInt());
      return Datum::Int(value);
    }
    case Type::kLong: {
      ASSIGN_OR_RETURN(int64_t value, ReadLong());
      return Datum::Long(value);
    }
    case Type::kFloat: {
      if (remaining() < 4) return Error("float runs past the end of the data");
      float value;
      std::memcpy(&value, bytes_.data() + position_, 4);
      position_ += 4;
      return Datum::Float(value);
    }
    case Type::kDouble: {
      if (remaining() < 8) return Error("double runs past the end of the data");
      double value;
      std::memcpy(&value, bytes_.data() + position_, 8);
      position_ += 8;
      return Datum::Double(value);
    }
    case Type::kBytes: {
      ASSIGN_OR_RETURN(std::string value, ReadBytes());
      return Datum::Bytes(std::move(value));
    }
    case Type::kString: {
      ASSIGN_OR_RETURN(std::string value, ReadBytes());
      return Datum::String(std::move(value));
    }
    case Type::kFixed: {
      ASSIGN_OR_RETURN(std::string value, ReadFixed(static_cast<size_t>(schema.fixed_size)));
      return Datum::Fixed(std::move(value));
    }
    case Type::kEnum: {
      size_t start = position_;
      ASSIGN_OR_RETURN(int32_t index, ReadInt());
      if (index < 0 || static_cast<size_t>(index) >= schema.symbols.size()) {
        return ErrorAt(start, StrCat("enum index ", index, " out of range for ", schema.FullName()));
      }
      return Datum::Enum(index);
    }
    case Type::kArray: {
      std::vector<Datum> items;
      size_t min_size = MinEncodedSize(schema.items());
      while (true) {
        ASSIGN_OR_RETURN(int64_t count, ReadBlockCount(min_size));
        if (count == 0) break;
        for (int64_t i = 0; i < count; ++i) {
          ASSIGN_OR_RETURN(Datum item, ReadNode(schema.items(), depth + 1));
          items.push_back(std::move(item));
        }
      }
      return Datum::Array(std::move(items));
    }
    case Type::kMap: {
      Datum::MapEntries entries;
      size_t min_size = 1 + MinEncodedSize(schema.values());  // the key's length comes first
      while (true) {
        ASSIGN_OR_RETURN(int64_t count, ReadBlockCount(min_size));
        if (count == 0) break;
        for (int64_t i = 0; i < count; ++i) {
          ASSIGN_OR_RETURN(std::string key, ReadBytes());
          ASSIGN_OR_RETURN(Datum value, ReadNode(schema.values(), depth + 1));
          entries.emplace_back(std::move(key), std::move(value));
        }
      }
      return Datum::Map(std::move(entries));
    }
    case Type::kRecord: {
      std::vector<Datum> fields;
      fields.reserve(schema.fields.size());
      for (const Field& field : schema.fields) {
        ASSIGN_OR_RETURN(Datum value, ReadNode(field.schema, depth + 1));
        fields.push_back(std::move(value));
      }
      return Datum::Record(std::move(fields));
    }
    case Type::kUnion: {
      size_t start = position_;
      ASSIGN_OR_RETURN(int64_t branch, ReadLong());
      if (branch < 0 || static_cast<uint64_t>(branch) >= schema.children.size()) {
        return ErrorAt(start, StrCat("union branch ", branch, " out of range (", schema.children.size(), " branches)"));
      }
      ASSIGN_OR_RETURN(Datum value, ReadNode(schema.children[branch], depth + 1));
      return Datum::Union(static_cast<int32_t>(branch), std::move(value));
    }
  }
  return Error("unknown schema type");
}

}  // namespace cqlite::avro

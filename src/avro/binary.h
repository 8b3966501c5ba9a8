// Avro binary encoding of datums
// (https://avro.apache.org/docs/1.12.0/specification/#binary-encoding):
// int and long as zig-zag varints, float and double little-endian, bytes and
// string length-prefixed, arrays and maps as blocks (a count, negative when a
// byte size follows, ending with a zero count), unions as the branch index
// then the value, records as their fields in order, fixed as raw bytes.
//
// The decoder never reads past its input and never trusts a count or length
// further than the bytes left: bad input is a Corruption naming the file and
// the byte offset, never a crash or an unbounded allocation.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "avro/datum.h"
#include "avro/schema.h"
#include "util/status.h"

namespace cqlite::avro {

// Low-level writers, appending to *out.
void EncodeLong(int64_t value, std::string* out);  // zig-zag varint, for int too
void EncodeBytes(std::string_view bytes, std::string* out);

// Appends the encoding of `datum` to *out. InvalidArgument when the datum
// does not match the schema (wrong type, field count, union branch, fixed
// size, enum index, int out of range).
Status EncodeDatum(const Schema& schema, const Datum& datum, std::string* out);

// Reads values from a byte span. `file` and `base_offset` (the span's offset
// in the file) only name the place of an error.
class BinaryDecoder {
 public:
  // The bytes must stay alive while the decoder is used.
  BinaryDecoder(std::span<const uint8_t> bytes, std::string file, uint64_t base_offset = 0)
      : bytes_(bytes), file_(std::move(file)), base_offset_(base_offset) {}

  Result<int64_t> ReadLong();
  Result<int32_t> ReadInt();
  // A length-prefixed byte string.
  Result<std::string> ReadBytes();
  // Exactly n raw bytes.
  Result<std::string> ReadFixed(size_t n);
  Result<Datum> Read(const Schema& schema);

  size_t position() const { return position_; }
  size_t remaining() const { return bytes_.size() - position_; }
  bool at_end() const { return position_ == bytes_.size(); }
  // Corruption "<file>: byte offset <n>: Avro <what>" at the current position.
  Status Error(const std::string& what) const { return ErrorAt(position_, what); }
  Status ErrorAt(size_t position, const std::string& what) const;

 private:
  Result<Datum> ReadNode(const Schema& schema, int depth);
  // The block item count of an array or map, checked against the bytes left.
  Result<int64_t> ReadBlockCount(size_t min_item_size);

  std::span<const uint8_t> bytes_;
  std::string file_;
  uint64_t base_offset_;
  size_t position_ = 0;
  int64_t zero_size_items_ = 0;  // items of zero-size types read so far
};

// The fewest bytes one value of the schema can take (0 for null, an empty
// record, a zero-size fixed). Bounds item counts the decoder accepts.
size_t MinEncodedSize(const Schema& schema);

}  // namespace cqlite::avro

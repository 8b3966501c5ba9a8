// Parquet value and level encodings CQLite writes and reads
// (https://github.com/apache/parquet-format/blob/master/Encodings.md):
//   - the RLE / bit-packing hybrid, for repetition and definition levels and
//     for dictionary indices (without the 4-byte length prefix; callers add it);
//   - PLAIN, for values and dictionary pages;
//   - the statistics encoding of single values and the sort orders
//     statistics use (signed ints, IEEE floats, unsigned bytewise binary).
// Decoders read caller-owned buffers that must outlive them; bad input is a
// Corruption error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"

namespace cqlite::parquet {

// Bits needed for values 0..max_value (0 for 0).
int BitWidth(uint32_t max_value);

// Appends the RLE/bit-packed hybrid encoding of `values` (each < 2^bit_width).
void EncodeRleHybrid(std::span<const uint32_t> values, int bit_width, std::string* out);
void EncodeRleHybrid(std::span<const uint16_t> values, int bit_width, std::string* out);

class RleHybridDecoder {
 public:
  RleHybridDecoder(std::span<const uint8_t> data, int bit_width) : data_(data), bit_width_(bit_width) {}
  // Decodes exactly `count` values, appended to `out`.
  Status Decode(size_t count, std::vector<uint32_t>* out);

 private:
  std::span<const uint8_t> data_;
  int bit_width_;
  size_t pos_ = 0;
};

// PLAIN encoding of one non-null value of a non-BOOLEAN column (BYTE_ARRAY
// gets its 4-byte length prefix). REQUIRES: the value kind fits the column.
void AppendPlain(const Field& column, const Value& value, std::string* out);
// PLAIN encoding of booleans: bit-packed, least significant bit first.
void AppendPlainBooleans(const std::vector<bool>& values, std::string* out);

// The statistics encoding of one value: PLAIN without a length prefix, one
// byte for a boolean.
std::string StatisticsBytes(const Field& column, const Value& value);
// Orders two statistics encodings of `column` by the column's sort order.
int CompareStatistics(const Field& column, std::string_view a, std::string_view b);

// Checks a value's kind against the column (null is checked by the caller).
Status CheckValueKind(const Field& column, const Value& value);

// Decodes `count` PLAIN values from data[*pos...]; advances *pos.
Status DecodePlain(const Field& column, std::span<const uint8_t> data, size_t* pos, size_t count,
                   std::vector<Value>* out, const std::string& what);

}  // namespace cqlite::parquet

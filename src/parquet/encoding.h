// Parquet value and level encodings CQLite writes and reads
// (https://github.com/apache/parquet-format/blob/master/Encodings.md):
//   - the RLE / bit-packing hybrid, for repetition and definition levels and
//     for dictionary indices (without the 4-byte length prefix; callers add it);
//   - PLAIN, for values and dictionary pages;
//   - DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY and
//     DELTA_BYTE_ARRAY (BYTE_ARRAY), for sorted or slowly changing values;
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

#include "parquet/parquet_format.h"
#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"
#include "util/uninitialized_vector.h"

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

// Byte-array values one after another in one buffer, so that decoding a
// page allocates nothing per value: value i is
// data[ends[i - 1] (0 for the first), ends[i]).
struct ByteArrays {
  std::string data;
  std::vector<uint64_t> ends;

  size_t size() const { return ends.size(); }
  bool empty() const { return ends.empty(); }
  std::string_view operator[](size_t i) const {
    const uint64_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(data.data() + begin, ends[i] - begin);
  }
  void push_back(std::string_view v) {
    data.append(v);
    ends.push_back(data.size());
  }
  void clear() {
    data.clear();
    ends.clear();
  }
};

// The same for INT64 and BYTE_ARRAY columns, as plain C++ values (into a
// std::vector or an UninitializedVector).
template <typename Alloc>
Status DecodePlainInt64s(std::span<const uint8_t> data, size_t* pos, size_t count,
                         std::vector<int64_t, Alloc>* out, const std::string& what);
Status DecodePlainByteArrays(std::span<const uint8_t> data, size_t* pos, size_t count, ByteArrays* out,
                             const std::string& what);

// DELTA_BINARY_PACKED: the first value, then blocks of kDeltaBlockValues
// differences to the value before, each block's minimum difference once and
// the rest above it bit-packed in kDeltaMiniblocks miniblocks of their own
// width. Differences wrap at the width of T (int32_t or int64_t), as the
// spec asks.
inline constexpr int kDeltaBlockValues = 128;
inline constexpr int kDeltaMiniblocks = 4;
template <typename T>
void EncodeDeltaBinaryPacked(std::span<const T> values, std::string* out);
// DELTA_LENGTH_BYTE_ARRAY: the lengths DELTA_BINARY_PACKED, then the bytes.
void EncodeDeltaLengthByteArray(std::span<const std::string_view> values, std::string* out);
// DELTA_BYTE_ARRAY: the length of the prefix each value shares with the one
// before (DELTA_BINARY_PACKED), then the rest of each DELTA_LENGTH_BYTE_ARRAY.
void EncodeDeltaByteArray(std::span<const std::string_view> values, std::string* out);

// Decodes a DELTA_BINARY_PACKED stream of exactly `count` values from
// data[*pos...], appended to `out` (a std::vector or an
// UninitializedVector); advances *pos past the stream.
template <typename T, typename Alloc>
Status DecodeDeltaBinaryPacked(std::span<const uint8_t> data, size_t* pos, size_t count, std::vector<T, Alloc>* out,
                               const std::string& what);
// Decodes `count` values of a DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY
// stream (`encoding`) from data[*pos...], appended to `out`; advances *pos.
Status DecodeDeltaByteArrays(Encoding encoding, std::span<const uint8_t> data, size_t* pos, size_t count,
                             ByteArrays* out, const std::string& what);

// Decodes `count` values of a page in one of the DELTA encodings into
// Values of `column` (INT32 or INT64 for DELTA_BINARY_PACKED, BYTE_ARRAY for
// the other two); NotSupported for other pairs.
Status DecodeDelta(const Field& column, Encoding encoding, std::span<const uint8_t> data, size_t count,
                   std::vector<Value>* out, const std::string& what);

}  // namespace cqlite::parquet

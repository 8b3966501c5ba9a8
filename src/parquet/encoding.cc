#include "parquet/encoding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/strings.h"

namespace cqlite::parquet {

namespace {

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

template <typename T>
void AppendLittleEndian(T v, std::string* out) {
  static_assert(std::endian::native == std::endian::little, "big-endian hosts are not supported");
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out->append(buf, sizeof(T));
}

template <typename T>
T LoadLittleEndian(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Bit-packs values[begin..begin+8*groups) (missing values are 0), LSB first.
template <typename T>
void AppendBitPacked(std::span<const T> values, size_t begin, size_t groups, int bit_width,
                     std::string* out) {
  // 8 values of bit_width bits are always a whole number of bytes.
  const size_t start = out->size();
  out->resize(start + groups * static_cast<size_t>(bit_width));
  char* p = out->data() + start;
  const size_t end = begin + groups * 8;
  const size_t full_end = std::min(end, values.size());
  uint64_t buffer = 0;
  int bits = 0;
  size_t i = begin;
  for (; i < full_end; ++i) {
    buffer |= static_cast<uint64_t>(values[i]) << bits;
    bits += bit_width;
    while (bits >= 8) {
      *p++ = static_cast<char>(buffer & 0xff);
      buffer >>= 8;
      bits -= 8;
    }
  }
  for (; i < end; ++i) {
    bits += bit_width;
    while (bits >= 8) {
      *p++ = static_cast<char>(buffer & 0xff);
      buffer >>= 8;
      bits -= 8;
    }
  }
}

template <typename T>
size_t RunLength(std::span<const T> values, size_t i) {
  size_t j = i + 1;
  const T v = values[i];
  while (j < values.size() && values[j] == v) ++j;
  return j - i;
}

template <typename T>
void EncodeRleHybridImpl(std::span<const T> values, int bit_width, std::string* out) {
  size_t value_bytes = (bit_width + 7) / 8;
  size_t i = 0;
  while (i < values.size()) {
    size_t run = RunLength(values, i);
    if (run >= 8) {
      AppendVarint(static_cast<uint64_t>(run) << 1, out);
      uint32_t v = values[i];
      for (size_t b = 0; b < value_bytes; ++b) out->push_back(static_cast<char>((v >> (8 * b)) & 0xff));
      i += run;
      continue;
    }
    // Bit-pack groups of 8 until a long run starts at a group boundary.
    size_t begin = i;
    size_t groups = 0;
    do {
      ++groups;
      i += 8;
    } while (i < values.size() && RunLength(values, i) < 8 && groups < 63);
    AppendVarint((groups << 1) | 1, out);
    AppendBitPacked(values, begin, groups, bit_width, out);
  }
}

}  // namespace

int BitWidth(uint32_t max_value) { return max_value == 0 ? 0 : 32 - std::countl_zero(max_value); }

void EncodeRleHybrid(std::span<const uint32_t> values, int bit_width, std::string* out) {
  EncodeRleHybridImpl(values, bit_width, out);
}

void EncodeRleHybrid(std::span<const uint16_t> values, int bit_width, std::string* out) {
  EncodeRleHybridImpl(values, bit_width, out);
}

Status RleHybridDecoder::Decode(size_t count, std::vector<uint32_t>* out) {
  auto error = [&](const char* msg) {
    return Status::Corruption(StrCat("RLE/bit-packed data: ", msg, " at byte ", pos_));
  };
  if (bit_width_ < 0 || bit_width_ > 32) return error("bad bit width");
  size_t value_bytes = (bit_width_ + 7) / 8;
  out->reserve(out->size() + count);
  while (count > 0) {
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= data_.size()) return error("truncated run header");
      if (shift > 63) return error("run header too long");
      uint8_t b = data_[pos_++];
      header |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    if (header & 1) {
      uint64_t n = (header >> 1) * 8;
      uint64_t bytes = (header >> 1) * bit_width_;
      if (bytes > data_.size() - pos_) return error("bit-packed run past the end");
      uint64_t buffer = 0;
      int bits = 0;
      size_t byte = pos_;
      uint32_t mask = bit_width_ == 32 ? 0xffffffffu : ((1u << bit_width_) - 1);
      for (uint64_t k = 0; k < n; ++k) {
        while (bits < bit_width_) {
          buffer |= static_cast<uint64_t>(data_[byte++]) << bits;
          bits += 8;
        }
        uint32_t v = static_cast<uint32_t>(buffer) & mask;
        buffer = bit_width_ == 0 ? buffer : buffer >> bit_width_;
        bits -= bit_width_;
        if (count > 0) {
          out->push_back(v);
          --count;
        }
      }
      pos_ += bytes;
    } else {
      uint64_t n = header >> 1;
      if (n == 0) return error("empty RLE run");
      if (value_bytes > data_.size() - pos_) return error("RLE run value past the end");
      uint32_t v = 0;
      for (size_t b = 0; b < value_bytes; ++b) v |= static_cast<uint32_t>(data_[pos_ + b]) << (8 * b);
      pos_ += value_bytes;
      uint64_t take = n < count ? n : count;
      out->insert(out->end(), take, v);
      count -= take;
    }
  }
  return Status::OK();
}

void AppendPlain(const Field& column, const Value& value, std::string* out) {
  switch (column.physical_type) {
    case PhysicalType::kInt32:
      AppendLittleEndian(value.int32_value(), out);
      break;
    case PhysicalType::kInt64:
      AppendLittleEndian(value.int64_value(), out);
      break;
    case PhysicalType::kFloat:
      AppendLittleEndian(value.float_value(), out);
      break;
    case PhysicalType::kDouble:
      AppendLittleEndian(value.double_value(), out);
      break;
    case PhysicalType::kByteArray:
      AppendLittleEndian(static_cast<uint32_t>(value.bytes().size()), out);
      out->append(value.bytes());
      break;
    case PhysicalType::kFixedLenByteArray:
      out->append(value.bytes());
      break;
    case PhysicalType::kBoolean:
    case PhysicalType::kInt96:
      break;  // not reached: booleans are bit-packed, INT96 is refused
  }
}

void AppendPlainBooleans(const std::vector<bool>& values, std::string* out) {
  uint8_t byte = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) byte |= static_cast<uint8_t>(1u << (i % 8));
    if (i % 8 == 7) {
      out->push_back(static_cast<char>(byte));
      byte = 0;
    }
  }
  if (values.size() % 8 != 0) out->push_back(static_cast<char>(byte));
}

std::string StatisticsBytes(const Field& column, const Value& value) {
  std::string out;
  switch (column.physical_type) {
    case PhysicalType::kBoolean:
      out.push_back(value.bool_value() ? 1 : 0);
      break;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      out = value.bytes();
      break;
    default:
      AppendPlain(column, value, &out);
      break;
  }
  return out;
}

namespace {

template <typename T>
int Compare3(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareUnsignedBytes(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return Compare3(a.size(), b.size());
}

// Big-endian two's complement integers of any length (DECIMAL on byte arrays).
int CompareSignedBigEndian(std::string_view a, std::string_view b) {
  bool neg_a = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80);
  bool neg_b = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80);
  if (neg_a != neg_b) return neg_a ? -1 : 1;
  // Sign-extend the shorter to the longer length, then compare bytewise.
  size_t n = std::max(a.size(), b.size());
  std::string ea(n - a.size(), neg_a ? '\xff' : '\0');
  ea.append(a);
  std::string eb(n - b.size(), neg_b ? '\xff' : '\0');
  eb.append(b);
  return CompareUnsignedBytes(ea, eb);
}

}  // namespace

int CompareStatistics(const Field& column, std::string_view a, std::string_view b) {
  bool is_unsigned = column.logical_type.kind == LogicalType::kInteger && !column.logical_type.is_signed;
  switch (column.physical_type) {
    case PhysicalType::kBoolean:
      return Compare3(a[0], b[0]);
    case PhysicalType::kInt32:
      if (is_unsigned)
        return Compare3(LoadLittleEndian<uint32_t>(a.data()), LoadLittleEndian<uint32_t>(b.data()));
      return Compare3(LoadLittleEndian<int32_t>(a.data()), LoadLittleEndian<int32_t>(b.data()));
    case PhysicalType::kInt64:
      if (is_unsigned)
        return Compare3(LoadLittleEndian<uint64_t>(a.data()), LoadLittleEndian<uint64_t>(b.data()));
      return Compare3(LoadLittleEndian<int64_t>(a.data()), LoadLittleEndian<int64_t>(b.data()));
    case PhysicalType::kFloat:
      return Compare3(LoadLittleEndian<float>(a.data()), LoadLittleEndian<float>(b.data()));
    case PhysicalType::kDouble:
      return Compare3(LoadLittleEndian<double>(a.data()), LoadLittleEndian<double>(b.data()));
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      if (column.logical_type.kind == LogicalType::kDecimal) return CompareSignedBigEndian(a, b);
      return CompareUnsignedBytes(a, b);
    case PhysicalType::kInt96:
      return 0;
  }
  return 0;
}

Status CheckValueKind(const Field& column, const Value& value) {
  Value::Kind want = Value::Kind::kNull;
  switch (column.physical_type) {
    case PhysicalType::kBoolean:
      want = Value::Kind::kBool;
      break;
    case PhysicalType::kInt32:
      want = Value::Kind::kInt32;
      break;
    case PhysicalType::kInt64:
      want = Value::Kind::kInt64;
      break;
    case PhysicalType::kFloat:
      want = Value::Kind::kFloat;
      break;
    case PhysicalType::kDouble:
      want = Value::Kind::kDouble;
      break;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      want = Value::Kind::kBytes;
      break;
    case PhysicalType::kInt96:
      break;
  }
  if (value.kind() != want) {
    return Status::InvalidArgument(StrCat("column ", column.name, " (",
                                          PhysicalTypeName(column.physical_type), ") cannot hold ",
                                          value.ToString()));
  }
  if (column.physical_type == PhysicalType::kFixedLenByteArray &&
      value.bytes().size() != static_cast<size_t>(column.type_length)) {
    return Status::InvalidArgument(StrCat("column ", column.name, " holds ", column.type_length,
                                          "-byte values, not ", value.bytes().size()));
  }
  if (column.physical_type == PhysicalType::kByteArray && value.bytes().size() > 0x7fffffffu) {
    return Status::InvalidArgument(StrCat("column ", column.name, ": value larger than 2 GiB"));
  }
  return Status::OK();
}

Status DecodePlain(const Field& column, std::span<const uint8_t> data, size_t* pos, size_t count,
                   std::vector<Value>* out, const std::string& what) {
  auto need = [&](size_t n) -> Status {
    if (n > data.size() - *pos) {
      return Status::Corruption(StrCat(what, ": PLAIN values run past the end of the page at byte ", *pos));
    }
    return Status::OK();
  };
  const uint8_t* p = data.data();
  // Every value takes at least a bit, which bounds the reservation.
  out->reserve(out->size() + std::min(count, (data.size() - *pos) * 8 + 1));
  for (size_t i = 0; i < count; ++i) {
    switch (column.physical_type) {
      case PhysicalType::kBoolean: {
        size_t byte = *pos + i / 8;
        if (byte >= data.size()) return need(data.size());
        out->push_back(Value::Bool((p[byte] >> (i % 8)) & 1));
        if (i + 1 == count) *pos = *pos + (count + 7) / 8;
        break;
      }
      case PhysicalType::kInt32:
        RETURN_IF_ERROR(need(4));
        out->push_back(Value::Int32(LoadLittleEndian<int32_t>(p + *pos)));
        *pos += 4;
        break;
      case PhysicalType::kInt64:
        RETURN_IF_ERROR(need(8));
        out->push_back(Value::Int64(LoadLittleEndian<int64_t>(p + *pos)));
        *pos += 8;
        break;
      case PhysicalType::kFloat:
        RETURN_IF_ERROR(need(4));
        out->push_back(Value::Float(LoadLittleEndian<float>(p + *pos)));
        *pos += 4;
        break;
      case PhysicalType::kDouble:
        RETURN_IF_ERROR(need(8));
        out->push_back(Value::Double(LoadLittleEndian<double>(p + *pos)));
        *pos += 8;
        break;
      case PhysicalType::kByteArray: {
        RETURN_IF_ERROR(need(4));
        uint32_t n = LoadLittleEndian<uint32_t>(p + *pos);
        *pos += 4;
        RETURN_IF_ERROR(need(n));
        out->push_back(Value::Bytes(std::string(reinterpret_cast<const char*>(p + *pos), n)));
        *pos += n;
        break;
      }
      case PhysicalType::kFixedLenByteArray: {
        size_t n = static_cast<size_t>(column.type_length);
        RETURN_IF_ERROR(need(n));
        out->push_back(Value::Bytes(std::string(reinterpret_cast<const char*>(p + *pos), n)));
        *pos += n;
        break;
      }
      case PhysicalType::kInt96:
        return Status::NotSupported(StrCat(what, ": INT96 values"));
    }
  }
  return Status::OK();
}

template <typename Alloc>
Status DecodePlainInt64s(std::span<const uint8_t> data, size_t* pos, size_t count,
                         std::vector<int64_t, Alloc>* out, const std::string& what) {
  if (count > (data.size() - *pos) / 8) {
    return Status::Corruption(StrCat(what, ": PLAIN values run past the end of the page at byte ", *pos));
  }
  size_t first = out->size();
  out->resize(first + count);
  for (size_t i = 0; i < count; ++i) (*out)[first + i] = LoadLittleEndian<int64_t>(data.data() + *pos + 8 * i);
  *pos += 8 * count;
  return Status::OK();
}

template Status DecodePlainInt64s(std::span<const uint8_t>, size_t*, size_t, std::vector<int64_t>*,
                                  const std::string&);
template Status DecodePlainInt64s(std::span<const uint8_t>, size_t*, size_t, UninitializedVector<int64_t>*,
                                  const std::string&);

Status DecodePlainByteArrays(std::span<const uint8_t> data, size_t* pos, size_t count, ByteArrays* out,
                             const std::string& what) {
  // Every value takes at least its 4-byte length, which bounds the reservations.
  out->ends.reserve(out->ends.size() + std::min(count, (data.size() - *pos) / 4));
  out->data.reserve(out->data.size() + (data.size() - *pos));
  for (size_t i = 0; i < count; ++i) {
    if (data.size() - *pos < 4) {
      return Status::Corruption(StrCat(what, ": PLAIN values run past the end of the page at byte ", *pos));
    }
    uint32_t n = LoadLittleEndian<uint32_t>(data.data() + *pos);
    *pos += 4;
    if (n > data.size() - *pos) {
      return Status::Corruption(StrCat(what, ": PLAIN values run past the end of the page at byte ", *pos));
    }
    out->push_back(std::string_view(reinterpret_cast<const char*>(data.data() + *pos), n));
    *pos += n;
  }
  return Status::OK();
}

namespace {

uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// Appends n values of `width` bits each, least significant bit first.
// REQUIRES: n * width is a multiple of 8.
void AppendBitPacked64(const uint64_t* values, size_t n, int width, std::string* out) {
  if (width == 0) return;
  const size_t start = out->size();
  out->resize(start + n * static_cast<size_t>(width) / 8);
  char* p = out->data() + start;
  unsigned __int128 buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    buffer |= static_cast<unsigned __int128>(values[i]) << bits;
    bits += width;
    while (bits >= 8) {
      *p++ = static_cast<char>(static_cast<uint8_t>(buffer));
      buffer >>= 8;
      bits -= 8;
    }
  }
}

// Reads n values of `width` bits each from the n * width / 8 bytes at p.
// Unpacks `n` values of `width` bits each, least significant bit first, from
// `p`, which holds `available` bytes (at least n * width / 8).
// UnpackBits64's fast loop for one width known at compile time, so that
// each value is a load, a shift by a constant and a mask. REQUIRES: the 8
// bytes from the one holding each value's first bit are in the buffer.
template <int kWidth>
void UnpackFixedWidth(const uint8_t* p, size_t n, uint64_t* out) {
  constexpr uint64_t kMask = (uint64_t{1} << kWidth) - 1;
  for (size_t i = 0; i < n; ++i) {
    const size_t bit = i * kWidth;
    uint64_t word;
    std::memcpy(&word, p + (bit >> 3), 8);
    out[i] = (word >> (bit & 7)) & kMask;  // a little-endian host (see above)
  }
}

template <size_t... kWidths>
constexpr auto FixedWidthUnpackers(std::index_sequence<kWidths...>) {
  return std::array<void (*)(const uint8_t*, size_t, uint64_t*), sizeof...(kWidths)>{
      &UnpackFixedWidth<static_cast<int>(kWidths) + 1>...};
}
// Indexed by width - 1, for widths 1 to 56.
constexpr auto kFixedWidthUnpackers = FixedWidthUnpackers(std::make_index_sequence<56>());

void UnpackBits64(const uint8_t* p, size_t n, int width, size_t available, uint64_t* out) {
  if (width >= 1 && width <= 56 && n > 0 && (((n - 1) * static_cast<size_t>(width)) >> 3) + 8 <= available) {
    kFixedWidthUnpackers[width - 1](p, n, out);
    return;
  }
  if (width == 0) {
    std::fill(out, out + n, 0);
    return;
  }
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  size_t i = 0;
  if (width <= 56) {
    // Each value lies within the 8 bytes from the one its first bit is in:
    // one load and a shift, while those 8 bytes are in the buffer.
    const size_t w = static_cast<size_t>(width);
    for (; i < n; ++i) {
      const size_t bit = i * w;
      if ((bit >> 3) + 8 > available) break;
      uint64_t word;
      std::memcpy(&word, p + (bit >> 3), 8);
      out[i] = (word >> (bit & 7)) & mask;  // a little-endian host (see above)
    }
    if (i == n) return;
  }
  size_t bit = i * static_cast<size_t>(width);
  p += bit >> 3;
  int skip = static_cast<int>(bit & 7);
  unsigned __int128 buffer = 0;
  int bits = 0;
  if (skip > 0) {
    buffer = static_cast<unsigned __int128>(*p++) >> skip;
    bits = 8 - skip;
  }
  for (; i < n; ++i) {
    while (bits < width) {
      buffer |= static_cast<unsigned __int128>(*p++) << bits;
      bits += 8;
    }
    out[i] = static_cast<uint64_t>(buffer) & mask;
    buffer >>= width;
    bits -= width;
  }
}

bool ReadVarint(std::span<const uint8_t> data, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return false;
    const uint8_t b = data[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// What one page's byte arrays may decode to: DELTA_BYTE_ARRAY prefixes let a
// small page stand for far larger values, which must not exhaust memory.
constexpr size_t kMaxDecodedPageBytes = size_t{256} << 20;

}  // namespace

template <typename T>
void EncodeDeltaBinaryPacked(std::span<const T> values, std::string* out) {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);
  using U = std::make_unsigned_t<T>;
  constexpr size_t kMiniValues = kDeltaBlockValues / kDeltaMiniblocks;
  static_assert(kMiniValues % 32 == 0);
  AppendVarint(kDeltaBlockValues, out);
  AppendVarint(kDeltaMiniblocks, out);
  AppendVarint(values.size(), out);
  AppendVarint(ZigZag(values.empty() ? 0 : values[0]), out);
  T deltas[kDeltaBlockValues];
  uint64_t packed[kMiniValues];
  for (size_t begin = 1; begin < values.size(); begin += kDeltaBlockValues) {
    const size_t n = std::min<size_t>(kDeltaBlockValues, values.size() - begin);
    T min_delta = std::numeric_limits<T>::max();
    for (size_t i = 0; i < n; ++i) {
      deltas[i] = static_cast<T>(static_cast<U>(values[begin + i]) - static_cast<U>(values[begin + i - 1]));
      min_delta = std::min(min_delta, deltas[i]);
    }
    AppendVarint(ZigZag(min_delta), out);
    const size_t widths_at = out->size();
    out->append(kDeltaMiniblocks, '\0');
    for (size_t m = 0; m * kMiniValues < n; ++m) {
      uint64_t all_bits = 0;
      for (size_t j = 0; j < kMiniValues; ++j) {
        const size_t i = m * kMiniValues + j;
        packed[j] = i < n ? static_cast<U>(static_cast<U>(deltas[i]) - static_cast<U>(min_delta)) : 0;
        all_bits |= packed[j];
      }
      const int width = all_bits == 0 ? 0 : 64 - std::countl_zero(all_bits);
      (*out)[widths_at + m] = static_cast<char>(width);
      AppendBitPacked64(packed, kMiniValues, width, out);
    }
  }
}

template void EncodeDeltaBinaryPacked<int32_t>(std::span<const int32_t>, std::string*);
template void EncodeDeltaBinaryPacked<int64_t>(std::span<const int64_t>, std::string*);

void EncodeDeltaLengthByteArray(std::span<const std::string_view> values, std::string* out) {
  std::vector<int32_t> lengths;
  lengths.reserve(values.size());
  for (std::string_view v : values) lengths.push_back(static_cast<int32_t>(v.size()));
  EncodeDeltaBinaryPacked<int32_t>(lengths, out);
  for (std::string_view v : values) out->append(v);
}

void EncodeDeltaByteArray(std::span<const std::string_view> values, std::string* out) {
  std::vector<int32_t> prefixes;
  std::vector<std::string_view> suffixes;
  prefixes.reserve(values.size());
  suffixes.reserve(values.size());
  std::string_view before;
  for (std::string_view v : values) {
    const size_t limit = std::min(before.size(), v.size());
    size_t shared = 0;
    while (shared < limit && before[shared] == v[shared]) ++shared;
    prefixes.push_back(static_cast<int32_t>(shared));
    suffixes.push_back(v.substr(shared));
    before = v;
  }
  EncodeDeltaBinaryPacked<int32_t>(prefixes, out);
  EncodeDeltaLengthByteArray(suffixes, out);
}

template <typename T, typename Alloc>
Status DecodeDeltaBinaryPacked(std::span<const uint8_t> data, size_t* pos, size_t count, std::vector<T, Alloc>* out,
                               const std::string& what) {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);
  using U = std::make_unsigned_t<T>;
  auto error = [&](std::string_view message) {
    return Status::Corruption(StrCat(what, ": DELTA_BINARY_PACKED ", message, " at byte ", *pos));
  };
  uint64_t block_values = 0, miniblocks = 0, total = 0, first = 0;
  if (!ReadVarint(data, pos, &block_values) || !ReadVarint(data, pos, &miniblocks) ||
      !ReadVarint(data, pos, &total) || !ReadVarint(data, pos, &first)) {
    return error("header truncated");
  }
  if (block_values == 0 || block_values % 128 != 0 || block_values > (uint64_t{1} << 20) || miniblocks == 0 ||
      block_values % miniblocks != 0 || (block_values / miniblocks) % 32 != 0) {
    return error(StrCat("block of ", block_values, " values in ", miniblocks, " miniblocks"));
  }
  if (total != count) return error(StrCat("stream of ", total, " values where ", count, " are due"));
  if (count == 0) return Status::OK();
  const size_t mini_values = static_cast<size_t>(block_values / miniblocks);
  std::vector<uint64_t> unpacked(mini_values);
  const size_t base = out->size();
  out->resize(base + count);
  T* values = out->data() + base;
  T value = static_cast<T>(static_cast<U>(UnZigZag(first)));
  *values++ = value;
  size_t remaining = count - 1;
  while (remaining > 0) {
    uint64_t min_zigzag = 0;
    if (!ReadVarint(data, pos, &min_zigzag)) return error("block header truncated");
    const U min_delta = static_cast<U>(UnZigZag(min_zigzag));
    if (miniblocks > data.size() - *pos) return error("miniblock widths truncated");
    const uint8_t* widths = data.data() + *pos;
    *pos += static_cast<size_t>(miniblocks);
    for (uint64_t m = 0; m < miniblocks && remaining > 0; ++m) {
      const int width = widths[m];
      if (width > static_cast<int>(sizeof(T) * 8)) return error(StrCat("bit width ", width));
      const size_t bytes = mini_values * static_cast<size_t>(width) / 8;
      if (bytes > data.size() - *pos) return error("miniblock truncated");
      UnpackBits64(data.data() + *pos, mini_values, width, data.size() - *pos, unpacked.data());
      *pos += bytes;
      const size_t take = std::min(mini_values, remaining);
      for (size_t j = 0; j < take; ++j) {
        value = static_cast<T>(static_cast<U>(static_cast<U>(value) + min_delta + static_cast<U>(unpacked[j])));
        *values++ = value;
      }
      remaining -= take;
    }
  }
  return Status::OK();
}

template Status DecodeDeltaBinaryPacked(std::span<const uint8_t>, size_t*, size_t, std::vector<int32_t>*,
                                        const std::string&);
template Status DecodeDeltaBinaryPacked(std::span<const uint8_t>, size_t*, size_t, std::vector<int64_t>*,
                                        const std::string&);
template Status DecodeDeltaBinaryPacked(std::span<const uint8_t>, size_t*, size_t, UninitializedVector<int32_t>*,
                                        const std::string&);
template Status DecodeDeltaBinaryPacked(std::span<const uint8_t>, size_t*, size_t, UninitializedVector<int64_t>*,
                                        const std::string&);

Status DecodeDeltaByteArrays(Encoding encoding, std::span<const uint8_t> data, size_t* pos, size_t count,
                             ByteArrays* out, const std::string& what) {
  const bool prefixed = encoding == Encoding::kDeltaByteArray;
  UninitializedVector<int32_t> prefixes;
  if (prefixed) RETURN_IF_ERROR(DecodeDeltaBinaryPacked<int32_t>(data, pos, count, &prefixes, what));
  UninitializedVector<int32_t> lengths;
  RETURN_IF_ERROR(DecodeDeltaBinaryPacked<int32_t>(data, pos, count, &lengths, what));
  // The decoded size first, checked, so that the values are copied into a
  // buffer that does not move.
  size_t suffix_bytes = 0, decoded_bytes = 0, before = 0;
  for (size_t i = 0; i < count; ++i) {
    if (lengths[i] < 0 || static_cast<size_t>(lengths[i]) > data.size() - *pos - suffix_bytes) {
      return Status::Corruption(StrCat(what, ": a value of ", lengths[i], " bytes runs past the page at byte ",
                                       *pos + suffix_bytes));
    }
    size_t shared = 0;
    if (prefixed) {
      if (prefixes[i] < 0 || static_cast<size_t>(prefixes[i]) > before) {
        return Status::Corruption(StrCat(what, ": value ", i, " shares ", prefixes[i],
                                         " bytes with a value of ", before));
      }
      shared = static_cast<size_t>(prefixes[i]);
    }
    suffix_bytes += static_cast<size_t>(lengths[i]);
    before = shared + static_cast<size_t>(lengths[i]);
    decoded_bytes += before;
    if (decoded_bytes > kMaxDecodedPageBytes) {
      return Status::Corruption(StrCat(what, ": the page's values decode to more than ",
                                       kMaxDecodedPageBytes >> 20, " MiB"));
    }
  }
  // Values of up to 16 bytes (keys, clusterings) are made in a vector
  // register from the value before, still in the register, and the suffix
  // loaded where it lies in the page: one load and one store each, and no
  // load of bytes just stored (which the processor could not forward). The
  // store's bytes past the value are overwritten by the next value or land in
  // kSlack bytes past the end, cut off below.
  constexpr size_t kSlack = 16;
  const size_t start = out->data.size();
  out->data.resize(start + decoded_bytes + kSlack);
  out->ends.reserve(out->ends.size() + count);
  char* dst = out->data.data() + start;
  const char* const src_begin = reinterpret_cast<const char*>(data.data());
  const char* const src_end = src_begin + data.size();
  const char* src = src_begin + *pos;
  const char* previous = dst;
#if defined(__SSE2__)
  const __m128i byte_index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m128i last = _mm_setzero_si128();  // the value before, when it is short
  bool last_is_short = true;
#endif
  for (size_t i = 0; i < count; ++i) {
    const size_t shared = prefixed ? static_cast<size_t>(prefixes[i]) : 0;
    const size_t suffix = static_cast<size_t>(lengths[i]);
    char* value = dst;
#if defined(__SSE2__)
    if (shared + suffix <= 16 && last_is_short && static_cast<size_t>(src - src_begin) >= shared &&
        static_cast<size_t>(src_end - src) + shared >= 16) {
      // Loaded from `shared` bytes before the suffix, the suffix lands at
      // bytes [shared, shared + suffix); the bytes before come from `last`.
      const __m128i page = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src - shared));
      const __m128i keep = _mm_cmplt_epi8(byte_index, _mm_set1_epi8(static_cast<char>(shared)));
      last = _mm_or_si128(_mm_and_si128(keep, last), _mm_andnot_si128(keep, page));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(value), last);
    } else {
      if (shared > 0) std::memcpy(value, previous, shared);
      if (suffix > 0) std::memcpy(value + shared, src, suffix);
      last_is_short = shared + suffix <= 16;
      if (last_is_short) last = _mm_loadu_si128(reinterpret_cast<const __m128i*>(value));
    }
#else
    if (shared > 0) std::memcpy(value, previous, shared);
    if (suffix > 0) std::memcpy(value + shared, src, suffix);
#endif
    src += suffix;
    dst += shared + suffix;
    previous = value;
    out->ends.push_back(static_cast<uint64_t>(dst - out->data.data()));
  }
  out->data.resize(start + decoded_bytes);
  *pos += suffix_bytes;
  return Status::OK();
}

Status DecodeDelta(const Field& column, Encoding encoding, std::span<const uint8_t> data, size_t count,
                   std::vector<Value>* out, const std::string& what) {
  size_t pos = 0;
  if (encoding == Encoding::kDeltaBinaryPacked) {
    if (column.physical_type == PhysicalType::kInt32) {
      std::vector<int32_t> values;
      RETURN_IF_ERROR(DecodeDeltaBinaryPacked<int32_t>(data, &pos, count, &values, what));
      for (int32_t v : values) out->push_back(Value::Int32(v));
      return Status::OK();
    }
    if (column.physical_type == PhysicalType::kInt64) {
      std::vector<int64_t> values;
      RETURN_IF_ERROR(DecodeDeltaBinaryPacked<int64_t>(data, &pos, count, &values, what));
      for (int64_t v : values) out->push_back(Value::Int64(v));
      return Status::OK();
    }
  } else if ((encoding == Encoding::kDeltaLengthByteArray || encoding == Encoding::kDeltaByteArray) &&
             (column.physical_type == PhysicalType::kByteArray ||
              column.physical_type == PhysicalType::kFixedLenByteArray)) {
    ByteArrays values;
    RETURN_IF_ERROR(DecodeDeltaByteArrays(encoding, data, &pos, count, &values, what));
    for (size_t i = 0; i < values.size(); ++i) {
      std::string_view v = values[i];
      if (column.physical_type == PhysicalType::kFixedLenByteArray &&
          v.size() != static_cast<size_t>(column.type_length)) {
        return Status::Corruption(
            StrCat(what, ": a value of ", v.size(), " bytes in a column of ", column.type_length));
      }
      out->push_back(Value::Bytes(std::string(v)));
    }
    return Status::OK();
  }
  return Status::NotSupported(StrCat(what, ": value encoding ", static_cast<int>(encoding), " for ",
                                     PhysicalTypeName(column.physical_type), " values"));
}

}  // namespace cqlite::parquet

#include "fold/value_order.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "cassandra/value_format.h"

namespace cqlite {

namespace {

int Sign(int value) { return (value > 0) - (value < 0); }

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return Sign(c);
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

uint64_t LoadU64(std::string_view bytes, size_t offset) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return value;
}

uint32_t LoadU32(std::string_view bytes, size_t offset) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return value;
}

// Empty values sort before all others (Boolean.compare(rightEmpty, leftEmpty)).
bool EitherEmpty(std::string_view a, std::string_view b, int* result) {
  if (!a.empty() && !b.empty()) return false;
  *result = (a.empty() == b.empty()) ? 0 : a.empty() ? -1 : 1;
  return true;
}

// Int32Type, LongType and friends: the first byte signed, then the rest unsigned.
int CompareSignedFixed(std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  int diff = static_cast<int8_t>(a[0]) - static_cast<int8_t>(b[0]);
  if (diff != 0) return Sign(diff);
  return CompareBytes(a, b);
}

// IntegerType: two's-complement big-endian integers of any length.
int CompareVarints(std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  bool a_negative = static_cast<int8_t>(a[0]) < 0;
  bool b_negative = static_cast<int8_t>(b[0]) < 0;
  if (a_negative != b_negative) return a_negative ? -1 : 1;
  // Same sign: extend the shorter with sign bytes, then compare unsigned.
  size_t n = std::max(a.size(), b.size());
  char pad = a_negative ? '\xff' : '\0';
  for (size_t i = 0; i < n; ++i) {
    uint8_t x = static_cast<uint8_t>(i < n - a.size() ? pad : a[i - (n - a.size())]);
    uint8_t y = static_cast<uint8_t>(i < n - b.size() ? pad : b[i - (n - b.size())]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// DecimalType (BigDecimal.compareTo): the numeric value, whatever the scale.
int CompareDecimals(std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  if (a.size() < 4 || b.size() < 4) return CompareBytes(a, b);
  struct Parsed {
    bool negative = false;
    bool zero = true;
    std::string digits;  // significant digits, no leading or trailing zeros
    int64_t exponent = 0;  // value = 0.digits * 10^exponent
  };
  auto parse = [](std::string_view bytes) {
    Parsed p;
    int32_t scale = static_cast<int32_t>(LoadU32(bytes, 0));
    std::string text = VarintToDecimal(bytes.substr(4));
    if (!text.empty() && text[0] == '-') {
      p.negative = true;
      text.erase(0, 1);
    }
    size_t first = text.find_first_not_of('0');
    if (first == std::string::npos) return p;
    text.erase(0, first);
    p.zero = false;
    p.exponent = static_cast<int64_t>(text.size()) - scale;
    size_t last = text.find_last_not_of('0');
    p.digits = text.substr(0, last + 1);
    return p;
  };
  Parsed x = parse(a);
  Parsed y = parse(b);
  int x_sign = x.zero ? 0 : x.negative ? -1 : 1;
  int y_sign = y.zero ? 0 : y.negative ? -1 : 1;
  if (x_sign != y_sign) return x_sign < y_sign ? -1 : 1;
  if (x_sign == 0) return 0;
  int magnitude;
  if (x.exponent != y.exponent) {
    magnitude = x.exponent < y.exponent ? -1 : 1;
  } else {
    magnitude = Sign(x.digits.compare(y.digits));
  }
  return x_sign > 0 ? magnitude : -magnitude;
}

// Float.compare / Double.compare: -0.0 before 0.0, NaN after everything.
template <typename Float>
int CompareFloats(Float x, Float y) {
  if (x < y) return -1;
  if (x > y) return 1;
  bool x_nan = std::isnan(x);
  bool y_nan = std::isnan(y);
  if (x_nan || y_nan) return x_nan == y_nan ? 0 : x_nan ? 1 : -1;
  bool x_negative = std::signbit(x);
  bool y_negative = std::signbit(y);
  return x_negative == y_negative ? 0 : x_negative ? -1 : 1;
}

template <bool kIsDouble>
int CompareFloatValues(const CqlType&, std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  size_t width = kIsDouble ? 8 : 4;
  if (a.size() != width || b.size() != width) return CompareBytes(a, b);
  if constexpr (kIsDouble) {
    uint64_t x = LoadU64(a, 0), y = LoadU64(b, 0);
    double dx, dy;
    std::memcpy(&dx, &x, 8);
    std::memcpy(&dy, &y, 8);
    return CompareFloats(dx, dy);
  }
  uint32_t x = LoadU32(a, 0), y = LoadU32(b, 0);
  float fx, fy;
  std::memcpy(&fx, &x, 4);
  std::memcpy(&fy, &y, 4);
  return CompareFloats(fx, fy);
}

// TimeUUIDType.reorderTimestampBytes: time_hi, time_mid, time_low.
int64_t ReorderTimestamp(uint64_t msb) {
  return static_cast<int64_t>((msb << 48) | ((msb << 16) & 0xFFFF00000000ULL) | (msb >> 32));
}

int CompareTimeUuids(std::string_view a, std::string_view b) {
  bool full_a = a.size() == 16, full_b = b.size() == 16;
  if (!full_a || !full_b) return full_a ? 1 : full_b ? -1 : 0;
  int64_t x = ReorderTimestamp(LoadU64(a, 0)), y = ReorderTimestamp(LoadU64(b, 0));
  if (x != y) return x < y ? -1 : 1;
  // The low half compares byte by byte, signed.
  for (size_t i = 8; i < 16; ++i) {
    int8_t p = static_cast<int8_t>(a[i]), q = static_cast<int8_t>(b[i]);
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

int CompareUuids(std::string_view a, std::string_view b) {
  bool full_a = a.size() == 16, full_b = b.size() == 16;
  if (!full_a || !full_b) return full_a ? 1 : full_b ? -1 : 0;
  uint64_t msb_a = LoadU64(a, 0), msb_b = LoadU64(b, 0);
  int version_a = static_cast<int>((msb_a >> 12) & 0xf), version_b = static_cast<int>((msb_b >> 12) & 0xf);
  if (version_a != version_b) return version_a < version_b ? -1 : 1;
  if (version_a == 1) {
    int64_t x = ReorderTimestamp(msb_a), y = ReorderTimestamp(msb_b);
    if (x != y) return x < y ? -1 : 1;
  } else if (msb_a != msb_b) {
    return msb_a < msb_b ? -1 : 1;
  }
  uint64_t lsb_a = LoadU64(a, 8), lsb_b = LoadU64(b, 8);
  return lsb_a < lsb_b ? -1 : lsb_a > lsb_b ? 1 : 0;
}

// Reads the int32 at `*offset`, advancing it; false when fewer than 4 bytes remain.
bool ReadInt32(std::string_view bytes, size_t* offset, int32_t* value) {
  if (bytes.size() - *offset < 4) return false;
  *value = static_cast<int32_t>(LoadU32(bytes, *offset));
  *offset += 4;
  return true;
}

// One element of a serialized collection or tuple: an int32 length (negative
// for null) then the bytes. False when malformed.
bool ReadElement(std::string_view bytes, size_t* offset, bool* is_null, std::string_view* element) {
  int32_t length;
  if (!ReadInt32(bytes, offset, &length)) return false;
  *is_null = length < 0;
  if (length < 0) {
    *element = {};
    return true;
  }
  if (bytes.size() - *offset < static_cast<size_t>(length)) return false;
  *element = bytes.substr(*offset, static_cast<size_t>(length));
  *offset += static_cast<size_t>(length);
  return true;
}

// CollectionType.compareListOrSet and MapType.compareMaps (frozen values).
int CompareCollections(const CqlType& type, std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  size_t oa = 0, ob = 0;
  int32_t size_a, size_b;
  if (!ReadInt32(a, &oa, &size_a) || !ReadInt32(b, &ob, &size_b)) return CompareBytes(a, b);
  bool is_map = type.kind == CqlKind::kMap;
  int32_t common = std::min(size_a, size_b);
  for (int32_t i = 0; i < common; ++i) {
    for (int part = 0; part < (is_map ? 2 : 1); ++part) {
      bool null_a, null_b;
      std::string_view x, y;
      if (!ReadElement(a, &oa, &null_a, &x) || !ReadElement(b, &ob, &null_b, &y)) return CompareBytes(a, b);
      int c = CompareValues(*type.params[part], x, y);
      if (c != 0) return c;
    }
  }
  return size_a < size_b ? -1 : size_a > size_b ? 1 : 0;
}

// Whether every remaining field of a serialized tuple from `offset` is null.
bool RemainingFieldsNull(std::string_view bytes, size_t offset) {
  while (offset < bytes.size()) {
    int32_t length;
    if (!ReadInt32(bytes, &offset, &length) || length >= 0) return false;
  }
  return true;
}

// TupleType.compareCustom (tuples and frozen user types).
int CompareTuples(const CqlType& type, std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  size_t oa = 0, ob = 0;
  for (size_t i = 0; oa < a.size() && ob < b.size() && i < type.params.size(); ++i) {
    bool null_a, null_b;
    std::string_view x, y;
    if (!ReadElement(a, &oa, &null_a, &x) || !ReadElement(b, &ob, &null_b, &y)) return CompareBytes(a, b);
    if (null_a || null_b) {
      if (null_a && null_b) continue;
      return null_a ? -1 : 1;
    }
    int c = CompareValues(*type.params[i], x, y);
    if (c != 0) return c;
  }
  bool rest_a = RemainingFieldsNull(a, oa), rest_b = RemainingFieldsNull(b, ob);
  if (rest_a && rest_b) return 0;
  if (oa >= a.size()) return rest_b ? 0 : -1;
  return rest_a ? 0 : 1;
}

// The next element of a serialized vector: `width` bytes, or (variable-width
// elements) an unsigned vint length and the bytes.
bool ReadVectorElement(std::string_view v, size_t* pos, std::optional<int> width, std::string_view* out) {
  size_t len;
  if (width) {
    len = static_cast<size_t>(*width);
  } else {
    if (*pos >= v.size()) return false;
    auto first = static_cast<uint8_t>(v[(*pos)++]);
    int extra = 0;
    while (extra < 8 && (first & (0x80 >> extra))) ++extra;
    uint64_t n = extra >= 8 ? 0 : (first & (0xffu >> extra));
    if (v.size() - *pos < static_cast<size_t>(extra)) return false;
    for (int i = 0; i < extra; ++i) n = (n << 8) | static_cast<uint8_t>(v[(*pos)++]);
    len = n;
  }
  if (v.size() - *pos < len) return false;
  *out = v.substr(*pos, len);
  *pos += len;
  return true;
}

// VectorType.compareCustom: element by element with the element type.
int CompareVectors(const CqlType& type, std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  if (type.params.empty()) return CompareBytes(a, b);
  const CqlType& element = *type.params[0];
  std::optional<int> width = element.FixedValueLength();
  size_t oa = 0, ob = 0;
  for (int i = 0; i < type.vector_dimension; ++i) {
    std::string_view x, y;
    if (!ReadVectorElement(a, &oa, width, &x) || !ReadVectorElement(b, &ob, width, &y)) return CompareBytes(a, b);
    int c = CompareValues(element, x, y);
    if (c != 0) return c;
  }
  return 0;
}

int CompareBooleans(std::string_view a, std::string_view b) {
  int result;
  if (EitherEmpty(a, b, &result)) return result;
  int x = a[0] != 0, y = b[0] != 0;
  return x - y;
}

// Where ClusteringPrefix.Kind sorts among equal values, and how a bound
// shorter than the clustering compares with the clusterings it prefixes.
int KindComparison(ClusteringKind kind) {
  switch (kind) {
    case ClusteringKind::kExclEndBound:
    case ClusteringKind::kInclStartBound:
    case ClusteringKind::kExclEndInclStartBoundary:
      return 0;
    case ClusteringKind::kStaticClustering:
      return 1;
    case ClusteringKind::kClustering:
      return 2;
    case ClusteringKind::kInclEndExclStartBoundary:
    case ClusteringKind::kInclEndBound:
    case ClusteringKind::kExclStartBound:
      return 3;
    case ClusteringKind::kSstableLowerBound:
      return -1;
    case ClusteringKind::kSstableUpperBound:
      return 4;
  }
  return 2;
}

int ComparedToClustering(ClusteringKind kind) {
  switch (kind) {
    case ClusteringKind::kClustering:
      return 0;
    case ClusteringKind::kInclEndExclStartBoundary:
    case ClusteringKind::kInclEndBound:
    case ClusteringKind::kExclStartBound:
    case ClusteringKind::kSstableUpperBound:
      return 1;
    default:
      return -1;
  }
}

}  // namespace

ValueComparison ComparisonFor(const CqlType& type) {
  // Adapters to the one signature, for the comparisons that need no type.
  using View = std::string_view;
  switch (type.kind) {
    case CqlKind::kBoolean:
      return [](const CqlType&, View a, View b) { return CompareBooleans(a, b); };
    case CqlKind::kInt:
    case CqlKind::kBigint:
    case CqlKind::kSmallint:
    case CqlKind::kTinyint:
    case CqlKind::kTimestamp:
      return [](const CqlType&, View a, View b) { return CompareSignedFixed(a, b); };
    case CqlKind::kVarint:
      return [](const CqlType&, View a, View b) { return CompareVarints(a, b); };
    case CqlKind::kDecimal:
      return [](const CqlType&, View a, View b) { return CompareDecimals(a, b); };
    case CqlKind::kFloat:
      return CompareFloatValues</*kIsDouble=*/false>;
    case CqlKind::kDouble:
      return CompareFloatValues</*kIsDouble=*/true>;
    case CqlKind::kUuid:
      return [](const CqlType&, View a, View b) { return CompareUuids(a, b); };
    case CqlKind::kTimeuuid:
      return [](const CqlType&, View a, View b) { return CompareTimeUuids(a, b); };
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kMap:
      if (type.params.size() < (type.kind == CqlKind::kMap ? 2u : 1u)) break;
      return CompareCollections;
    case CqlKind::kTuple:
    case CqlKind::kUdt:
      return CompareTuples;
    case CqlKind::kVector:
      return CompareVectors;
    default:
      break;
  }
  // ascii, text, blob, inet, date, time, duration, counters, custom types and
  // collections without element types compare as unsigned bytes
  // (ComparisonType.BYTE_ORDER).
  return [](const CqlType&, View a, View b) { return CompareBytes(a, b); };
}

int CompareValues(const CqlType& type, std::string_view a, std::string_view b) {
  return ComparisonFor(type)(type, a, b);
}

int CompareCellPaths(const CqlType& column_type, std::string_view a, std::string_view b) {
  switch (column_type.kind) {
    case CqlKind::kList:
      return CompareTimeUuids(a, b);
    case CqlKind::kSet:
    case CqlKind::kMap:
      if (column_type.params.empty()) return CompareBytes(a, b);
      return CompareValues(*column_type.params[0], a, b);
    case CqlKind::kUdt:
      return CompareSignedFixed(a, b);  // field positions as shorts
    default:
      return CompareBytes(a, b);
  }
}

ClusteringOrder ClusteringOrder::OfTable(const TableSchema& table) {
  std::vector<CqlTypePtr> types;
  for (const ColumnSchema* column : table.ClusteringColumns()) {
    if (!column->reversed || column->type->reversed) {
      types.push_back(column->type);
    } else {
      auto reversed = std::make_shared<CqlType>(*column->type);
      reversed->reversed = true;
      types.push_back(std::move(reversed));
    }
  }
  return ClusteringOrder(std::move(types));
}

ClusteringOrder::ClusteringOrder(std::vector<CqlTypePtr> types) : types_(std::move(types)) {
  for (const CqlTypePtr& type : types_) {
    columns_.push_back({type.get(), ComparisonFor(*type), type->reversed});
  }
}

int ClusteringOrder::Compare(const FoldClustering& a, ClusteringKind a_kind, const FoldClustering& b,
                             ClusteringKind b_kind) const {
  size_t size_a = a.values.size(), size_b = b.values.size();
  size_t common = std::min(size_a, size_b);
  for (size_t i = 0; i < common; ++i) {
    bool present_a = i >= a.present.size() || a.present[i];
    bool present_b = i >= b.present.size() || b.present[i];
    int c;
    if (!present_a || !present_b) {
      c = present_a == present_b ? 0 : present_a ? 1 : -1;
    } else if (i < columns_.size()) {
      const Column& column = columns_[i];
      c = column.compare(*column.type, a.values[i], b.values[i]);
      if (column.reversed) c = -c;
    } else {
      c = CompareBytes(a.values[i], b.values[i]);
    }
    if (c != 0) return c;
  }
  if (size_a == size_b) {
    int x = KindComparison(a_kind), y = KindComparison(b_kind);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return size_a < size_b ? ComparedToClustering(a_kind) : -ComparedToClustering(b_kind);
}

}  // namespace cqlite

#include "cassandra/value_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "util/strings.h"

namespace cqlite {

namespace {

// ---------------------------------------------------------------------------
// Byte helpers

uint64_t BigEndian(std::string_view bytes, size_t offset, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return v;
}

Status WrongLength(const CqlType& type, size_t want, size_t got) {
  return Status::Corruption(
      StrCat("a ", type.ToCql(), " value must be ", want, " bytes, got ", got));
}

// Cassandra's unsigned vint (VIntCoding): the count of leading one bits of
// the first byte is the number of extra bytes.
bool ReadUnsignedVInt(std::string_view bytes, size_t* pos, uint64_t* out) {
  if (*pos >= bytes.size()) return false;
  uint8_t first = static_cast<uint8_t>(bytes[(*pos)++]);
  int extra = std::countl_one(first);
  uint64_t v = extra >= 8 ? 0 : (first & (0xffu >> extra));
  if (bytes.size() - *pos < static_cast<size_t>(extra)) return false;
  for (int i = 0; i < extra; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[(*pos)++]);
  *out = v;
  return true;
}

int64_t ZigZagDecode(uint64_t n) { return static_cast<int64_t>(n >> 1) ^ -static_cast<int64_t>(n & 1); }

// ---------------------------------------------------------------------------
// Numbers

// Decimal digits of a non-negative magnitude given as big-endian bytes.
std::string MagnitudeToDecimal(const std::vector<uint8_t>& magnitude) {
  // Little-endian limbs of base 1e9.
  std::vector<uint32_t> limbs;
  for (uint8_t byte : magnitude) {
    uint64_t carry = byte;
    for (uint32_t& limb : limbs) {
      uint64_t v = static_cast<uint64_t>(limb) * 256 + carry;
      limb = static_cast<uint32_t>(v % 1000000000u);
      carry = v / 1000000000u;
    }
    while (carry) {
      limbs.push_back(static_cast<uint32_t>(carry % 1000000000u));
      carry /= 1000000000u;
    }
  }
  if (limbs.empty()) return "0";
  std::string out = std::to_string(limbs.back());
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::string part = std::to_string(limbs[i]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

// Splits a two's-complement integer into sign and magnitude digits.
void SignAndDigits(std::string_view bytes, bool* negative, std::string* digits) {
  std::vector<uint8_t> mag(bytes.begin(), bytes.end());
  *negative = !mag.empty() && (mag[0] & 0x80);
  if (*negative) {
    // Two's-complement negation: invert and add one.
    for (uint8_t& b : mag) b = static_cast<uint8_t>(~b);
    for (size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  *digits = MagnitudeToDecimal(mag);
}

// BigDecimal.toString (scientific notation when the exponent calls for it).
std::string BigDecimalToString(std::string_view unscaled, int32_t scale) {
  bool negative;
  std::string coeff;
  SignAndDigits(unscaled, &negative, &coeff);
  std::string out = negative ? "-" : "";
  int64_t adjusted = -static_cast<int64_t>(scale) + static_cast<int64_t>(coeff.size() - 1);
  if (scale == 0) return out + coeff;
  if (scale > 0 && adjusted >= -6) {
    int64_t point = static_cast<int64_t>(coeff.size()) - scale;  // digits before the point
    if (point > 0) {
      out += coeff.substr(0, point);
      out += '.';
      out += coeff.substr(point);
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out += coeff;
    }
    return out;
  }
  out += coeff[0];
  if (coeff.size() > 1) {
    out += '.';
    out += coeff.substr(1);
  }
  out += 'E';
  if (adjusted >= 0) out += '+';
  out += std::to_string(adjusted);
  return out;
}

// Formats shortest round-trip digits the way Java's Double.toString does.
// `sci` is std::to_chars scientific output, e.g. "1.2345e+07".
std::string JavaFormatFromScientific(std::string_view sci) {
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out = "-";
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::string_view exp_text = sci.substr(e + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits == "0") return out + "0.0";
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      std::string whole = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
      whole.append(exponent + 1 - whole.size(), '0');
      std::string frac = digits.size() > static_cast<size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
      return out + whole + "." + frac;
    }
    return out + "0." + std::string(-exponent - 1, '0') + digits;
  }
  out += digits[0];
  out += '.';
  out += digits.size() > 1 ? digits.substr(1) : "0";
  out += 'E';
  out += std::to_string(exponent);
  return out;
}

// ---------------------------------------------------------------------------
// Dates and times

struct CivilDate {
  int64_t year;
  int month;
  int day;
};

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// civil_from_days).
CivilDate CivilFromDays(int64_t z) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {y + (m <= 2 ? 1 : 0), m, d};
}

std::string Pad(int64_t value, int width) {
  std::string s = std::to_string(value);
  if (s.size() < static_cast<size_t>(width)) s.insert(0, width - s.size(), '0');
  return s;
}

// DateTimeFormatter's ISO_LOCAL_DATE year: at least four digits, '-' when
// negative, '+' when more than four digits.
std::string IsoYear(int64_t year) {
  std::string digits = Pad(year < 0 ? -year : year, 4);
  if (year < 0) return "-" + digits;
  return digits.size() > 4 ? "+" + digits : digits;
}

// Pattern letters "yyyy": year-of-era, at least four digits, '+' when more.
std::string YearOfEra(int64_t year) {
  int64_t yoe = year > 0 ? year : 1 - year;
  std::string digits = Pad(yoe, 4);
  return digits.size() > 4 ? "+" + digits : digits;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// TimestampSerializer formats: "yyyy-MM-dd HH:mm:ss.SSSX" (JSON) and
// "yyyy-MM-dd'T'HH:mm:ss.SSSX" (getString), both in UTC.
std::string FormatTimestamp(int64_t millis, char separator) {
  int64_t days = FloorDiv(millis, 86400000);
  int64_t ms_of_day = millis - days * 86400000;
  CivilDate date = CivilFromDays(days);
  int64_t seconds = ms_of_day / 1000;
  return StrCat(YearOfEra(date.year), "-", Pad(date.month, 2), "-", Pad(date.day, 2), separator,
                Pad(seconds / 3600, 2), ":", Pad(seconds / 60 % 60, 2), ":", Pad(seconds % 60, 2), ".",
                Pad(ms_of_day % 1000, 3), "Z");
}

// SimpleDateSerializer: unsigned days with the epoch at 2^31.
std::string FormatDate(uint32_t raw) {
  int64_t days = static_cast<int64_t>(raw) - (int64_t{1} << 31);
  CivilDate date = CivilFromDays(days);
  return StrCat(IsoYear(date.year), "-", Pad(date.month, 2), "-", Pad(date.day, 2));
}

constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;

// TimeSerializer.toString: nanoseconds of the day as HH:MM:SS.nnnnnnnnn.
std::string FormatTime(int64_t nanos) {
  int64_t seconds = nanos / 1000000000;
  return StrCat(Pad(seconds / 3600, 2), ":", Pad(seconds / 60 % 60, 2), ":", Pad(seconds % 60, 2), ".",
                Pad(nanos % 1000000000, 9));
}

// Duration.toString.
std::string FormatDuration(int64_t months, int64_t days, int64_t nanos) {
  std::string out;
  if (months < 0 || days < 0 || nanos < 0) out += '-';
  auto append = [&out](uint64_t dividend, uint64_t divisor, const char* unit) -> uint64_t {
    if (dividend == 0 || dividend < divisor) return dividend;
    out += std::to_string(dividend / divisor);
    out += unit;
    return dividend % divisor;
  };
  auto abs64 = [](int64_t v) { return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); };
  uint64_t rest = append(abs64(months), 12, "y");
  append(rest, 1, "mo");
  append(abs64(days), 1, "d");
  if (nanos != 0) {
    rest = append(abs64(nanos), uint64_t{3600} * 1000000000, "h");
    rest = append(rest, uint64_t{60} * 1000000000, "m");
    rest = append(rest, 1000000000, "s");
    rest = append(rest, 1000000, "ms");
    rest = append(rest, 1000, "us");
    append(rest, 1, "ns");
  }
  return out;
}

Result<std::string> DecodeDuration(std::string_view bytes) {
  size_t pos = 0;
  uint64_t m, d, n;
  if (!ReadUnsignedVInt(bytes, &pos, &m) || !ReadUnsignedVInt(bytes, &pos, &d) ||
      !ReadUnsignedVInt(bytes, &pos, &n)) {
    return Status::Corruption("a duration value is truncated");
  }
  int64_t months = ZigZagDecode(m), days = ZigZagDecode(d), nanos = ZigZagDecode(n);
  if (months < std::numeric_limits<int32_t>::min() || months > std::numeric_limits<int32_t>::max() ||
      days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return Status::Corruption("a duration's months or days do not fit in 32 bits");
  }
  bool any_negative = months < 0 || days < 0 || nanos < 0;
  bool any_positive = months > 0 || days > 0 || nanos > 0;
  if (any_negative && any_positive) {
    return Status::Corruption("a duration's months, days and nanoseconds have different signs");
  }
  return FormatDuration(months, days, nanos);
}

// ---------------------------------------------------------------------------
// Strings, addresses, UUIDs

// Strict UTF-8 (what Java's decoder with REPORT accepts).
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    uint8_t c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i < static_cast<size_t>(len)) return false;
    for (int k = 1; k < len; ++k) {
      uint8_t cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return false;
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

Result<std::string> CheckedText(const CqlType& type, std::string_view bytes) {
  if (type.kind == CqlKind::kAscii) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (static_cast<uint8_t>(bytes[i]) > 0x7f) {
        return Status::Corruption(StrCat("an ascii value has a non-ascii byte at offset ", i));
      }
    }
  } else if (!IsValidUtf8(bytes)) {
    return Status::Corruption("a text value is not valid UTF-8");
  }
  return std::string(bytes);
}

// InetAddress.getHostAddress. IPv4-mapped IPv6 addresses come back as IPv4
// (InetAddress.getByAddress converts them); IPv6 is printed in full, groups
// in lower-case hex without leading zeros and without "::" compression.
Result<std::string> FormatInet(std::string_view bytes) {
  auto u8 = [&](size_t i) { return static_cast<unsigned>(static_cast<uint8_t>(bytes[i])); };
  auto v4 = [&](size_t at) { return StrCat(u8(at), ".", u8(at + 1), ".", u8(at + 2), ".", u8(at + 3)); };
  if (bytes.size() == 4) return v4(0);
  if (bytes.size() != 16) {
    return Status::Corruption(StrCat("an inet value must be 4 or 16 bytes, got ", bytes.size()));
  }
  bool mapped = u8(10) == 0xff && u8(11) == 0xff;
  for (size_t i = 0; i < 10 && mapped; ++i) mapped = u8(i) == 0;
  if (mapped) return v4(12);
  std::string out;
  for (size_t g = 0; g < 8; ++g) {
    if (g) out += ':';
    unsigned group = (u8(2 * g) << 8) | u8(2 * g + 1);
    char buf[8];
    auto res = std::to_chars(buf, buf + sizeof(buf), group, 16);
    out.append(buf, res.ptr);
  }
  return out;
}

std::string FormatUuid(std::string_view bytes) {
  std::string hex = ToHex(bytes);
  return StrCat(hex.substr(0, 8), "-", hex.substr(8, 4), "-", hex.substr(12, 4), "-", hex.substr(16, 4), "-",
                hex.substr(20));
}

// ---------------------------------------------------------------------------
// Composite values

struct Field {
  bool present = false;  // false: null (length -1)
  std::string_view bytes;
};

// TupleType.split: int32-length-prefixed fields, possibly fewer than the type
// has; a negative length is null.
Result<std::vector<Field>> SplitTuple(const CqlType& type, std::string_view bytes) {
  std::vector<Field> fields;
  size_t pos = 0;
  for (size_t i = 0; i < type.params.size(); ++i) {
    if (pos == bytes.size()) break;
    if (bytes.size() - pos < 4) return Status::Corruption(StrCat("not enough bytes to read field ", i));
    int32_t size = static_cast<int32_t>(BigEndian(bytes, pos, 4));
    pos += 4;
    if (size < 0) {
      fields.push_back({});
      continue;
    }
    if (bytes.size() - pos < static_cast<size_t>(size)) {
      return Status::Corruption(StrCat("not enough bytes to read field ", i));
    }
    fields.push_back({true, bytes.substr(pos, size)});
    pos += size;
  }
  if (pos < bytes.size()) {
    return Status::Corruption(StrCat("a ", type.ToCql(), " value has more fields than its type"));
  }
  return fields;
}

// A CQL collection value: int32 count, then int32-length-prefixed elements.
Result<std::vector<Field>> SplitCollection(std::string_view bytes, size_t per_entry) {
  if (bytes.size() < 4) return Status::Corruption("a collection value is shorter than its element count");
  int32_t count = static_cast<int32_t>(BigEndian(bytes, 0, 4));
  if (count < 0) return Status::Corruption(StrCat("a collection value has a negative count ", count));
  // Each element takes at least four bytes.
  if (static_cast<uint64_t>(count) * per_entry > (bytes.size() - 4) / 4) {
    return Status::Corruption(StrCat("a collection value's count ", count, " exceeds its size"));
  }
  std::vector<Field> elements;
  size_t pos = 4;
  for (uint64_t i = 0; i < static_cast<uint64_t>(count) * per_entry; ++i) {
    if (bytes.size() - pos < 4) return Status::Corruption(StrCat("a collection element ", i, " is truncated"));
    int32_t size = static_cast<int32_t>(BigEndian(bytes, pos, 4));
    pos += 4;
    if (size < 0) {
      elements.push_back({});
      continue;
    }
    if (bytes.size() - pos < static_cast<size_t>(size)) {
      return Status::Corruption(StrCat("a collection element ", i, " is truncated"));
    }
    elements.push_back({true, bytes.substr(pos, size)});
    pos += size;
  }
  return elements;
}

// VectorType: fixed-length elements back to back, or unsigned-vint-length
// prefixed ones; every byte must be consumed.
Result<std::vector<std::string_view>> SplitVector(const CqlType& type, std::string_view bytes) {
  std::vector<std::string_view> elements;
  const CqlType& element = *type.params[0];
  std::optional<int> fixed = element.FixedValueLength();
  size_t pos = 0;
  for (int i = 0; i < type.vector_dimension; ++i) {
    size_t size;
    if (fixed) {
      size = *fixed;
    } else {
      uint64_t n;
      if (!ReadUnsignedVInt(bytes, &pos, &n)) return Status::Corruption(StrCat("vector element ", i, " is truncated"));
      size = n;
    }
    if (bytes.size() - pos < size) return Status::Corruption(StrCat("vector element ", i, " is truncated"));
    elements.push_back(bytes.substr(pos, size));
    pos += size;
  }
  if (pos != bytes.size()) return Status::Corruption("a vector value has bytes after its last element");
  return elements;
}

std::string ToLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string ReplaceAll(std::string_view s, char from, std::string_view to) {
  std::string out;
  for (char c : s) {
    if (c == from) {
      out += to;
    } else {
      out += c;
    }
  }
  return out;
}

constexpr int kMaxDepth = 64;

Result<std::string> ToJson(const CqlType& type, std::string_view bytes, int depth);
Result<std::string> ToText(const CqlType& type, std::string_view bytes, int depth);

Status CheckLength(const CqlType& type, std::string_view bytes, size_t want) {
  if (bytes.size() != want) return WrongLength(type, want, bytes.size());
  return Status::OK();
}

// The textual value shared by toJSONString and getString for scalar types;
// `json` selects the few places where they differ.
Result<std::string> ScalarText(const CqlType& type, std::string_view bytes, bool json) {
  switch (type.kind) {
    case CqlKind::kBoolean:
      RETURN_IF_ERROR(CheckLength(type, bytes, 1));
      return std::string(bytes[0] != 0 ? "true" : "false");
    case CqlKind::kTinyint:
      RETURN_IF_ERROR(CheckLength(type, bytes, 1));
      return std::to_string(static_cast<int8_t>(bytes[0]));
    case CqlKind::kSmallint:
      RETURN_IF_ERROR(CheckLength(type, bytes, 2));
      return std::to_string(static_cast<int16_t>(BigEndian(bytes, 0, 2)));
    case CqlKind::kInt:
      RETURN_IF_ERROR(CheckLength(type, bytes, 4));
      return std::to_string(static_cast<int32_t>(BigEndian(bytes, 0, 4)));
    case CqlKind::kBigint:
      RETURN_IF_ERROR(CheckLength(type, bytes, 8));
      return std::to_string(static_cast<int64_t>(BigEndian(bytes, 0, 8)));
    case CqlKind::kVarint:
      return VarintToDecimal(bytes);
    case CqlKind::kDecimal: {
      if (bytes.size() < 4) return Status::Corruption("a decimal value is shorter than its 4-byte scale");
      int32_t scale = static_cast<int32_t>(BigEndian(bytes, 0, 4));
      if (bytes.size() == 4) return Status::Corruption("a decimal value has no unscaled digits");
      return BigDecimalToString(bytes.substr(4), scale);
    }
    case CqlKind::kFloat: {
      RETURN_IF_ERROR(CheckLength(type, bytes, 4));
      float f = std::bit_cast<float>(static_cast<uint32_t>(BigEndian(bytes, 0, 4)));
      if (json && !std::isfinite(f)) return std::string("null");
      return JavaFloatToString(f);
    }
    case CqlKind::kDouble: {
      RETURN_IF_ERROR(CheckLength(type, bytes, 8));
      double d = std::bit_cast<double>(BigEndian(bytes, 0, 8));
      if (json && !std::isfinite(d)) return std::string("null");
      return JavaDoubleToString(d);
    }
    case CqlKind::kTimestamp:
      RETURN_IF_ERROR(CheckLength(type, bytes, 8));
      return FormatTimestamp(static_cast<int64_t>(BigEndian(bytes, 0, 8)), json ? ' ' : 'T');
    case CqlKind::kDate:
      RETURN_IF_ERROR(CheckLength(type, bytes, 4));
      return FormatDate(static_cast<uint32_t>(BigEndian(bytes, 0, 4)));
    case CqlKind::kTime: {
      RETURN_IF_ERROR(CheckLength(type, bytes, 8));
      int64_t nanos = static_cast<int64_t>(BigEndian(bytes, 0, 8));
      if (nanos < 0 || nanos >= kNanosPerDay) {
        return Status::Corruption(StrCat("a time value ", nanos, " is outside one day"));
      }
      return FormatTime(nanos);
    }
    case CqlKind::kDuration:
      return DecodeDuration(bytes);
    case CqlKind::kInet:
      return FormatInet(bytes);
    case CqlKind::kUuid:
    case CqlKind::kTimeuuid:
      RETURN_IF_ERROR(CheckLength(type, bytes, 16));
      return FormatUuid(bytes);
    case CqlKind::kAscii:
    case CqlKind::kText:
      return CheckedText(type, bytes);
    case CqlKind::kEmpty:
      if (!bytes.empty()) return Status::Corruption("an empty-type value has bytes");
      return std::string();
    default:
      return Status::NotSupported(StrCat("no scalar rendering for ", type.ToCql()));
  }
}

bool IsBareJsonNumber(CqlKind kind) {
  switch (kind) {
    case CqlKind::kBoolean:
    case CqlKind::kTinyint:
    case CqlKind::kSmallint:
    case CqlKind::kInt:
    case CqlKind::kBigint:
    case CqlKind::kVarint:
    case CqlKind::kDecimal:
    case CqlKind::kFloat:
    case CqlKind::kDouble:
    case CqlKind::kCounter:
      return true;
    default:
      return false;
  }
}

std::string Quote(std::string_view s) { return "\"" + QuoteAsJsonString(s) + "\""; }

Result<std::string> ToJson(const CqlType& type, std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return Status::Corruption("a value nests too deeply");
  switch (type.kind) {
    case CqlKind::kBlob:
    case CqlKind::kCustom:
      return "\"0x" + ToHex(bytes) + "\"";
    case CqlKind::kCounter:
      // CounterColumnType.toJSONString reads the first eight bytes as a long.
      if (bytes.empty()) return std::string("\"\"");
      if (bytes.size() < 8) return Status::Corruption("a counter value is shorter than 8 bytes");
      return std::to_string(static_cast<int64_t>(BigEndian(bytes, 0, 8)));
    case CqlKind::kList:
    case CqlKind::kSet: {
      ASSIGN_OR_RETURN(auto elements, SplitCollection(bytes, 1));
      std::string out = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        if (!elements[i].present) {
          out += "null";
          continue;
        }
        ASSIGN_OR_RETURN(std::string v, ToJson(*type.params[0], elements[i].bytes, depth + 1));
        out += v;
      }
      return out + "]";
    }
    case CqlKind::kMap: {
      ASSIGN_OR_RETURN(auto entries, SplitCollection(bytes, 2));
      std::string out = "{";
      for (size_t i = 0; i + 1 < entries.size(); i += 2) {
        if (i) out += ", ";
        std::string key = "null";
        if (entries[i].present) {
          ASSIGN_OR_RETURN(key, ToJson(*type.params[0], entries[i].bytes, depth + 1));
        }
        // JSON object keys must be strings: non-string keys are quoted.
        out += StartsWith(key, "\"") ? key : Quote(key);
        out += ": ";
        if (!entries[i + 1].present) {
          out += "null";
          continue;
        }
        ASSIGN_OR_RETURN(std::string v, ToJson(*type.params[1], entries[i + 1].bytes, depth + 1));
        out += v;
      }
      return out + "}";
    }
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      ASSIGN_OR_RETURN(auto fields, SplitTuple(type, bytes));
      bool udt = type.kind == CqlKind::kUdt;
      std::string out = udt ? "{" : "[";
      for (size_t i = 0; i < type.params.size(); ++i) {
        if (i) out += ", ";
        if (udt) {
          std::string name = i < type.field_names.size() ? type.field_names[i] : StrCat("field", i);
          if (name != ToLowerAscii(name)) name = "\"" + name + "\"";
          out += Quote(name) + ": ";
        }
        if (i >= fields.size() || !fields[i].present) {
          out += "null";
          continue;
        }
        ASSIGN_OR_RETURN(std::string v, ToJson(*type.params[i], fields[i].bytes, depth + 1));
        out += v;
      }
      return out + (udt ? "}" : "]");
    }
    case CqlKind::kVector: {
      ASSIGN_OR_RETURN(auto elements, SplitVector(type, bytes));
      std::string out = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        ASSIGN_OR_RETURN(std::string v, ToJson(*type.params[0], elements[i], depth + 1));
        out += v;
      }
      return out + "]";
    }
    case CqlKind::kComposite:
      return Status::NotSupported("CompositeType has no JSON rendering (CASSANDRA-18177)");
    case CqlKind::kAscii:
    case CqlKind::kText: {
      ASSIGN_OR_RETURN(std::string text, CheckedText(type, bytes));
      return Quote(text);
    }
    case CqlKind::kTime:
      // TimeSerializer.toString(null) is "null".
      if (bytes.empty()) return std::string("\"null\"");
      break;
    case CqlKind::kEmpty:
      return std::string("\"\"");
    default:
      break;
  }
  // Scalars: an empty value deserializes to null and prints as "".
  if (bytes.empty()) return std::string("\"\"");
  ASSIGN_OR_RETURN(std::string text, ScalarText(type, bytes, /*json=*/true));
  if (IsBareJsonNumber(type.kind)) return text;
  return "\"" + text + "\"";
}

Result<std::string> ToText(const CqlType& type, std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return Status::Corruption("a value nests too deeply");
  switch (type.kind) {
    case CqlKind::kBlob:
    case CqlKind::kCustom:
    case CqlKind::kCounter:
    case CqlKind::kList:
    case CqlKind::kSet:
    case CqlKind::kMap:
    case CqlKind::kVector:
      // Collections, vectors and counters print their bytes as hex.
      return ToHex(bytes);
    case CqlKind::kTuple:
    case CqlKind::kUdt: {
      // TupleType.getString: fields joined by ':', '@' for null, with ':'
      // and '@' inside fields escaped by a backslash.
      ASSIGN_OR_RETURN(auto fields, SplitTuple(type, bytes));
      std::string out;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ':';
        if (!fields[i].present) {
          out += '@';
          continue;
        }
        ASSIGN_OR_RETURN(std::string v, ToText(*type.params[i], fields[i].bytes, depth + 1));
        out += ReplaceAll(ReplaceAll(v, ':', "\\:"), '@', "\\@");
      }
      return out;
    }
    case CqlKind::kComposite: {
      // AbstractCompositeType.getString.
      size_t pos = 0;
      if (bytes.size() >= 2 && BigEndian(bytes, 0, 2) == 0xffff) pos = 2;
      std::string out;
      size_t i = 0;
      while (pos < bytes.size()) {
        if (i > 0) out += ':';
        if (bytes.size() - pos < 2) return Status::Corruption("a composite component length is truncated");
        size_t size = BigEndian(bytes, pos, 2);
        pos += 2;
        if (bytes.size() - pos < size + 1) return Status::Corruption("a composite component is truncated");
        if (i >= type.params.size()) return Status::Corruption("a composite value has more components than its type");
        ASSIGN_OR_RETURN(std::string v, ToText(*type.params[i], bytes.substr(pos, size), depth + 1));
        pos += size;
        // AbstractCompositeType.escape.
        if (!v.empty()) {
          v = ReplaceAll(v, ':', "\\:");
          if (v.back() == '\\' || v.back() == '!') v += '!';
        }
        out += v;
        int8_t eoc = static_cast<int8_t>(bytes[pos++]);
        if (eoc != 0) {
          out += eoc < 0 ? ":_" : ":!";
          break;
        }
        ++i;
      }
      return out;
    }
    case CqlKind::kTime:
      if (bytes.empty()) return std::string("null");
      break;
    default:
      break;
  }
  if (bytes.empty()) return std::string();
  return ScalarText(type, bytes, /*json=*/false);
}

}  // namespace

Result<std::string> ValueToJson(const CqlType& type, std::string_view bytes) { return ToJson(type, bytes, 0); }

Result<std::string> ValueToString(const CqlType& type, std::string_view bytes) { return ToText(type, bytes, 0); }

Result<std::vector<std::string>> SplitCompositeKey(const CqlType& composite, std::string_view key) {
  std::vector<std::string> parts;
  size_t pos = 0;
  if (key.size() >= 2 && BigEndian(key, 0, 2) == 0xffff) pos = 2;
  while (pos < key.size() && parts.size() < composite.params.size()) {
    if (key.size() - pos < 2) return Status::Corruption(StrCat("composite key component ", parts.size(), " length is truncated"));
    size_t size = BigEndian(key, pos, 2);
    pos += 2;
    if (key.size() - pos < size + 1) {
      return Status::Corruption(StrCat("composite key component ", parts.size(), " is truncated"));
    }
    parts.emplace_back(key.substr(pos, size));
    pos += size;
    if (key[pos++] != 0) break;
  }
  return parts;
}

Result<std::vector<std::string>> PartitionKeyStrings(const CqlType& key_type, std::string_view key) {
  std::vector<std::string> out;
  if (key_type.kind != CqlKind::kComposite) {
    ASSIGN_OR_RETURN(std::string s, ValueToString(key_type, key));
    out.push_back(std::move(s));
    return out;
  }
  ASSIGN_OR_RETURN(auto parts, SplitCompositeKey(key_type, key));
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(std::string s, ValueToString(*key_type.params[i], parts[i]));
    out.push_back(std::move(s));
  }
  return out;
}

namespace {
constexpr size_t kCounterShardSize = 16 + 8 + 8;
}  // namespace

Result<std::vector<CounterShard>> ParseCounterContext(std::string_view context) {
  if (context.size() < 2) return Status::Corruption("a counter context is shorter than its header");
  int16_t raw_count = static_cast<int16_t>(BigEndian(context, 0, 2));
  size_t header_count = raw_count < 0 ? -static_cast<int32_t>(raw_count) : raw_count;
  size_t header_size = 2 + header_count * 2;
  if (context.size() < header_size) return Status::Corruption("a counter context's header is truncated");
  size_t body = context.size() - header_size;
  if (body % kCounterShardSize != 0) {
    return Status::Corruption(StrCat("a counter context's shards take ", body, " bytes, not a multiple of 32"));
  }
  size_t shard_count = body / kCounterShardSize;
  std::vector<CounterShard> shards(shard_count);
  for (size_t i = 0; i < header_count; ++i) {
    int16_t elt = static_cast<int16_t>(BigEndian(context, 2 + 2 * i, 2));
    bool global = elt < 0;
    size_t index = global ? static_cast<size_t>(elt - std::numeric_limits<int16_t>::min()) : elt;
    if (index >= shard_count) {
      return Status::Corruption(StrCat("a counter context's header names shard ", index, " of ", shard_count));
    }
    shards[index].kind = global ? CounterShard::Kind::kGlobal : CounterShard::Kind::kLocal;
  }
  for (size_t i = 0; i < shard_count; ++i) {
    size_t at = header_size + i * kCounterShardSize;
    std::memcpy(shards[i].counter_id.data(), context.data() + at, 16);
    shards[i].clock = static_cast<int64_t>(BigEndian(context, at + 16, 8));
    shards[i].count = static_cast<int64_t>(BigEndian(context, at + 24, 8));
  }
  return shards;
}

int64_t CounterTotal(std::string_view context) {
  if (context.size() < 2) return 0;
  int16_t raw_count = static_cast<int16_t>(BigEndian(context, 0, 2));
  size_t header_size = 2 + 2 * static_cast<size_t>(raw_count < 0 ? -static_cast<int32_t>(raw_count) : raw_count);
  uint64_t total = 0;  // wraps like Java's long arithmetic
  for (size_t at = header_size; at + kCounterShardSize <= context.size(); at += kCounterShardSize) {
    total += BigEndian(context, at + 24, 8);
  }
  return static_cast<int64_t>(total);
}

namespace {

// The shortest decimal that rounds to `value`; when that has one digit,
// Java prefers the two-digit decimal closest to the exact value if it also
// rounds to `value` (Double.MIN_VALUE is "4.9E-324", not "5.0E-324").
template <typename F>
std::string JavaFloatingToString(F value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view shortest(buf, res.ptr - buf);
  size_t digits = 0;
  for (char c : shortest.substr(0, shortest.find('e'))) digits += (c >= '0' && c <= '9');
  if (digits == 1 && value != 0) {
    char two[64];
    auto r2 = std::to_chars(two, two + sizeof(two), value, std::chars_format::scientific, 1);
    F back{};
    auto parsed = std::from_chars(two, r2.ptr, back, std::chars_format::scientific);
    if (parsed.ec == std::errc() && back == value) {
      return JavaFormatFromScientific(std::string_view(two, r2.ptr - two));
    }
  }
  return JavaFormatFromScientific(shortest);
}

}  // namespace

std::string JavaDoubleToString(double value) { return JavaFloatingToString(value); }

std::string JavaFloatToString(float value) { return JavaFloatingToString(value); }

std::string QuoteAsJsonString(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    uint8_t u = static_cast<uint8_t>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string VarintToDecimal(std::string_view bytes) {
  bool negative;
  std::string digits;
  SignAndDigits(bytes, &negative, &digits);
  return negative ? "-" + digits : digits;
}

}  // namespace cqlite

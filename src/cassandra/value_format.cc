#include "cassandra/value_format.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cassandra/value_bytes.h"
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
  return Status::Corruption(StrCat("a ", type.ToCql(), " value must be ", want, " bytes, got ", got));
}

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
  auto abs64 = [](int64_t v) {
    return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  };
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
      RETURN_IF_ERROR(CheckLength(type, bytes, 16));
      return FormatUuid(bytes);
    case CqlKind::kTimeuuid: {
      RETURN_IF_ERROR(CheckLength(type, bytes, 16));
      if (json) {
        // TimeUUID keeps the timestamp and re-adds version bit 0x1000, so a
        // (corrupt) non-version-1 value prints with that bit set.
        std::string fixed(bytes);
        fixed[6] = static_cast<char>(fixed[6] | 0x10);
        return FormatUuid(fixed);
      }
      if ((static_cast<uint8_t>(bytes[6]) & 0xf0) != 0x10) {
        return Status::Corruption("a timeuuid value is not a version 1 UUID");
      }
      return FormatUuid(bytes);
    }
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
        if (i >= type.params.size())
          return Status::Corruption("a composite value has more components than its type");
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
    case CqlKind::kTinyint:
    case CqlKind::kSmallint:
    case CqlKind::kDate:
    case CqlKind::kTime:
    case CqlKind::kDuration:
      // These serializers' validate() rejects an empty value.
      if (bytes.empty()) return Status::Corruption(StrCat("an empty ", type.ToCql(), " value"));
      break;
    default:
      break;
  }
  if (bytes.empty()) return std::string();
  return ScalarText(type, bytes, /*json=*/false);
}

}  // namespace

Result<std::vector<ValuePart>> SplitCollection(std::string_view bytes, size_t per_entry, size_t* end) {
  if (bytes.size() < 4) return Status::Corruption("a collection value is shorter than its element count");
  int32_t count = static_cast<int32_t>(BigEndian(bytes, 0, 4));
  if (count < 0) return Status::Corruption(StrCat("a collection value has a negative count ", count));
  // Each element takes at least four bytes.
  if (static_cast<uint64_t>(count) * per_entry > (bytes.size() - 4) / 4) {
    return Status::Corruption(StrCat("a collection value's count ", count, " exceeds its size"));
  }
  std::vector<ValuePart> elements;
  size_t pos = 4;
  for (uint64_t i = 0; i < static_cast<uint64_t>(count) * per_entry; ++i) {
    if (bytes.size() - pos < 4)
      return Status::Corruption(StrCat("a collection element ", i, " is truncated"));
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
  if (end) *end = pos;
  return elements;
}

Result<std::vector<ValuePart>> SplitTuple(const CqlType& type, std::string_view bytes) {
  std::vector<ValuePart> fields;
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
      if (!ReadUnsignedVInt(bytes, &pos, &n))
        return Status::Corruption(StrCat("vector element ", i, " is truncated"));
      size = n;
    }
    if (bytes.size() - pos < size) return Status::Corruption(StrCat("vector element ", i, " is truncated"));
    elements.push_back(bytes.substr(pos, size));
    pos += size;
  }
  if (pos != bytes.size()) return Status::Corruption("a vector value has bytes after its last element");
  return elements;
}

Result<std::string> ValueToJson(const CqlType& type, std::string_view bytes) {
  return ToJson(type, bytes, 0);
}

Result<std::string> ValueToString(const CqlType& type, std::string_view bytes) {
  return ToText(type, bytes, 0);
}

Result<std::vector<std::string>> SplitCompositeKey(const CqlType& composite, std::string_view key) {
  std::vector<std::string> parts;
  size_t pos = 0;
  if (key.size() >= 2 && BigEndian(key, 0, 2) == 0xffff) pos = 2;
  while (pos < key.size() && parts.size() < composite.params.size()) {
    if (key.size() - pos < 2)
      return Status::Corruption(StrCat("composite key component ", parts.size(), " length is truncated"));
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
    return Status::Corruption(
        StrCat("a counter context's shards take ", body, " bytes, not a multiple of 32"));
  }
  size_t shard_count = body / kCounterShardSize;
  std::vector<CounterShard> shards(shard_count);
  for (size_t i = 0; i < header_count; ++i) {
    int16_t elt = static_cast<int16_t>(BigEndian(context, 2 + 2 * i, 2));
    bool global = elt < 0;
    size_t index = global ? static_cast<size_t>(elt - std::numeric_limits<int16_t>::min()) : elt;
    if (index >= shard_count) {
      return Status::Corruption(
          StrCat("a counter context's header names shard ", index, " of ", shard_count));
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
  size_t header_size =
      2 + 2 * static_cast<size_t>(raw_count < 0 ? -static_cast<int32_t>(raw_count) : raw_count);
  uint64_t total = 0;  // wraps like Java's long arithmetic
  for (size_t at = header_size; at + kCounterShardSize <= context.size(); at += kCounterShardSize) {
    total += BigEndian(context, at + 24, 8);
  }
  return static_cast<int64_t>(total);
}

namespace {

// Java's Double.toString and Float.toString as JDK 11 and 17 implement them
// (jdk.internal.math.FloatingDecimal.BinaryToASCIIBuffer): a Steele & White
// style digit generation whose results are usually, but not always, the
// shortest that round-trip. Integers below 2^63 take a separate path that
// prints their exact digits up to a rounding of "insignificant" ones (so
// 1.37342863480957901E18 rather than 1.373428634809579E18), and numbers
// printed in scientific notation always get a second digit generated.

// An unsigned arbitrary-precision integer, little-endian 32-bit words.
class BigNat {
 public:
  explicit BigNat(uint64_t v = 0) {
    while (v) {
      words_.push_back(static_cast<uint32_t>(v));
      v >>= 32;
    }
  }
  static BigNat Pow52(int p5, int p2, uint64_t factor = 1) {
    BigNat n(factor);
    for (int i = 0; i < p5; ++i) n.MulSmall(5);
    n.ShiftLeft(p2);
    return n;
  }
  void MulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& w : words_) {
      uint64_t v = static_cast<uint64_t>(w) * m + carry;
      w = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) words_.push_back(static_cast<uint32_t>(carry));
  }
  void ShiftLeft(int bits) {
    if (bits <= 0 || words_.empty()) return;
    int word_shift = bits / 32, bit_shift = bits % 32;
    words_.insert(words_.begin(), word_shift, 0u);
    if (bit_shift) {
      uint32_t carry = 0;
      for (size_t i = word_shift; i < words_.size(); ++i) {
        uint32_t w = words_[i];
        words_[i] = (w << bit_shift) | carry;
        carry = w >> (32 - bit_shift);
      }
      if (carry) words_.push_back(carry);
    }
  }
  void Add(const BigNat& o) {
    if (o.words_.size() > words_.size()) words_.resize(o.words_.size(), 0u);
    uint64_t carry = 0;
    for (size_t i = 0; i < words_.size(); ++i) {
      uint64_t v = static_cast<uint64_t>(words_[i]) + (i < o.words_.size() ? o.words_[i] : 0) + carry;
      words_[i] = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) words_.push_back(static_cast<uint32_t>(carry));
  }
  // REQUIRES: *this >= o.
  void Sub(const BigNat& o) {
    int64_t borrow = 0;
    for (size_t i = 0; i < words_.size(); ++i) {
      int64_t v = static_cast<int64_t>(words_[i]) - (i < o.words_.size() ? o.words_[i] : 0) - borrow;
      borrow = v < 0;
      words_[i] = static_cast<uint32_t>(v + (borrow << 32));
    }
    Trim();
  }
  int Compare(const BigNat& o) const {
    if (words_.size() != o.words_.size()) return words_.size() < o.words_.size() ? -1 : 1;
    for (size_t i = words_.size(); i-- > 0;) {
      if (words_[i] != o.words_[i]) return words_[i] < o.words_[i] ? -1 : 1;
    }
    return 0;
  }
  bool IsZero() const { return words_.empty(); }
  // Returns this / s (small) and leaves 10 * (this % s).
  int QuoRemTimesTen(const BigNat& s) {
    int q = 0;
    while (Compare(s) >= 0 && q < 10) {
      Sub(s);
      ++q;
    }
    MulSmall(10);
    return q;
  }

 private:
  void Trim() {
    while (!words_.empty() && words_.back() == 0) words_.pop_back();
  }
  std::vector<uint32_t> words_;
};

constexpr int kExpShift = 52;
constexpr int kMaxSmallBinExp = 62;
constexpr int kMinSmallBinExp = -(63 / 3);
// Bits needed to hold 5^i.
constexpr int kN5Bits[] = {0,  3,  5,  7,  10, 12, 14, 17, 19, 21, 24, 26, 28, 31,
                           33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61};
constexpr int kN5BitsSize = sizeof(kN5Bits) / sizeof(kN5Bits[0]);
// For 2^p (p < 64): how many trailing decimal digits are below its precision.
constexpr int kInsignificantDigitsForPow2[] = {
    0,  0,  0,  0,  1,  1,  1,  2,  2,  2,  3,  3,  3,  3,  4,  4,  4,  5,  5,  5,  6,  6,
    6,  6,  7,  7,  7,  8,  8,  8,  9,  9,  9,  9,  10, 10, 10, 11, 11, 11, 12, 12, 12, 12,
    13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19};

uint64_t Pow5(int n) {
  uint64_t v = 1;
  for (int i = 0; i < n; ++i) v *= 5;
  return v;
}

// Java's wrapping integer arithmetic for the int and long fast paths.
template <typename S>
S Wrap(std::make_unsigned_t<S> v) {
  return static_cast<S>(v);
}

struct JavaDecimal {
  std::string digits;
  int dec_exponent = 0;  // value = 0.d1d2... * 10^dec_exponent
};

// Digits of an integer value; trailing zeros dropped.
void LongDigits(JavaDecimal* out, uint64_t value, int insignificant) {
  int dec_exp = 0;
  if (insignificant != 0) {
    uint64_t pow10 = Pow5(insignificant) << insignificant;
    uint64_t residue = value % pow10;
    value /= pow10;
    dec_exp += insignificant;
    if (residue >= (pow10 >> 1)) ++value;
  }
  std::string s = std::to_string(value);
  out->dec_exponent = dec_exp + static_cast<int>(s.size());
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  out->digits = s;
}

int EstimateDecExp(uint64_t fract_bits, int bin_exp) {
  double d2 = std::bit_cast<double>(0x3ff0000000000000ULL | (fract_bits & 0x000fffffffffffffULL));
  double t = (d2 - 1.5) * 0.289529654;
  t = t + 0.176091259;
  double d = t + static_cast<double>(bin_exp) * 0.301029995663981;
  return static_cast<int>(std::floor(d));
}

// The int (S = int32_t) and long (S = int64_t) digit loops.
template <typename S>
void SmallDigits(uint64_t fract_bits, int b5, int b2, int s5, int s2, int m5, int m2, int* dec_exp, bool* low,
                 bool* high, int64_t* low_digit_difference, std::string* digits) {
  using U = std::make_unsigned_t<S>;
  S b = Wrap<S>(static_cast<U>(static_cast<U>(fract_bits) * static_cast<U>(Pow5(b5))) << b2);
  S s = Wrap<S>(static_cast<U>(Pow5(s5)) << s2);
  S m = Wrap<S>(static_cast<U>(Pow5(m5)) << m2);
  S tens = Wrap<S>(static_cast<U>(s) * 10u);
  int q = static_cast<int>(b / s);
  b = Wrap<S>(static_cast<U>(b % s) * 10u);
  m = Wrap<S>(static_cast<U>(m) * 10u);
  *low = b < m;
  *high = Wrap<S>(static_cast<U>(b) + static_cast<U>(m)) > tens;
  if (q == 0 && !*high) {
    --*dec_exp;
  } else {
    digits->push_back(static_cast<char>('0' + q));
  }
  if (*dec_exp < -3 || *dec_exp >= 8) *high = *low = false;
  while (!*low && !*high) {
    q = static_cast<int>(b / s);
    b = Wrap<S>(static_cast<U>(b % s) * 10u);
    m = Wrap<S>(static_cast<U>(m) * 10u);
    if (m > 0) {
      *low = b < m;
      *high = Wrap<S>(static_cast<U>(b) + static_cast<U>(m)) > tens;
    } else {
      *low = true;
      *high = true;
    }
    digits->push_back(static_cast<char>('0' + q));
  }
  *low_digit_difference =
      static_cast<int64_t>(Wrap<S>(static_cast<U>(static_cast<U>(b) << 1) - static_cast<U>(tens)));
}

// FloatingDecimal's dtoa: fract_bits has its leading one at bit 52.
JavaDecimal Dtoa(int bin_exp, uint64_t fract_bits, int n_significant_bits) {
  JavaDecimal out;
  const int tail_zeros = std::countr_zero(fract_bits);
  const int n_fract_bits = kExpShift + 1 - tail_zeros;
  const int n_tiny_bits = std::max(0, n_fract_bits - bin_exp - 1);
  if (bin_exp <= kMaxSmallBinExp && bin_exp >= kMinSmallBinExp && n_tiny_bits < kN5BitsSize &&
      n_fract_bits + kN5Bits[n_tiny_bits] < 64 && n_tiny_bits == 0) {
    // An integer that fits in a long.
    int insignificant = 0;
    if (bin_exp > n_significant_bits) {
      int p2 = bin_exp - n_significant_bits - 1;
      if (p2 > 1 && p2 < static_cast<int>(sizeof(kInsignificantDigitsForPow2) / sizeof(int))) {
        insignificant = kInsignificantDigitsForPow2[p2];
      }
    }
    uint64_t value =
        bin_exp >= kExpShift ? fract_bits << (bin_exp - kExpShift) : fract_bits >> (kExpShift - bin_exp);
    LongDigits(&out, value, insignificant);
    return out;
  }
  int dec_exp = EstimateDecExp(fract_bits, bin_exp);
  int b5 = std::max(0, -dec_exp);
  int b2 = b5 + n_tiny_bits + bin_exp;
  int s5 = std::max(0, dec_exp);
  int s2 = s5 + n_tiny_bits;
  int m5 = b5;
  int m2 = b2 - n_significant_bits;
  fract_bits >>= tail_zeros;
  b2 -= n_fract_bits - 1;
  int common2 = std::min(b2, s2);
  b2 -= common2;
  s2 -= common2;
  m2 -= common2;
  if (n_fract_bits == 1) m2 -= 1;
  if (m2 < 0) {
    b2 -= m2;
    s2 -= m2;
    m2 = 0;
  }
  bool low = false, high = false;
  int64_t low_digit_difference = 0;
  std::string digits;
  int b_bits = n_fract_bits + b2 + (b5 < kN5BitsSize ? kN5Bits[b5] : b5 * 3);
  int ten_s_bits = s2 + 1 + (s5 + 1 < kN5BitsSize ? kN5Bits[s5 + 1] : (s5 + 1) * 3);
  if (b_bits < 64 && ten_s_bits < 64) {
    if (b_bits < 32 && ten_s_bits < 32) {
      SmallDigits<int32_t>(fract_bits, b5, b2, s5, s2, m5, m2, &dec_exp, &low, &high, &low_digit_difference,
                           &digits);
    } else {
      SmallDigits<int64_t>(fract_bits, b5, b2, s5, s2, m5, m2, &dec_exp, &low, &high, &low_digit_difference,
                           &digits);
    }
  } else {
    BigNat s = BigNat::Pow52(s5, s2);
    BigNat b = BigNat::Pow52(b5, b2, fract_bits);
    BigNat m = BigNat::Pow52(m5 + 1, m2 + 1);
    BigNat ten_s = BigNat::Pow52(s5 + 1, s2 + 1);
    auto ten_s_at_most_b_plus_m = [&]() {
      BigNat sum = b;
      sum.Add(m);
      return ten_s.Compare(sum) <= 0;
    };
    int q = b.QuoRemTimesTen(s);
    low = b.Compare(m) < 0;
    high = ten_s_at_most_b_plus_m();
    if (q == 0 && !high) {
      --dec_exp;
    } else {
      digits.push_back(static_cast<char>('0' + q));
    }
    if (dec_exp < -3 || dec_exp >= 8) high = low = false;
    while (!low && !high) {
      q = b.QuoRemTimesTen(s);
      m.MulSmall(10);
      low = b.Compare(m) < 0;
      high = ten_s_at_most_b_plus_m();
      digits.push_back(static_cast<char>('0' + q));
    }
    if (high && low) {
      BigNat twice = b;
      twice.ShiftLeft(1);
      low_digit_difference = twice.Compare(ten_s);
    }
  }
  out.dec_exponent = dec_exp + 1;
  out.digits = digits;
  bool round_up = false;
  if (high) {
    if (low) {
      if (low_digit_difference == 0) {
        round_up = !out.digits.empty() && ((out.digits.back() - '0') & 1) != 0;
      } else {
        round_up = low_digit_difference > 0;
      }
    } else {
      round_up = true;
    }
  }
  if (round_up && !out.digits.empty()) {
    size_t i = out.digits.size() - 1;
    while (out.digits[i] == '9' && i > 0) out.digits[i--] = '0';
    if (out.digits[i] == '9') {
      // All nines: 0.999 becomes 0.100 one decade up (the zeros stay).
      out.dec_exponent += 1;
      out.digits[0] = '1';
    } else {
      ++out.digits[i];
    }
  }
  return out;
}

// BinaryToASCIIBuffer.getChars.
std::string JavaFormat(bool negative, const JavaDecimal& d) {
  std::string out = negative ? "-" : "";
  const std::string& digits = d.digits;
  int n = static_cast<int>(digits.size());
  int e = d.dec_exponent;
  if (e > 0 && e < 8) {
    int whole = std::min(n, e);
    out += digits.substr(0, whole);
    if (whole < e) {
      out.append(e - whole, '0');
      out += ".0";
    } else {
      out += '.';
      out += whole < n ? digits.substr(whole) : "0";
    }
  } else if (e <= 0 && e > -3) {
    out += "0.";
    out.append(-e, '0');
    out += digits;
  } else {
    out += digits[0];
    out += '.';
    out += n > 1 ? digits.substr(1) : "0";
    out += 'E';
    out += std::to_string(e <= 0 ? -(-e + 1) : e - 1);
  }
  return out;
}

std::string JavaDoubleBitsToString(uint64_t bits) {
  bool negative = bits >> 63;
  uint64_t fract = bits & 0x000fffffffffffffULL;
  int bin_exp = static_cast<int>((bits >> 52) & 0x7ff);
  if (bin_exp == 0x7ff) return fract == 0 ? (negative ? "-Infinity" : "Infinity") : "NaN";
  int n_significant_bits;
  if (bin_exp == 0) {
    if (fract == 0) return negative ? "-0.0" : "0.0";
    int leading_zeros = std::countl_zero(fract);
    int shift = leading_zeros - (63 - kExpShift);
    fract <<= shift;
    bin_exp = 1 - shift;
    n_significant_bits = 64 - leading_zeros;
  } else {
    fract |= uint64_t{1} << kExpShift;
    n_significant_bits = kExpShift + 1;
  }
  bin_exp -= 1023;
  return JavaFormat(negative, Dtoa(bin_exp, fract, n_significant_bits));
}

std::string JavaFloatBitsToString(uint32_t bits) {
  constexpr int kSingleExpShift = 23;
  bool negative = bits >> 31;
  uint32_t fract = bits & 0x007fffffu;
  int bin_exp = static_cast<int>((bits >> kSingleExpShift) & 0xff);
  if (bin_exp == 0xff) return fract == 0 ? (negative ? "-Infinity" : "Infinity") : "NaN";
  int n_significant_bits;
  if (bin_exp == 0) {
    if (fract == 0) return negative ? "-0.0" : "0.0";
    int leading_zeros = std::countl_zero(fract);
    int shift = leading_zeros - (31 - kSingleExpShift);
    fract <<= shift;
    bin_exp = 1 - shift;
    n_significant_bits = 32 - leading_zeros;
  } else {
    fract |= 1u << kSingleExpShift;
    n_significant_bits = kSingleExpShift + 1;
  }
  bin_exp -= 127;
  return JavaFormat(negative, Dtoa(bin_exp, static_cast<uint64_t>(fract) << (kExpShift - kSingleExpShift),
                                   n_significant_bits));
}

}  // namespace

std::string JavaDoubleToString(double value) {
  return JavaDoubleBitsToString(std::bit_cast<uint64_t>(value));
}

std::string JavaFloatToString(float value) { return JavaFloatBitsToString(std::bit_cast<uint32_t>(value)); }

std::string QuoteAsJsonString(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    uint8_t u = static_cast<uint8_t>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
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

// Small string helpers that <format> would give us on a newer compiler:
// concatenation of mixed values, hex rendering and splitting.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace cqlite {

// StrCat("offset ", 12, " of ", path) == "offset 12 of <path>".
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

// Lower-case hex of the bytes, no prefix.
std::string ToHex(std::span<const uint8_t> bytes);
inline std::string ToHex(std::string_view bytes) {
  return ToHex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

// Makes `to` hold the bytes of `from`, which must not lie inside `to`,
// reusing its buffer: what std::string::assign does, without the general
// replace that assign goes through (a hot path copies millions of cells).
inline void CopyInto(std::string_view from, std::string* to) {
  to->clear();
  to->append(from.data(), from.size());
}

std::vector<std::string> Split(std::string_view text, char separator);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
// The parts with `separator` between them.
std::string Join(const std::vector<std::string>& parts, std::string_view separator);
std::string_view Trim(std::string_view text);
// Strict UTF-8, as Java's decoder with CodingErrorAction.REPORT accepts it:
// no overlong forms, surrogates or code points above U+10FFFF.
bool IsValidUtf8(std::string_view text);
// A-Z to a-z; other bytes unchanged (Java's toLowerCase(Locale.US) on identifiers).
std::string ToLowerAscii(std::string_view text);
// A whole decimal integer (optional leading '-'), or nothing.
// A size in bytes given as a number with an optional unit: B, KiB, MiB,
// GiB, TiB (powers of 1024) or KB, MB, GB, TB (powers of 1000); nullopt for
// anything else, a negative size or one past 2^62.
std::optional<int64_t> ParseByteSize(std::string_view text);
// A whole decimal number, nothing else around it.
std::optional<int64_t> ParseInt64(std::string_view text);

}  // namespace cqlite

// The byte-level pieces of Cassandra's value serialization that several
// readers share: big-endian integers, unsigned and signed vints
// (org.apache.cassandra.utils.vint.VIntCoding) and the zig-zag mapping of
// signed to unsigned numbers. Pure inline functions over byte strings.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace cqlite {

// The bytes as one big-endian unsigned number (at most 8 bytes).
inline uint64_t ReadBigEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

// ReadBigEndian of exactly 4 or 8 bytes, in one load.
// REQUIRES: bytes.size() is 4 (resp. 8).
inline uint32_t ReadBigEndian32(std::string_view bytes) {
  uint32_t v;
  std::memcpy(&v, bytes.data(), 4);
  return __builtin_bswap32(v);
}
inline uint64_t ReadBigEndian64(std::string_view bytes) {
  uint64_t v;
  std::memcpy(&v, bytes.data(), 8);
  return __builtin_bswap64(v);
}

// An unsigned vint at `*pos`, which moves past it: the count of leading one
// bits of the first byte is the number of bytes that follow. False if the
// bytes end first.
inline bool ReadUnsignedVInt(std::string_view bytes, size_t* pos, uint64_t* out) {
  if (*pos >= bytes.size()) return false;
  uint8_t first = static_cast<uint8_t>(bytes[(*pos)++]);
  int extra = std::countl_one(first);
  uint64_t v = extra >= 8 ? 0 : (first & (0xffu >> extra));
  if (bytes.size() - *pos < static_cast<size_t>(extra)) return false;
  for (int i = 0; i < extra; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[(*pos)++]);
  *out = v;
  return true;
}

inline int64_t ZigZagDecode(uint64_t n) { return static_cast<int64_t>(n >> 1) ^ -static_cast<int64_t>(n & 1); }
inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// A signed (zig-zag) vint, as ReadUnsignedVInt.
inline bool ReadSignedVInt(std::string_view bytes, size_t* pos, int64_t* out) {
  uint64_t v;
  if (!ReadUnsignedVInt(bytes, pos, &v)) return false;
  *out = ZigZagDecode(v);
  return true;
}

}  // namespace cqlite

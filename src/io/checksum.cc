#include "io/checksum.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace cqlite {

uint32_t Crc32Extend(uint32_t crc, std::span<const uint8_t> bytes) {
  uLong value = crc;
  // zlib takes a uInt length; feed very large spans in pieces.
  constexpr size_t kMaxPiece = std::numeric_limits<uInt>::max();
  while (!bytes.empty()) {
    size_t n = std::min(bytes.size(), kMaxPiece);
    value = crc32(value, bytes.data(), static_cast<uInt>(n));
    bytes = bytes.subspan(n);
  }
  return static_cast<uint32_t>(value);
}

uint32_t Crc32(std::span<const uint8_t> bytes) { return Crc32Extend(0, bytes); }

}  // namespace cqlite

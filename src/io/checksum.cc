#include "io/checksum.h"

#include <isa-l/crc.h>

namespace cqlite {

// ISA-L's reflected CRC32 is zlib's (crc32_gzip_refl continues a finished
// CRC as zlib's crc32 does), computed with carry-less multiplication where
// the processor has it: several times zlib's speed on Data.db chunks and
// Parquet pages.
uint32_t Crc32Extend(uint32_t crc, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return crc;
  return crc32_gzip_refl(crc, bytes.data(), bytes.size());
}

uint32_t Crc32(std::span<const uint8_t> bytes) { return Crc32Extend(0, bytes); }

}  // namespace cqlite

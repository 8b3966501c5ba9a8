// CRC32 (the zlib / java.util.zip.CRC32 polynomial) as Cassandra uses it for
// compressed chunk trailers, CRC.db, Digest.crc32 and Statistics.db sections
// (org.apache.cassandra.utils.ChecksumType.CRC32). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <span>

namespace cqlite {

// CRC32 of `bytes`.
uint32_t Crc32(std::span<const uint8_t> bytes);
// Continues `crc` (the result of an earlier Crc32/Crc32Extend) over `bytes`.
uint32_t Crc32Extend(uint32_t crc, std::span<const uint8_t> bytes);

}  // namespace cqlite

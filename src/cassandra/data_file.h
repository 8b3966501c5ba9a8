// Opens an SSTable's Data.db as a sequential stream of uncompressed bytes.
// Compressed files are read chunk by chunk as CompressionInfo.db describes
// them (LZ4, Snappy, Deflate, Zstd), each chunk's CRC32 verified;
// uncompressed files are verified against CRC.db when it is present.
// Memory stays at one or two chunks whatever the file size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cassandra/sstable_version.h"
#include "io/codec.h"
#include "io/data_input.h"
#include "util/status.h"

namespace cqlite {

class FileSystem;

// CompressionInfo.db (org.apache.cassandra.io.compress.CompressionMetadata).
struct CompressionInfo {
  std::string compressor_class;  // e.g. org.apache.cassandra.io.compress.LZ4Compressor
  CodecKind codec = CodecKind::kNone;
  uint32_t chunk_length = 0;
  uint64_t data_length = 0;  // uncompressed length of Data.db
  std::vector<uint64_t> chunk_offsets;
};

Result<CompressionInfo> ReadCompressionInfo(FileSystem& fs, const std::string& path);

// Opens `<prefix>Data.db` (prefix: directory + "nb-1-big-"). Uses
// `<prefix>CompressionInfo.db` if it exists, else `<prefix>CRC.db` if it exists.
// Every error names the file, the chunk and its byte offset.
Result<std::unique_ptr<ChunkSource>> OpenDataFile(FileSystem& fs, const std::string& prefix,
                                                  const SSTableVersion& version);

}  // namespace cqlite

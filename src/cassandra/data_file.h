// Opens an SSTable's Data.db as a sequential stream of uncompressed bytes.
// Compressed files are read chunk by chunk as CompressionInfo.db describes
// them (LZ4, Snappy, Deflate, Zstd), each chunk's CRC32 (over the bytes as
// stored) verified; from `na` on, a chunk whose stored length reaches the
// table's maxCompressedLength was stored uncompressed and is used as is. The
// empty trailing chunk some 3.x writers leave is skipped. Uncompressed files
// are read in CRC.db-sized blocks (64 KiB without CRC.db) and verified against
// CRC.db when it is present.
// Memory stays at one or two chunks whatever the file size. Every error names
// the file, the chunk index and its byte offset.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cassandra/sstable_version.h"
#include "io/codec.h"
#include "io/data_input.h"
#include "util/status.h"

namespace cqlite {

class FileSystem;

// CompressionInfo.db (org.apache.cassandra.io.compress.CompressionMetadata):
//   UTF compressor class, int option count, (UTF key, UTF value)*,
//   int chunk length, [int maxCompressedLength, from `na`], long data length,
//   int chunk count, long chunk offset*; all big-endian.
struct CompressionInfo {
  std::string compressor_class;  // e.g. org.apache.cassandra.io.compress.LZ4Compressor
  CodecKind codec = CodecKind::kNone;
  // The compressor options as stored, in file order.
  std::vector<std::pair<std::string, std::string>> parameters;
  uint32_t chunk_length = 0;
  // Chunks stored with at least this many bytes hold uncompressed data
  // (CompressionParams.maxCompressedLength). INT32_MAX before `na`.
  uint32_t max_compressed_length = std::numeric_limits<int32_t>::max();
  uint64_t data_length = 0;  // uncompressed length of Data.db
  std::vector<uint64_t> chunk_offsets;
};

// Reads CompressionInfo.db written by `version`.
Result<CompressionInfo> ReadCompressionInfo(FileSystem& fs, const std::string& path,
                                            const SSTableVersion& version);
// As above, taking the version from the file name (e.g. "nb-1-big-CompressionInfo.db").
Result<CompressionInfo> ReadCompressionInfo(FileSystem& fs, const std::string& path);

// Opens `<prefix>Data.db` (prefix: directory + "nb-1-big-"). Uses
// `<prefix>CompressionInfo.db` if it exists, else `<prefix>CRC.db` if it exists.
// The source reads the file lazily; `fs` must outlive it.
// Every error names the file, the chunk and its byte offset.
Result<std::unique_ptr<ChunkSource>> OpenDataFile(FileSystem& fs, const std::string& prefix,
                                                  const SSTableVersion& version);

}  // namespace cqlite

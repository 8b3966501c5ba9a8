// Block compression codecs, one implementation file each (codec_<name>.cc).
// Cassandra compresses Data.db chunk by chunk; Parquet compresses pages. Both
// go through Codec. Each codec reads and writes one self-contained block:
//   kLz4     Cassandra's LZ4Compressor framing: 4-byte little-endian
//            uncompressed length, then one raw LZ4 block;
//   kSnappy  one raw Snappy block (no framing format);
//   kDeflate a zlib stream (RFC 1950), as java.util.zip.Deflater writes;
//   kZstd    one Zstandard frame;
//   kNone    the bytes themselves.
// Codecs are stateless and thread-safe. Decompression of bad input is a
// Corruption error, never a crash or a write past `output`.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "util/status.h"

namespace cqlite {

enum class CodecKind { kNone, kLz4, kSnappy, kDeflate, kZstd };

class Codec {
 public:
  virtual ~Codec() = default;
  virtual CodecKind kind() const = 0;
  // Decompresses `input` into `output`, which must be exactly the expected
  // uncompressed size... or larger: returns the number of bytes produced.
  // Corruption if the input is not valid for this codec or does not fit.
  virtual Result<size_t> Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) const = 0;
  // Upper bound of the compressed size of `input_size` bytes.
  virtual size_t MaxCompressedLength(size_t input_size) const = 0;
  // Compresses into `output` (at least MaxCompressedLength bytes); returns the size.
  virtual Result<size_t> Compress(std::span<const uint8_t> input, std::span<uint8_t> output) const = 0;
};

// The codec for a kind. Codecs are stateless and shared.
const Codec& GetCodec(CodecKind kind);

// Zstandard compressing at `level`, 1 to kMaxZstdLevel (GetCodec(kZstd)
// compresses at 3, Cassandra's default); other levels give GetCodec(kZstd).
inline constexpr int kMaxZstdLevel = 22;
const Codec& ZstdCodecAtLevel(int level);

// "LZ4", "Snappy", "Deflate", "Zstd" or "none", for messages.
const char* CodecKindName(CodecKind kind);

}  // namespace cqlite

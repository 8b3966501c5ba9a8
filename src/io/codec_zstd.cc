// CodecKind::kZstd: one Zstandard frame per chunk
// (org.apache.cassandra.io.compress.ZstdCompressor).
#include <zstd.h>

#include "io/codec.h"
#include "io/codec_internal.h"
#include "util/strings.h"

namespace cqlite {
namespace {

// Cassandra's default compression_level for ZstdCompressor.
constexpr int kDefaultLevel = 3;

class ZstdCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kZstd; }

  Result<size_t> Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    unsigned long long content = ZSTD_getFrameContentSize(input.data(), input.size());
    if (content == ZSTD_CONTENTSIZE_ERROR) return Status::Corruption("Zstd block is not a Zstandard frame");
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content > output.size()) {
      return Status::Corruption(StrCat("Zstd frame claims ", content, " uncompressed bytes, more than the ",
                                       output.size(), " expected"));
    }
    size_t written = ZSTD_decompress(output.data(), output.size(), input.data(), input.size());
    if (ZSTD_isError(written)) {
      return Status::Corruption(StrCat("Zstd block is malformed (", ZSTD_getErrorName(written), ")"));
    }
    return written;
  }

  size_t MaxCompressedLength(size_t input_size) const override { return ZSTD_compressBound(input_size); }

  Result<size_t> Compress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    size_t written = ZSTD_compress(output.data(), output.size(), input.data(), input.size(), kDefaultLevel);
    if (ZSTD_isError(written)) {
      return Status::InvalidArgument(StrCat("Zstd compression failed (", ZSTD_getErrorName(written), ")"));
    }
    return written;
  }
};

}  // namespace

const Codec& ZstdCodecInstance() {
  static const ZstdCodec codec;
  return codec;
}

}  // namespace cqlite

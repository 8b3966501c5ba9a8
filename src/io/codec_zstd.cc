// CodecKind::kZstd: one Zstandard frame per chunk
// (org.apache.cassandra.io.compress.ZstdCompressor).
#include <zstd.h>

#include <array>
#include <utility>

#include "io/codec.h"
#include "io/codec_internal.h"
#include "util/strings.h"

namespace cqlite {
namespace {

// Cassandra's default compression_level for ZstdCompressor.
constexpr int kDefaultLevel = 3;

// One compression context per thread, reused across calls: ZSTD_compress
// would allocate and free one for every page.
ZSTD_CCtx* ThreadCompressionContext() {
  struct Context {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ~Context() { ZSTD_freeCCtx(cctx); }
  };
  thread_local Context context;
  return context.cctx;
}

class ZstdCodec final : public Codec {
 public:
  explicit ZstdCodec(int level) : level_(level) {}

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
    ZSTD_CCtx* cctx = ThreadCompressionContext();
    if (cctx == nullptr) return Status::InvalidArgument("Zstd compression failed (no memory for a context)");
    size_t written = ZSTD_compressCCtx(cctx, output.data(), output.size(), input.data(), input.size(), level_);
    if (ZSTD_isError(written)) {
      return Status::InvalidArgument(StrCat("Zstd compression failed (", ZSTD_getErrorName(written), ")"));
    }
    return written;
  }

 private:
  int level_;
};

}  // namespace

const Codec& ZstdCodecInstance() {
  static const ZstdCodec codec(kDefaultLevel);
  return codec;
}

const Codec& ZstdCodecAtLevel(int level) {
  static const std::array<ZstdCodec, kMaxZstdLevel> codecs = [] {
    return [&]<size_t... i>(std::index_sequence<i...>) {
      return std::array<ZstdCodec, kMaxZstdLevel>{ZstdCodec(static_cast<int>(i) + 1)...};
    }(std::make_index_sequence<kMaxZstdLevel>());
  }();
  if (level < 1 || level > kMaxZstdLevel) return ZstdCodecInstance();
  return codecs[level - 1];
}

}  // namespace cqlite

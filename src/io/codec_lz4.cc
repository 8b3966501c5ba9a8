// CodecKind::kLz4 in Cassandra's chunk framing
// (org.apache.cassandra.io.compress.LZ4Compressor): a 4-byte little-endian
// uncompressed length, then one raw LZ4 block.
#include <lz4.h>

#include <algorithm>
#include <limits>

#include "io/codec.h"
#include "io/codec_internal.h"
#include "util/strings.h"

namespace cqlite {
namespace {

constexpr size_t kLengthPrefix = 4;

class Lz4Codec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kLz4; }

  Result<size_t> Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    if (input.size() < kLengthPrefix) {
      return Status::Corruption(StrCat("LZ4 block of ", input.size(), " bytes has no length prefix"));
    }
    uint32_t expected = static_cast<uint32_t>(input[0]) | static_cast<uint32_t>(input[1]) << 8 |
                        static_cast<uint32_t>(input[2]) << 16 | static_cast<uint32_t>(input[3]) << 24;
    if (expected > output.size() || expected > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
      return Status::Corruption(
          StrCat("LZ4 block claims ", expected, " uncompressed bytes, more than the ", output.size(), " expected"));
    }
    size_t body = input.size() - kLengthPrefix;
    if (body > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return Status::Corruption("LZ4 block too large");
    }
    int written = LZ4_decompress_safe(reinterpret_cast<const char*>(input.data() + kLengthPrefix),
                                      reinterpret_cast<char*>(output.data()), static_cast<int>(body),
                                      static_cast<int>(expected));
    if (written < 0) return Status::Corruption("LZ4 block is malformed");
    if (static_cast<uint32_t>(written) != expected) {
      return Status::Corruption(
          StrCat("LZ4 block decompressed to ", written, " bytes, its prefix says ", expected));
    }
    return static_cast<size_t>(written);
  }

  size_t MaxCompressedLength(size_t input_size) const override {
    return kLengthPrefix + static_cast<size_t>(LZ4_compressBound(static_cast<int>(input_size)));
  }

  Result<size_t> Compress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return Status::InvalidArgument(StrCat("LZ4 input of ", input.size(), " bytes is too large"));
    }
    if (output.size() < kLengthPrefix) return Status::InvalidArgument("LZ4 output buffer too small");
    uint32_t n = static_cast<uint32_t>(input.size());
    output[0] = static_cast<uint8_t>(n);
    output[1] = static_cast<uint8_t>(n >> 8);
    output[2] = static_cast<uint8_t>(n >> 16);
    output[3] = static_cast<uint8_t>(n >> 24);
    size_t room = std::min<size_t>(output.size() - kLengthPrefix, std::numeric_limits<int>::max());
    int written = LZ4_compress_default(reinterpret_cast<const char*>(input.data()),
                                       reinterpret_cast<char*>(output.data() + kLengthPrefix),
                                       static_cast<int>(input.size()), static_cast<int>(room));
    if (written <= 0) return Status::InvalidArgument("LZ4 output buffer too small");
    return kLengthPrefix + static_cast<size_t>(written);
  }
};

}  // namespace

const Codec& Lz4CodecInstance() {
  static const Lz4Codec codec;
  return codec;
}

}  // namespace cqlite

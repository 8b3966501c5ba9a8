// CodecKind::kSnappy: one raw Snappy block per chunk
// (org.apache.cassandra.io.compress.SnappyCompressor).
#include <snappy-c.h>

#include "io/codec.h"
#include "io/codec_internal.h"
#include "util/strings.h"

namespace cqlite {
namespace {

class SnappyCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kSnappy; }

  Result<size_t> Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    const char* in = reinterpret_cast<const char*>(input.data());
    size_t expected = 0;
    if (snappy_uncompressed_length(in, input.size(), &expected) != SNAPPY_OK) {
      return Status::Corruption("Snappy block has no valid length header");
    }
    if (expected > output.size()) {
      return Status::Corruption(StrCat("Snappy block claims ", expected, " uncompressed bytes, more than the ",
                                       output.size(), " expected"));
    }
    size_t written = output.size();
    if (snappy_uncompress(in, input.size(), reinterpret_cast<char*>(output.data()), &written) != SNAPPY_OK) {
      return Status::Corruption("Snappy block is malformed");
    }
    return written;
  }

  size_t MaxCompressedLength(size_t input_size) const override {
    return snappy_max_compressed_length(input_size);
  }

  Result<size_t> Compress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    size_t written = output.size();
    if (output.size() < snappy_max_compressed_length(input.size()) ||
        snappy_compress(reinterpret_cast<const char*>(input.data()), input.size(),
                        reinterpret_cast<char*>(output.data()), &written) != SNAPPY_OK) {
      return Status::InvalidArgument("Snappy output buffer too small");
    }
    return written;
  }
};

}  // namespace

const Codec& SnappyCodecInstance() {
  static const SnappyCodec codec;
  return codec;
}

}  // namespace cqlite

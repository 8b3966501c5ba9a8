// CodecKind::kNone: bytes stored as they are.
#include <cstring>

#include "io/codec.h"
#include "io/codec_internal.h"
#include "util/strings.h"

namespace cqlite {
namespace {

class NoneCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kNone; }
  Result<size_t> Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    if (input.size() > output.size()) {
      return Status::Corruption(StrCat("uncompressed block of ", input.size(), " bytes does not fit in ",
                                       output.size(), " bytes"));
    }
    if (!input.empty()) std::memcpy(output.data(), input.data(), input.size());
    return input.size();
  }
  size_t MaxCompressedLength(size_t input_size) const override { return input_size; }
  Result<size_t> Compress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    return Decompress(input, output);
  }
};

}  // namespace

const Codec& NoneCodecInstance() {
  static const NoneCodec codec;
  return codec;
}

}  // namespace cqlite

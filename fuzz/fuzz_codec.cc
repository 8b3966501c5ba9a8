// Fuzzes each codec. Byte 0 picks the codec (byte % 5: none, LZ4, Snappy,
// Deflate, Zstd); byte 1 the output capacity for decompression (byte * 257
// bytes, so 0 to 64 KiB). The rest is decompressed as given, then compressed
// and decompressed again, which must give it back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "io/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  if (size < 2) return 0;
  static const CodecKind kKinds[] = {CodecKind::kNone, CodecKind::kLz4, CodecKind::kSnappy, CodecKind::kDeflate,
                                     CodecKind::kZstd};
  const Codec& codec = GetCodec(kKinds[data[0] % 5]);
  size_t capacity = static_cast<size_t>(data[1]) * 257;
  std::span<const uint8_t> payload(data + 2, size - 2);

  std::vector<uint8_t> output(capacity);
  auto n = codec.Decompress(payload, output);
  if (n.ok() && *n > capacity) abort();  // claimed more than it may have written

  std::vector<uint8_t> compressed(codec.MaxCompressedLength(payload.size()));
  auto c = codec.Compress(payload, compressed);
  if (!c.ok()) return 0;
  if (*c > compressed.size()) abort();
  std::vector<uint8_t> round_trip(payload.size());
  auto d = codec.Decompress(std::span<const uint8_t>(compressed.data(), *c), round_trip);
  if (!d.ok() || *d != payload.size() ||
      (payload.size() > 0 && std::memcmp(round_trip.data(), payload.data(), payload.size()) != 0)) {
    abort();  // a round trip must give the input back
  }
  return 0;
}

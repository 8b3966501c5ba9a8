// CodecKind::kDeflate: a zlib stream (RFC 1950 header + deflate + Adler-32),
// what java.util.zip.Deflater writes by default
// (org.apache.cassandra.io.compress.DeflateCompressor).
#include <zlib.h>

#include <limits>

#include "io/codec.h"
#include "io/codec_internal.h"
#include "util/strings.h"

namespace cqlite {
namespace {

class DeflateCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kDeflate; }

  Result<size_t> Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    if (input.size() > std::numeric_limits<uInt>::max() || output.size() > std::numeric_limits<uInt>::max()) {
      return Status::Corruption("Deflate block too large");
    }
    // Cassandra writes a trailing chunk with no bytes at all, and its
    // DeflateCompressor inflates nothing into nothing without complaint.
    if (input.empty()) return size_t{0};
    z_stream stream{};
    if (inflateInit(&stream) != Z_OK) return Status::Corruption("Deflate: cannot initialise zlib");
    stream.next_in = const_cast<Bytef*>(input.data());
    stream.avail_in = static_cast<uInt>(input.size());
    // zlib rejects a null output pointer (what an empty span may hold) even
    // when there is nothing to write: point it at a byte it may not use.
    uint8_t no_output = 0;
    stream.next_out = output.empty() ? &no_output : output.data();
    stream.avail_out = static_cast<uInt>(output.size());
    int rc = inflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    inflateEnd(&stream);
    if (rc == Z_STREAM_END) return written;
    if (rc == Z_BUF_ERROR && stream.avail_out == 0) {
      return Status::Corruption(StrCat("Deflate block inflates to more than the ", output.size(), " expected bytes"));
    }
    if (rc == Z_BUF_ERROR) return Status::Corruption("Deflate block is truncated");
    return Status::Corruption(StrCat("Deflate block is malformed (zlib error ", rc, ")"));
  }

  size_t MaxCompressedLength(size_t input_size) const override {
    return static_cast<size_t>(compressBound(static_cast<uLong>(input_size)));
  }

  Result<size_t> Compress(std::span<const uint8_t> input, std::span<uint8_t> output) const override {
    uLongf written = static_cast<uLongf>(output.size());
    int rc = compress2(output.data(), &written, input.data(), static_cast<uLong>(input.size()),
                       Z_DEFAULT_COMPRESSION);
    if (rc != Z_OK) return Status::InvalidArgument(StrCat("Deflate compression failed (zlib error ", rc, ")"));
    return static_cast<size_t>(written);
  }
};

}  // namespace

const Codec& DeflateCodecInstance() {
  static const DeflateCodec codec;
  return codec;
}

}  // namespace cqlite

#include "io/codec.h"

#include "io/codec_internal.h"

namespace cqlite {

const Codec& GetCodec(CodecKind kind) {
  switch (kind) {
    case CodecKind::kNone:
      return NoneCodecInstance();
    case CodecKind::kLz4:
      return Lz4CodecInstance();
    case CodecKind::kSnappy:
      return SnappyCodecInstance();
    case CodecKind::kDeflate:
      return DeflateCodecInstance();
    case CodecKind::kZstd:
      return ZstdCodecInstance();
  }
  return NoneCodecInstance();
}

const char* CodecKindName(CodecKind kind) {
  switch (kind) {
    case CodecKind::kNone:
      return "none";
    case CodecKind::kLz4:
      return "LZ4";
    case CodecKind::kSnappy:
      return "Snappy";
    case CodecKind::kDeflate:
      return "Deflate";
    case CodecKind::kZstd:
      return "Zstd";
  }
  return "unknown";
}

}  // namespace cqlite

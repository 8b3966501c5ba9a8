#include "io/codec.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "io/checksum.h"

namespace cqlite {
namespace {

const CodecKind kAllKinds[] = {CodecKind::kNone, CodecKind::kLz4, CodecKind::kSnappy, CodecKind::kDeflate,
                               CodecKind::kZstd};

std::vector<uint8_t> SampleData(size_t n) {
  std::vector<uint8_t> out(n);
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245 + 12345;
    // Compressible: mostly a repeating pattern with some noise.
    out[i] = (i % 7 == 0) ? static_cast<uint8_t>(x >> 16) : static_cast<uint8_t>("cassandra"[i % 9]);
  }
  return out;
}

std::vector<uint8_t> CompressOrDie(const Codec& codec, const std::vector<uint8_t>& input) {
  std::vector<uint8_t> out(codec.MaxCompressedLength(input.size()));
  auto n = codec.Compress(input, out);
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  out.resize(n.ok() ? *n : 0);
  return out;
}

TEST(CodecTest, RoundTripsEveryKindAndSize) {
  for (CodecKind kind : kAllKinds) {
    const Codec& codec = GetCodec(kind);
    EXPECT_EQ(codec.kind(), kind);
    for (size_t size : {0u, 1u, 100u, 4096u, 65536u, 200000u}) {
      auto input = SampleData(size);
      auto compressed = CompressOrDie(codec, input);
      std::vector<uint8_t> output(size + 16);  // larger than needed is allowed
      auto n = codec.Decompress(compressed, output);
      ASSERT_TRUE(n.ok()) << CodecKindName(kind) << " size " << size << ": " << n.status().ToString();
      ASSERT_EQ(*n, size) << CodecKindName(kind);
      output.resize(*n);
      EXPECT_EQ(output, input) << CodecKindName(kind) << " size " << size;
    }
  }
}

TEST(CodecTest, ZstdLevels) {
  auto input = SampleData(200000);
  std::vector<std::vector<uint8_t>> outputs;
  for (int level : {1, 3, 19}) {
    const Codec& codec = ZstdCodecAtLevel(level);
    EXPECT_EQ(codec.kind(), CodecKind::kZstd);
    outputs.push_back(CompressOrDie(codec, input));
    std::vector<uint8_t> output(input.size());
    auto n = codec.Decompress(outputs.back(), output);
    ASSERT_TRUE(n.ok()) << level << ": " << n.status().ToString();
    EXPECT_EQ(output, input) << level;
  }
  // The level is applied (higher is not always smaller: on this sample
  // level 19 is larger than level 1, with the zstd command line too).
  EXPECT_NE(outputs[0], outputs[1]);
  EXPECT_NE(outputs[1], outputs[2]);
  // The default codec is level 3.
  EXPECT_EQ(outputs[1], CompressOrDie(GetCodec(CodecKind::kZstd), input));
  EXPECT_EQ(&ZstdCodecAtLevel(0), &GetCodec(CodecKind::kZstd));
  EXPECT_EQ(&ZstdCodecAtLevel(kMaxZstdLevel + 1), &GetCodec(CodecKind::kZstd));
}

TEST(CodecTest, EmptyBlockDecompressesIntoAnEmptyOutput) {
  // Found by fuzz_codec: zlib refuses a null output pointer, which an empty
  // std::vector gives, even when nothing is to be written.
  for (CodecKind kind : kAllKinds) {
    const Codec& codec = GetCodec(kind);
    auto compressed = CompressOrDie(codec, {});
    std::vector<uint8_t> output;
    auto n = codec.Decompress(compressed, output);
    ASSERT_TRUE(n.ok()) << CodecKindName(kind) << ": " << n.status().ToString();
    EXPECT_EQ(*n, 0u) << CodecKindName(kind);
  }
}

TEST(CodecTest, Lz4UsesCassandrasLittleEndianLengthPrefix) {
  auto input = SampleData(0x012345);
  auto compressed = CompressOrDie(GetCodec(CodecKind::kLz4), input);
  ASSERT_GE(compressed.size(), 4u);
  EXPECT_EQ(compressed[0], 0x45);
  EXPECT_EQ(compressed[1], 0x23);
  EXPECT_EQ(compressed[2], 0x01);
  EXPECT_EQ(compressed[3], 0x00);
}

TEST(CodecTest, Lz4EmptyChunkAsCassandraWritesIt) {
  // The trailing empty chunk of some 3.x files: length 0, then LZ4's empty block.
  std::vector<uint8_t> chunk = {0, 0, 0, 0, 0};
  std::vector<uint8_t> out(16);
  auto n = GetCodec(CodecKind::kLz4).Decompress(chunk, out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0u);
}

// Cassandra leaves the trailing chunk of a Deflate file with no bytes at all
// (seen on a table of 1245 bytes: chunk offsets 0 and 717 in a 721-byte
// Data.db, the last 4 bytes being its checksum).
TEST(CodecTest, DeflateInflatesNoBytesIntoNothing) {
  std::vector<uint8_t> output(16);
  auto n = GetCodec(CodecKind::kDeflate).Decompress({}, output);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0u);
}

TEST(CodecTest, DeflateWritesAZlibHeader) {
  auto compressed = CompressOrDie(GetCodec(CodecKind::kDeflate), SampleData(1000));
  ASSERT_GE(compressed.size(), 2u);
  EXPECT_EQ(compressed[0] & 0x0f, 8);  // CM = deflate
  EXPECT_EQ(((compressed[0] << 8) | compressed[1]) % 31, 0);
}

TEST(CodecTest, CorruptInputIsAnErrorNotACrash) {
  for (CodecKind kind : kAllKinds) {
    if (kind == CodecKind::kNone) continue;
    const Codec& codec = GetCodec(kind);
    auto input = SampleData(5000);
    auto compressed = CompressOrDie(codec, input);
    std::vector<uint8_t> output(input.size());
    // Truncations at every length must fail cleanly (or, rarely, produce a
    // shorter output: never crash and never claim the full size with wrong bytes).
    for (size_t cut = 0; cut < compressed.size(); ++cut) {
      std::vector<uint8_t> part(compressed.begin(), compressed.begin() + cut);
      auto n = codec.Decompress(part, output);
      if (n.ok()) {
        EXPECT_LT(*n, input.size()) << CodecKindName(kind) << " cut " << cut;
      } else {
        EXPECT_EQ(n.status().kind(), StatusKind::kCorruption);
      }
    }
    // Every flipped bit either fails or decodes to something; never a crash.
    for (size_t i = 0; i < compressed.size(); i += 3) {
      auto bad = compressed;
      bad[i] ^= 0x10;
      (void)codec.Decompress(bad, output);
    }
    // Garbage.
    std::vector<uint8_t> garbage = {0xff, 0xff, 0xff, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x9a};
    auto n = codec.Decompress(garbage, output);
    EXPECT_FALSE(n.ok()) << CodecKindName(kind);
  }
}

TEST(CodecTest, OutputTooSmallIsCorruption) {
  for (CodecKind kind : kAllKinds) {
    const Codec& codec = GetCodec(kind);
    auto input = SampleData(3000);
    auto compressed = CompressOrDie(codec, input);
    std::vector<uint8_t> output(1000);
    auto n = codec.Decompress(compressed, output);
    ASSERT_FALSE(n.ok()) << CodecKindName(kind);
    EXPECT_EQ(n.status().kind(), StatusKind::kCorruption);
  }
}

TEST(ChecksumTest, MatchesTheStandardCrc32) {
  std::string text = "123456789";
  EXPECT_EQ(Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())),
            0xCBF43926u);
  auto a = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), 4);
  auto b = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()) + 4, 5);
  EXPECT_EQ(Crc32Extend(Crc32(a), b), 0xCBF43926u);
  EXPECT_EQ(Crc32({}), 0u);
}

// zlib's crc32, an implementation of the same CRC we do not use, agrees on
// every length around the vector widths and from every alignment.
TEST(ChecksumTest, AgreesWithZlib) {
  std::vector<uint8_t> bytes(70000);
  uint32_t x = 12345;
  for (uint8_t& b : bytes) b = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 16);
  for (size_t offset = 0; offset < 17; ++offset) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{31}, size_t{64}, size_t{255}, size_t{256},
                     size_t{1000}, size_t{4097}, size_t{65536}}) {
      std::span<const uint8_t> span(bytes.data() + offset, n);
      const uint32_t want = static_cast<uint32_t>(crc32(0, span.data(), static_cast<uInt>(n)));
      EXPECT_EQ(Crc32(span), want) << offset << " " << n;
      const uint32_t continued = static_cast<uint32_t>(crc32(want, bytes.data() + offset + n, 100));
      EXPECT_EQ(Crc32Extend(Crc32(span), std::span<const uint8_t>(bytes.data() + offset + n, 100)), continued);
    }
  }
}

}  // namespace
}  // namespace cqlite

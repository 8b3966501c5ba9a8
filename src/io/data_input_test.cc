#include "io/data_input.h"

#include <gtest/gtest.h>

#include <vector>

namespace cqlite {
namespace {

// Splits a buffer into chunks of the given sizes to exercise boundary crossing.
class SplitSource : public ChunkSource {
 public:
  SplitSource(std::vector<uint8_t> bytes, std::vector<size_t> sizes) : bytes_(std::move(bytes)), sizes_(sizes) {}
  Result<std::span<const uint8_t>> NextChunk() override {
    if (next_ == sizes_.size()) return std::span<const uint8_t>();
    auto chunk = std::span<const uint8_t>(bytes_).subspan(offset_, sizes_[next_]);
    offset_ += sizes_[next_++];
    return chunk;
  }
  uint64_t TotalLength() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<size_t> sizes_;
  size_t offset_ = 0, next_ = 0;
};

// A source that promises far more bytes than it has, as a CompressionInfo.db
// with a corrupt data length does.
class OverpromisingSource : public SplitSource {
 public:
  using SplitSource::SplitSource;
  uint64_t TotalLength() const override { return uint64_t{1} << 50; }
};

TEST(DataInputTest, LengthBeyondTheBytesPresentIsCorruptionNotAnAllocation) {
  // ReadBytes sized its buffer by the requested length
  // whenever the source's announced total allowed it.
  DataInput in(std::make_unique<OverpromisingSource>(std::vector<uint8_t>{1, 2, 3, 4}, std::vector<size_t>{2, 2}),
               "test");
  std::string out;
  in.ReadBytes(uint64_t{1} << 40, &out);
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.status().kind(), StatusKind::kCorruption);
  EXPECT_LE(out.size(), 4u);
}

TEST(DataInputTest, ReadsBigEndianAcrossChunks) {
  std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xff};
  DataInput in(std::make_unique<SplitSource>(bytes, std::vector<size_t>{3, 2, 4}), "test");
  EXPECT_EQ(in.ReadU64(), 0x0102030405060708ULL);
  EXPECT_EQ(in.ReadU8(), 0xff);
  EXPECT_TRUE(in.ok());
  EXPECT_TRUE(in.AtEnd());
  EXPECT_EQ(in.position(), 9u);
}

TEST(DataInputTest, DecodesCassandraVInts) {
  // 0x7f: one byte. 0x80 0x80: 128 in two bytes. 0xc0 0x40 0x00: 16384.
  // 0xff + 8 bytes: a full 64-bit value. Zig-zag: 3 -> -2.
  std::vector<uint8_t> bytes = {0x7f, 0x80, 0x80, 0xc0, 0x40, 0x00, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 0x03};
  DataInput in(bytes, "test");
  EXPECT_EQ(in.ReadUnsignedVInt(), 0x7fu);
  EXPECT_EQ(in.ReadUnsignedVInt(), 128u);
  EXPECT_EQ(in.ReadUnsignedVInt(), 16384u);
  EXPECT_EQ(in.ReadUnsignedVInt(), 0x8000000000000001ULL);
  EXPECT_EQ(in.ReadVInt(), -2);
  EXPECT_TRUE(in.ok());
}

TEST(DataInputTest, LatchesTheFirstErrorWithItsOffset) {
  std::vector<uint8_t> bytes = {0x00, 0x05, 'a', 'b'};
  DataInput in(bytes, "x-Data.db");
  uint16_t n = in.ReadU16();
  std::string s;
  in.ReadBytes(n, &s);
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.status().kind(), StatusKind::kCorruption);
  EXPECT_NE(in.status().message().find("x-Data.db"), std::string::npos);
  EXPECT_NE(in.status().message().find("byte offset 2"), std::string::npos);
  EXPECT_EQ(in.ReadU32(), 0u);  // reads after an error return zero
}

}  // namespace
}  // namespace cqlite

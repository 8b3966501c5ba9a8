#include "iceberg/deletion_vector.h"

#include <gtest/gtest.h>

#include "iceberg/puffin.h"
#include "io/checksum.h"

namespace cqlite::iceberg {
namespace {

std::string Hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

DeletionVector Of(const std::vector<int64_t>& positions) {
  DeletionVector vector;
  for (int64_t p : positions) EXPECT_TRUE(vector.Delete(p).ok()) << p;
  return vector;
}

DeletionVector RoundTrip(const DeletionVector& vector) {
  auto parsed = DeletionVector::DeserializeBlob(vector.SerializeBlob(), "test.puffin");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : DeletionVector();
}

// Replaces the CRC of a blob whose magic + vector were edited.
void FixCrc(std::string& blob) {
  const std::string_view body = std::string_view(blob).substr(4, blob.size() - 8);
  const uint32_t crc =
      Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
  for (int i = 0; i < 4; ++i) blob[blob.size() - 4 + i] = static_cast<char>((crc >> (8 * (3 - i))) & 0xff);
}

// Blobs written out byte by byte from the Puffin spec (deletion-vector-v1) and
// the Roaring format spec; CRCs computed with zlib.crc32.
TEST(DeletionVectorTest, EmptyVectorIsTheSpecLayout) {
  // clang-format off
  const std::string expected = Hex(
      "0000000C"          // length of magic + vector: 12
      "D1D33964"          // magic
      "0000000000000000"  // no 32-bit bitmaps
      "BF18480C");        // CRC-32
  // clang-format on
  EXPECT_EQ(DeletionVector().SerializeBlob(), expected);
  auto parsed = DeletionVector::DeserializeBlob(expected, "test.puffin");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed->empty());
}

TEST(DeletionVectorTest, ArrayContainersInTwoBitmapsAreTheSpecLayout) {
  // Positions 5 and 2^32 + 1: keys 0 and 1, one array container each, no
  // run containers (per bitmap: key, cookie 12346, 1 container, header
  // (container key 0, cardinality 1 - 1), offset 16, the value).
  // clang-format off
  const std::string expected = Hex(
      "00000038" "D1D33964" "0200000000000000"
      "00000000" "3A300000" "01000000" "00000000" "10000000" "0500"  // key 0, value 5
      "01000000" "3A300000" "01000000" "00000000" "10000000" "0100"  // key 1, value 1
      "B682CDBD");
  // clang-format on
  const DeletionVector vector = Of({5, (int64_t{1} << 32) + 1});
  EXPECT_EQ(vector.SerializeBlob(), expected);
  auto parsed = DeletionVector::DeserializeBlob(expected, "test.puffin");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->Positions(), vector.Positions());
}

TEST(DeletionVectorTest, ReadsEmptyBitmapsForKeysWithoutPositions) {
  // Iceberg Java writes a bitmap for every key below the highest, empty
  // (cookie 12346, no containers) where a key holds no position.
  // clang-format off
  const std::string blob = Hex(
      "0000002E" "D1D33964" "0200000000000000"
      "00000000" "3A300000" "00000000"                                // key 0, empty
      "01000000" "3A300000" "01000000" "00000000" "10000000" "0100"  // key 1, value 1
      "17E67CEF");
  // clang-format on
  auto parsed = DeletionVector::DeserializeBlob(blob, "test.puffin");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->Positions(), std::vector<int64_t>{(int64_t{1} << 32) + 1});
}

TEST(DeletionVectorTest, RunContainerIsTheSpecLayout) {
  // Positions 10..19: one run (cookie 12347 with count - 1 = 0, run bitset,
  // header, no offsets below four containers, run count, start, length - 1).
  // clang-format off
  const std::string expected = Hex(
      "0000001F" "D1D33964" "0100000000000000" "00000000"
      "3B300000" "01" "00000900"  // cookie, run bitset, (key 0, card 10)
      "0100" "0A000900"           // one run: start 10, length - 1 = 9
      "39B80A13");
  // clang-format on
  std::vector<int64_t> positions;
  for (int64_t p = 10; p < 20; ++p) positions.push_back(p);
  EXPECT_EQ(Of(positions).SerializeBlob(), expected);
  auto parsed = DeletionVector::DeserializeBlob(expected, "test.puffin");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->Positions(), positions);
}

TEST(DeletionVectorTest, EdgePositionsRoundTrip) {
  const std::vector<int64_t> positions = {0,
                                          1,
                                          65535,
                                          65536,
                                          (int64_t{1} << 32) - 1,
                                          int64_t{1} << 32,
                                          (int64_t{1} << 32) + 65536,
                                          int64_t{1} << 40,
                                          int64_t{1} << 62,
                                          kMaxDeletionVectorPosition};
  const DeletionVector vector = Of(positions);
  EXPECT_EQ(vector.Positions(), positions);
  EXPECT_EQ(RoundTrip(vector).Positions(), positions);
  EXPECT_TRUE(vector.IsDeleted(int64_t{1} << 32));
  EXPECT_FALSE(vector.IsDeleted(2));
}

TEST(DeletionVectorTest, OutOfRangePositionsAreRefused) {
  DeletionVector vector;
  EXPECT_EQ(vector.Delete(-1).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(vector.Delete(kMaxDeletionVectorPosition + 1).kind(), StatusKind::kInvalidArgument);
  EXPECT_TRUE(vector.empty());
}

TEST(DeletionVectorTest, UnorderedAndRepeatedDeletesKeepOneSortedSet) {
  const DeletionVector vector = Of({7, 3, 7, 1 << 20, 3, 0});
  EXPECT_EQ(vector.Positions(), (std::vector<int64_t>{0, 3, 7, 1 << 20}));
  EXPECT_EQ(vector.Cardinality(), 4);
}

TEST(DeletionVectorTest, ManyContainersOfEveryKindRoundTrip) {
  std::vector<int64_t> positions;
  for (int64_t key = 0; key < 40; ++key) {  // 40 containers in bitmap 0, more in bitmap 3
    const int64_t base = key * 65536 + (key % 4 == 3 ? (int64_t{3} << 32) : 0);
    switch (key % 3) {
      case 0:  // sparse: array container
        for (int64_t i = 0; i < 100; ++i) positions.push_back(base + i * 613);
        break;
      case 1:  // dense, no runs: bitmap container
        for (int64_t i = 0; i < 6000; ++i) positions.push_back(base + i * 10);
        break;
      default:  // long runs: run container
        for (int64_t i = 1000; i < 30000; ++i) positions.push_back(base + i);
        break;
    }
  }
  std::sort(positions.begin(), positions.end());
  const DeletionVector vector = Of(positions);
  EXPECT_EQ(RoundTrip(vector).Positions(), positions);
  EXPECT_EQ(vector.Cardinality(), static_cast<int64_t>(positions.size()));
  // Run containers keep a run of 29000 in 4 bytes; without them the blob
  // would hold a bitmap container of 8192 bytes for each.
  EXPECT_LT(vector.SerializeBlob().size(), size_t{14} * 8192 + 14 * 100 * 2 + 40 * 64);
}

TEST(DeletionVectorTest, FullContainerRoundTrips) {
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < 65536 * 2; ++i) positions.push_back(i);
  EXPECT_EQ(RoundTrip(Of(positions)).Positions(), positions);
}

TEST(DeletionVectorTest, BadCrcIsAnErrorNamingThePlace) {
  std::string blob = Of({1, 2, 3}).SerializeBlob();
  blob[blob.size() - 1] = static_cast<char>(blob.back() ^ 1);
  auto parsed = DeletionVector::DeserializeBlob(blob, "dv.puffin blob at 4");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().kind(), StatusKind::kCorruption);
  EXPECT_NE(parsed.status().message().find("dv.puffin blob at 4 at byte " + std::to_string(blob.size() - 4)),
            std::string::npos)
      << parsed.status().message();
  EXPECT_NE(parsed.status().message().find("CRC"), std::string::npos);
}

TEST(DeletionVectorTest, CorruptBlobsAreErrorsNamingThePlace) {
  const std::string good = Of({5, (int64_t{1} << 32) + 1}).SerializeBlob();
  struct Case {
    std::string name;
    std::string blob;
    size_t at;
  };
  std::vector<Case> cases;
  {
    std::string b = good;  // length field one too large
    b[3] = static_cast<char>(b[3] + 1);
    cases.push_back({"length", b, 0});
  }
  {
    std::string b = good;  // magic changed, CRC fixed
    b[4] = 0;
    FixCrc(b);
    cases.push_back({"magic", b, 4});
  }
  {
    std::string b = good;  // second key made equal to the first
    b[8 + 8 + 4 + 4 + 4 + 4 + 4 + 2] = 0;
    FixCrc(b);
    cases.push_back({"ascending", b, 8 + 8 + 4 + 4 + 4 + 4 + 4 + 2});
  }
  {
    std::string b = good;  // unknown cookie
    b[8 + 8 + 4] = 0x11;
    FixCrc(b);
    cases.push_back({"cookie", b, 8 + 8 + 4});
  }
  {
    std::string b = good;  // header cardinality 2, one value stored: the container reads past the bitmap
    b[8 + 8 + 4 + 8 + 2] = 1;
    FixCrc(b);
    cases.push_back({"container", b, 0});
  }
  {
    std::string b = good;  // bitmap count 3 of 2 present
    b[8] = 3;
    FixCrc(b);
    cases.push_back({"count", b, 0});
  }
  cases.push_back({"short", good.substr(0, 10), 0});
  for (const Case& c : cases) {
    auto parsed = DeletionVector::DeserializeBlob(c.blob, "dv.puffin");
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_EQ(parsed.status().kind(), StatusKind::kCorruption) << c.name;
    EXPECT_NE(parsed.status().message().find("dv.puffin at byte "), std::string::npos)
        << c.name << ": " << parsed.status().message();
    if (c.at != 0) {
      EXPECT_NE(parsed.status().message().find("at byte " + std::to_string(c.at) + " "), std::string::npos)
          << c.name << ": " << parsed.status().message();
    }
  }
  // Every truncation and every single-bit flip is an error or a vector, never a crash.
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_FALSE(DeletionVector::DeserializeBlob(good.substr(0, cut), "dv.puffin").ok()) << cut;
  }
  for (size_t i = 0; i < good.size() * 8; ++i) {
    std::string b = good;
    b[i / 8] = static_cast<char>(b[i / 8] ^ (1 << (i % 8)));
    EXPECT_FALSE(DeletionVector::DeserializeBlob(b, "dv.puffin").ok()) << i;
    FixCrc(b);
    (void)DeletionVector::DeserializeBlob(b, "dv.puffin");
  }
}

TEST(DeletionVectorTest, WrittenFileGivesTheManifestFields) {
  MemoryFileSystem fs;
  const DeletionVector a = Of({0, 9});
  const DeletionVector b = Of({int64_t{1} << 33});
  auto files =
      WriteDeletionVectorFile(fs, "/t/data/dv.puffin", {{"/t/data/a.parquet", a}, {"/t/data/b.parquet", b}});
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 2u);
  const int64_t size = static_cast<int64_t>(fs.ReadFileToString("/t/data/dv.puffin")->size());
  EXPECT_EQ((*files)[0], (DeletionVectorFile{"/t/data/dv.puffin", size, "/t/data/a.parquet", 4,
                                             static_cast<int64_t>(a.SerializeBlob().size()), 2}));
  EXPECT_EQ((*files)[1].content_offset, 4 + (*files)[0].content_size_in_bytes);
  EXPECT_EQ((*files)[1].record_count, 1);

  auto reader = PuffinReader::Open(fs, "/t/data/dv.puffin");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->blobs().size(), 2u);
  const PuffinBlobMetadata& second = (*reader)->blobs()[1];
  EXPECT_EQ(second.type, "deletion-vector-v1");
  EXPECT_EQ(second.snapshot_id, -1);
  EXPECT_EQ(second.sequence_number, -1);
  EXPECT_FALSE(second.compression_codec.has_value());
  EXPECT_EQ(second.properties, (std::map<std::string, std::string>{
                                   {"referenced-data-file", "/t/data/b.parquet"}, {"cardinality", "1"}}));
  auto bytes = (*reader)->ReadBlob(second);
  ASSERT_TRUE(bytes.ok());
  auto parsed = DeletionVector::DeserializeBlob(*bytes, "dv.puffin");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->Positions(), b.Positions());
}

}  // namespace
}  // namespace cqlite::iceberg

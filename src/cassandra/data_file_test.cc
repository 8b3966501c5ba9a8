#include "cassandra/data_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/checksum.h"
#include "io/file_system.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite {
namespace {

const std::string kFixtures = std::string(CQLITE_SHARED_DIR) + "/cassandra-fixtures";

#define SKIP_WITHOUT_FIXTURES()                                                          \
  if (!LocalFileSystem().IsDirectory(kFixtures)) {                                       \
    GTEST_SKIP() << "fixtures not found at " << kFixtures << " (CQLITE_SHARED_DIR)";     \
  }

// One row of PROVENANCE.md Appendix A.
struct Expected {
  std::string path;  // relative to the fixtures directory
  std::string compressor;
  uint32_t chunk_length = 0;
  size_t chunks = 0;
  uint64_t stored_bytes = 0;
  uint64_t uncompressed_bytes = 0;
};

std::vector<Expected> ReadAppendixA() {
  std::vector<Expected> rows;
  auto text = LocalFileSystem().ReadFileToString(kFixtures + "/PROVENANCE.md");
  if (!text.ok()) return rows;
  for (const std::string& line : Split(*text, '\n')) {
    auto cells = Split(line, '|');
    if (cells.size() < 9) continue;
    std::string path(Trim(cells[1]));
    if (!EndsWith(path, "-Data.db")) continue;
    Expected e;
    e.path = path;
    e.compressor = std::string(Trim(cells[3]));
    std::string chunk(Trim(cells[4])), chunks(Trim(cells[5]));
    e.chunk_length = chunk == "-" ? 0 : static_cast<uint32_t>(std::stoul(chunk));
    e.chunks = chunks == "-" ? 0 : std::stoul(chunks);
    e.stored_bytes = std::stoull(std::string(Trim(cells[6])));
    e.uncompressed_bytes = std::stoull(std::string(Trim(cells[7])));
    rows.push_back(e);
  }
  return rows;
}

std::string PrefixOf(const std::string& data_path) {
  return data_path.substr(0, data_path.size() - std::string("Data.db").size());
}

// Reads the whole stream, checking the ChunkSource contract on the way.
Result<uint64_t> Drain(ChunkSource& source, uint32_t max_chunk, std::string* bytes = nullptr) {
  uint64_t total = 0;
  while (true) {
    ASSIGN_OR_RETURN(auto chunk, source.NextChunk());
    if (chunk.empty()) break;
    if (max_chunk != 0 && chunk.size() > max_chunk) return Status::Corruption("chunk larger than chunk_length");
    total += chunk.size();
    if (bytes != nullptr) bytes->append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
  }
  return total;
}

TEST(DataFileTest, EveryFixtureDecompressesToItsRecordedSize) {
  SKIP_WITHOUT_FIXTURES();
  auto rows = ReadAppendixA();
  ASSERT_EQ(rows.size(), 171u) << "PROVENANCE.md Appendix A changed";
  std::map<std::string, int> by_compressor;
  for (const Expected& e : rows) {
    SCOPED_TRACE(e.path);
    std::string path = kFixtures + "/" + e.path;
    auto name = ParseSSTableFileName(BaseName(path));
    ASSERT_TRUE(name.ok()) << name.status().ToString();
    std::string prefix = PrefixOf(path);
    if (e.compressor != "none") {
      auto info = ReadCompressionInfo(LocalFileSystem(), prefix + "CompressionInfo.db");
      ASSERT_TRUE(info.ok()) << info.status().ToString();
      // Written either fully qualified or as the short class name.
      EXPECT_TRUE(info->compressor_class == e.compressor + "Compressor" ||
                  info->compressor_class == "org.apache.cassandra.io.compress." + e.compressor + "Compressor")
          << info->compressor_class;
      EXPECT_EQ(info->chunk_length, e.chunk_length);
      EXPECT_EQ(info->chunk_offsets.size(), e.chunks);
      EXPECT_EQ(info->data_length, e.uncompressed_bytes);
    }
    auto source = OpenDataFile(LocalFileSystem(), prefix, name->version);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    EXPECT_EQ((*source)->TotalLength(), e.uncompressed_bytes);
    auto total = Drain(**source, e.chunk_length);
    ASSERT_TRUE(total.ok()) << total.status().ToString();
    EXPECT_EQ(*total, e.uncompressed_bytes);
    ++by_compressor[e.compressor];
  }
  EXPECT_EQ(by_compressor["LZ4"], 105);
  EXPECT_EQ(by_compressor["Snappy"], 1);
  EXPECT_EQ(by_compressor["Deflate"], 1);
  EXPECT_EQ(by_compressor["Zstd"], 2);
  EXPECT_EQ(by_compressor["none"], 62);
}

TEST(DataFileTest, KnownTextAppearsInEveryCompressionVariant) {
  SKIP_WITHOUT_FIXTURES();
  for (const char* dir : {"lz4", "snappy", "deflate", "zstd", "uncompressed"}) {
    std::string prefix =
        StrCat(kFixtures, "/scylladb-3.x/", dir, "/partition_key_with_values_of_different_types/mc-1-big-");
    if (!LocalFileSystem().Exists(prefix + "Data.db")) continue;
    auto source = OpenDataFile(LocalFileSystem(), prefix, SSTableVersion{"mc", SSTableFormat::kBig});
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    std::string bytes;
    ASSERT_TRUE(Drain(**source, 0, &bytes).ok()) << dir;
    EXPECT_NE(bytes.find("variable length text 3"), std::string::npos) << dir;
  }
}

TEST(DataFileTest, TrailingEmptyChunkIsSkipped) {
  SKIP_WITHOUT_FIXTURES();
  // ttl_test mc-2: 35 bytes in two chunks, the second one empty.
  std::string prefix = kFixtures + "/apache-cassandra-dtest/ttl_test/3.0/mc-2-big-";
  auto info = ReadCompressionInfo(LocalFileSystem(), prefix + "CompressionInfo.db");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->chunk_offsets.size(), 2u);
  auto source = OpenDataFile(LocalFileSystem(), prefix, SSTableVersion{"mc", SSTableFormat::kBig});
  ASSERT_TRUE(source.ok());
  auto first = (*source)->NextChunk();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 35u);
  auto end = (*source)->NextChunk();
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  EXPECT_TRUE(end->empty());
}

// Copies an SSTable's Data.db and CompressionInfo.db into memory.
void CopyToMemory(MemoryFileSystem& mem, const std::string& from_prefix, const std::string& to_prefix,
                  std::string* data, std::string* info) {
  *data = LocalFileSystem().ReadFileToString(from_prefix + "Data.db").value();
  *info = LocalFileSystem().ReadFileToString(from_prefix + "CompressionInfo.db").value();
  mem.AddFile(to_prefix + "Data.db", *data);
  mem.AddFile(to_prefix + "CompressionInfo.db", *info);
}

const char* kClust = "/apache-cassandra/legacy-sstables/mc/legacy_tables/legacy_mc_clust/mc-1-big-";

TEST(DataFileTest, FlippedBitIsCorruptionNamingFileChunkAndOffset) {
  SKIP_WITHOUT_FIXTURES();
  MemoryFileSystem mem;
  std::string data, info_bytes;
  CopyToMemory(mem, kFixtures + kClust, "t/mc-1-big-", &data, &info_bytes);
  auto info = ReadCompressionInfo(mem, "t/mc-1-big-CompressionInfo.db");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->chunk_offsets.size(), 6u);
  uint64_t offset = info->chunk_offsets[2];
  data[offset + 10] ^= 0x04;
  mem.AddFile("t/mc-1-big-Data.db", data);
  auto source = OpenDataFile(mem, "t/mc-1-big-", SSTableVersion{"mc", SSTableFormat::kBig});
  ASSERT_TRUE(source.ok());
  auto total = Drain(**source, 0);
  ASSERT_FALSE(total.ok());
  EXPECT_EQ(total.status().kind(), StatusKind::kCorruption);
  const std::string& msg = total.status().message();
  EXPECT_NE(msg.find("t/mc-1-big-Data.db"), std::string::npos) << msg;
  EXPECT_NE(msg.find("chunk 2 "), std::string::npos) << msg;
  EXPECT_NE(msg.find(StrCat("byte offset ", offset)), std::string::npos) << msg;
  EXPECT_NE(msg.find("CRC32"), std::string::npos) << msg;
}

TEST(DataFileTest, TruncatedCompressionInfoIsACleanError) {
  SKIP_WITHOUT_FIXTURES();
  MemoryFileSystem mem;
  std::string data, info;
  CopyToMemory(mem, kFixtures + kClust, "t/mc-1-big-", &data, &info);
  for (size_t cut = 0; cut < info.size(); ++cut) {
    mem.AddFile("t/mc-1-big-CompressionInfo.db", info.substr(0, cut));
    auto source = OpenDataFile(mem, "t/mc-1-big-", SSTableVersion{"mc", SSTableFormat::kBig});
    ASSERT_FALSE(source.ok()) << cut;
    EXPECT_EQ(source.status().kind(), StatusKind::kCorruption) << source.status().ToString();
    EXPECT_NE(source.status().message().find("CompressionInfo.db"), std::string::npos)
        << source.status().message();
  }
}

TEST(DataFileTest, TruncatedDataIsACleanError) {
  SKIP_WITHOUT_FIXTURES();
  MemoryFileSystem mem;
  std::string data, info;
  CopyToMemory(mem, kFixtures + kClust, "t/mc-1-big-", &data, &info);
  for (size_t cut = 0; cut < data.size(); cut += 97) {
    mem.AddFile("t/mc-1-big-Data.db", data.substr(0, cut));
    auto source = OpenDataFile(mem, "t/mc-1-big-", SSTableVersion{"mc", SSTableFormat::kBig});
    if (!source.ok()) {
      EXPECT_EQ(source.status().kind(), StatusKind::kCorruption);
      continue;
    }
    auto total = Drain(**source, 0);
    ASSERT_FALSE(total.ok()) << cut;
    EXPECT_EQ(total.status().kind(), StatusKind::kCorruption);
    EXPECT_NE(total.status().message().find("Data.db: chunk "), std::string::npos) << total.status().message();
  }
}

// --- Synthetic files: the paths no fixture exercises. ---

void PutInt(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}
void PutLong(std::string* out, uint64_t v) {
  PutInt(out, static_cast<uint32_t>(v >> 32));
  PutInt(out, static_cast<uint32_t>(v));
}
void PutUtf(std::string* out, const std::string& s) {
  out->push_back(static_cast<char>(s.size() >> 8));
  out->push_back(static_cast<char>(s.size()));
  out->append(s);
}
std::span<const uint8_t> Bytes(const std::string& s) {
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(DataFileTest, ChunksStoredUncompressedFromNaOn) {
  // chunk_length 1024, maxCompressedLength 900: a random (incompressible)
  // first chunk is stored raw, the compressible second one as LZ4, and the
  // short last one raw and zero-padded to maxCompressedLength.
  const uint32_t kChunk = 1024, kMax = 900;
  std::string plain;
  uint32_t x = 7;
  for (int i = 0; i < 1024; ++i) plain.push_back(static_cast<char>((x = x * 1664525 + 1013904223) >> 24));
  plain.append(std::string(1024, 'a'));
  plain.append("tail bytes");
  const Codec& lz4 = GetCodec(CodecKind::kLz4);
  std::string data;
  std::vector<uint64_t> offsets;
  for (size_t start = 0; start < plain.size(); start += kChunk) {
    std::string piece = plain.substr(start, kChunk);
    std::vector<uint8_t> out(lz4.MaxCompressedLength(piece.size()));
    size_t n = lz4.Compress(Bytes(piece), out).value();
    std::string stored(reinterpret_cast<const char*>(out.data()), n);
    if (n >= kMax) {
      stored = piece;
      if (stored.size() < kMax) stored.resize(kMax, '\0');
    }
    offsets.push_back(data.size());
    data += stored;
    PutInt(&data, Crc32(Bytes(stored)));
  }
  std::string info;
  PutUtf(&info, "org.apache.cassandra.io.compress.LZ4Compressor");
  PutInt(&info, 1);
  PutUtf(&info, "min_compress_ratio");
  PutUtf(&info, "1.1");
  PutInt(&info, kChunk);
  PutInt(&info, kMax);
  PutLong(&info, plain.size());
  PutInt(&info, offsets.size());
  for (uint64_t o : offsets) PutLong(&info, o);
  MemoryFileSystem mem;
  mem.AddFile("t/nb-1-big-Data.db", data);
  mem.AddFile("t/nb-1-big-CompressionInfo.db", info);

  auto parsed = ReadCompressionInfo(mem, "t/nb-1-big-CompressionInfo.db");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->max_compressed_length, kMax);
  ASSERT_EQ(parsed->parameters.size(), 1u);
  EXPECT_EQ(parsed->parameters[0].first, "min_compress_ratio");
  auto source = OpenDataFile(mem, "t/nb-1-big-", SSTableVersion{"nb", SSTableFormat::kBig});
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  std::string out;
  auto total = Drain(**source, kChunk, &out);
  ASSERT_TRUE(total.ok()) << total.status().ToString();
  EXPECT_EQ(out, plain);

  // The same CompressionInfo read as `mc` misreads maxCompressedLength as the
  // data length: a clean error, not a crash.
  mem.AddFile("t/mc-1-big-CompressionInfo.db", info);
  mem.AddFile("t/mc-1-big-Data.db", data);
  auto old = OpenDataFile(mem, "t/mc-1-big-", SSTableVersion{"mc", SSTableFormat::kBig});
  if (old.ok()) {
    EXPECT_FALSE(Drain(**old, 0).ok());
  }
}

TEST(DataFileTest, HugeChunkLengthWithLittleDataDecodes) {
  // Found by fuzz_compressed_data (a timeout): the source allocated and
  // zeroed a buffer of the declared chunk length (here 1 GiB) even though
  // the file holds 10 uncompressed bytes; the buffer now follows the bytes
  // the chunks can hold.
  const std::string plain = "ten bytes!";
  const Codec& lz4 = GetCodec(CodecKind::kLz4);
  std::vector<uint8_t> out(lz4.MaxCompressedLength(plain.size()));
  size_t n = lz4.Compress(Bytes(plain), out).value();
  std::string data(reinterpret_cast<const char*>(out.data()), n);
  PutInt(&data, Crc32(Bytes(data)));
  std::string info;
  PutUtf(&info, "org.apache.cassandra.io.compress.LZ4Compressor");
  PutInt(&info, 0);
  PutInt(&info, 1 << 30);  // chunk length
  PutInt(&info, 1 << 30);  // maxCompressedLength
  PutLong(&info, plain.size());
  PutInt(&info, 1);
  PutLong(&info, 0);
  MemoryFileSystem mem;
  mem.AddFile("t/nb-1-big-Data.db", data);
  mem.AddFile("t/nb-1-big-CompressionInfo.db", info);
  auto source = OpenDataFile(mem, "t/nb-1-big-", SSTableVersion{"nb", SSTableFormat::kBig});
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  std::string decoded;
  auto total = Drain(**source, 1u << 30, &decoded);
  ASSERT_TRUE(total.ok()) << total.status().ToString();
  EXPECT_EQ(decoded, plain);
}

TEST(DataFileTest, UncompressedWithCrcDb) {
  std::string plain;
  for (int i = 0; i < 300; ++i) plain += StrCat("row ", i, ";");
  const uint32_t kBlock = 256;
  std::string crc;
  PutInt(&crc, kBlock);
  for (size_t start = 0; start < plain.size(); start += kBlock) {
    PutInt(&crc, Crc32(Bytes(plain.substr(start, kBlock))));
  }
  PutInt(&crc, 0);  // a trailing checksum for an empty chunk, as some writers leave
  MemoryFileSystem mem;
  mem.AddFile("t/md-2-big-Data.db", plain);
  mem.AddFile("t/md-2-big-CRC.db", crc);
  SSTableVersion md{"md", SSTableFormat::kBig};
  auto source = OpenDataFile(mem, "t/md-2-big-", md);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  std::string out;
  ASSERT_TRUE(Drain(**source, kBlock, &out).ok());
  EXPECT_EQ(out, plain);

  std::string bad = plain;
  bad[700] ^= 1;
  mem.AddFile("t/md-2-big-Data.db", bad);
  source = OpenDataFile(mem, "t/md-2-big-", md);
  ASSERT_TRUE(source.ok());
  auto total = Drain(**source, 0);
  ASSERT_FALSE(total.ok());
  EXPECT_NE(total.status().message().find("t/md-2-big-Data.db: chunk 2 at byte offset 512"), std::string::npos)
      << total.status().message();

  // Without CRC.db: 64 KiB blocks, no verification.
  mem.AddFile("u/md-2-big-Data.db", std::string(200000, 'z'));
  source = OpenDataFile(mem, "u/md-2-big-", md);
  ASSERT_TRUE(source.ok());
  auto first = (*source)->NextChunk();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 65536u);
  EXPECT_EQ(Drain(**source, 65536).value(), 200000u - 65536u);
}

TEST(DataFileTest, UnknownCompressorIsNotSupported) {
  std::string info;
  PutUtf(&info, "org.apache.cassandra.io.compress.FancyCompressor");
  PutInt(&info, 0);
  PutInt(&info, 65536);
  PutLong(&info, 10);
  PutInt(&info, 1);
  PutLong(&info, 0);
  MemoryFileSystem mem;
  mem.AddFile("t/mc-1-big-CompressionInfo.db", info);
  auto parsed = ReadCompressionInfo(mem, "t/mc-1-big-CompressionInfo.db");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().kind(), StatusKind::kNotSupported);
  EXPECT_NE(parsed.status().message().find("FancyCompressor"), std::string::npos);
}

}  // namespace
}  // namespace cqlite

// Fuzzes the compressed Data.db stream (OpenDataFile over CompressionInfo.db
// and Data.db in a MemoryFileSystem), draining every chunk.
//
// Byte 0: version index (bits 0-6, byte % 10 as in fuzz_input.h) and mode (bit 7).
//  - mode 0: a length-prefixed CompressionInfo.db, then Data.db (both fuzzed);
//  - mode 1: a valid CompressionInfo.db built here. Byte 1 picks the codec
//    (low 3 bits) and the chunk length (1 KiB << the next 3 bits); bytes
//    2..5 are the uncompressed data length (little-endian); then each
//    length-prefixed block is one chunk as stored, without its CRC32, which
//    is appended here so that the codec's decompressor is reached.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cassandra/data_file.h"
#include "fuzz_input.h"
#include "io/checksum.h"
#include "io/file_system.h"

namespace {

using namespace cqlite;

void PutU16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v));
}
void PutU32(std::string& s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>(v >> shift));
}
void PutU64(std::string& s, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) s.push_back(static_cast<char>(v >> shift));
}

void BuildValidFiles(fuzz::InputSplitter& input, const SSTableVersion& version, std::string* info,
                     std::string* data_file) {
  static const char* kCompressors[] = {"LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor",
                                       "NoopCompressor"};
  uint8_t b = input.TakeByte();
  std::string compressor = std::string("org.apache.cassandra.io.compress.") + kCompressors[(b & 7) % 5];
  uint32_t chunk_length = 1024u << ((b >> 3) & 7);
  uint32_t data_length = 0;
  for (int i = 0; i < 4; ++i) data_length |= static_cast<uint32_t>(input.TakeByte()) << (8 * i);
  std::vector<uint64_t> offsets;
  while (!input.empty() && offsets.size() < 64) {
    std::string chunk = input.TakeBlock();
    offsets.push_back(data_file->size());
    uint32_t crc = Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(chunk.data()), chunk.size()));
    *data_file += chunk;
    PutU32(*data_file, crc);
  }
  PutU16(*info, static_cast<uint16_t>(compressor.size()));
  *info += compressor;
  PutU32(*info, 0);  // no options
  PutU32(*info, chunk_length);
  if (version.HasMaxCompressedLength()) PutU32(*info, chunk_length);
  PutU64(*info, data_length);
  PutU32(*info, static_cast<uint32_t>(offsets.size()));
  for (uint64_t offset : offsets) PutU64(*info, offset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputSplitter input(data, size);
  uint8_t selector = input.TakeByte();
  const SSTableVersion& version = fuzz::AllVersions()[(selector & 0x7f) % fuzz::AllVersions().size()];
  std::string info, data_file;
  if (selector & 0x80) {
    BuildValidFiles(input, version, &info, &data_file);
  } else {
    info = input.TakeBlock();
    data_file = input.TakeRest();
  }
  MemoryFileSystem fs;
  std::string prefix = "/t/" + version.name + "-1-big-";
  fs.AddFile(prefix + "CompressionInfo.db", std::move(info));
  fs.AddFile(prefix + "Data.db", std::move(data_file));
  auto source = OpenDataFile(fs, prefix, version);
  if (!source.ok()) return 0;
  (void)(*source)->TotalLength();
  uint64_t total = 0;
  for (;;) {
    auto chunk = (*source)->NextChunk();
    if (!chunk.ok() || chunk->empty()) break;
    for (uint8_t byte : *chunk) total += byte;  // touch every byte
  }
  return static_cast<int>(total & 0);
}

// Fuzzes the Statistics.db parser. The first byte picks the SSTable version
// (index byte % 10 into ma mb mc md me na nb nc oa da); when its top bit is
// set the checksums of versions that have them are recomputed first, so that
// mutations reach the section parsers. The rest is the file.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "cassandra/statistics.h"
#include "fuzz_input.h"
#include "io/file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  fuzz::InputSplitter input(data, size);
  uint8_t selector = input.TakeByte();
  const SSTableVersion& version = fuzz::AllVersions()[(selector & 0x7f) % fuzz::AllVersions().size()];
  std::string bytes = input.TakeRest();
  if ((selector & 0x80) && version.HasMetadataChecksum()) fuzz::FixStatisticsChecksums(bytes);
  auto parsed = ParseStatistics(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                                "fuzz-Statistics.db", version);
  if (parsed.ok() && parsed->header) {
    const SerializationHeader& h = *parsed->header;
    if (h.partition_key_type) (void)h.partition_key_type->ToCql();
    for (const auto& c : h.regular_columns) (void)c.type->ToCql();
  }
  // The same bytes through the file system path.
  MemoryFileSystem fs;
  fs.AddFile("/t/" + version.name + "-1-big-Statistics.db", std::move(bytes));
  (void)ReadStatistics(fs, "/t/" + version.name + "-1-big-Statistics.db", version);
  return 0;
}

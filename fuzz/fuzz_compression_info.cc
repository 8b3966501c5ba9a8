// Fuzzes the CompressionInfo.db parser through a MemoryFileSystem. The first
// byte picks the SSTable version (byte % 10, as in fuzz_input.h); the rest is
// the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cassandra/data_file.h"
#include "fuzz_input.h"
#include "io/file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  fuzz::InputSplitter input(data, size);
  const SSTableVersion& version = fuzz::AllVersions()[input.TakeByte() % fuzz::AllVersions().size()];
  MemoryFileSystem fs;
  std::string path = "/t/" + version.name + "-1-big-CompressionInfo.db";
  fs.AddFile(path, input.TakeRest());
  auto info = ReadCompressionInfo(fs, path, version);
  if (info.ok()) (void)CodecKindName(info->codec);
  (void)ReadCompressionInfo(fs, path);  // version from the file name
  return 0;
}

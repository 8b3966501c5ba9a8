// Fuzzes the Parquet reader over a whole file: the footer (Thrift compact),
// the schema it describes, then every row group's pages (dictionary and data,
// every codec and value encoding), levels and assembled rows.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/file_system.h"
#include "parquet/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  MemoryFileSystem fs;
  fs.AddFile("f.parquet", std::string(reinterpret_cast<const char*>(data), size));
  auto reader = parquet::ParquetReader::Open(fs, "f.parquet");
  if (!reader.ok()) return 0;
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    if (!(*reader)->StartRowGroup(g).ok()) continue;
    parquet::Value row;
    while (true) {
      auto more = (*reader)->NextRow(&row);
      if (!more.ok() || !*more) break;
      (void)row.ToString();
    }
  }
  return 0;
}

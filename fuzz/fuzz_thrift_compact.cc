// Fuzzes Thrift compact decoding of the Parquet structures read from other
// writers' files. Byte 0 % 2: 0 parses the rest as a FileMetaData (a footer),
// 1 as a sequence of PageHeaders, each followed by nothing.
#include <cstddef>
#include <cstdint>
#include <span>

#include "parquet/parquet_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite::parquet;
  if (size == 0) return 0;
  std::span<const uint8_t> rest(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    (void)ParseFileMetaData(rest, "footer");
    return 0;
  }
  while (!rest.empty()) {
    size_t used = 0;
    auto header = ParsePageHeader(rest, "page", &used);
    if (!header.ok() || used == 0 || used > rest.size()) break;
    rest = rest.subspan(used);
  }
  return 0;
}

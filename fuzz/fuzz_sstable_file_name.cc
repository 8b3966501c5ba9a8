// Fuzzes the SSTable component file name parser and MakeSSTableVersion.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cassandra/sstable_version.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto name = ParseSSTableFileName(text);
  if (name.ok()) {
    const SSTableVersion& v = name->version;
    (void)(v.HasUIntDeletionTime() + v.HasImprovedMinMax() + v.HasLegacyMinMax() + v.HasAccurateMinMax() +
           v.HasOriginatingHostId() + v.HasKeyRange() + v.HasMaxCompressedLength() + v.HasMetadataChecksum());
  }
  (void)MakeSSTableVersion(text, SSTableFormat::kBig);
  (void)MakeSSTableVersion(text, SSTableFormat::kBti);
  return 0;
}

// Fuzzes the Iceberg metadata readers a shared catalog exposes us to. Byte 0
// % 3: 0 parses the rest as table metadata JSON; 1 reads it as a manifest
// list; 2 as a manifest (its entries' data files, bounds and metrics).
#include <cstddef>
#include <cstdint>
#include <string>

#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  if (size == 0) return 0;
  std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto metadata = iceberg::TableMetadataFromJson(rest, "v1.metadata.json");
      if (metadata.ok()) (void)iceberg::TableMetadataToJson(*metadata);
      break;
    }
    case 1: {
      MemoryFileSystem fs;
      fs.AddFile("snap.avro", std::move(rest));
      (void)iceberg::ReadManifestList(fs, "snap.avro");
      break;
    }
    default: {
      MemoryFileSystem fs;
      const int64_t length = static_cast<int64_t>(rest.size());
      fs.AddFile("m.avro", std::move(rest));
      iceberg::ManifestFile manifest;
      manifest.manifest_path = "m.avro";
      manifest.manifest_length = length;
      manifest.added_snapshot_id = 1;
      manifest.sequence_number = 1;
      (void)iceberg::ReadManifest(fs, manifest);
      break;
    }
  }
  return 0;
}

// Fuzzes the Avro readers behind Iceberg manifests and manifest lists that
// other writers commit. Byte 0 % 2: 0 reads the rest as an object container
// file (header, schema, codec, every block and record); 1 takes a
// length-prefixed schema JSON (fuzz_input.h) and decodes the rest as a
// sequence of datums of that schema.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "avro/binary.h"
#include "avro/container.h"
#include "avro/schema.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    auto reader = avro::ContainerReader::FromBytes(std::string(reinterpret_cast<const char*>(data + 1), size - 1),
                                                   "f.avro");
    if (!reader.ok()) return 0;
    while (true) {
      auto next = (*reader)->Next();
      if (!next.ok() || !next->has_value()) break;
    }
    return 0;
  }
  fuzz::InputSplitter input(data + 1, size - 1);
  std::string schema_json = input.TakeBlock();
  std::string datums = input.TakeRest();
  auto schema = avro::ParseSchema(schema_json, "schema");
  if (!schema.ok()) return 0;
  avro::BinaryDecoder decoder(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(datums.data()), datums.size()), "datums");
  for (int i = 0; i < 64; ++i) {
    if (!decoder.Read(*schema).ok()) break;
  }
  return 0;
}

// Fuzzes the parser of AbstractType class names (serialization headers).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cassandra/cql_type.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto type = cqlite::ParseMarshalType(text);
  if (type.ok()) {
    (void)(*type)->ToCql();
    (void)(*type)->FixedValueLength();
  }
  return 0;
}

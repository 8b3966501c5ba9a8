// Fuzzes the CQL schema parser (schema.cql / DESCRIBE output) and the CQL type
// parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cassandra/cql_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tables = ParseCqlSchema(text);
  (void)ParseCqlTableSchema(text);
  auto type = ParseCqlType(text);
  if (type.ok()) (void)(*type)->ToCql();
  return 0;
}

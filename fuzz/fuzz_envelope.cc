// Fuzzes the envelope reader over a whole file, folded as
// `cqlite select --from-envelopes` folds it. Byte 0 % 2: 0 reads the rest as
// one of our own envelope files (its schema in its footer), 1 as a Rust
// CQLite v1 file of the table in kV1Schema.
#include <cstddef>
#include <cstdint>
#include <string>

#include "envelope/envelope_reader.h"
#include "fold/table_fold.h"
#include "io/file_system.h"

namespace {

constexpr const char* kV1Schema =
    "CREATE TABLE ks.t (pk int, ck1 int, ck2 text, s text static, v text, n int, tags set<text>, "
    "PRIMARY KEY (pk, ck1, ck2));";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  if (size == 0) return 0;
  MemoryFileSystem fs;
  fs.AddFile("e.parquet", std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  envelope::ReadOptions options;
  if (data[0] % 2 == 1) {
    fs.AddFile("t.cql", kV1Schema);
    options.schema_file = "t.cql";
  }
  auto inputs = envelope::OpenEnvelopeFiles(fs, {"e.parquet"}, options);
  if (!inputs.ok()) return 0;
  auto schema = inputs->schema;
  auto fold = TableFold::Make(*schema, inputs->partitioner, std::move(inputs->sources), 1700000000);
  if (!fold.ok()) return 0;
  FoldedPartition partition;
  while (true) {
    auto more = (*fold)->Next(&partition);
    if (!more.ok() || !*more) break;
  }
  return 0;
}

// Fuzzes the Data.db partition decoder. The first byte picks a table layout
// (and an on-disk version); the rest is fed as Data.db bytes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cassandra/data_reader.h"

namespace {

using namespace cqlite;

CqlTypePtr T(const char* marshal) { return *ParseMarshalType(marshal); }

class Sink : public EnvelopeConsumer {
 public:
  Status OnPartitionStart(const PartitionHeader&) override { return Status::OK(); }
  Status OnRow(const Row& row) override {
    for (const auto& c : row.columns) cells += c.cells.size();
    return Status::OK();
  }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker&) override { return Status::OK(); }
  Status OnPartitionEnd() override { return Status::OK(); }
  size_t cells = 0;
};

std::vector<DataLayout> Layouts() {
  const char* p = "org.apache.cassandra.db.marshal.";
  auto m = [&](const std::string& s) { return T((std::string(p) + s).c_str()); };
  std::vector<DataLayout> layouts;
  for (const char* version : {"mc", "nb", "oa"}) {
    SerializationHeader h;
    h.stats = {1000, 1600000000, 0};
    h.partition_key_type = m("UTF8Type");
    h.clustering_types = {m("Int32Type"), T("org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.UTF8Type)")};
    h.static_columns = {{"s", m("LongType")}};
    h.regular_columns = {{"a", m("Int32Type")},
                         {"b", m("UTF8Type")},
                         {"l", T("org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type)")},
                         {"m", T("org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type)")}};
    SSTableVersion v;
    v.name = version;
    layouts.push_back(DataLayout::FromHeader(h, v));
    // A table with 70 columns exercises the large column-subset encoding.
    SerializationHeader wide;
    wide.stats = h.stats;
    wide.partition_key_type = m("Int32Type");
    for (int i = 0; i < 70; ++i) wide.regular_columns.push_back({"c" + std::to_string(100 + i), m("Int32Type")});
    layouts.push_back(DataLayout::FromHeader(wide, v));
  }
  return layouts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<DataLayout> layouts = Layouts();
  if (size < 1) return 0;
  const DataLayout& layout = layouts[data[0] % layouts.size()];
  DataInput in(std::span<const uint8_t>(data + 1, size - 1), "fuzz-Data.db");
  Sink sink;
  (void)ReadPartitions(in, layout, sink);
  return 0;
}

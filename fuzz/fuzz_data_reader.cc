// Fuzzes the Data.db partition decoder. The first byte picks a table layout
// (and an on-disk version); the rest is fed as Data.db bytes, once whole and
// once in small chunks (their size also from the first byte): the decoder
// reads rows in place within a chunk and through DataInput across chunks,
// and both ways must give the same records and the same error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/data_reader.h"

namespace {

using namespace cqlite;

CqlTypePtr T(const char* marshal) { return *ParseMarshalType(marshal); }

// Folds every field of every record into a hash.
class Sink : public EnvelopeConsumer {
 public:
  Status OnPartitionStart(const PartitionHeader& p) override {
    Mix(p.position, p.body_position, p.deletion.marked_for_delete_at, p.deletion.local_deletion_time);
    MixBytes(p.key);
    return Status::OK();
  }
  Status OnRow(const Row& row) override {
    Mix(row.position, row.end_position, row.is_static, row.liveness.timestamp, row.liveness.ttl,
        row.liveness.local_expiration_time, row.deletion.marked_for_delete_at, row.deletion.local_deletion_time,
        row.deletion_is_shadowable);
    MixClustering(row.clustering);
    for (const auto& c : row.columns) {
      Mix(c.column, c.is_complex, c.complex_deletion.marked_for_delete_at, c.complex_deletion.local_deletion_time,
          c.cells.size());
      for (const Cell& cell : c.cells) {
        Mix(cell.timestamp, cell.ttl, cell.local_deletion_time, cell.is_tombstone, cell.is_expiring);
        MixBytes(cell.path);
        MixBytes(cell.value);
      }
    }
    return Status::OK();
  }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& m) override {
    Mix(m.position, static_cast<int>(m.kind), m.deletion.marked_for_delete_at, m.deletion.local_deletion_time,
        m.end_deletion.marked_for_delete_at, m.end_deletion.local_deletion_time,
        m.start_deletion.marked_for_delete_at, m.start_deletion.local_deletion_time);
    MixClustering(m.bound);
    return Status::OK();
  }
  Status OnPartitionEnd() override {
    Mix(uint64_t{0xe0d});
    return Status::OK();
  }
  uint64_t hash() const { return hash_; }

 private:
  void MixOne(uint64_t v) { hash_ = (hash_ ^ v) * 0x100000001b3ULL; }
  template <class... T>
  void Mix(T... values) {
    (MixOne(static_cast<uint64_t>(values)), ...);
  }
  void MixBytes(std::string_view bytes) {
    MixOne(bytes.size());
    for (char ch : bytes) MixOne(static_cast<uint8_t>(ch));
  }
  void MixClustering(const Clustering& c) {
    MixOne(c.values.size());
    for (size_t i = 0; i < c.values.size(); ++i) {
      MixOne(c.present[i]);
      MixBytes(c.values[i]);
    }
  }
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// Hands out the bytes in chunks of a fixed size, each in a buffer of its own
// (so that a view kept into an earlier chunk is a use after free).
class ChunkedSource : public ChunkSource {
 public:
  ChunkedSource(std::span<const uint8_t> bytes, size_t chunk) : bytes_(bytes), chunk_(chunk) {}
  Result<std::span<const uint8_t>> NextChunk() override {
    size_t n = std::min(chunk_, bytes_.size() - at_);
    buffer_ = std::make_unique<uint8_t[]>(n);
    if (n > 0) std::memcpy(buffer_.get(), bytes_.data() + at_, n);
    at_ += n;
    return std::span<const uint8_t>(buffer_.get(), n);
  }
  uint64_t TotalLength() const override { return bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t chunk_;
  size_t at_ = 0;
  std::unique_ptr<uint8_t[]> buffer_;
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
  size_t chunk = 1 + (data[0] / layouts.size()) % 16;
  std::span<const uint8_t> bytes(data + 1, size - 1);

  DataInput whole(bytes, "fuzz-Data.db");
  Sink whole_sink;
  Status whole_status = ReadPartitions(whole, layout, whole_sink);

  DataInput chunked(std::make_unique<ChunkedSource>(bytes, chunk), "fuzz-Data.db");
  Sink chunked_sink;
  Status chunked_status = ReadPartitions(chunked, layout, chunked_sink);

  if (whole_status.ToString() != chunked_status.ToString() || whole_sink.hash() != chunked_sink.hash()) {
    std::fprintf(stderr, "decoding in chunks of %zu differs: %s / %s\n", chunk, whole_status.ToString().c_str(),
                 chunked_status.ToString().c_str());
    std::abort();
  }
  return 0;
}

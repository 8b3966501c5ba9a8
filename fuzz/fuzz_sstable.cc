// Fuzzes a whole SSTable: SSTable::Open and Scan over TOC.txt, Statistics.db,
// an optional CompressionInfo.db and Data.db held in a MemoryFileSystem, with
// a consumer that touches every record.
//
// Byte 0: version index (bits 0-5, byte % 10 as in fuzz_input.h); bit 6 set:
// a CompressionInfo.db block is present; bit 7 set: Statistics.db checksums
// are recomputed. Then length-prefixed blocks TOC.txt, Statistics.db,
// [CompressionInfo.db], and the rest is Data.db.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cassandra/envelope.h"
#include "cassandra/sstable.h"
#include "fuzz_input.h"
#include "io/file_system.h"

namespace {

using namespace cqlite;

class TouchEverything : public EnvelopeConsumer {
 public:
  Status OnPartitionStart(const PartitionHeader& p) override {
    Touch(p.key);
    sum_ += p.position + p.body_position + p.deletion.marked_for_delete_at + p.deletion.local_deletion_time;
    return Status::OK();
  }
  Status OnRow(const Row& row) override {
    sum_ += row.position + row.end_position + row.is_static + static_cast<uint64_t>(row.liveness.timestamp) +
            static_cast<uint64_t>(row.liveness.ttl) + static_cast<uint64_t>(row.liveness.local_expiration_time) +
            static_cast<uint64_t>(row.deletion.marked_for_delete_at) +
            static_cast<uint64_t>(row.deletion.local_deletion_time) + row.deletion_is_shadowable;
    TouchClustering(row.clustering);
    for (const ColumnData& c : row.columns) {
      sum_ += static_cast<uint64_t>(c.column) + c.is_complex + static_cast<uint64_t>(c.complex_deletion.marked_for_delete_at);
      for (const Cell& cell : c.cells) {
        // Unsigned sums: timestamps from fuzzed input may be anything.
        sum_ += static_cast<uint64_t>(cell.timestamp) + static_cast<uint64_t>(cell.ttl) +
                static_cast<uint64_t>(cell.local_deletion_time) + cell.is_tombstone + cell.is_expiring;
        Touch(cell.path);
        Touch(cell.value);
      }
    }
    return Status::OK();
  }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& m) override {
    sum_ += m.position + static_cast<int>(m.kind) + m.deletion.marked_for_delete_at +
            m.end_deletion.local_deletion_time + m.start_deletion.marked_for_delete_at + m.IsBoundary();
    TouchClustering(m.bound);
    return Status::OK();
  }
  Status OnPartitionEnd() override { return Status::OK(); }
  uint64_t sum() const { return sum_; }

 private:
  void Touch(std::string_view s) {
    for (char ch : s) sum_ += static_cast<uint8_t>(ch);
  }
  void TouchClustering(const Clustering& c) {
    for (std::string_view v : c.values) Touch(v);
    for (bool p : c.present) sum_ += p;
  }
  uint64_t sum_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputSplitter input(data, size);
  uint8_t selector = input.TakeByte();
  const SSTableVersion& version = fuzz::AllVersions()[(selector & 0x3f) % fuzz::AllVersions().size()];
  std::string toc = input.TakeBlock();
  std::string statistics = input.TakeBlock();
  if ((selector & 0x80) && version.HasMetadataChecksum()) fuzz::FixStatisticsChecksums(statistics);
  bool compressed = selector & 0x40;
  std::string compression_info = compressed ? input.TakeBlock() : std::string();
  std::string file_name = version.name + "-1-" + (version.format == SSTableFormat::kBti ? "bti" : "big") + "-Data.db";
  auto name = ParseSSTableFileName(file_name);
  if (!name.ok()) abort();  // a mistake in this harness

  MemoryFileSystem fs;
  SSTableLocation location;
  location.directory = "/data/ks/tbl-0123456789abcdef0123456789abcdef";
  location.name = *name;
  location.keyspace = "ks";
  location.table = "tbl";
  fs.AddFile(location.ComponentPath("TOC.txt"), std::move(toc));
  fs.AddFile(location.ComponentPath("Statistics.db"), std::move(statistics));
  if (compressed) fs.AddFile(location.ComponentPath("CompressionInfo.db"), std::move(compression_info));
  fs.AddFile(location.DataPath(), input.TakeRest());

  auto sstable = SSTable::Open(fs, location);
  if (!sstable.ok()) return 0;
  TouchEverything consumer;
  (void)(*sstable)->Scan(consumer);
  return static_cast<int>(consumer.sum() & 0);
}

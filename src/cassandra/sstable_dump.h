// Renders the envelope of one SSTable as the JSON that Cassandra's
// `sstabledump` (org.apache.cassandra.tools.JsonTransformer) prints: one object
// per partition with its key, position and deletion, then its rows, static
// row and range tombstone markers, values rendered as Cassandra renders them.
#pragma once

#include <cstdint>
#include <ostream>

#include "cassandra/data_reader.h"
#include "cassandra/envelope.h"
#include "util/json_writer.h"

namespace cqlite {

class SSTableDumpWriter : public EnvelopeConsumer {
 public:
  // `layout` must outlive the writer. `now_seconds` decides the "expired"
  // flags sstabledump prints for TTLs.
  SSTableDumpWriter(std::ostream& out, const DataLayout& layout, CqlTypePtr partition_key_type,
                    int64_t now_seconds);

  // Call once before the first and once after the last partition.
  void Begin();
  void End();

  Status OnPartitionStart(const PartitionHeader& partition) override;
  Status OnRow(const Row& row) override;
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override;
  Status OnPartitionEnd() override;

 private:
  Status WritePartitionKey(const std::string& key);
  Status WriteClustering(const Clustering& clustering);
  void WriteDeletion(const DeletionTime& deletion);
  Status WriteCell(const ColumnLayout& column, const Cell& cell, const LivenessInfo& liveness);
  Status WriteBound(bool is_start, bool inclusive, const Clustering& bound, const DeletionTime& deletion);

  JsonWriter json_;
  const DataLayout& layout_;
  CqlTypePtr partition_key_type_;
  int64_t now_seconds_;
  // Position of the first row: sstabledump reports the position after the
  // partition header (and static row) for both the partition and that row.
  uint64_t partition_body_position_ = 0;
  bool partition_open_ = false;
  bool header_written_ = false;
  PartitionHeader partition_;
};

// Cassandra's ColumnIdentifier.toCQLString: the name, double-quoted when it is
// not a lower-case identifier or is a reserved word.
std::string QuoteColumnName(const std::string& name);

}  // namespace cqlite

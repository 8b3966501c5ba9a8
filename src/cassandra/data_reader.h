// The Data.db decoder for the row format Cassandra 3.0 to 5.0 write (BIG
// `ma`..`oa` and BTI `da` share it): partitions of rows, range tombstone
// markers and cells, delta-encoded against the serialization header
// (org.apache.cassandra.db.rows.UnfilteredSerializer and friends).
//
// It pushes one envelope record per fact to an EnvelopeConsumer and keeps
// nothing: memory is bounded by the largest single row, not the file.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/envelope.h"
#include "cassandra/statistics.h"
#include "cassandra/table_schema.h"
#include "cassandra/token.h"
#include "io/data_input.h"

namespace cqlite {

// A static or regular column as Data.db encodes it.
struct ColumnLayout {
  std::string name;
  CqlTypePtr type;
  bool is_complex = false;  // non-frozen collection or UDT: one cell per element
  int fixed_length = -1;    // the type's fixed value length, -1 if variable
};

// What decoding a Data.db needs: the serialization header's types with its
// columns in Cassandra's order (simple before complex, then by name bytes),
// which is the order cells are written in and ColumnData::column indexes.
struct DataLayout {
  SSTableVersion version;
  EncodingStats stats;
  std::vector<CqlTypePtr> clustering_types;
  std::vector<int> clustering_fixed_lengths;  // per clustering type, -1 if variable
  std::vector<ColumnLayout> static_columns;
  std::vector<ColumnLayout> regular_columns;
  // The partitioner the file was written with, when it is one whose order
  // CQLite checks (Murmur3, Random or ByteOrdered); partitions must come in its order.
  std::optional<Partitioner> partitioner;

  // With a `schema`, a column the header lists as a non-frozen user type but
  // the schema has frozen is read frozen: Cassandra 3.0 wrote frozen UDTs
  // into headers unmarked (CASSANDRA-15035).
  static DataLayout FromHeader(const SerializationHeader& header, const SSTableVersion& version,
                               const TableSchema* schema = nullptr);
  const std::vector<ColumnLayout>& columns(bool is_static) const {
    return is_static ? static_columns : regular_columns;
  }
};

// Decodes every partition of `in` until its end, in file order. Returns the
// first error: a Corruption naming the file and byte offset, or whatever the
// consumer returned.
Status ReadPartitions(DataInput& in, const DataLayout& layout, EnvelopeConsumer& consumer);

class PartitionDecoder;

// The same decoder, pulled one partition at a time: for readers of many
// files at once (the fold merges generations partition by partition).
class PartitionReader {
 public:
  // `in` and `layout` must outlive the reader.
  PartitionReader(DataInput& in, const DataLayout& layout);
  ~PartitionReader();

  // Decodes a partition a piece at a time, so that none is held whole:
  // StartNext decodes the next partition's start (OnPartitionStart and its
  // static row) into `consumer`: true if there was one, false at the end of
  // the file, or the first error (as ReadPartitions). Then each ReadItems
  // call decodes at most `max_items` of its rows and markers, true once the
  // partition's end is read (and OnPartitionEnd called). REQUIRES: ReadItems
  // only after a StartNext that returned true, until it returns true.
  Result<bool> StartNext(EnvelopeConsumer& consumer);
  Result<bool> ReadItems(EnvelopeConsumer& consumer, size_t max_items);
  // The rest of the partition, passed over by the sizes its rows and markers
  // declare (no row or marker reaches `consumer`, only OnPartitionEnd). The
  // same REQUIRES as ReadItems.
  Status SkipItems(EnvelopeConsumer& consumer);

 private:
  class Forwarder;
  DataInput& in_;
  std::unique_ptr<Forwarder> forwarder_;
  std::unique_ptr<PartitionDecoder> decoder_;
};

}  // namespace cqlite

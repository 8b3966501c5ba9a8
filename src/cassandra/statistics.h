// Statistics.db: the metadata Cassandra keeps beside each SSTable
// (org.apache.cassandra.io.sstable.metadata.*). Holds the validation,
// compaction and stats sections and the serialization header, which carries
// the column types the Data.db encoding depends on and the base values that
// its delta-encoded timestamps are relative to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/cql_type.h"
#include "cassandra/sstable_version.h"
#include "util/status.h"

namespace cqlite {

class FileSystem;

// org.apache.cassandra.db.rows.EncodingStats: the bases of delta encoding.
struct EncodingStats {
  int64_t min_timestamp = 0;
  int64_t min_local_deletion_time = 0;
  int64_t min_ttl = 0;
};

struct HeaderColumn {
  std::string name;  // as stored (UTF-8 bytes of the column name)
  CqlTypePtr type;
};

// org.apache.cassandra.db.SerializationHeader.Component
struct SerializationHeader {
  EncodingStats stats;
  CqlTypePtr partition_key_type;             // CompositeType for multi-column keys
  std::vector<CqlTypePtr> clustering_types;  // ReversedType kept as reversed=true
  std::vector<HeaderColumn> static_columns;  // in the header's (sorted by name) order
  std::vector<HeaderColumn> regular_columns;
};

struct ValidationMetadata {
  std::string partitioner;  // class name, e.g. org.apache.cassandra.dht.Murmur3Partitioner
  double bloom_filter_fp_chance = 0;
};

struct StatsMetadata {
  int64_t min_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t min_local_deletion_time = 0;
  int64_t max_local_deletion_time = 0;
  int32_t min_ttl = 0;
  int32_t max_ttl = 0;
  double compression_ratio = 0;
  int64_t repaired_at = 0;  // 0 = unrepaired
  std::optional<std::string> pending_repair;  // time-UUID text, when pending
  bool is_transient = false;
  int32_t sstable_level = 0;
  int64_t total_columns_set = 0;
  int64_t total_rows = 0;
  // Partition count estimated from the partition size histogram.
  int64_t estimated_partition_count = 0;
  std::vector<std::string> min_clustering_values;  // hex, informational
  std::vector<std::string> max_clustering_values;
};

struct Statistics {
  std::optional<ValidationMetadata> validation;
  std::optional<StatsMetadata> stats;
  std::optional<SerializationHeader> header;
};

// Reads and parses `path` (a Statistics.db written by `version`). Errors name
// the file, the section and the byte offset.
Result<Statistics> ReadStatistics(FileSystem& fs, const std::string& path, const SSTableVersion& version);

}  // namespace cqlite

// Statistics.db: the metadata Cassandra keeps beside each SSTable
// (org.apache.cassandra.io.sstable.metadata.*). Holds the validation,
// compaction and stats sections and the serialization header, which carries
// the column types the Data.db encoding depends on and the base values that
// its delta-encoded timestamps are relative to.
//
// Layout (MetadataSerializer): int section count, [CRC32 from `na`], then
// (int type ordinal, int byte offset) per section, [CRC32 of everything so
// far from `na`], then each section, [followed by its CRC32 from `na`].
// Ordinals: 0 VALIDATION, 1 COMPACTION, 2 STATS, 3 HEADER. All checksums are
// verified, and each section must be consumed exactly, so a wrong version
// flag shows up as an error rather than as silently wrong values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cassandra/cql_type.h"
#include "cassandra/envelope.h"
#include "cassandra/sstable_version.h"
#include "util/status.h"

namespace cqlite {

class FileSystem;

// org.apache.cassandra.db.rows.EncodingStats: the bases of delta encoding.
// Stored as unsigned vints relative to 2015-09-22T00:00:00Z (kTimestampEpoch
// microseconds / kDeletionTimeEpoch seconds) and 0 (TTL); the local deletion
// time and TTL are 32-bit values that wrap as Java's int arithmetic does.
struct EncodingStats {
  static constexpr int64_t kTimestampEpoch = 1442880000000000;  // EncodingStats.TIMESTAMP_EPOCH
  static constexpr int32_t kDeletionTimeEpoch = 1442880000;     // EncodingStats.DELETION_TIME_EPOCH

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

// org.apache.cassandra.utils.EstimatedHistogram as serialized: bucket i
// counts values in (offsets[i-1], offsets[i]]; the last bucket is overflow.
struct EstimatedHistogram {
  std::vector<int64_t> offsets;  // one fewer than buckets
  std::vector<int64_t> buckets;
};

// org.apache.cassandra.db.commitlog.CommitLogPosition
struct CommitLogPosition {
  int64_t segment_id = 0;
  int32_t position = 0;
};

struct StatsMetadata {
  EstimatedHistogram estimated_partition_size;
  EstimatedHistogram estimated_cell_per_partition_count;
  CommitLogPosition commit_log_upper_bound;
  CommitLogPosition commit_log_lower_bound;  // zero before `mb`
  std::vector<std::pair<CommitLogPosition, CommitLogPosition>> commit_log_intervals;  // from `mc`
  // (local deletion time in seconds, tombstone count) pairs.
  std::vector<std::pair<int64_t, int64_t>> tombstone_drop_times;
  bool has_legacy_counter_shards = false;
  std::optional<std::string> originating_host_id;  // UUID text, from `me` / `nb`
  // Whether any partition-level deletion may exist (read from `nc`, else
  // inferred as Cassandra does: any deletion at all).
  bool has_partition_level_deletions = false;
  // Improved min/max (`nc`+): the clustering types of the covered slice and
  // its bound kinds (ClusteringPrefix.Kind ordinals).
  std::vector<CqlTypePtr> covered_clustering_types;
  int covered_start_kind = -1;
  int covered_end_kind = -1;
  // Key range (`nc`+): serialized partition keys, raw bytes.
  std::optional<std::string> first_key;
  std::optional<std::string> last_key;
  std::optional<double> token_space_coverage;  // from `oa`

  int64_t min_timestamp = 0;
  int64_t max_timestamp = 0;
  // Seconds since the epoch; kNoDeletionTime when there is none. Unsigned
  // 32-bit on disk from `oa`, signed before.
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
  // Hex of each component: the legacy lists before `oa` (trustworthy only when
  // HasAccurateMinMax), else the covered slice's start and end bounds.
  std::vector<std::string> min_clustering_values;  // hex, informational
  std::vector<std::string> max_clustering_values;
};

// org.apache.cassandra.io.sstable.metadata.CompactionMetadata: a serialized
// HyperLogLogPlus cardinality estimator, kept opaque.
struct CompactionMetadata {
  std::string cardinality_estimator;
};

// One entry of the Statistics.db table of contents.
struct StatisticsSection {
  int32_t type = 0;     // MetadataType ordinal (on-disk value)
  uint64_t offset = 0;  // byte offset of the section
  uint64_t length = 0;  // bytes, including its checksum when present
};

struct Statistics {
  std::vector<StatisticsSection> sections;
  std::optional<ValidationMetadata> validation;
  std::optional<CompactionMetadata> compaction;
  std::optional<StatsMetadata> stats;
  std::optional<SerializationHeader> header;
};

// Whether incremental repair has marked the SSTable repaired: repairedAt
// set and no repair pending (its data agrees on every replica).
inline bool MarkedRepaired(const Statistics& statistics) {
  return statistics.stats && statistics.stats->repaired_at != 0 && !statistics.stats->pending_repair;
}

// Reads and parses `path` (a Statistics.db written by `version`). Errors name
// the file, the section and the byte offset.
Result<Statistics> ReadStatistics(FileSystem& fs, const std::string& path, const SSTableVersion& version);

// Parses Statistics.db bytes already in memory; `path` names them in errors.
Result<Statistics> ParseStatistics(std::span<const uint8_t> bytes, const std::string& path,
                                   const SSTableVersion& version);

}  // namespace cqlite

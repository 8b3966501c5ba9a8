// The delta envelope: every fact one SSTable generation stores, as the Data.db
// reader emits it, in token then clustering order, nothing merged and nothing
// dropped (DESIGN D3). The fold consumes these records; `cqlite dump` renders
// them the way Cassandra's sstabledump does.
//
// Values are kept as Cassandra serialized them (CQL native-protocol bytes);
// times as Cassandra stores them: timestamps in microseconds since the epoch,
// local deletion/expiration times in seconds since the epoch (unsigned 32-bit
// on disk from format `oa` on, so held in int64), TTLs in seconds. Older
// formats' values are converted to Cassandra 5.0's in-memory form.
//
// Records are reused by the reader between calls: a consumer that keeps one
// past the callback must copy it. Value bytes (Cell::path, Cell::value,
// Clustering::values) are views, not copies: they point into the reader's
// decompressed chunk or into a buffer of the reader's, and are valid only
// until the callback that received them returns. A consumer that keeps a
// value copies its bytes (std::string(view), or Clustering::CopyValues()).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace cqlite {

// Special values, as Cassandra 5.0 holds them in memory whatever the on-disk
// version (org.apache.cassandra.db.LivenessInfo, rows.Cell, DeletionTime):
inline constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::min();
inline constexpr int32_t kNoTtl = 0;
// A TTL that marks a liveness info as already expired (LivenessInfo.EXPIRED_LIVENESS_TTL).
inline constexpr int32_t kExpiredLivenessTtl = std::numeric_limits<int32_t>::max();
// No deletion or expiration time (Cell.NO_DELETION_TIME).
inline constexpr int64_t kNoDeletionTime = std::numeric_limits<int64_t>::max();
// Stands for a negative (corrupt or overflowed) local deletion time (Cell.INVALID_DELETION_TIME).
inline constexpr int64_t kInvalidDeletionTime = 0xFFFFFFFFLL - 1;
// The largest valid local deletion time (Cell.MAX_DELETION_TIME).
inline constexpr int64_t kMaxDeletionTime = 0xFFFFFFFFLL - 2;

// org.apache.cassandra.db.DeletionTime.
struct DeletionTime {
  int64_t marked_for_delete_at = std::numeric_limits<int64_t>::min();
  int64_t local_deletion_time = kNoDeletionTime;

  bool IsLive() const {
    return marked_for_delete_at == std::numeric_limits<int64_t>::min() && local_deletion_time == kNoDeletionTime;
  }
  // DeletionTime.build: a negative or out-of-range local deletion time is invalid.
  static DeletionTime Build(int64_t marked_for_delete_at, int64_t local_deletion_time) {
    if (local_deletion_time < 0 || local_deletion_time > kMaxDeletionTime) {
      return {marked_for_delete_at, kInvalidDeletionTime};
    }
    return {marked_for_delete_at, local_deletion_time};
  }
  bool operator==(const DeletionTime&) const = default;
};

// Primary-key liveness of a row (org.apache.cassandra.db.LivenessInfo).
struct LivenessInfo {
  int64_t timestamp = kNoTimestamp;
  int32_t ttl = kNoTtl;
  int64_t local_expiration_time = kNoDeletionTime;  // meaningful when ttl != 0

  bool IsEmpty() const { return timestamp == kNoTimestamp; }
  bool IsExpiring() const { return ttl != kNoTtl; }
};

// One cell: a simple column's value, or one element of a complex column
// (non-frozen collection or user type) identified by `path`.
struct Cell {
  int64_t timestamp = kNoTimestamp;
  int32_t ttl = kNoTtl;
  int64_t local_deletion_time = kNoDeletionTime;  // tombstone time or expiry time
  bool is_tombstone = false;
  bool is_expiring = false;
  // Views valid until the callback returns (see the top of this file).
  std::string_view path;   // cell path (collection key / list cell id / UDT field index); empty for simple cells
  std::string_view value;  // empty for tombstones and empty values
};

// The data of one column within a row.
struct ColumnData {
  int column = 0;             // index into the table's static or regular columns (see TableSchema)
  bool is_complex = false;    // non-frozen collection or UDT
  DeletionTime complex_deletion;  // complex columns only
  std::vector<Cell> cells;    // exactly one for simple columns
};

// How a clustering prefix is bounded (org.apache.cassandra.db.ClusteringPrefix.Kind).
// On-disk values: the ordinal written before a clustering bound.
enum class ClusteringKind : uint8_t {
  kExclEndBound = 0,
  kInclStartBound = 1,
  kExclEndInclStartBoundary = 2,
  kStaticClustering = 3,
  kClustering = 4,
  kInclEndExclStartBoundary = 5,
  kInclEndBound = 6,
  kExclStartBound = 7,
  kSstableLowerBound = 8,
  kSstableUpperBound = 9,
};

// Clustering values; an absent value (null in the header bitmap) is nullopt
// only in the rare legacy tables that allow it, kept as `present[i] == false`.
struct Clustering {
  std::vector<std::string_view> values;  // views valid until the callback returns
  std::vector<bool> present;

  void Clear() {
    values.clear();
    present.clear();
  }
  // The values as strings of their own, for a consumer that keeps them.
  std::vector<std::string> CopyValues() const { return {values.begin(), values.end()}; }
};

struct Row {
  uint64_t position = 0;      // uncompressed Data.db offset where the row starts
  uint64_t end_position = 0;  // and where the next item starts
  bool is_static = false;
  Clustering clustering;  // empty for the static row
  LivenessInfo liveness;
  DeletionTime deletion;
  bool deletion_is_shadowable = false;
  std::vector<ColumnData> columns;  // in the table's column order

  void Clear();
};

// A range tombstone bound or boundary (org.apache.cassandra.db.rows.RangeTombstoneMarker).
struct RangeTombstoneMarker {
  uint64_t position = 0;
  ClusteringKind kind = ClusteringKind::kInclStartBound;
  Clustering bound;  // may be a prefix of the clustering columns
  // For a bound: `deletion` is its deletion time. For a boundary: `end_deletion`
  // closes the range before it and `start_deletion` opens the one after it.
  DeletionTime deletion;
  DeletionTime end_deletion;
  DeletionTime start_deletion;

  bool IsBoundary() const {
    return kind == ClusteringKind::kExclEndInclStartBoundary || kind == ClusteringKind::kInclEndExclStartBoundary;
  }
};

struct PartitionHeader {
  uint64_t position = 0;       // uncompressed Data.db offset of the partition
  uint64_t body_position = 0;  // offset after the key and partition deletion
  std::string key;             // serialized partition key
  int64_t token = 0;           // Murmur3Partitioner token; 0 under other partitioners
  DeletionTime deletion;       // partition-level deletion
};

// Receives the envelope of one SSTable generation, in file order. Any non-OK
// Status stops the reader and is returned by it.
class EnvelopeConsumer {
 public:
  virtual ~EnvelopeConsumer() = default;
  virtual Status OnPartitionStart(const PartitionHeader& partition) = 0;
  // The static row, if any, comes first. `row` is reused after the call returns.
  virtual Status OnRow(const Row& row) = 0;
  virtual Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) = 0;
  virtual Status OnPartitionEnd() = 0;
  // Whether the regular row at `clustering` (of the partition OnPartitionStart
  // began) is wanted. A reader that can pass a row over by the size it
  // declares asks once its clustering is read, and a row turned down never
  // reaches OnRow, none of its cells decoded. May be asked more than once
  // for one row.
  virtual bool WantsRow(const Clustering& /*clustering*/) { return true; }
};

}  // namespace cqlite

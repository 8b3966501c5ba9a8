// What the fold reads and writes: the envelope records of one partition,
// owned (copied out of the reader's reused buffers), with columns named by
// their index in the table's schema rather than in one SSTable's header, so
// records from different generations line up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cassandra/envelope.h"

namespace cqlite {

// A clustering or range tombstone bound, with bytes of its own (the
// reader's Clustering only views its buffers). A value absent from a legacy
// table's clustering is `present[i] == false`; `present` may be empty when
// every value is present.
struct FoldClustering {
  std::vector<std::string> values;
  std::vector<bool> present;

  void Clear() {
    values.clear();
    present.clear();
  }
};

struct FoldCell {
  int64_t timestamp = kNoTimestamp;
  int32_t ttl = kNoTtl;
  int64_t local_deletion_time = kNoDeletionTime;  // tombstone time or expiry time
  std::string path;   // empty for simple columns
  std::string value;  // counters: the counter context

  bool IsTombstone() const { return local_deletion_time != kNoDeletionTime && ttl == kNoTtl; }
  bool IsExpiring() const { return ttl != kNoTtl; }
  // AbstractCell.isLive.
  bool IsLive(int64_t now_seconds) const {
    return local_deletion_time == kNoDeletionTime || (ttl != kNoTtl && now_seconds < local_deletion_time);
  }
};

struct FoldColumn {
  int column = 0;  // index into TableSchema::columns
  bool is_complex = false;
  DeletionTime complex_deletion;
  std::vector<FoldCell> cells;  // one for a simple column; in path order for a complex one
};

struct FoldRow {
  FoldClustering clustering;  // empty for the static row
  LivenessInfo liveness;
  DeletionTime deletion;
  bool deletion_is_shadowable = false;
  std::vector<FoldColumn> columns;  // in increasing `column` order
  // Of a row the fold hands on (FoldedPartition): the earliest time
  // (seconds) at which its liveness or one of its cells expires, INT64_MAX
  // when none does. The fold sees every cell as it decides what is live, so
  // it keeps this on the way.
  int64_t earliest_expiry = INT64_MAX;
};

struct FoldMarker {
  ClusteringKind kind = ClusteringKind::kInclStartBound;
  FoldClustering bound;
  DeletionTime deletion;        // bounds
  DeletionTime end_deletion;    // boundaries: closes the range before
  DeletionTime start_deletion;  // boundaries: opens the range after

  bool IsBoundary() const {
    return kind == ClusteringKind::kExclEndInclStartBoundary || kind == ClusteringKind::kInclEndExclStartBoundary;
  }
  bool IsStart() const { return kind == ClusteringKind::kInclStartBound || kind == ClusteringKind::kExclStartBound; }
};

// One partition of one generation, in file order: its start (key, deletion,
// static row) and its rows and range tombstone markers, all of them or a
// piece (a source may hand on a wide partition a piece at a time, see
// FoldSource::More).
struct FoldPartition {
  std::string key;
  DeletionTime deletion;
  bool has_static_row = false;
  FoldRow static_row;
  std::vector<FoldRow> rows;
  std::vector<FoldMarker> markers;
  // Rows and markers interleaved as written: false takes the next row, true
  // the next marker.
  std::vector<bool> item_is_marker;
  // False while more rows and markers of the partition are to come.
  bool complete = true;

  // Empties the rows and markers, for the next piece.
  void ClearItems() {
    rows.clear();
    markers.clear();
    item_is_marker.clear();
  }

  void Clear() {
    key.clear();
    deletion = DeletionTime{};
    has_static_row = false;
    static_row = FoldRow{};
    ClearItems();
    complete = true;
  }
};

// One partition's current state: only what is live at the fold's time. A
// wide partition comes in several pieces, one after another, each with the
// key and static row and some of the rows.
struct FoldedPartition {
  std::string key;
  bool has_static_row = false;  // a static row with at least one live cell
  FoldRow static_row;
  std::vector<FoldRow> rows;  // live rows in clustering order
};

}  // namespace cqlite

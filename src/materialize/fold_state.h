// The fold state (DESIGN D5): what a materialization run needs of the runs
// before it, kept beside the Iceberg table and committed with each snapshot
// (the snapshot summary's `cqlite.fold-state` names its file).
//
//  - The facts of every generation consumed so far, as envelope files
//    (docs/formats/envelope.md). Tombstones and timestamps must outlive the
//    run that read them: a later generation may carry older writes that a
//    consumed deletion still shadows, or newer ones that replace a row. They
//    are kept as facts sets, each one source of the fold: a generation's
//    files, or a merge of several generations' (envelope_merge.h). A run
//    merges sets so that it never reads more than its fan-in at once, the
//    smallest first, as a size-tiered compaction does.
//  - The row index: for each row the table shows, in fold order (token,
//    partition key, clustering), its primary key, where it is (data file and
//    position) and a hash of its Iceberg values. A run merges it with the new
//    fold output to decide which rows to append and which positions to delete.
//
// The state file is JSON (format 2; format 1, one facts file per generation,
// is read too); the row index is a Parquet file read one
// row group at a time. Files are never modified once written: a run writes
// new ones and the commit switches to them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fold/fold_types.h"
#include "io/file_system.h"
#include "parquet/reader.h"
#include "parquet/value.h"
#include "parquet/writer.h"
#include "util/status.h"

namespace cqlite::materialize {

struct ConsumedGeneration {
  std::string identity;  // "<table id>/<sstable name>/<Data.db CRC32>"
  int64_t max_timestamp = 0;  // Statistics.db's, microseconds
};

// One source of the fold: envelope files read one after another.
struct FactsSet {
  std::vector<std::string> files;
  int generations = 1;  // more than one: a merged facts set
  int64_t bytes = 0;    // of its files
};

struct FoldState {
  std::vector<ConsumedGeneration> generations;
  std::vector<FactsSet> facts;
  std::string row_index;  // empty: no row yet
  int64_t row_count = 0;
  // The earliest time (seconds) a visible cell or row expires; INT64_MAX if none.
  int64_t next_expiry = INT64_MAX;
  int64_t folded_at = 0;  // the `now` TTLs were evaluated at, seconds

  int64_t DeltaHorizonMicros() const;
};

std::string FoldStateToJson(const FoldState& state);
Result<FoldState> FoldStateFromJson(const std::string& text, const std::string& path);

struct RowIndexEntry {
  std::string partition_key;  // the stored key bytes
  FoldClustering clustering;
  std::string data_file;
  int64_t position = 0;
  uint64_t hash = 0;
};

class RowIndexWriter {
 public:
  static Result<std::unique_ptr<RowIndexWriter>> Open(FileSystem& fs, const std::string& path);
  // REQUIRES: entries are added in fold order.
  Status Add(const RowIndexEntry& entry);
  Status Close();
  int64_t count() const { return count_; }

 private:
  explicit RowIndexWriter(std::unique_ptr<parquet::ParquetWriter> writer) : writer_(std::move(writer)) {}
  std::unique_ptr<parquet::ParquetWriter> writer_;
  int64_t count_ = 0;
};

class RowIndexReader {
 public:
  // An empty `path` reads as an index without entries.
  static Result<std::unique_ptr<RowIndexReader>> Open(FileSystem& fs, const std::string& path);
  // The next entry in fold order, or false at the end.
  Result<bool> Next(RowIndexEntry* entry);

 private:
  std::unique_ptr<parquet::ParquetReader> reader_;
  std::string path_;
  int next_group_ = 0;
  std::vector<parquet::Value> rows_;
  size_t next_row_ = 0;
};

// The merges that leave at most `fan_in` (at least 2) of the sets of these
// sizes: each merge lists the indexes it merges, into a set that gets the
// next index (sizes.size(), then one more per merge). Nothing is merged while
// the sets are within the fan-in. Beyond it a merge takes the fewest
// smallest sets that bring the count down, and goes on with the next
// smallest while each is no larger than those taken together (at most fan_in
// in all): runs that each add a small set merge small sets among themselves,
// and a large set is merged again only when as much has accumulated.
std::vector<std::vector<size_t>> PlanFactsMerges(const std::vector<int64_t>& sizes, int fan_in);

// A 64-bit hash of a value tree: equal values hash equally across runs.
uint64_t HashValue(const parquet::Value& value);

}  // namespace cqlite::materialize

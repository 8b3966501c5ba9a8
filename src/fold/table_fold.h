// The fold: merges the partitions of any number of generations of one table
// into the table's current state, with Cassandra's read-path rules (DESIGN
// D4): last-write-wins per cell, primary-key liveness, partition, range and
// row deletions, complex deletions and per-element merge of non-frozen
// collections, counter shard merge, TTL expiry as of a given time, static
// rows. The result depends only on the set of generations, not their order,
// and folding a generation twice changes nothing.
//
// It streams: generations are read one partition at a time, in token order,
// so memory is bounded by the largest partition times the number of
// generations, not by the size of the table.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/table_schema.h"
#include "cassandra/token.h"
#include "fold/fold_types.h"
#include "fold/value_order.h"
#include "util/status.h"

namespace cqlite {

// One generation, read partition by partition in partitioner order.
class FoldSource {
 public:
  virtual ~FoldSource() = default;
  // Fills `partition` with the next partition: true if there was one, false
  // at the end, or the first error (naming the file and where).
  virtual Result<bool> Next(FoldPartition* partition) = 0;
  // Names the generation in messages (usually its Data.db path).
  virtual const std::string& name() const = 0;
  // Whether a partition key may come several times in a row, once per
  // generation of a source that holds several (a merged facts file); each is
  // folded as a version of its own. Otherwise keys must strictly increase.
  virtual bool repeats_partitions() const { return false; }
};

// Folds one partition key's versions (one per generation that has it) as of
// `now_seconds`. Cells are moved, not copied, out of the versions, which are
// left valid but unspecified. Exposed for tests; TableFold drives it.
class PartitionFolder {
 public:
  PartitionFolder(const TableSchema& schema, int64_t now_seconds);

  void Fold(const std::vector<FoldPartition*>& versions, FoldedPartition* out);

 private:
  struct Item;
  // Merges rows with equal clustering under `active` (the partition and range
  // deletions covering them); true and fills `out` if the result is live.
  bool MergeRows(const std::vector<FoldRow*>& rows, DeletionTime active, FoldRow* out);
  void MergeColumn(int column, const std::vector<FoldColumn*>& versions, const DeletionTime& active,
                   FoldRow* out);

  const TableSchema& schema_;
  int64_t now_;
  ClusteringOrder order_;
  std::vector<bool> is_counter_;  // per schema column
};

class TableFold {
 public:
  // All sources must be of the same table, written by the same partitioner.
  // Without a partitioner (one CQLite cannot order keys by) there must be a
  // single source, read in file order.
  static Result<std::unique_ptr<TableFold>> Make(const TableSchema& schema, std::optional<Partitioner> partitioner,
                                                 std::vector<std::unique_ptr<FoldSource>> sources,
                                                 int64_t now_seconds);

  // The next partition in token order that has any live row or static data,
  // or false at the end.
  Result<bool> Next(FoldedPartition* out);

 private:
  struct Cursor {
    std::unique_ptr<FoldSource> source;
    // The source's versions of its current key: versions[0, count). More
    // than one only when the source repeats partitions.
    std::vector<FoldPartition> versions;
    size_t count = 0;
    // A repeating source's partition after them, read to see the key change.
    FoldPartition next;
    bool has_next = false;
    std::string previous_key;
    bool has_previous = false;
  };
  TableFold(const TableSchema& schema, std::optional<Partitioner> partitioner,
            std::vector<std::unique_ptr<FoldSource>> sources, int64_t now_seconds);
  Status Advance(Cursor& cursor);

  std::optional<Partitioner> partitioner_;
  std::vector<Cursor> cursors_;
  PartitionFolder folder_;
  bool started_ = false;
};

}  // namespace cqlite

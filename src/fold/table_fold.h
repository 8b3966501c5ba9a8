// The fold: merges the partitions of any number of generations of one table
// into the table's current state, with Cassandra's read-path rules (DESIGN
// D4): last-write-wins per cell, primary-key liveness, partition, range and
// row deletions, complex deletions and per-element merge of non-frozen
// collections, counter shard merge, TTL expiry as of a given time, static
// rows. The result depends only on the set of generations, not their order,
// and folding a generation twice changes nothing.
//
// It streams: generations are read one partition at a time, in token order,
// and a wide partition a piece at a time (from sources that hand it on so),
// its versions merged in clustering order and its rows handed on in pieces
// too; so memory is bounded by a piece of every generation, not by the size
// of the table or of its largest partition.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/table_schema.h"
#include "cassandra/token.h"
#include "fold/fold_types.h"
#include "fold/value_order.h"
#include "util/status.h"

namespace cqlite {

// One generation, read partition by partition in partitioner order.
// The first and last partition keys of a source (serialized, as in
// FoldPartition::key).
struct PartitionKeySpan {
  std::string first;
  std::string last;
};

class FoldSource {
 public:
  virtual ~FoldSource() = default;
  // Fills `partition` with the next partition: its start and its rows and
  // markers, or the first piece of them (then `partition->complete` is
  // false). True if there was one, false at the end, or the first error
  // (naming the file and where).
  virtual Result<bool> Next(FoldPartition* partition) = 0;
  // Replaces the rows and markers of `partition`, which the last Next or More
  // left incomplete, with the next piece of them, and says in
  // `partition->complete` whether it is the last. Sources that hand on whole
  // partitions are never asked.
  virtual Status More(FoldPartition* partition);
  // Passes over the rest of the partition the last Next or More left
  // incomplete (its pieces are not wanted), leaving `partition` complete.
  // By default by asking for the pieces one after another.
  virtual Status SkipRest(FoldPartition* partition);
  // As Next, for the next partition whose key `skip` does not turn down; the
  // partitions before it are passed over. By default by Next and SkipRest;
  // a source that can pass a partition over from its key alone, before its
  // rows are read, does so.
  using KeyTest = std::function<bool(std::string_view key)>;
  virtual Result<bool> NextNotSkipped(FoldPartition* partition, const KeyTest& skip);
  // From now on, regular rows that `wanted` turns down (by partition key and
  // clustering) may be left out of the pieces handed on: a source that can
  // pass a row over from its clustering, before its cells are read, does so.
  // Others hand every row on, as by default. `wanted` must outlive the source.
  using RowTest = std::function<bool(std::string_view key, const Clustering& clustering)>;
  virtual void PassOverRowsNotWanted(const RowTest* wanted) { (void)wanted; }
  // Names the generation in messages (usually its Data.db path).
  virtual const std::string& name() const = 0;
  // Its first and last partition keys, when known before reading (an
  // SSTable's Statistics.db records them from format `nc` on).
  virtual std::optional<PartitionKeySpan> key_span() const { return std::nullopt; }
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

  // Folds versions that may come in pieces. Begin folds the versions'
  // partition deletions and static rows into `out` (and empties its rows).
  // Each FoldReady then appends to `out->rows` what the pieces at hand
  // decide: the versions' rows and markers merged in clustering order, up to
  // the earliest last item of an incomplete version's piece (a later item
  // might meet rows still to come). Before the next FoldReady, every version
  // that NeedsMore must be given its next piece (in the same FoldPartition)
  // and Refilled called. Done once every version is complete and folded.
  void Begin(const std::vector<FoldPartition*>& versions, FoldedPartition* out);
  void FoldReady(FoldedPartition* out);
  bool NeedsMore(size_t version) const;
  void Refilled(size_t version);
  bool Done() const;
  // Empties `rows` (a FoldedPartition's, handed on) from `from` on, keeping
  // the rows' buffers for those FoldReady makes next.
  void RecycleRows(std::vector<FoldRow>* rows, size_t from = 0);

  // Merging instead of folding, as a Cassandra compaction merges SSTables but
  // purging nothing: the versions become one, each row's cells reconciled
  // (tombstones, expired cells and shadowed data kept), the deletions of each
  // kind the latest, the range tombstones their union with the latest
  // deletion wherever they overlap. Folding the merge gives what folding the
  // versions gives. BeginMerge and MergeReady stand for Begin and FoldReady;
  // `out` gets the partition's start, then its rows and markers.
  void BeginMerge(const std::vector<FoldPartition*>& versions, FoldPartition* out);
  void MergeReady(FoldPartition* out);

 private:
  // Where a version's piece is read up to.
  struct Position {
    size_t item = 0;
    size_t row = 0;
    size_t marker = 0;
  };
  bool HasItem(size_t version) const;
  const FoldClustering& ItemClustering(size_t version) const;
  ClusteringKind ItemKind(size_t version) const;
  void Step(size_t version);
  // Appends a row to `rows`, one recycled if there is any.
  FoldRow& AddRow(std::vector<FoldRow>* rows);
  // Walks the rows' columns (each row's in increasing column order) together:
  // `visit(column, versions)` with each column's data in the rows that have it.
  template <typename Visit>
  void ForEachColumn(const std::vector<FoldRow*>& rows, Visit visit);
  // Walks the versions' items in clustering order, up to the frontier (see
  // FoldReady). Markers at one position update each version's open range
  // deletion, then `on_markers(first of them)`; rows of one clustering go to
  // `on_rows(rows)`, the earlier version's first.
  template <typename OnMarkers, typename OnRows>
  void Walk(OnMarkers on_markers, OnRows on_rows);
  // The rows' merge for MergeReady: nothing applied, nothing dropped.
  void ReconcileRows(const std::vector<FoldRow*>& rows, FoldRow* out);
  // Merges rows with equal clustering under `active` (the partition and range
  // deletions covering them); true and fills `out` if the result is live.
  bool MergeRows(const std::vector<FoldRow*>& rows, DeletionTime active, FoldRow* out);
  // FoldReady when the partition has one version, which is most of them:
  // its items in order, nothing to merge, each row's columns moved whole.
  void FoldOnlyVersion(FoldedPartition* out);
  // MergeRows of a single row, which it takes the columns of.
  bool FoldRowAlone(FoldRow* row, DeletionTime active, FoldRow* out);
  // Merges one column's versions into `out`; true if anything of it is live.
  // Lowers `earliest_expiry` to the expiry of each expiring cell kept.
  bool MergeColumn(int column, const std::vector<FoldColumn*>& versions, const DeletionTime& active,
                   FoldColumn* out, int64_t* earliest_expiry);

  const TableSchema& schema_;
  int64_t now_;
  ClusteringOrder order_;
  std::vector<bool> is_counter_;  // per schema column

  // The partition being folded.
  std::vector<FoldPartition*> versions_;
  std::vector<Position> next_;
  std::vector<DeletionTime> open_;  // each version's open range deletion
  DeletionTime partition_deletion_;
  FoldClustering frontier_;
  DeletionTime merged_open_;  // merging: the range deletion the output has open

  // Reused from row to row, so that folding allocates little once warm.
  std::vector<FoldRow> spare_rows_;  // rows handed on before, kept for their buffers
  std::vector<size_t> column_walk_next_;
  std::vector<FoldColumn*> column_walk_versions_;
  std::vector<FoldCell*> cells_;
  std::vector<size_t> walk_heap_;
  std::vector<size_t> walk_taken_;
};

class TableFold {
 public:
  // Small enough that a piece's rows, and the buffers they reuse, stay in
  // the cache between the fold and the caller.
  static constexpr size_t kRowsPerPiece = 256;

  // All sources must be of the same table, written by the same partitioner.
  // Without a partitioner (one CQLite cannot order keys by) there must be a
  // single source, read in file order. A partition is handed on in pieces of
  // about `rows_per_piece` rows.
  static Result<std::unique_ptr<TableFold>> Make(const TableSchema& schema, std::optional<Partitioner> partitioner,
                                                 std::vector<std::unique_ptr<FoldSource>> sources,
                                                 int64_t now_seconds, size_t rows_per_piece = kRowsPerPiece);

  // The next partition in token order that has any live row or static data,
  // or the next piece of it, or false at the end. The pieces of a partition
  // come one after another, each with its key and static row and some of its
  // live rows; a partition with static data and no live row comes as one
  // piece without rows.
  Result<bool> Next(FoldedPartition* out);

  // Merges instead (PartitionFolder::BeginMerge): the next partition's
  // merged start and first rows and markers, or the next piece of them
  // (`out->complete` false until the last), or false at the end. Every
  // partition comes, deleted or not. Use either Next or NextMerged.
  Result<bool> NextMerged(FoldPartition* out);

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
            std::vector<std::unique_ptr<FoldSource>> sources, int64_t now_seconds, size_t rows_per_piece);
  Status Advance(Cursor& cursor);
  Status Start();
  // Takes the least partition key's versions; false when every source is done.
  bool StartPartition();
  // Gives each version that needs it its next piece.
  Status Refill();
  // Moves the cursors of the partition just folded on.
  Status EndPartition();

  std::optional<Partitioner> partitioner_;
  std::vector<Cursor> cursors_;
  PartitionFolder folder_;
  size_t rows_per_piece_;
  bool started_ = false;

  // The partition being folded: the cursors that have it, its versions (and
  // whose each is), and what its later pieces repeat of the first.
  bool in_partition_ = false;
  std::vector<Cursor*> equal_;
  std::vector<FoldPartition*> versions_;
  std::vector<Cursor*> version_cursor_;
  bool rows_handed_on_ = false;
  bool first_piece_ = true;
  FoldedPartition head_;  // key and static row, rows unused
};

}  // namespace cqlite

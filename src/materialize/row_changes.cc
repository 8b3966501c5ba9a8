#include "materialize/row_changes.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>

#include "cassandra/value_format.h"
#include "fold/range_source.h"
#include "fold/table_fold.h"
#include "fold/value_order.h"
#include "iceberg/schema.h"
#include "materialize/batched_data_file.h"
#include "fold_state/facts.h"
#include "materialize/position_deletes.h"
#include "parquet/row_batch.h"
#include "parquet/writer.h"
#include "util/strings.h"

namespace cqlite::materialize {

namespace {

parquet::WriterOptions DataFileOptions(const RowChangesOptions& options) {
  parquet::WriterOptions writer_options;
  writer_options.compression = options.compression;
  if (options.compression == parquet::CompressionCodec::kZstd) writer_options.compression_level = options.compression_level;
  writer_options.row_group_size = options.row_group_bytes;
  return writer_options;
}

}  // namespace

RangeOutput::RangeOutput(FileSystem& fs, const iceberg::Schema& schema, const RowChangesOptions& options,
                         RunFiles& files, int k)
    : writer_options(DataFileOptions(options)),
      data(fs, files.DataFile(k), schema, writer_options),
      deletes(fs, [&files, k](int i) { return files.DeleteFile(k, i); }, options.compression,
              PositionDeleteWriter::kDefaultMaxBuffered,
              options.deletion_vectors ? PositionDeleteWriter::Output::kInMemory
                                       : PositionDeleteWriter::Output::kDeleteFiles) {}

namespace {

constexpr int64_t kProgressEvery = 200000;

// The entries of one file chain of the old row index in some ranges: those
// before or between them are passed over, and it ends at the first entry
// after the last.
class RangeRowIndex {
 public:
  RangeRowIndex(std::unique_ptr<RowIndexReader> reader, const Murmur3RangeSet* ranges)
      : reader_(std::move(reader)), ranges_(ranges) {}

  Result<bool> Next(RowIndexEntry* entry) {
    while (!ended_) {
      ASSIGN_OR_RETURN(bool more, reader_->Next(entry));
      if (!more) break;
      if (!ranges_) return true;
      Murmur3Range::Place place = ranges_->Locate(entry->partition_key);
      if (place == Murmur3Range::Place::kAfter) break;
      if (place == Murmur3Range::Place::kInside) return true;
    }
    ended_ = true;
    return false;
  }

 private:
  std::unique_ptr<RowIndexReader> reader_;
  const Murmur3RangeSet* ranges_;  // all entries when null
  bool ended_ = false;
};

// The rows the last run left in one range, in fold order: the base layer of
// the row index with its update layer applied (fold_state.h).
class CurrentRowIndex {
 public:
  static Result<std::unique_ptr<CurrentRowIndex>> Open(FileSystem& fs, const std::vector<std::string>& base,
                                                       const std::vector<std::string>& updates,
                                                       const Murmur3RangeSet* ranges, Partitioner partitioner,
                                                       const ClusteringOrder& order) {
    ASSIGN_OR_RETURN(auto base_reader, RowIndexReader::Open(fs, base));
    ASSIGN_OR_RETURN(auto updates_reader, RowIndexReader::Open(fs, updates));
    std::unique_ptr<CurrentRowIndex> index(new CurrentRowIndex(RangeRowIndex(std::move(base_reader), ranges),
                                                               RangeRowIndex(std::move(updates_reader), ranges),
                                                               partitioner, order));
    ASSIGN_OR_RETURN(index->has_base_, index->base_.Next(&index->next_base_));
    ASSIGN_OR_RETURN(index->has_update_, index->updates_.Next(&index->next_update_));
    return index;
  }

  Result<bool> Next(RowIndexEntry* entry) {
    while (has_base_ || has_update_) {
      int order = !has_update_ ? -1
                  : !has_base_ ? 1
                               : CompareToRowIndexEntry(partitioner_, order_, next_base_, next_update_.partition_key,
                                              next_update_.clustering);
      if (order < 0) {
        std::swap(*entry, next_base_);
        ASSIGN_OR_RETURN(has_base_, base_.Next(&next_base_));
        return true;
      }
      if (order == 0) {  // replaced or removed
        ASSIGN_OR_RETURN(has_base_, base_.Next(&next_base_));
      }
      std::swap(*entry, next_update_);
      ASSIGN_OR_RETURN(has_update_, updates_.Next(&next_update_));
      if (!entry->removes()) return true;
    }
    return false;
  }

 private:
  CurrentRowIndex(RangeRowIndex base, RangeRowIndex updates, Partitioner partitioner, const ClusteringOrder& order)
      : base_(std::move(base)), updates_(std::move(updates)), partitioner_(partitioner), order_(order) {}

  RangeRowIndex base_, updates_;
  Partitioner partitioner_;
  const ClusteringOrder& order_;
  RowIndexEntry next_base_, next_update_;
  bool has_base_ = false, has_update_ = false;
};

// The changes of the partitions in `ranges` (all of them when null),
// written to the files of range number `k`.
Result<RowChanges> FoldRange(FileSystem& fs, const TableSSTables& table, const TableMapping& mapping,
                             const std::string& table_dir, const std::vector<FactsSet>& facts,
                             const RowIndexFiles& row_index, const RowChangesOptions& options,
                             const Murmur3RangeSet* ranges, int k, RunFiles& files) {
  ASSIGN_OR_RETURN(OpenedFacts opened, OpenFactsIn(fs, facts, table, ranges ? *ranges : Murmur3RangeSet::WholeRing()));
  const TableSchema& fold_schema = *opened.schema;
  const std::optional<Partitioner> partitioner = opened.partitioner;
  // The table's schema (envelope facts written with an earlier one are
  // projected onto it), whose columns `mapping` numbers.
  if (!partitioner) {
    return Status::NotSupported(StrCat(table_dir, ": written by a partitioner whose key order cqlite does not "
                                                  "know; materialize needs Murmur3, Random or ByteOrdered"));
  }
  ASSIGN_OR_RETURN(auto fold, TableFold::Make(fold_schema, partitioner, std::move(opened.sources),
                                              options.now_seconds));
  RowBatchConverter converter(fold_schema, mapping, options.mapping);
  ClusteringOrder order = ClusteringOrder::OfTable(fold_schema);
  // A COMPACT STORAGE table without (visible) clustering columns keeps its
  // rows as static rows: SELECT shows each as the partition's one row.
  const auto clustering_columns = fold_schema.ClusteringColumns();
  const bool static_rows_are_rows =
      !clustering_columns.empty() &&
      std::all_of(clustering_columns.begin(), clustering_columns.end(), [](const ColumnSchema* c) { return c->hidden; });
  const std::vector<FoldRow> static_row_as_row(1);

  RowChanges changes;
  ASSIGN_OR_RETURN(auto old_index,
                   CurrentRowIndex::Open(fs, row_index.base, row_index.updates, ranges, *partitioner, order));
  RowIndexWriter new_index(fs, [&](int i) { return files.RowIndexFile(k, i); });
  RangeOutput output(fs, mapping.schema, options, files, k);
  BatchedDataFile& data = output.data;
  PositionDeleteWriter& deletes = output.deletes;

  RowIndexEntry old;
  ASSIGN_OR_RETURN(bool has_old, old_index->Next(&old));
  auto drop_old = [&]() -> Status {
    RETURN_IF_ERROR(deletes.Add(old.data_file, old.position));
    ++changes.rows_deleted;
    ASSIGN_OR_RETURN(has_old, old_index->Next(&old));
    return Status::OK();
  };
  FoldedPartition partition;
  // A conversion error, with the table and the partition it is in.
  auto in_partition = [&](const Status& status) {
    auto key = PartitionKeyStrings(*fold_schema.PartitionKeyType(), partition.key);
    return status.WithContext(StrCat(table_dir, ": partition ", key.ok() ? Join(*key, ":") : ToHex(partition.key)));
  };

  int64_t rows_seen = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    const std::vector<FoldRow>* rows = &partition.rows;
    if (rows->empty()) {
      if (!partition.has_static_row) continue;
      if (!static_rows_are_rows) {
        ++changes.static_only_partitions;
        continue;
      }
      rows = &static_row_as_row;
    }
    const FoldRow* static_row = partition.has_static_row ? &partition.static_row : nullptr;
    if (static_row) changes.next_expiry = std::min(changes.next_expiry, static_row->earliest_expiry);
    for (const FoldRow& row : *rows) {
      if (++rows_seen % kProgressEvery == 0 && options.progress) {
        options.progress(StrCat(rows_seen, " rows folded, ", changes.rows_appended, " written, ",
                                changes.rows_deleted, " deleted"));
      }
      changes.next_expiry = std::min(changes.next_expiry, row.earliest_expiry);
      // When the row next changes by itself: a cell of its own or of the
      // partition's static row (its values are in every row) expires.
      const int64_t expires =
          std::min(row.earliest_expiry, static_row ? static_row->earliest_expiry : std::numeric_limits<int64_t>::max());
      while (has_old && CompareToRowIndexEntry(*partitioner, order, old, partition.key, row.clustering) < 0) {
        RETURN_IF_ERROR(drop_old());
      }
      if (has_old && CompareToRowIndexEntry(*partitioner, order, old, partition.key, row.clustering) == 0) {
        auto hash = converter.Append(partition.key, static_row, row, nullptr);
        if (!hash.ok()) return in_partition(hash.status());
        if (*hash == old.hash) {  // unchanged: it keeps its place
          old.expires = expires;
          RETURN_IF_ERROR(new_index.Add(old));
          ASSIGN_OR_RETURN(has_old, old_index->Next(&old));
          continue;
        }
        RETURN_IF_ERROR(drop_old());
      }
      ASSIGN_OR_RETURN(parquet::RowBatch * batch, data.batch());
      int64_t position = data.next_position();
      auto hash = converter.Append(partition.key, static_row, row, batch);
      if (!hash.ok()) return in_partition(hash.status());
      RETURN_IF_ERROR(new_index.Add(partition.key, row.clustering, data.path(), position, *hash, expires));
      ++changes.rows_appended;
    }
  }
  while (has_old) RETURN_IF_ERROR(drop_old());
  ASSIGN_OR_RETURN(changes.row_index, new_index.Close());
  for (const std::string& path : changes.row_index) RETURN_IF_ERROR(fs.SyncFile(path));
  changes.rows_total = new_index.count();
  ASSIGN_OR_RETURN(std::optional<iceberg::DataFile> data_file, data.Close());
  if (data_file) changes.data_files.push_back(std::move(*data_file));
  ASSIGN_OR_RETURN(changes.delete_files, deletes.Finish());
  changes.deleted_positions = deletes.TakePositions();
  return changes;
}

}  // namespace

Result<RowChanges> FoldRowChanges(FileSystem& fs, const TableSSTables& table, const TableMapping& mapping,
                                  const std::string& table_dir, const std::vector<FactsSet>& facts,
                                  const RowIndexFiles& row_index, const RowChangesOptions& options,
                                  RunFiles& files) {
  // Ranges of the ring only where tokens spread evenly over it.
  int threads = table.partitioner == Partitioner::kMurmur3 ? std::max(1, options.threads) : 1;
  const Murmur3RangeSet* only = options.token_ranges.whole_ring() ? nullptr : &options.token_ranges;
  if (only && table.partitioner != Partitioner::kMurmur3) {
    return Status::NotSupported(StrCat(table_dir, ": token ranges are of Murmur3Partitioner tables only"));
  }
  if (threads == 1) return FoldRange(fs, table, mapping, table_dir, facts, row_index, options, only, 0, files);

  // Each thread's share of the ring (of the token ranges asked for).
  std::vector<Murmur3RangeSet> ranges;
  for (const Murmur3Range& share : SplitMurmur3Ring(threads)) {
    ranges.push_back(only ? only->Intersect(share) : Murmur3RangeSet({share}));
  }
  std::vector<Result<RowChanges>> results = FoldRangesOnThreads<RowChanges>(
      ranges.size(), options, [&](size_t k, const RowChangesOptions& own) {
        return FoldRange(fs, table, mapping, table_dir, facts, row_index, own, &ranges[k], static_cast<int>(k), files);
      });

  // The ranges' files in range order: the row index stays in fold order.
  RowChanges all;
  for (Result<RowChanges>& result : results) {
    if (!result.ok()) return result.status();
    RowChanges& part = *result;
    for (std::string& file : part.row_index) all.row_index.push_back(std::move(file));
    for (iceberg::DataFile& file : part.data_files) all.data_files.push_back(std::move(file));
    for (iceberg::DataFile& file : part.delete_files) all.delete_files.push_back(std::move(file));
    MergeDeletedPositions(std::move(part.deleted_positions), &all.deleted_positions);
    all.next_expiry = std::min(all.next_expiry, part.next_expiry);
    all.rows_appended += part.rows_appended;
    all.rows_deleted += part.rows_deleted;
    all.rows_total += part.rows_total;
    all.static_only_partitions += part.static_only_partitions;
  }
  return all;
}

}  // namespace cqlite::materialize

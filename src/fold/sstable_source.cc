#include "fold/sstable_source.h"

#include <algorithm>
#include <limits>

#include "util/strings.h"

namespace cqlite {

namespace {

// Where the cells of one header column go.
struct ColumnTarget {
  int column = -1;  // index into TableSchema::columns; -1 to skip the column
  // Cells written at or before this time belong to a dropped incarnation.
  int64_t dropped_at = std::numeric_limits<int64_t>::min();
};

// How one SSTable's static or regular columns map onto the schema's.
struct ColumnMapping {
  std::vector<ColumnTarget> targets;  // by header column index
  // The header columns the schema has, in schema column order: a row's
  // columns are copied in this order, which the fold needs.
  std::vector<int> header_in_schema_order;
};

ColumnMapping MapColumns(const std::vector<ColumnLayout>& columns, const TableSchema& schema) {
  ColumnMapping mapping;
  for (const ColumnLayout& layout : columns) {
    ColumnTarget target;
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      if (schema.columns[i].name == layout.name) target.column = static_cast<int>(i);
    }
    target.dropped_at = schema.LastDropMicros(layout.name);
    if (target.column >= 0) {
      mapping.header_in_schema_order.push_back(static_cast<int>(mapping.targets.size()));
    }
    mapping.targets.push_back(target);
  }
  std::sort(mapping.header_in_schema_order.begin(), mapping.header_in_schema_order.end(),
            [&](int a, int b) { return mapping.targets[a].column < mapping.targets[b].column; });
  return mapping;
}

class SSTableFoldSource : public FoldSource, private EnvelopeConsumer {
 public:
  SSTableFoldSource(std::unique_ptr<SSTableScanner> scanner, const SSTable& sstable, const TableSchema& schema,
                    size_t items_per_piece)
      : scanner_(std::move(scanner)),
        items_per_piece_(std::max<size_t>(items_per_piece, 1)),
        name_(sstable.location().DataPath()),
        static_mapping_(MapColumns(sstable.layout().static_columns, schema)),
        regular_mapping_(MapColumns(sstable.layout().regular_columns, schema)) {
    const auto& stats = sstable.statistics().stats;
    if (stats && stats->first_key && stats->last_key) key_span_ = PartitionKeySpan{*stats->first_key, *stats->last_key};
  }

  Result<bool> Next(FoldPartition* partition) override { return NextAfter(partition, nullptr); }

  // A partition turned down is passed over by its rows' sizes as soon as its
  // key is read: none of its cells is decoded or copied.
  Result<bool> NextNotSkipped(FoldPartition* partition, const KeyTest& skip) override {
    return NextAfter(partition, &skip);
  }

  Status More(FoldPartition* partition) override {
    partition_ = partition;
    KeepRowsForReuse();
    partition_->ClearItems();
    ASSIGN_OR_RETURN(partition_->complete, scanner_->ReadItems(*this, items_per_piece_));
    return Status::OK();
  }

  // Passes over the rest of the partition by its rows' sizes, decoding no cell.
  Status SkipRest(FoldPartition* partition) override {
    if (!partition->complete) RETURN_IF_ERROR(scanner_->SkipItems(discard_));
    partition->complete = true;
    return Status::OK();
  }

  const std::string& name() const override { return name_; }
  std::optional<PartitionKeySpan> key_span() const override { return key_span_; }
  // Rows turned down are passed over by their sizes once their clustering is read.
  void PassOverRowsNotWanted(const RowTest* wanted) override { wanted_rows_ = wanted; }

 private:
  // Takes the records of a partition passed over, and drops them.
  class Discard final : public EnvelopeConsumer {
   public:
    Status OnPartitionStart(const PartitionHeader&) override { return Status::OK(); }
    Status OnRow(const Row&) override { return Status::OK(); }
    Status OnRangeTombstoneMarker(const RangeTombstoneMarker&) override { return Status::OK(); }
    Status OnPartitionEnd() override { return Status::OK(); }
  };
  Discard discard_;

  // Statistics.db's key range decides which readers of a token range open
  // the file at all (range_source.h), so it must be the file's.
  Status KeySpanMismatch(const char* which) const {
    return Status::Corruption(StrCat(name_, ": Statistics.db gives another ", which,
                                     " partition key than the file holds (", partitions_, " partitions read)"));
  }

  Status OnPartitionStart(const PartitionHeader& header) override {
    CopyInto(header.key, &partition_->key);
    partition_->deletion = header.deletion;
    return Status::OK();
  }

  Status OnRow(const Row& row) override {
    FoldRow* target;
    if (row.is_static) {
      partition_->has_static_row = true;
      target = &partition_->static_row;
    } else {
      target = &AddRow();
      partition_->item_is_marker.push_back(false);
    }
    CopyClustering(row.clustering, &target->clustering);
    target->liveness = row.liveness;
    target->deletion = row.deletion;
    target->deletion_is_shadowable = row.deletion_is_shadowable;
    const ColumnMapping& mapping = row.is_static ? static_mapping_ : regular_mapping_;
    // Where each header column's data is in the row, if it has any.
    column_in_row_.assign(mapping.targets.size(), -1);
    for (size_t i = 0; i < row.columns.size(); ++i) {
      column_in_row_[row.columns[i].column] = static_cast<int>(i);
    }
    // Columns and cells are assigned over those of the row reused, keeping their buffers.
    size_t columns = 0;
    for (int header_column : mapping.header_in_schema_order) {
      if (column_in_row_[header_column] < 0) continue;
      const ColumnData& data = row.columns[column_in_row_[header_column]];
      const ColumnTarget& column_target = mapping.targets[header_column];
      if (columns == target->columns.size()) target->columns.emplace_back();
      FoldColumn& column = target->columns[columns++];
      column.column = column_target.column;
      column.is_complex = data.is_complex;
      column.complex_deletion = data.complex_deletion;
      if (column.complex_deletion.marked_for_delete_at <= column_target.dropped_at) {
        column.complex_deletion = DeletionTime{};
      }
      size_t cells = 0;
      for (const Cell& cell : data.cells) {
        if (cell.timestamp <= column_target.dropped_at) continue;
        if (cells == column.cells.size()) column.cells.emplace_back();
        FoldCell& copy = column.cells[cells++];
        copy.timestamp = cell.timestamp;
        copy.ttl = cell.ttl;
        copy.local_deletion_time = cell.local_deletion_time;
        CopyInto(cell.path, &copy.path);
        CopyInto(cell.value, &copy.value);
      }
      column.cells.resize(cells);
    }
    target->columns.resize(columns);
    return Status::OK();
  }

  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override {
    FoldMarker& copy = partition_->markers.emplace_back();
    partition_->item_is_marker.push_back(true);
    copy.kind = marker.kind;
    CopyClustering(marker.bound, &copy.bound);
    copy.deletion = marker.deletion;
    copy.end_deletion = marker.end_deletion;
    copy.start_deletion = marker.start_deletion;
    return Status::OK();
  }

  Status OnPartitionEnd() override { return Status::OK(); }

  bool WantsRow(const Clustering& clustering) override {
    return wanted_rows_ == nullptr || (*wanted_rows_)(partition_->key, clustering);
  }

  // The next partition `skip` (when given) does not turn down.
  Result<bool> NextAfter(FoldPartition* partition, const KeyTest* skip) {
    partition_ = partition;
    KeepRowsForReuse();
    while (true) {
      partition_->Clear();
      ASSIGN_OR_RETURN(bool found, scanner_->StartNext(*this));
      if (!found) {
        if (key_span_ && (partitions_ == 0 || last_key_ != key_span_->last)) return KeySpanMismatch("last");
        return false;
      }
      if (key_span_) {
        if (partitions_ == 0 && partition_->key != key_span_->first) return KeySpanMismatch("first");
        last_key_ = partition_->key;
      }
      ++partitions_;
      if (skip != nullptr && (*skip)(partition_->key)) {
        RETURN_IF_ERROR(scanner_->SkipItems(discard_));
        continue;
      }
      ASSIGN_OR_RETURN(partition_->complete, scanner_->ReadItems(*this, items_per_piece_));
      return true;
    }
  }

  static void CopyClustering(const Clustering& from, FoldClustering* to) {
    to->values.resize(from.values.size());
    for (size_t i = 0; i < from.values.size(); ++i) CopyInto(from.values[i], &to->values[i]);
    to->present.assign(from.present.begin(), from.present.end());
  }

  // The rows of the piece the fold is done with are kept, so that the next
  // piece's rows reuse their buffers rather than allocate their own.
  void KeepRowsForReuse() {
    for (FoldRow& row : partition_->rows) spare_rows_.push_back(std::move(row));
  }

  FoldRow& AddRow() {
    if (spare_rows_.empty()) return partition_->rows.emplace_back();
    FoldRow& row = partition_->rows.emplace_back(std::move(spare_rows_.back()));
    spare_rows_.pop_back();
    return row;
  }

  std::unique_ptr<SSTableScanner> scanner_;
  size_t items_per_piece_;
  std::string name_;
  std::optional<PartitionKeySpan> key_span_;
  int64_t partitions_ = 0;  // read so far
  std::string last_key_;    // of the last partition read, when key_span_ is known
  ColumnMapping static_mapping_;
  ColumnMapping regular_mapping_;
  FoldPartition* partition_ = nullptr;
  const RowTest* wanted_rows_ = nullptr;
  std::vector<FoldRow> spare_rows_;
  std::vector<int> column_in_row_;
};

}  // namespace

Result<std::unique_ptr<FoldSource>> OpenSSTableFoldSource(const SSTable& sstable, const TableSchema& schema,
                                                          size_t items_per_piece) {
  ASSIGN_OR_RETURN(auto scanner, sstable.OpenScanner());
  return std::unique_ptr<FoldSource>(new SSTableFoldSource(std::move(scanner), sstable, schema, items_per_piece));
}

}  // namespace cqlite

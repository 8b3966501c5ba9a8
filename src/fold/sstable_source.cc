#include "fold/sstable_source.h"

#include <algorithm>
#include <limits>

namespace cqlite {

namespace {

// Where the cells of one header column go.
struct ColumnTarget {
  int column = -1;  // index into TableSchema::columns; -1 to skip the column
  // Cells written at or before this time belong to a dropped incarnation.
  int64_t dropped_at = std::numeric_limits<int64_t>::min();
};

std::vector<ColumnTarget> MapColumns(const std::vector<ColumnLayout>& columns, const TableSchema& schema) {
  std::vector<ColumnTarget> targets;
  for (const ColumnLayout& layout : columns) {
    ColumnTarget target;
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      if (schema.columns[i].name == layout.name) target.column = static_cast<int>(i);
    }
    for (const DroppedColumnSchema& dropped : schema.dropped_columns) {
      if (dropped.name == layout.name) target.dropped_at = std::max(target.dropped_at, dropped.drop_time_micros);
    }
    targets.push_back(target);
  }
  return targets;
}

class SSTableFoldSource : public FoldSource, private EnvelopeConsumer {
 public:
  SSTableFoldSource(std::unique_ptr<SSTableScanner> scanner, const SSTable& sstable, const TableSchema& schema,
                    size_t items_per_piece)
      : scanner_(std::move(scanner)),
        items_per_piece_(std::max<size_t>(items_per_piece, 1)),
        name_(sstable.location().DataPath()),
        static_targets_(MapColumns(sstable.layout().static_columns, schema)),
        regular_targets_(MapColumns(sstable.layout().regular_columns, schema)) {}

  Result<bool> Next(FoldPartition* partition) override {
    partition_ = partition;
    partition_->Clear();
    ASSIGN_OR_RETURN(bool found, scanner_->StartNext(*this));
    if (!found) return false;
    ASSIGN_OR_RETURN(partition_->complete, scanner_->ReadItems(*this, items_per_piece_));
    return true;
  }

  Status More(FoldPartition* partition) override {
    partition_ = partition;
    partition_->ClearItems();
    ASSIGN_OR_RETURN(partition_->complete, scanner_->ReadItems(*this, items_per_piece_));
    return Status::OK();
  }

  const std::string& name() const override { return name_; }

 private:
  Status OnPartitionStart(const PartitionHeader& header) override {
    partition_->key.assign(header.key.data(), header.key.size());
    partition_->deletion = header.deletion;
    return Status::OK();
  }

  Status OnRow(const Row& row) override {
    FoldRow* target;
    if (row.is_static) {
      partition_->has_static_row = true;
      target = &partition_->static_row;
    } else {
      target = &partition_->rows.emplace_back();
      partition_->item_is_marker.push_back(false);
    }
    CopyClustering(row.clustering, &target->clustering);
    target->liveness = row.liveness;
    target->deletion = row.deletion;
    target->deletion_is_shadowable = row.deletion_is_shadowable;
    const std::vector<ColumnTarget>& targets = row.is_static ? static_targets_ : regular_targets_;
    target->columns.reserve(row.columns.size());
    for (const ColumnData& data : row.columns) {
      const ColumnTarget& column_target = targets[data.column];
      if (column_target.column < 0) continue;
      FoldColumn& column = target->columns.emplace_back();
      column.column = column_target.column;
      column.is_complex = data.is_complex;
      column.complex_deletion = data.complex_deletion;
      if (column.complex_deletion.marked_for_delete_at <= column_target.dropped_at) {
        column.complex_deletion = DeletionTime{};
      }
      column.cells.reserve(data.cells.size());
      for (const Cell& cell : data.cells) {
        if (cell.timestamp <= column_target.dropped_at) continue;
        FoldCell& copy = column.cells.emplace_back();
        copy.timestamp = cell.timestamp;
        copy.ttl = cell.ttl;
        copy.local_deletion_time = cell.local_deletion_time;
        copy.path.assign(cell.path.data(), cell.path.size());
        copy.value.assign(cell.value.data(), cell.value.size());
      }
    }
    // Header order (simple before complex, then by name) is not schema order.
    std::sort(target->columns.begin(), target->columns.end(),
              [](const FoldColumn& a, const FoldColumn& b) { return a.column < b.column; });
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

  static void CopyClustering(const Clustering& from, FoldClustering* to) {
    to->values.resize(from.values.size());
    for (size_t i = 0; i < from.values.size(); ++i) to->values[i].assign(from.values[i].data(), from.values[i].size());
    to->present.assign(from.present.begin(), from.present.end());
  }

  std::unique_ptr<SSTableScanner> scanner_;
  size_t items_per_piece_;
  std::string name_;
  std::vector<ColumnTarget> static_targets_;
  std::vector<ColumnTarget> regular_targets_;
  FoldPartition* partition_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<FoldSource>> OpenSSTableFoldSource(const SSTable& sstable, const TableSchema& schema,
                                                          size_t items_per_piece) {
  ASSIGN_OR_RETURN(auto scanner, sstable.OpenScanner());
  return std::unique_ptr<FoldSource>(new SSTableFoldSource(std::move(scanner), sstable, schema, items_per_piece));
}

}  // namespace cqlite

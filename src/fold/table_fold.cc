#include "fold/table_fold.h"

#include <algorithm>

#include "fold/reconcile.h"
#include "util/strings.h"

namespace cqlite {

namespace {

std::vector<CqlTypePtr> ClusteringTypes(const TableSchema& schema) {
  std::vector<CqlTypePtr> types;
  for (const ColumnSchema* column : schema.ClusteringColumns()) {
    if (!column->reversed || column->type->reversed) {
      types.push_back(column->type);
    } else {
      auto reversed = std::make_shared<CqlType>(*column->type);
      reversed->reversed = true;
      types.push_back(std::move(reversed));
    }
  }
  return types;
}

}  // namespace

struct PartitionFolder::Item {
  size_t version;
  FoldRow* row;              // null for a marker
  const FoldMarker* marker;  // null for a row
  const FoldClustering& clustering() const { return row ? row->clustering : marker->bound; }
  ClusteringKind kind() const { return row ? ClusteringKind::kClustering : marker->kind; }
};

PartitionFolder::PartitionFolder(const TableSchema& schema, int64_t now_seconds)
    : schema_(schema), now_(now_seconds), order_(ClusteringTypes(schema)) {
  for (const ColumnSchema& column : schema.columns) is_counter_.push_back(column.type->kind == CqlKind::kCounter);
}

void PartitionFolder::Fold(const std::vector<FoldPartition*>& versions, FoldedPartition* out) {
  out->key = versions.front()->key;
  out->has_static_row = false;
  out->static_row = FoldRow{};
  out->rows.clear();

  DeletionTime partition_deletion;
  for (const FoldPartition* version : versions) partition_deletion = LaterDeletion(partition_deletion, version->deletion);

  std::vector<FoldRow*> group;
  for (FoldPartition* version : versions) {
    if (version->has_static_row) group.push_back(&version->static_row);
  }
  if (!group.empty()) out->has_static_row = MergeRows(group, partition_deletion, &out->static_row);

  // Every row and range tombstone marker of every version, in clustering
  // order. Each version is already sorted; a stable sort keeps its own order
  // among items that compare equal.
  std::vector<Item> items;
  for (size_t v = 0; v < versions.size(); ++v) {
    FoldPartition& partition = *versions[v];
    size_t next_row = 0, next_marker = 0;
    for (bool is_marker : partition.item_is_marker) {
      if (is_marker) {
        items.push_back({v, nullptr, &partition.markers[next_marker++]});
      } else {
        items.push_back({v, &partition.rows[next_row++], nullptr});
      }
    }
  }
  if (versions.size() > 1) {
    std::stable_sort(items.begin(), items.end(), [this](const Item& a, const Item& b) {
      return order_.Compare(a.clustering(), a.kind(), b.clustering(), b.kind()) < 0;
    });
  }

  // Sweep: each version's open range deletion, as its markers open and close them.
  std::vector<DeletionTime> open(versions.size());
  FoldRow merged;
  for (size_t i = 0; i < items.size();) {
    const Item& item = items[i];
    if (item.marker) {
      const FoldMarker& marker = *item.marker;
      open[item.version] = marker.IsBoundary() ? marker.start_deletion
                           : marker.IsStart()   ? marker.deletion
                                                : DeletionTime{};
      ++i;
      continue;
    }
    group.clear();
    group.push_back(item.row);
    size_t j = i + 1;
    // Within one version every row has its own clustering.
    while (versions.size() > 1 && j < items.size() && items[j].row &&
           order_.CompareRows(item.row->clustering, items[j].row->clustering) == 0) {
      group.push_back(items[j].row);
      ++j;
    }
    DeletionTime active = partition_deletion;
    for (const DeletionTime& range : open) active = LaterDeletion(active, range);
    if (MergeRows(group, active, &merged)) out->rows.push_back(std::move(merged));
    merged = FoldRow{};
    i = j;
  }
}

bool PartitionFolder::MergeRows(const std::vector<FoldRow*>& rows, DeletionTime active, FoldRow* out) {
  LivenessInfo liveness;
  DeletionTime row_deletion;
  bool shadowable = false;
  for (const FoldRow* row : rows) {
    if (Supersedes(row->liveness, liveness)) liveness = row->liveness;
    if (Supersedes(row->deletion, row_deletion)) {
      row_deletion = row->deletion;
      shadowable = row->deletion_is_shadowable;
    }
  }
  // A shadowable deletion (materialized views) gives way to a newer primary key.
  if (shadowable && liveness.timestamp > row_deletion.marked_for_delete_at) row_deletion = DeletionTime{};
  active = LaterDeletion(active, row_deletion);
  if (Deletes(active, liveness.timestamp)) liveness = LivenessInfo{};

  out->clustering = std::move(rows.front()->clustering);
  out->liveness = liveness;
  out->deletion = DeletionTime{};
  out->columns.clear();
  out->columns.reserve(rows.front()->columns.size());

  // Walk the versions' columns (each in increasing column order) together.
  std::vector<size_t> next(rows.size(), 0);
  std::vector<FoldColumn*> versions;
  while (true) {
    int column = -1;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (next[r] < rows[r]->columns.size()) {
        int c = rows[r]->columns[next[r]].column;
        if (column < 0 || c < column) column = c;
      }
    }
    if (column < 0) break;
    versions.clear();
    for (size_t r = 0; r < rows.size(); ++r) {
      if (next[r] < rows[r]->columns.size() && rows[r]->columns[next[r]].column == column) {
        versions.push_back(&rows[r]->columns[next[r]++]);
      }
    }
    MergeColumn(column, versions, active, out);
  }
  return IsLive(liveness, now_) || !out->columns.empty();
}

void PartitionFolder::MergeColumn(int column, const std::vector<FoldColumn*>& versions,
                                  const DeletionTime& active, FoldRow* out) {
  bool is_counter = is_counter_[column];
  if (versions.size() == 1) {
    // One version: nothing to reconcile, only deletions and expiry to apply.
    FoldColumn& only = *versions.front();
    DeletionTime effective = only.is_complex ? LaterDeletion(active, only.complex_deletion) : active;
    std::erase_if(only.cells, [&](const FoldCell& cell) { return Deletes(effective, cell.timestamp) || !cell.IsLive(now_); });
    if (only.cells.empty()) return;
    FoldColumn& data = out->columns.emplace_back();
    data.column = column;
    data.is_complex = only.is_complex;
    data.cells = std::move(only.cells);
    return;
  }
  if (!versions.front()->is_complex) {
    FoldCell winner;
    bool first = true;
    for (const FoldColumn* version : versions) {
      if (version->cells.empty()) continue;
      const FoldCell& cell = version->cells.front();
      if (first) {
        winner = cell;
        first = false;
      } else if (is_counter) {
        winner = ReconcileCounterCells(winner, cell);
      } else {
        const FoldCell& kept = ReconcileRegularCells(winner, cell);
        if (&kept != &winner) winner = kept;
      }
    }
    if (first || Deletes(active, winner.timestamp) || !winner.IsLive(now_)) return;
    FoldColumn& data = out->columns.emplace_back();
    data.column = column;
    data.cells.push_back(std::move(winner));
    return;
  }

  DeletionTime complex_deletion;
  for (const FoldColumn* version : versions) {
    complex_deletion = LaterDeletion(complex_deletion, version->complex_deletion);
  }
  DeletionTime effective = LaterDeletion(active, complex_deletion);
  std::vector<FoldCell*> cells;
  for (FoldColumn* version : versions) {
    for (FoldCell& cell : version->cells) cells.push_back(&cell);
  }
  const CqlType& type = *schema_.columns[column].type;
  if (versions.size() > 1) {
    std::stable_sort(cells.begin(), cells.end(), [&type](const FoldCell* a, const FoldCell* b) {
      return CompareCellPaths(type, a->path, b->path) < 0;
    });
  }
  FoldColumn merged;
  merged.column = column;
  merged.is_complex = true;
  for (size_t i = 0; i < cells.size();) {
    FoldCell winner = std::move(*cells[i]);
    size_t j = i + 1;
    for (; j < cells.size() && CompareCellPaths(type, winner.path, cells[j]->path) == 0; ++j) {
      if (is_counter) {
        winner = ReconcileCounterCells(winner, *cells[j]);
      } else {
        const FoldCell& kept = ReconcileRegularCells(winner, *cells[j]);
        if (&kept != &winner) winner = kept;
      }
    }
    if (!Deletes(effective, winner.timestamp) && winner.IsLive(now_)) merged.cells.push_back(std::move(winner));
    i = j;
  }
  if (!merged.cells.empty()) out->columns.push_back(std::move(merged));
}

Result<std::unique_ptr<TableFold>> TableFold::Make(const TableSchema& schema, std::optional<Partitioner> partitioner,
                                                   std::vector<std::unique_ptr<FoldSource>> sources,
                                                   int64_t now_seconds) {
  if (!partitioner && sources.size() > 1) {
    return Status::NotSupported(StrCat("cannot merge ", sources.size(), " generations of ", schema.keyspace, ".",
                                       schema.table, ": their partitioner's key order is not one CQLite knows "
                                       "(Murmur3Partitioner or RandomPartitioner)"));
  }
  return std::unique_ptr<TableFold>(new TableFold(schema, partitioner, std::move(sources), now_seconds));
}

TableFold::TableFold(const TableSchema& schema, std::optional<Partitioner> partitioner,
                     std::vector<std::unique_ptr<FoldSource>> sources, int64_t now_seconds)
    : partitioner_(partitioner), folder_(schema, now_seconds) {
  for (auto& source : sources) {
    Cursor& cursor = cursors_.emplace_back();
    cursor.source = std::move(source);
  }
}

Status TableFold::Advance(Cursor& cursor) {
  cursor.count = 0;
  if (cursor.versions.empty()) cursor.versions.emplace_back();
  if (!cursor.source->repeats_partitions()) {
    ASSIGN_OR_RETURN(bool more, cursor.source->Next(&cursor.versions[0]));
    if (!more) return Status::OK();
    cursor.count = 1;
  } else {
    if (!cursor.has_next) {
      ASSIGN_OR_RETURN(cursor.has_next, cursor.source->Next(&cursor.next));
    }
    if (!cursor.has_next) return Status::OK();
    cursor.versions[0] = std::move(cursor.next);
    size_t count = 1;
    // The same key again is another generation's version of the partition.
    while (true) {
      ASSIGN_OR_RETURN(cursor.has_next, cursor.source->Next(&cursor.next));
      if (!cursor.has_next || cursor.next.key != cursor.versions[0].key) break;
      if (cursor.versions.size() == count) cursor.versions.emplace_back();
      cursor.versions[count++] = std::move(cursor.next);
    }
    cursor.count = count;
  }
  const std::string& key = cursor.versions[0].key;
  // The merge relies on every generation being in partitioner order.
  if (!partitioner_) return Status::OK();
  if (cursor.has_previous &&
      ComparePartitionKeys(*partitioner_, cursor.previous_key, key) != std::strong_ordering::less) {
    return Status::Corruption(StrCat(cursor.source->name(), ": partitions are not in token order"));
  }
  cursor.previous_key = key;
  cursor.has_previous = true;
  return Status::OK();
}

Result<bool> TableFold::Next(FoldedPartition* out) {
  if (!started_) {
    for (Cursor& cursor : cursors_) RETURN_IF_ERROR(Advance(cursor));
    started_ = true;
  }
  std::vector<Cursor*> equal;
  std::vector<FoldPartition*> versions;
  while (true) {
    equal.clear();
    for (Cursor& cursor : cursors_) {
      if (cursor.count == 0) continue;
      if (equal.empty()) {
        equal.push_back(&cursor);
        continue;
      }
      // A single source (the only case without a partitioner) needs no comparison.
      auto order = ComparePartitionKeys(*partitioner_, cursor.versions[0].key, equal.front()->versions[0].key);
      if (order == std::strong_ordering::less) equal.clear();
      if (order != std::strong_ordering::greater) equal.push_back(&cursor);
    }
    if (equal.empty()) return false;
    versions.clear();
    for (Cursor* cursor : equal) {
      for (size_t i = 0; i < cursor->count; ++i) versions.push_back(&cursor->versions[i]);
    }
    folder_.Fold(versions, out);
    for (Cursor* cursor : equal) RETURN_IF_ERROR(Advance(*cursor));
    if (out->has_static_row || !out->rows.empty()) return true;
  }
}

}  // namespace cqlite

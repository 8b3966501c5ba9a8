#include "fold/table_fold.h"

#include <algorithm>

#include "fold/reconcile.h"
#include "util/strings.h"

namespace cqlite {

Status FoldSource::More(FoldPartition*) {
  return Status::NotSupported(StrCat(name(), ": asked for a piece of a partition it handed on whole"));
}

Status FoldSource::SkipRest(FoldPartition* partition) {
  while (!partition->complete) RETURN_IF_ERROR(More(partition));
  return Status::OK();
}

Result<bool> FoldSource::NextNotSkipped(FoldPartition* partition, const KeyTest& skip) {
  while (true) {
    ASSIGN_OR_RETURN(bool more, Next(partition));
    if (!more || !skip(partition->key)) return more;
    RETURN_IF_ERROR(SkipRest(partition));
  }
}

PartitionFolder::PartitionFolder(const TableSchema& schema, int64_t now_seconds)
    : schema_(schema), now_(now_seconds), order_(ClusteringOrder::OfTable(schema)) {
  for (const ColumnSchema& column : schema.columns) is_counter_.push_back(column.type->kind == CqlKind::kCounter);
}

void PartitionFolder::Begin(const std::vector<FoldPartition*>& versions, FoldedPartition* out) {
  versions_ = versions;
  next_.assign(versions.size(), Position{});
  open_.assign(versions.size(), DeletionTime{});
  out->key = versions.front()->key;
  out->has_static_row = false;
  out->static_row = FoldRow{};
  RecycleRows(&out->rows);

  partition_deletion_ = DeletionTime{};
  for (const FoldPartition* version : versions) {
    partition_deletion_ = LaterDeletion(partition_deletion_, version->deletion);
  }
  std::vector<FoldRow*> statics;
  for (FoldPartition* version : versions) {
    if (version->has_static_row) statics.push_back(&version->static_row);
  }
  if (!statics.empty()) out->has_static_row = MergeRows(statics, partition_deletion_, &out->static_row);
}

bool PartitionFolder::HasItem(size_t version) const {
  return next_[version].item < versions_[version]->item_is_marker.size();
}

const FoldClustering& PartitionFolder::ItemClustering(size_t version) const {
  const FoldPartition& partition = *versions_[version];
  const Position& at = next_[version];
  return partition.item_is_marker[at.item] ? partition.markers[at.marker].bound : partition.rows[at.row].clustering;
}

ClusteringKind PartitionFolder::ItemKind(size_t version) const {
  const FoldPartition& partition = *versions_[version];
  const Position& at = next_[version];
  return partition.item_is_marker[at.item] ? partition.markers[at.marker].kind : ClusteringKind::kClustering;
}

void PartitionFolder::Step(size_t version) {
  Position& at = next_[version];
  if (versions_[version]->item_is_marker[at.item]) {
    ++at.marker;
  } else {
    ++at.row;
  }
  ++at.item;
}

bool PartitionFolder::NeedsMore(size_t version) const {
  return !versions_[version]->complete && !HasItem(version);
}

void PartitionFolder::Refilled(size_t version) { next_[version] = Position{}; }

void PartitionFolder::RecycleRows(std::vector<FoldRow>* rows, size_t from) {
  for (size_t i = from; i < rows->size(); ++i) spare_rows_.push_back(std::move((*rows)[i]));
  rows->resize(from);
}

FoldRow& PartitionFolder::AddRow(std::vector<FoldRow>* rows) {
  if (spare_rows_.empty()) return rows->emplace_back();
  FoldRow& row = rows->emplace_back(std::move(spare_rows_.back()));
  spare_rows_.pop_back();
  return row;
}

bool PartitionFolder::Done() const {
  for (size_t v = 0; v < versions_.size(); ++v) {
    if (!versions_[v]->complete || HasItem(v)) return false;
  }
  return true;
}

namespace {

// The range deletion a version has open after `marker`.
DeletionTime OpenAfter(const FoldMarker& marker) {
  return marker.IsBoundary() ? marker.start_deletion : marker.IsStart() ? marker.deletion : DeletionTime{};
}

// Whether a marker of this kind sits just before its bound's clusterings
// (rather than just after them).
bool IsBefore(ClusteringKind kind) {
  return kind == ClusteringKind::kInclStartBound || kind == ClusteringKind::kExclEndBound ||
         kind == ClusteringKind::kExclEndInclStartBoundary;
}

}  // namespace

template <typename Visit>
void PartitionFolder::ForEachColumn(const std::vector<FoldRow*>& rows, Visit visit) {
  std::vector<size_t>& next = column_walk_next_;
  std::vector<FoldColumn*>& versions = column_walk_versions_;
  next.assign(rows.size(), 0);
  while (true) {
    int column = -1;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (next[r] < rows[r]->columns.size()) {
        int c = rows[r]->columns[next[r]].column;
        if (column < 0 || c < column) column = c;
      }
    }
    if (column < 0) return;
    versions.clear();
    for (size_t r = 0; r < rows.size(); ++r) {
      if (next[r] < rows[r]->columns.size() && rows[r]->columns[next[r]].column == column) {
        versions.push_back(&rows[r]->columns[next[r]++]);
      }
    }
    visit(column, versions);
  }
}

template <typename OnMarkers, typename OnRows>
void PartitionFolder::Walk(OnMarkers on_markers, OnRows on_rows) {
  // The frontier: the earliest last item of an incomplete version's piece.
  // What comes after it may meet that version's next piece. (A copy: merging
  // moves clusterings out of the rows.)
  bool bounded = false;
  ClusteringKind frontier_kind = ClusteringKind::kClustering;
  for (size_t v = 0; v < versions_.size(); ++v) {
    const FoldPartition& partition = *versions_[v];
    if (partition.complete || partition.item_is_marker.empty()) continue;
    bool is_marker = partition.item_is_marker.back();
    const FoldClustering& last = is_marker ? partition.markers.back().bound : partition.rows.back().clustering;
    ClusteringKind kind = is_marker ? partition.markers.back().kind : ClusteringKind::kClustering;
    if (!bounded || order_.Compare(last, kind, frontier_, frontier_kind) < 0) {
      frontier_ = last;
      frontier_kind = kind;
      bounded = true;
    }
  }

  // A merge of the versions' rows and markers in clustering order; among
  // items that compare equal, the earlier version's first. The versions with
  // items left are a heap by their next item, least on top.
  auto after = [this](size_t x, size_t y) {
    int c = order_.Compare(ItemClustering(x), ItemKind(x), ItemClustering(y), ItemKind(y));
    return c > 0 || (c == 0 && x > y);
  };
  std::vector<size_t>& heap = walk_heap_;
  heap.clear();
  for (size_t v = 0; v < versions_.size(); ++v) {
    if (HasItem(v)) heap.push_back(v);
  }
  std::make_heap(heap.begin(), heap.end(), after);
  auto pop = [&] {
    std::pop_heap(heap.begin(), heap.end(), after);
    size_t v = heap.back();
    heap.pop_back();
    return v;
  };
  // The versions taken at one position go back once it is done, so that each
  // gives at most its next row to a group.
  std::vector<size_t>& taken = walk_taken_;
  auto put_back = [&] {
    for (size_t v : taken) {
      if (!HasItem(v)) continue;
      heap.push_back(v);
      std::push_heap(heap.begin(), heap.end(), after);
    }
  };
  std::vector<FoldRow*> group;
  while (!heap.empty()) {
    const size_t least = heap.front();
    if (bounded && order_.Compare(ItemClustering(least), ItemKind(least), frontier_, frontier_kind) > 0) return;
    taken.clear();
    FoldPartition& partition = *versions_[least];
    const Position& at = next_[least];
    if (partition.item_is_marker[at.item]) {
      // Every marker at this position, of any version: an end and a start
      // that meet leave the version's range open.
      const FoldMarker& first = partition.markers[at.marker];
      auto at_first = [&](size_t v) {
        return HasItem(v) && ItemKind(v) != ClusteringKind::kClustering &&
               order_.Compare(ItemClustering(v), ItemKind(v), first.bound, first.kind) == 0;
      };
      do {
        const size_t v = pop();
        while (at_first(v)) {
          open_[v] = OpenAfter(versions_[v]->markers[next_[v].marker]);
          Step(v);
        }
        taken.push_back(v);
      } while (!heap.empty() && at_first(heap.front()));
      put_back();
      on_markers(first);
      continue;
    }
    group.clear();
    do {
      const size_t v = pop();
      group.push_back(&versions_[v]->rows[next_[v].row]);
      Step(v);
      taken.push_back(v);
    } while (!heap.empty() && ItemKind(heap.front()) == ClusteringKind::kClustering &&
             order_.CompareRows(group.front()->clustering, ItemClustering(heap.front())) == 0);
    put_back();
    on_rows(group);
  }
}

void PartitionFolder::FoldReady(FoldedPartition* out) {
  if (versions_.size() == 1) {
    FoldOnlyVersion(out);
    return;
  }
  Walk([](const FoldMarker&) {},
       [&](const std::vector<FoldRow*>& rows) {
         DeletionTime active = partition_deletion_;
         for (const DeletionTime& range : open_) active = LaterDeletion(active, range);
         if (!MergeRows(rows, active, &AddRow(&out->rows))) RecycleRows(&out->rows, out->rows.size() - 1);
       });
}

void PartitionFolder::FoldOnlyVersion(FoldedPartition* out) {
  // With nothing to merge with, every item of the piece is decided: no
  // later piece holds an item before the last of this one.
  FoldPartition& partition = *versions_.front();
  Position& at = next_.front();
  for (; at.item < partition.item_is_marker.size(); ++at.item) {
    if (partition.item_is_marker[at.item]) {
      open_.front() = OpenAfter(partition.markers[at.marker++]);
      continue;
    }
    FoldRow& row = partition.rows[at.row++];
    if (!FoldRowAlone(&row, LaterDeletion(partition_deletion_, open_.front()), &AddRow(&out->rows))) {
      RecycleRows(&out->rows, out->rows.size() - 1);
    }
  }
}

bool PartitionFolder::FoldRowAlone(FoldRow* row, DeletionTime active, FoldRow* out) {
  // As MergeRows and MergeColumn decide for one version.
  LivenessInfo liveness = row->liveness;
  DeletionTime row_deletion = row->deletion;
  if (row->deletion_is_shadowable && liveness.timestamp > row_deletion.marked_for_delete_at) {
    row_deletion = DeletionTime{};
  }
  active = LaterDeletion(active, row_deletion);
  if (Deletes(active, liveness.timestamp)) liveness = LivenessInfo{};
  std::swap(out->clustering, row->clustering);
  std::swap(out->columns, row->columns);
  out->liveness = liveness;
  out->deletion = DeletionTime{};
  out->deletion_is_shadowable = false;
  int64_t earliest_expiry = liveness.IsExpiring() ? liveness.local_expiration_time : INT64_MAX;
  std::vector<FoldColumn>& columns = out->columns;
  size_t kept = 0;
  for (FoldColumn& column : columns) {
    const DeletionTime effective = column.is_complex ? LaterDeletion(active, column.complex_deletion) : active;
    column.complex_deletion = DeletionTime{};
    std::erase_if(column.cells, [&](const FoldCell& cell) {
      if (Deletes(effective, cell.timestamp) || !cell.IsLive(now_)) return true;
      if (cell.IsExpiring()) earliest_expiry = std::min(earliest_expiry, cell.local_deletion_time);
      return false;
    });
    if (column.cells.empty()) continue;
    if (&column != &columns[kept]) std::swap(column, columns[kept]);
    ++kept;
  }
  columns.resize(kept);
  out->earliest_expiry = earliest_expiry;
  return IsLive(liveness, now_) || kept > 0;
}

void PartitionFolder::BeginMerge(const std::vector<FoldPartition*>& versions, FoldPartition* out) {
  versions_ = versions;
  next_.assign(versions.size(), Position{});
  open_.assign(versions.size(), DeletionTime{});
  merged_open_ = DeletionTime{};
  out->Clear();
  out->key = versions.front()->key;
  out->complete = false;
  std::vector<FoldRow*> statics;
  for (FoldPartition* version : versions) {
    out->deletion = LaterDeletion(out->deletion, version->deletion);
    if (version->has_static_row) statics.push_back(&version->static_row);
  }
  if (!statics.empty()) {
    out->has_static_row = true;
    ReconcileRows(statics, &out->static_row);
  }
}

void PartitionFolder::MergeReady(FoldPartition* out) {
  Walk(
      [&](const FoldMarker& at) {
        // The output's range deletion is the latest any version has open;
        // a marker where it changes.
        DeletionTime open;
        for (const DeletionTime& range : open_) open = LaterDeletion(open, range);
        if (open == merged_open_) return;
        FoldMarker& marker = out->markers.emplace_back();
        out->item_is_marker.push_back(true);
        marker.bound = at.bound;
        const bool before = IsBefore(at.kind);
        if (merged_open_.IsLive()) {
          marker.kind = before ? ClusteringKind::kInclStartBound : ClusteringKind::kExclStartBound;
          marker.deletion = open;
        } else if (open.IsLive()) {
          marker.kind = before ? ClusteringKind::kExclEndBound : ClusteringKind::kInclEndBound;
          marker.deletion = merged_open_;
        } else {
          marker.kind = before ? ClusteringKind::kExclEndInclStartBoundary : ClusteringKind::kInclEndExclStartBoundary;
          marker.end_deletion = merged_open_;
          marker.start_deletion = open;
        }
        merged_open_ = open;
      },
      [&](const std::vector<FoldRow*>& rows) {
        ReconcileRows(rows, &out->rows.emplace_back());
        out->item_is_marker.push_back(false);
      });
}

void PartitionFolder::ReconcileRows(const std::vector<FoldRow*>& rows, FoldRow* out) {
  if (rows.size() == 1) {
    *out = std::move(*rows.front());
    return;
  }
  *out = FoldRow{};
  out->clustering = std::move(rows.front()->clustering);
  for (const FoldRow* row : rows) {
    if (Supersedes(row->liveness, out->liveness)) out->liveness = row->liveness;
    if (Supersedes(row->deletion, out->deletion)) {
      out->deletion = row->deletion;
      out->deletion_is_shadowable = row->deletion_is_shadowable;
    }
  }
  std::vector<FoldCell*>& cells = cells_;
  ForEachColumn(rows, [&](int column, const std::vector<FoldColumn*>& versions) {
    FoldColumn& merged = out->columns.emplace_back();
    merged.column = column;
    cells.clear();
    for (FoldColumn* version : versions) {
      merged.is_complex = version->is_complex;
      merged.complex_deletion = LaterDeletion(merged.complex_deletion, version->complex_deletion);
      for (FoldCell& cell : version->cells) cells.push_back(&cell);
    }
    const CqlType& type = *schema_.columns[column].type;
    if (merged.is_complex) {
      std::stable_sort(cells.begin(), cells.end(), [&type](const FoldCell* a, const FoldCell* b) {
        return CompareCellPaths(type, a->path, b->path) < 0;
      });
    }
    // One winner per cell path (a simple column's cells all share the empty one).
    for (size_t i = 0; i < cells.size();) {
      FoldCell winner = std::move(*cells[i]);
      size_t j = i + 1;
      for (; j < cells.size() && (!merged.is_complex || CompareCellPaths(type, winner.path, cells[j]->path) == 0);
           ++j) {
        if (is_counter_[column]) {
          winner = ReconcileCounterCells(winner, *cells[j]);
        } else {
          const FoldCell& kept = ReconcileRegularCells(winner, *cells[j]);
          if (&kept != &winner) winner = kept;
        }
      }
      merged.cells.push_back(std::move(winner));
      i = j;
    }
  });
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

  // `out` may be a row handed on before: every field is assigned, and its
  // columns reused where they exist, keeping their buffers.
  std::swap(out->clustering, rows.front()->clustering);
  out->liveness = liveness;
  out->deletion = DeletionTime{};
  out->deletion_is_shadowable = false;
  int64_t earliest_expiry = liveness.IsExpiring() ? liveness.local_expiration_time : INT64_MAX;
  size_t columns = 0;
  ForEachColumn(rows, [&](int column, const std::vector<FoldColumn*>& versions) {
    if (columns == out->columns.size()) out->columns.emplace_back();
    if (MergeColumn(column, versions, active, &out->columns[columns], &earliest_expiry)) ++columns;
  });
  out->columns.resize(columns);
  out->earliest_expiry = earliest_expiry;
  return IsLive(liveness, now_) || columns > 0;
}

bool PartitionFolder::MergeColumn(int column, const std::vector<FoldColumn*>& versions,
                                  const DeletionTime& active, FoldColumn* out, int64_t* earliest_expiry) {
  auto keep = [&](const FoldCell& cell) {
    if (cell.IsExpiring()) *earliest_expiry = std::min(*earliest_expiry, cell.local_deletion_time);
  };
  const bool is_counter = is_counter_[column];
  out->column = column;
  out->complex_deletion = DeletionTime{};
  if (versions.size() == 1) {
    // One version: nothing to reconcile, only deletions and expiry to apply.
    FoldColumn& only = *versions.front();
    DeletionTime effective = only.is_complex ? LaterDeletion(active, only.complex_deletion) : active;
    std::erase_if(only.cells, [&](const FoldCell& cell) {
      if (Deletes(effective, cell.timestamp) || !cell.IsLive(now_)) return true;
      keep(cell);
      return false;
    });
    if (only.cells.empty()) return false;
    out->is_complex = only.is_complex;
    out->cells.swap(only.cells);
    return true;
  }
  // The winner of each cell path; a merged counter cell lives in `counter`.
  const FoldCell* winner = nullptr;
  FoldCell counter;
  auto reconcile = [&](const FoldCell& cell) {
    if (is_counter) {
      counter = ReconcileCounterCells(*winner, cell);
      winner = &counter;
    } else {
      winner = &ReconcileRegularCells(*winner, cell);
    }
  };
  out->is_complex = versions.front()->is_complex;
  if (!out->is_complex) {
    for (const FoldColumn* version : versions) {
      if (version->cells.empty()) continue;
      const FoldCell& cell = version->cells.front();
      if (winner == nullptr) {
        winner = &cell;
      } else {
        reconcile(cell);
      }
    }
    if (winner == nullptr || Deletes(active, winner->timestamp) || !winner->IsLive(now_)) return false;
    keep(*winner);
    out->cells.resize(1);
    out->cells.front() = *winner;
    return true;
  }

  DeletionTime complex_deletion;
  for (const FoldColumn* version : versions) {
    complex_deletion = LaterDeletion(complex_deletion, version->complex_deletion);
  }
  DeletionTime effective = LaterDeletion(active, complex_deletion);
  std::vector<FoldCell*>& cells = cells_;
  cells.clear();
  for (FoldColumn* version : versions) {
    for (FoldCell& cell : version->cells) cells.push_back(&cell);
  }
  const CqlType& type = *schema_.columns[column].type;
  std::stable_sort(cells.begin(), cells.end(), [&type](const FoldCell* a, const FoldCell* b) {
    return CompareCellPaths(type, a->path, b->path) < 0;
  });
  size_t kept = 0;
  for (size_t i = 0; i < cells.size();) {
    winner = cells[i];
    size_t j = i + 1;
    for (; j < cells.size() && CompareCellPaths(type, winner->path, cells[j]->path) == 0; ++j) {
      reconcile(*cells[j]);
    }
    if (!Deletes(effective, winner->timestamp) && winner->IsLive(now_)) {
      keep(*winner);
      if (kept == out->cells.size()) out->cells.emplace_back();
      out->cells[kept++] = *winner;
    }
    i = j;
  }
  out->cells.resize(kept);
  return kept > 0;
}

Result<std::unique_ptr<TableFold>> TableFold::Make(const TableSchema& schema, std::optional<Partitioner> partitioner,
                                                   std::vector<std::unique_ptr<FoldSource>> sources,
                                                   int64_t now_seconds, size_t rows_per_piece) {
  if (!partitioner && sources.size() > 1) {
    return Status::NotSupported(StrCat("cannot merge ", sources.size(), " generations of ", schema.keyspace, ".",
                                       schema.table, ": their partitioner's key order is not one CQLite knows "
                                       "(Murmur3Partitioner or RandomPartitioner)"));
  }
  return std::unique_ptr<TableFold>(
      new TableFold(schema, partitioner, std::move(sources), now_seconds, std::max<size_t>(rows_per_piece, 1)));
}

TableFold::TableFold(const TableSchema& schema, std::optional<Partitioner> partitioner,
                     std::vector<std::unique_ptr<FoldSource>> sources, int64_t now_seconds, size_t rows_per_piece)
    : partitioner_(partitioner), folder_(schema, now_seconds), rows_per_piece_(rows_per_piece) {
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
    for (size_t i = 0; i < count; ++i) {
      if (!cursor.versions[i].complete) {
        return Status::NotSupported(StrCat(cursor.source->name(), ": a source that repeats partitions handed on a piece"));
      }
    }
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

Status TableFold::Start() {
  if (started_) return Status::OK();
  started_ = true;
  for (Cursor& cursor : cursors_) RETURN_IF_ERROR(Advance(cursor));
  return Status::OK();
}

bool TableFold::StartPartition() {
  equal_.clear();
  for (Cursor& cursor : cursors_) {
    if (cursor.count == 0) continue;
    if (equal_.empty()) {
      equal_.push_back(&cursor);
      continue;
    }
    // A single source (the only case without a partitioner) needs no comparison.
    auto order = ComparePartitionKeys(*partitioner_, cursor.versions[0].key, equal_.front()->versions[0].key);
    if (order == std::strong_ordering::less) equal_.clear();
    if (order != std::strong_ordering::greater) equal_.push_back(&cursor);
  }
  if (equal_.empty()) return false;
  versions_.clear();
  version_cursor_.clear();
  for (Cursor* cursor : equal_) {
    for (size_t i = 0; i < cursor->count; ++i) {
      versions_.push_back(&cursor->versions[i]);
      version_cursor_.push_back(cursor);
    }
  }
  in_partition_ = true;
  return true;
}

Status TableFold::Refill() {
  for (size_t v = 0; v < versions_.size(); ++v) {
    while (folder_.NeedsMore(v)) {
      RETURN_IF_ERROR(version_cursor_[v]->source->More(versions_[v]));
      folder_.Refilled(v);
    }
  }
  return Status::OK();
}

Status TableFold::EndPartition() {
  in_partition_ = false;
  for (Cursor* cursor : equal_) RETURN_IF_ERROR(Advance(*cursor));
  return Status::OK();
}

Result<bool> TableFold::Next(FoldedPartition* out) {
  RETURN_IF_ERROR(Start());
  while (true) {
    if (!in_partition_) {
      if (!StartPartition()) return false;
      folder_.Begin(versions_, out);
      rows_handed_on_ = false;
      first_piece_ = true;
    } else {
      out->key = head_.key;
      out->has_static_row = head_.has_static_row;
      out->static_row = head_.static_row;
      folder_.RecycleRows(&out->rows);
    }
    // Fold until a piece's worth of rows, or the end of the partition.
    do {
      RETURN_IF_ERROR(Refill());
      folder_.FoldReady(out);
    } while (!folder_.Done() && out->rows.size() < rows_per_piece_);
    const bool done = folder_.Done();
    if (done) {
      RETURN_IF_ERROR(EndPartition());
    } else if (first_piece_) {
      // Later pieces repeat the key and static row.
      head_.key = out->key;
      head_.has_static_row = out->has_static_row;
      head_.static_row = out->static_row;
    }
    first_piece_ = false;
    if (!out->rows.empty()) {
      rows_handed_on_ = true;
      return true;
    }
    if (done && !rows_handed_on_ && out->has_static_row) return true;
  }
}

Result<bool> TableFold::NextMerged(FoldPartition* out) {
  RETURN_IF_ERROR(Start());
  if (!in_partition_) {
    if (!StartPartition()) return false;
    folder_.BeginMerge(versions_, out);
  } else {
    out->ClearItems();
  }
  do {
    RETURN_IF_ERROR(Refill());
    folder_.MergeReady(out);
  } while (!folder_.Done() && out->item_is_marker.size() < rows_per_piece_);
  out->complete = folder_.Done();
  if (out->complete) RETURN_IF_ERROR(EndPartition());
  return true;
}

}  // namespace cqlite

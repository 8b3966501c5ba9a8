#include "fold/schema_projection.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace cqlite {

namespace {

struct Target {
  int column = -1;  // in the current schema; -1: left out
  // Cells written at or before this time belong to a dropped incarnation.
  int64_t dropped_at = std::numeric_limits<int64_t>::min();
};

std::vector<Target> MapColumns(const TableSchema& from, const TableSchema& to) {
  std::vector<Target> targets(from.columns.size());
  for (size_t i = 0; i < from.columns.size(); ++i) {
    const ColumnSchema& column = from.columns[i];
    if (column.kind == ColumnKind::kPartitionKey || column.kind == ColumnKind::kClustering) continue;
    for (size_t j = 0; j < to.columns.size(); ++j) {
      if (to.columns[j].name == column.name && to.columns[j].kind == column.kind) targets[i].column = static_cast<int>(j);
    }
    targets[i].dropped_at = to.LastDropMicros(column.name);
  }
  return targets;
}

class ProjectedSource final : public FoldSource {
 public:
  ProjectedSource(std::unique_ptr<FoldSource> source, std::shared_ptr<const TableSchema> written_with,
                  std::shared_ptr<const TableSchema> now)
      : source_(std::move(source)),
        written_with_(std::move(written_with)),
        now_(std::move(now)),
        targets_(MapColumns(*written_with_, *now_)) {}

  Result<bool> Next(FoldPartition* partition) override { return Projected(source_->Next(partition), partition); }
  Status More(FoldPartition* partition) override {
    RETURN_IF_ERROR(source_->More(partition));
    Project(partition);
    return Status::OK();
  }
  Status SkipRest(FoldPartition* partition) override { return source_->SkipRest(partition); }
  Result<bool> NextNotSkipped(FoldPartition* partition, const KeyTest& skip) override {
    return Projected(source_->NextNotSkipped(partition, skip), partition);
  }
  void PassOverRowsNotWanted(const RowTest* wanted) override { source_->PassOverRowsNotWanted(wanted); }
  const std::string& name() const override { return source_->name(); }
  std::optional<PartitionKeySpan> key_span() const override { return source_->key_span(); }
  bool repeats_partitions() const override { return source_->repeats_partitions(); }

 private:
  Result<bool> Projected(Result<bool> more, FoldPartition* partition) {
    if (more.ok() && *more) Project(partition);
    return more;
  }

  void Project(FoldPartition* partition) {
    if (partition->has_static_row) ProjectRow(&partition->static_row);
    for (FoldRow& row : partition->rows) ProjectRow(&row);
  }

  void ProjectRow(FoldRow* row) {
    std::vector<FoldColumn> kept;
    kept.reserve(row->columns.size());
    for (FoldColumn& column : row->columns) {
      const Target& target = targets_.at(column.column);
      if (target.column < 0) continue;
      column.column = target.column;
      std::erase_if(column.cells, [&](const FoldCell& cell) { return cell.timestamp <= target.dropped_at; });
      if (column.complex_deletion.marked_for_delete_at <= target.dropped_at) column.complex_deletion = DeletionTime{};
      if (column.cells.empty() && column.complex_deletion.IsLive()) continue;
      kept.push_back(std::move(column));
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const FoldColumn& a, const FoldColumn& b) { return a.column < b.column; });
    row->columns = std::move(kept);
  }

  std::unique_ptr<FoldSource> source_;
  std::shared_ptr<const TableSchema> written_with_;
  std::shared_ptr<const TableSchema> now_;
  std::vector<Target> targets_;
};

}  // namespace

bool NeedsProjection(const TableSchema& written_with, const TableSchema& now) {
  std::vector<Target> targets = MapColumns(written_with, now);
  int regular = 0;
  for (size_t i = 0; i < written_with.columns.size(); ++i) {
    const ColumnKind kind = written_with.columns[i].kind;
    if (kind == ColumnKind::kPartitionKey || kind == ColumnKind::kClustering) continue;
    ++regular;
    if (targets[i].column != static_cast<int>(i) ||
        targets[i].dropped_at != std::numeric_limits<int64_t>::min()) {
      return true;
    }
  }
  int now_regular = static_cast<int>(std::count_if(now.columns.begin(), now.columns.end(), [](const ColumnSchema& c) {
    return c.kind == ColumnKind::kStatic || c.kind == ColumnKind::kRegular;
  }));
  return regular != now_regular;
}

std::unique_ptr<FoldSource> ProjectToSchema(std::unique_ptr<FoldSource> source,
                                            std::shared_ptr<const TableSchema> written_with,
                                            std::shared_ptr<const TableSchema> now) {
  return std::make_unique<ProjectedSource>(std::move(source), std::move(written_with), std::move(now));
}

}  // namespace cqlite

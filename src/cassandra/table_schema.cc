#include "cassandra/table_schema.h"

#include <algorithm>
#include <limits>

namespace cqlite {

const char* ColumnKindName(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kPartitionKey:
      return "partition_key";
    case ColumnKind::kClustering:
      return "clustering";
    case ColumnKind::kStatic:
      return "static";
    case ColumnKind::kRegular:
      return "regular";
  }
  return "unknown";
}

int64_t TableSchema::LastDropMicros(std::string_view name) const {
  int64_t last = std::numeric_limits<int64_t>::min();
  for (const DroppedColumnSchema& dropped : dropped_columns) {
    if (dropped.name == name) last = std::max(last, dropped.drop_time_micros);
  }
  return last;
}

const ColumnSchema* TableSchema::FindColumn(std::string_view name) const {
  for (const auto& column : columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

namespace {
std::vector<const ColumnSchema*> ColumnsOfKind(const std::vector<ColumnSchema>& columns, ColumnKind kind) {
  std::vector<const ColumnSchema*> out;
  for (const auto& column : columns) {
    if (column.kind == kind) out.push_back(&column);
  }
  return out;
}
}  // namespace

std::vector<const ColumnSchema*> TableSchema::PartitionKeyColumns() const {
  return ColumnsOfKind(columns, ColumnKind::kPartitionKey);
}

std::vector<const ColumnSchema*> TableSchema::ClusteringColumns() const {
  return ColumnsOfKind(columns, ColumnKind::kClustering);
}

CqlTypePtr TableSchema::PartitionKeyType() const {
  auto keys = PartitionKeyColumns();
  if (keys.empty()) return nullptr;
  if (keys.size() == 1) return keys[0]->type;
  auto composite = std::make_shared<CqlType>();
  composite->kind = CqlKind::kComposite;
  for (const auto* key : keys) composite->params.push_back(key->type);
  return composite;
}

}  // namespace cqlite

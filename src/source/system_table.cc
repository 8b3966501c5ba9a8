#include "source/system_table.h"

#include <chrono>
#include <memory>
#include <thread>

#include "cassandra/sstable.h"
#include "cassandra/value_format.h"
#include "fold/result_values.h"
#include "fold/sstable_source.h"
#include "fold/table_fold.h"
#include "source/schema_source.h"
#include "util/strings.h"

namespace cqlite {

std::optional<std::string> SystemTable::Value(const SystemRow& row, const std::string& name) const {
  const ColumnSchema* column = schema.FindColumn(name);
  if (!column) return std::nullopt;
  return ColumnValue(schema, static_cast<int>(column - schema.columns.data()), &row.row);
}

Result<std::string> SystemTable::Text(const SystemRow& row, const std::string& name) const {
  std::optional<std::string> bytes = Value(row, name);
  if (!bytes) return std::string();
  Result<std::string> text = ValueToString(*schema.FindColumn(name)->type, *bytes);
  if (!text.ok()) return text.status().WithContext(StrCat(path, ": column ", name));
  return text;
}

Result<std::vector<std::string>> SystemTable::Elements(const SystemRow& row, const std::string& name,
                                                       size_t per_entry) const {
  std::vector<std::string> out;
  std::optional<std::string> bytes = Value(row, name);
  if (!bytes) return out;
  Result<std::vector<ValuePart>> parts = SplitCollection(*bytes, per_entry);
  if (!parts.ok()) return parts.status().WithContext(StrCat(path, ": column ", name));
  for (const ValuePart& part : *parts) out.emplace_back(part.bytes);
  return out;
}

namespace {

Result<SystemTable> ReadOnce(FileSystem& fs, const std::string& dir, int64_t now_seconds) {
  SystemTable out;
  out.path = dir;
  ASSIGN_OR_RETURN(std::vector<SSTableLocation> locations, FindSSTables(fs, dir));
  std::vector<std::unique_ptr<SSTable>> sstables;
  for (const SSTableLocation& location : locations) {
    if (location.directory != dir) continue;  // not snapshots or backups below it
    ASSIGN_OR_RETURN(auto sstable, SSTable::Open(fs, location));
    if (sstables.empty()) {
      out.schema = SchemaFromHeader(sstable->header(), location.keyspace, location.table);
    } else {
      AddColumnsFromHeader(sstable->header(), &out.schema);
    }
    sstables.push_back(std::move(sstable));
  }
  if (sstables.empty()) return out;
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (auto& sstable : sstables) {
    sstable->UseSchema(out.schema);
    ASSIGN_OR_RETURN(auto source, OpenSSTableFoldSource(*sstable, out.schema));
    sources.push_back(std::move(source));
  }
  ASSIGN_OR_RETURN(auto fold, TableFold::Make(out.schema, sstables.front()->Partitioner(), std::move(sources),
                                              now_seconds));
  CqlTypePtr key_type = out.schema.PartitionKeyType();
  std::vector<const ColumnSchema*> key_columns = out.schema.PartitionKeyColumns();
  FoldedPartition partition;
  while (true) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    ASSIGN_OR_RETURN(auto key_parts, SplitPartitionKey(*key_type, partition.key));
    std::vector<std::string> key;
    for (size_t i = 0; i < key_parts.size() && i < key_columns.size(); ++i) {
      ASSIGN_OR_RETURN(std::string text, ValueToString(*key_columns[i]->type, key_parts[i]));
      key.push_back(std::move(text));
    }
    for (FoldRow& row : partition.rows) out.rows.push_back({key, std::move(row)});
  }
  return out;
}

}  // namespace

Result<SystemTable> ReadSystemTableDirectory(FileSystem& fs, const std::string& dir, int64_t now_seconds) {
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    Result<SystemTable> table = ReadOnce(fs, dir, now_seconds);
    if (table.ok() || table.status().kind() != StatusKind::kNotFound || attempt == kAttempts) return table;
    // (A compacted SSTable's components are removed one after another.)
    std::this_thread::sleep_for(std::chrono::milliseconds(25 << attempt));
  }
}

}  // namespace cqlite
